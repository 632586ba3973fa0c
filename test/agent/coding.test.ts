/**
 * The built-in agent on coding tickets (a ticket with a `write_scope`): the request carries
 * the files its scope matches and the paths its dependencies changed; the model's whole-file
 * writes and deletions are applied to the workspace; a path that would leave it is refused
 * before anything is written; a path outside the scope is a scope breach the runner judges.
 * And the run's usage bound caps every request. Against a fake GitHub Models on 127.0.0.1.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/run.js";
import type { AttemptRecord } from "../../src/core/model.js";
import { buildContext } from "../../src/tickets/context.js";
import { parseTicket } from "../../src/tickets/parse.js";
import {
  answer,
  codingModels,
  contextOf,
  edits,
  FakeModels,
  type ModelRequest,
} from "../fake-models/server.js";
import {
  commitsOf,
  exampleRepo,
  git,
  readJson,
  repoWith,
  runHere,
  ticket,
} from "../local/git-repo.js";
import { CLI, makeGraph } from "../local/harness.js";

const models = new FakeModels();
beforeAll(async () => {
  await models.start();
  models.addToken("ghs_user");
  codingModels(models);
});
afterAll(() => models.stop());

/** The executor: the built CLI's agent, with the fake GitHub Models and its key. */
const agentExec = (model = "fake/coder") =>
  `FRONTIER_TEST_MODELS_URL=${models.baseUrl} GITHUB_TOKEN=ghs_user node ${CLI} agent --model ${model}`;

const requestsOf = (ticket: string) =>
  models.requests.filter((r) => /^Ticket `([^`]+)`/m.exec(contextOf(r))?.[1] === ticket);

describe("a chain of coding tickets run by the built-in agent, locally", () => {
  it("api → ui → docs: each in its own worktree, each request showing what its dependencies changed, three commits on frontier/<run>", async () => {
    const repo = exampleRepo();
    const ran = await runHere(repo.dir, agentExec());
    expect(ran.code, ran.stderr).toBe(0);
    const commits = commitsOf(repo.root, `${repo.start}..frontier/coding-graph`);
    expect(commits.map((c) => [c.ticket, c.paths])).toEqual([
      ["api", ["app/api/todos.js"]],
      ["ui", ["app/ui/list.js"]],
      ["docs", ["docs/todos.md"]],
    ]);
    expect(git(repo.root, "show", "frontier/coding-graph:docs/todos.md")).toContain("renderList");
    // the user's own tree is untouched
    expect(existsSync(join(repo.root, "app", "api", "todos.js"))).toBe(false);

    const [api] = requestsOf("api");
    // a coding request: the writes in its schema and its instructions, the scope in its message
    expect(JSON.stringify(api?.response_format?.json_schema?.schema)).toContain('"writes"');
    expect(api?.messages[0]?.content).toContain('"writes": [{"path": string');
    expect(contextOf(api!)).toMatch(
      /Write scope: `app\/api\/\*\*`[^\n]*\n\n\(no file matches it yet\)/,
    );
    // the docs ticket was told which paths each dependency changed
    const docs = contextOf(requestsOf("docs")[0]!);
    expect(docs).toMatch(
      /### api: The todo API \(complete\)\n\nAdded the todo API\.\n\nChanged: app\/api\/todos\.js/,
    );
    expect(docs).toMatch(/### ui: [^\n]*\n\nAdded the list\.\n\nChanged: app\/ui\/list\.js/);
  });

  it("an edit outside the scope fails the attempt naming the path; `..` and absolute paths write nothing anywhere", async () => {
    const outside = mkdtempSync(join(tmpdir(), "frontier-outside-"));
    const absolute = join(outside, "abs.txt");
    const repo = repoWith({
      "README.md": "# widgets\n",
      "tickets/frontier.yml": "run: escapes\nisolation: worktree\nmax_parallel: 1\n",
      "tickets/stray.md": ticket({ write_scope: ["app/**"] }, "write: app/ok.js\nwrite: README.md"),
      "tickets/climb.md": ticket(
        { write_scope: ["app/**"] },
        "write: app/ok.js\nwrite: ../escaped.txt\nwrite: app/../../escaped.txt",
      ),
      "tickets/abs.md": ticket({ write_scope: ["app/**"] }, `write: app/ok.js\nwrite: ${absolute}`),
    });
    const ran = await runHere(repo.dir, agentExec());
    expect(ran.code).toBe(1);
    const attempt = (id: string) =>
      readJson<AttemptRecord>(join(repo.dir, ".frontier", "attempts", `${id}@1.json`));

    expect(attempt("stray").outcome).toBe("failed");
    expect(attempt("stray").reason).toMatch(/^scope-breach: .*README\.md/);
    expect(attempt("stray").reason).not.toContain("app/ok.js");

    expect(attempt("climb").reason).toMatch(
      /^the model's answer writes outside the workspace or where no change is taken, so none of it was written: "\.\.\/escaped\.txt" \(it climbs out of the workspace with \.\.\), "app\/\.\.\/\.\.\/escaped\.txt"/,
    );
    expect(attempt("abs").reason).toContain(`"${absolute}" (an absolute path)`);
    // nothing written: no change recorded (its in-scope write neither), nothing outside
    for (const id of ["climb", "abs"]) expect(attempt(id).changes).toBeUndefined();
    expect(existsSync(absolute)).toBe(false);
    const worktrees = join(repo.root, ".git", "frontier", "worktrees");
    const found = git(repo.root, "ls-files", "--others", "--", ".").split("\n");
    expect(found.filter((f) => f.includes("escaped"))).toEqual([]);
    expect(existsSync(join(dirname(worktrees), "escaped.txt"))).toBe(false);
    for (const dir of git(repo.root, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "))
      .map((l) => l.slice(9)))
      expect(existsSync(join(dirname(dir), "escaped.txt")), dir).toBe(false);
  });

  it("a write into the ticket directory's .frontier/ (the run's records, never a change) refuses the answer: no attempt claims work that was dropped", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: records\nisolation: worktree\n",
      "tickets/rec.md": ticket(
        { write_scope: ["tickets/**"] },
        "write: tickets/notes.md\nwrite: tickets/.frontier/x.md",
      ),
    });
    const ran = await runHere(repo.dir, agentExec());
    expect(ran.code).toBe(1);
    const attempt = readJson<AttemptRecord>(join(repo.dir, ".frontier", "attempts", "rec@1.json"));
    expect(attempt.outcome).toBe("failed");
    expect(attempt.reason).toMatch(
      /none of it was written: "tickets\/\.frontier\/x\.md" \(inside a run's \.frontier\)/,
    );
    expect(attempt.changes).toBeUndefined();
    expect(git(repo.root, "rev-parse", "frontier/records")).toBe(repo.start);
  });

  it("a write to a path the repository ignores (never a change: the runner drops it) refuses the answer: no attempt claims work that was dropped", async () => {
    const repo = repoWith({
      ".gitignore": "dist/\n",
      "tickets/frontier.yml": "run: ignored\nisolation: worktree\n",
      "tickets/build.md": ticket({ write_scope: ["**"] }, "write: app/ok.js\nwrite: dist/app.js"),
    });
    const ran = await runHere(repo.dir, agentExec());
    expect(ran.code).toBe(1);
    const attempt = readJson<AttemptRecord>(
      join(repo.dir, ".frontier", "attempts", "build@1.json"),
    );
    expect(attempt.outcome).toBe("failed");
    expect(attempt.reason).toMatch(
      /none of it was written: "dist\/app\.js" \(git ignores it: never a change/,
    );
    expect(attempt.changes).toBeUndefined();
    expect(git(repo.root, "rev-parse", "frontier/ignored")).toBe(repo.start);
  });
});

/** One attempt of `frontier agent` in process, in `cwd`, for a ticket file with `front`. */
async function attemptIn(
  cwd: string,
  front: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const scratch = mkdtempSync(join(tmpdir(), "frontier-coding-"));
  const text = ticket({ model: "fake/edit", ...front }, "Change it.");
  const parsed = parseTicket(text, "t.md", 0);
  if (parsed.kind !== "ok") throw new Error("bad ticket");
  writeFileSync(join(scratch, "t.md"), text);
  writeFileSync(
    join(scratch, "context.md"),
    buildContext({ spec: parsed.spec, run: "r", inputs: [], answers: [], attempt: 1 }),
  );
  const out = join(scratch, "outcome.json");
  await runAgent(
    {},
    {
      env: {
        FRONTIER_CONTEXT_FILE: join(scratch, "context.md"),
        FRONTIER_OUTCOME_FILE: out,
        FRONTIER_TICKET_FILE: join(scratch, "t.md"),
        FRONTIER_TEST_MODELS_URL: models.baseUrl,
        GITHUB_TOKEN: "ghs_user",
        ...env,
      },
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      cwd,
    },
    { startedAt: Date.now() },
  );
  return JSON.parse(readFileSync(out, "utf8")) as Record<string, unknown>;
}

describe("what a coding request carries, and what its answer may write", () => {
  let reply: (req: ModelRequest) => ReturnType<typeof answer> = () => answer({ status: "empty" });
  beforeAll(() => {
    models.model("fake/edit", (req) => reply(req));
  });
  const last = () => models.requestsFor("fake/edit").at(-1)!;

  it("the files its scope matches, whole, within a cap; the rest named with their sizes; never a symlink's target or a file outside the scope", async () => {
    const secret = join(mkdtempSync(join(tmpdir(), "frontier-secret-")), "secret.txt");
    writeFileSync(secret, "TOP SECRET\n");
    const repo = repoWith({
      "app/a.js": "export const a = 1;\n",
      "app/b.md": "```js\nx\n```\n",
      "app/big.js": `${"x".repeat(20_000)}\n`,
      "other/c.js": "export const c = 3;\n",
    });
    symlinkSync(secret, join(repo.root, "app", "link.txt"));
    writeFileSync(join(repo.root, "app", "new.js"), "untracked\n");
    await attemptIn(repo.root, { write_scope: ["app/**"] });
    const sent = contextOf(last());
    expect(sent).toContain("### app/a.js\n\n```\nexport const a = 1;\n```");
    // a fence longer than any inside the file
    expect(sent).toContain("### app/b.md\n\n````\n```js\nx\n```\n````");
    expect(sent).toContain("### app/new.js");
    expect(sent).toMatch(/Not shown \(past the 16384 bytes[^\n]*\n- app\/big\.js \(20001 bytes\)/);
    expect(sent).not.toContain("TOP SECRET");
    expect(sent).not.toContain("other/c.js");
  });

  it("writes and deletions are applied in the workspace, from a subdirectory too; a result names them when the model gave none", async () => {
    const repo = repoWith({ "app/old.js": "old\n", "app/keep.js": "keep\n" });
    mkdirSync(join(repo.root, "app", "deep"));
    reply = () =>
      answer({
        status: "complete",
        result: null,
        writes: [{ path: "app/deep/new.js", content: "new\n" }],
        deletes: ["app/old.js"],
      });
    const outcome = await attemptIn(join(repo.root, "app", "deep"), { write_scope: ["app/**"] });
    expect(outcome).toMatchObject({
      status: "complete",
      result: "Changed app/deep/new.js, app/old.js.",
    });
    expect(readFileSync(join(repo.root, "app", "deep", "new.js"), "utf8")).toBe("new\n");
    expect(existsSync(join(repo.root, "app", "old.js"))).toBe(false);
    expect(outcome).not.toHaveProperty("edits");
  });

  it("an answer that changes nothing on disk names no change: a file rewritten as it was, or written and then deleted, is an empty attempt, never done", async () => {
    const repo = repoWith({
      "app/a.js": "a\n",
      "tickets/frontier.yml": "run: same\nisolation: worktree\n",
      "tickets/t.md": ticket({ model: "fake/edit", write_scope: ["app/**"] }),
    });
    reply = () =>
      answer({
        status: "complete",
        writes: [
          { path: "app/a.js", content: "a\n" },
          { path: "app/b.js", content: "b\n" },
        ],
        deletes: ["app/b.js"],
      });
    const ran = await runHere(
      repo.dir,
      `FRONTIER_TEST_MODELS_URL=${models.baseUrl} GITHUB_TOKEN=ghs_user node ${CLI} agent`,
    );
    const attempt = readJson<AttemptRecord>(join(repo.dir, ".frontier", "attempts", "t@1.json"));
    expect(attempt.outcome).toBe("empty");
    expect(attempt.result_file).toBeUndefined();
    expect(ran.stderr).toContain("empty");
    expect(git(repo.root, "rev-parse", "frontier/same")).toBe(repo.start);
    // a write and a deletion that did change something are named once each
    reply = () =>
      answer({
        status: "complete",
        writes: [
          { path: "app/c.js", content: "1\n" },
          { path: "app/c.js", content: "2\n" },
        ],
        deletes: ["app/a.js"],
      });
    expect(await attemptIn(repo.root, { write_scope: ["app/**"] })).toMatchObject({
      status: "complete",
      result: "Changed app/c.js, app/a.js.",
    });
  });

  it("a write through a symlink, into .git or the run's records, or to `..` refuses the whole answer: nothing is written anywhere", async () => {
    const outside = mkdtempSync(join(tmpdir(), "frontier-outside-"));
    const repo = repoWith({ "app/a.js": "a\n" });
    symlinkSync(outside, join(repo.root, "app", "out"));
    const cases: Array<[string, RegExp]> = [
      ["app/out/pwned.js", /"app\/out\/pwned\.js" \(app\/out is a symlink\)/],
      [".git/hooks/pre-commit", /"\.git\/hooks\/pre-commit" \(inside \.git\)/],
      ["app/../../x.js", /"app\/\.\.\/\.\.\/x\.js" \(it climbs out of the workspace with \.\.\)/],
      ["app\\..\\..\\x.js", /it climbs out/],
      // a run's records, in any case (a case-blind disk writes them there)
      ["app/.Frontier/run.json", /"app\/\.Frontier\/run\.json" \(inside a run's \.frontier\)/],
    ];
    for (const [path, reason] of cases) {
      reply = () => edits("Did it.", { "app/a.js": "changed\n", [path]: "pwned\n" });
      const outcome = await attemptIn(repo.root, { write_scope: ["**"] });
      expect(outcome.status, path).toBe("failed");
      expect(outcome.reason, path).toMatch(reason);
      expect(outcome.usage, path).toMatchObject({ tokens: 400 });
    }
    expect(readFileSync(join(repo.root, "app", "a.js"), "utf8")).toBe("a\n");
    expect(existsSync(join(outside, "pwned.js"))).toBe(false);
    expect(existsSync(join(dirname(repo.root), "x.js"))).toBe(false);
    expect(git(repo.root, "status", "--porcelain")).toBe("?? app/out");
  });

  it("a .gitignore the answer writes that ignores another of its files: refused and all of it undone, not a done attempt whose work is dropped", async () => {
    const repo = repoWith({
      "app/a.js": "a\n",
      "app/run.sh": "run\n",
      ".gitignore": "node_modules/\n",
    });
    chmodSync(join(repo.root, "app", "run.sh"), 0o755);
    reply = () =>
      answer({
        status: "complete",
        result: "Built it, and ignored build/.",
        writes: [
          { path: "app/a.js", content: "changed\n" },
          { path: ".gitignore", content: "node_modules/\nbuild/\n" },
          { path: "build/out.js", content: "the work\n" },
        ],
        deletes: ["app/run.sh"],
      });
    const outcome = await attemptIn(repo.root, { write_scope: ["**"] });
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toMatch(/none of it was written: "build\/out\.js" \(git ignores it/);
    expect(readFileSync(join(repo.root, ".gitignore"), "utf8")).toBe("node_modules/\n");
    expect(readFileSync(join(repo.root, "app", "a.js"), "utf8")).toBe("a\n");
    expect(existsSync(join(repo.root, "build", "out.js"))).toBe(false);
    expect(statSync(join(repo.root, "app", "run.sh")).mode & 0o777).toBe(0o755);
  });

  it("a backslash in a path refuses the answer: a symlink whose name holds one is never written through", async () => {
    const outside = mkdtempSync(join(tmpdir(), "frontier-outside-"));
    const repo = repoWith({ "app/a.js": "a\n" });
    symlinkSync(outside, join(repo.root, "app\\out"));
    reply = () => edits("Did it.", { "app/a.js": "changed\n", "app\\out/pwned.js": "pwned\n" });
    const outcome = await attemptIn(repo.root, { write_scope: ["**"] });
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toContain(
      '"app\\\\out/pwned.js" (a backslash: write / between directories)',
    );
    expect(existsSync(join(outside, "pwned.js"))).toBe(false);
    expect(readFileSync(join(repo.root, "app", "a.js"), "utf8")).toBe("a\n");
  });

  it("a path git would read as pathspec magic (`:!notes.txt`) never lets an ignored one through: the answer is refused", async () => {
    const repo = repoWith({ ".gitignore": "dist/\n", "app/a.js": "a\n" });
    reply = () => edits("Built it.", { ":!notes.txt": "notes\n", "dist/app.js": "the work\n" });
    const outcome = await attemptIn(repo.root, { write_scope: ["**"] });
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toMatch(/none of it was written: "dist\/app\.js" \(git ignores it/);
    expect(existsSync(join(repo.root, ":!notes.txt"))).toBe(false);
  });

  it("a path that names a directory (a trailing slash) refuses the whole answer before anything is written", async () => {
    const repo = repoWith({ "app/a.js": "a\n" });
    for (const path of ["app/new.js/", "app/a.js/", "app\\b.js\\"]) {
      reply = () => edits("Did it.", { "app/a.js": "changed\n", [path]: "x\n" });
      const outcome = await attemptIn(repo.root, { write_scope: ["**"] });
      expect(outcome.status, path).toBe("failed");
      expect(outcome.reason, path).toContain(`${JSON.stringify(path)} (not a file's path)`);
    }
    expect(readFileSync(join(repo.root, "app", "a.js"), "utf8")).toBe("a\n");
    expect(git(repo.root, "status", "--porcelain")).toBe("");
  });

  it("a file whose text holds the key's letters is written as the model sent it; the result never shows the key", async () => {
    const repo = repoWith({ "app/a.js": "a\n" });
    // the fake's key is ghs_user: a word a program may well hold
    const code = "const ghs_user = process.env.GHS_USER;\nexport { ghs_user };\n";
    reply = () =>
      answer({
        status: "complete",
        result: "Read ghs_user.",
        writes: [{ path: "app/a.js", content: code }],
        deletes: [],
      });
    const outcome = await attemptIn(repo.root, { write_scope: ["app/**"] });
    expect(outcome).toMatchObject({ status: "complete", result: "Read ***." });
    expect(readFileSync(join(repo.root, "app", "a.js"), "utf8")).toBe(code);
  });

  it("a path too long to write, or a thousand refused, is a reason of a few lines that names them, never one past max_result_bytes", async () => {
    const repo = repoWith({ "app/a.js": "a\n" });
    const long = `app/${"n".repeat(1_100_000)}.js`;
    reply = () => edits("Did it.", { [long]: "x\n" });
    let outcome = await attemptIn(repo.root, { write_scope: ["**"] });
    expect(outcome.reason).toMatch(/^could not write app\/n{190,}… in .* \(ENAMETOOLONG\)/);
    expect(String(outcome.reason).length).toBeLessThan(1000);
    const climbs = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`../x${i}.js`, ""]));
    reply = () => edits("Did it.", climbs);
    outcome = await attemptIn(repo.root, { write_scope: ["**"] });
    expect(outcome.reason).toMatch(/"\.\.\/x19\.js" \(it climbs[^"]* and 980 more — paths are/);
    expect(String(outcome.reason).length).toBeLessThan(2000);
    expect(git(repo.root, "status", "--porcelain")).toBe("");
    // a thousand files written with no result: the result names twenty of them
    const many = Array.from({ length: 1000 }, (_, i) => ({ path: `app/f${i}.js`, content: "f\n" }));
    reply = () => answer({ status: "complete", result: null, writes: many, deletes: [] });
    outcome = await attemptIn(repo.root, { write_scope: ["**"] });
    expect(outcome.result).toMatch(
      /^Changed app\/f0\.js, app\/f1\.js, .*app\/f19\.js and 980 more\.$/,
    );
  });

  it("a ticket without write_scope is asked for an outcome only; edits its model sends anyway are never applied", async () => {
    const repo = repoWith({ "app/a.js": "a\n" });
    reply = () => edits("Did it.", { "app/a.js": "changed\n" });
    const outcome = await attemptIn(repo.root, {});
    expect(outcome).toEqual({
      status: "complete",
      result: "Did it.",
      usage: { tokens: 400, prompt_tokens: 300, completion_tokens: 100 },
    });
    expect(JSON.stringify(last().response_format)).not.toContain("writes");
    expect(readFileSync(join(repo.root, "app", "a.js"), "utf8")).toBe("a\n");
  });
});

describe("requests fit the run's usage bound", () => {
  it("a local run bounded to 1,000 tokens: each request asks for at most what is left, and none is sent once it is spent", async () => {
    models.model("fake/spend", () =>
      answer(
        { status: "complete", result: "done" },
        { prompt_tokens: 300, completion_tokens: 100 },
      ),
    );
    const g = makeGraph(
      {
        a: { model: "fake/spend" },
        b: { model: "fake/spend", depends_on: ["a"] },
        c: { model: "fake/spend", depends_on: ["b"] },
        d: { model: "fake/spend", depends_on: ["c"] },
      },
      { run: "bounded", bound: { usage: { tokens: 1000 } } },
    );
    const ran = await runHere(g.dir, agentExec("fake/spend"));
    expect(ran.code, ran.stderr).toBe(4);
    expect(models.requestsFor("fake/spend").map((r) => r.body.max_tokens)).toEqual([
      1000, 600, 200,
    ]);
  });

  it("max_tokens is what the bound has left; without a bound none is asked; a spent bound sends no request", async () => {
    const repo = repoWith({ "a.txt": "a\n" });
    const count = () => models.requestsFor("fake/edit").length;
    await attemptIn(
      repo.root,
      {},
      { FRONTIER_RUN_BOUND: "dispatches=3 usage.tokens=517.5 usage.cost_usd=1" },
    );
    expect(models.requestsFor("fake/edit").at(-1)?.body.max_tokens).toBe(517);
    await attemptIn(repo.root, {});
    expect(models.requestsFor("fake/edit").at(-1)?.body).not.toHaveProperty("max_tokens");
    const before = count();
    for (const spent of ["usage.tokens=0", "usage.tokens=0.5"]) {
      const outcome = await attemptIn(
        repo.root,
        { write_scope: ["**"] },
        { FRONTIER_RUN_BOUND: spent },
      );
      expect(outcome).toEqual({
        status: "limited",
        reason: expect.stringMatching(
          /^the run's usage bound has no tokens left .*no request was sent/,
        ),
      });
    }
    expect(count()).toBe(before);
  });

  it("a model that takes only max_completion_tokens is asked again with it", async () => {
    const repo = repoWith({ "a.txt": "a\n" });
    models.model("fake/reasoning", (req) =>
      req.body.max_tokens !== undefined
        ? {
            kind: "error",
            status: 400,
            body: {
              error: {
                message:
                  "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
              },
            },
          }
        : answer({ status: "complete", result: "ok" }),
    );
    const outcome = await attemptIn(
      repo.root,
      { model: "fake/reasoning" },
      { FRONTIER_RUN_BOUND: "usage.tokens=900" },
    );
    expect(outcome.status).toBe("complete");
    expect(models.requestsFor("fake/reasoning").map((r) => r.body.max_completion_tokens)).toEqual([
      undefined,
      900,
    ]);
  });
});
