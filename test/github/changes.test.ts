/**
 * A ticket's changes on GitHub (SPEC §4b), in process: each orch-task job checks out the
 * commit that recorded its claim as a real git work tree, its agent edits files there,
 * and the settle step's code (collectJobChanges, then advance) records them — one commit
 * per ticket attempt with its outcome, or a failure that integrates nothing.
 */

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { advance } from "../../src/github/advance.js";
import { restStore } from "../../src/github/branch.js";
import {
  collectJobChanges,
  type JobChanges,
  nameCommits,
  uploadChanges,
} from "../../src/github/changes.js";
import { advanceOnly } from "../../src/github/events.js";
import { Checkout } from "../../src/github/source.js";
import { renderHtml } from "../../src/report/html.js";
import type { FakeRun } from "../fake-github/server.js";
import { checkoutCommit } from "../support/git-checkout.js";
import { makeWorld, runContext, stateOf, type World } from "./harness.js";

let world: World | undefined;
const scratch: string[] = [];
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.cleanup();
  world = undefined;
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

const scoped = (id: string, scope: string[], deps: string[] = []): [string, string] => [
  `${id}.md`,
  `---\n${deps.length ? `depends_on: [${deps.join(", ")}]\n` : ""}write_scope: [${scope.map((s) => JSON.stringify(s)).join(", ")}]\n---\n\n# ${id} work\n\nDo ${id}.\n`,
];

interface Attempt {
  outcome?: string;
  reason?: string;
  result_file?: string;
  changes?: {
    start: string;
    verdict: string;
    paths: Array<{ path: string; status: string; mode?: string; blob?: string }>;
    commit?: string;
    patch_file?: string;
  };
}
type State = { tickets: Record<string, { status: string; attempts: Attempt[] }> };

/** The orch-task run dispatched for `ticket` (its newest). */
function runOf(w: World, ticket: string): FakeRun {
  const runs = w.fake.allRuns().filter((r) => r.inputs.ticket === ticket);
  const run = runs[runs.length - 1];
  if (!run) throw new Error(`${ticket} was not dispatched`);
  return run;
}

/**
 * One orch-task job: a checkout of the dispatch's `ref`, the agent's edits, then the
 * settle step (changes collected against the checkout's HEAD, blobs uploaded, advance).
 */
async function job(
  w: World,
  ticket: string,
  agent: (ws: string) => void | Promise<void>,
  outcome: { outcome: "complete" | "failed" | "empty"; result?: string } = {
    outcome: "complete",
    result: `${ticket} done`,
  },
  over: Parameters<typeof runContext>[1] = {},
) {
  const run = runOf(w, ticket);
  const ref = run.inputs.ref as string;
  const ws = await checkoutCommit(
    w.repo,
    ref,
    mkdtempSync(join(tmpdir(), `frontier-job-${ticket}-`)),
  );
  scratch.push(ws);
  await agent(ws);
  const changes = await collectJobChanges(ws, "tickets", { start: ref });
  if (!changes) throw new Error("the checkout is not a git work tree");
  await uploadChanges(w.gh, { owner: "acme", repo: "widgets" }, changes);
  const ctx = runContext(w, {
    checkout: new Checkout(ws, "tickets"),
    links: { repository: "https://github.com/acme/widgets" },
    ...over,
  });
  const settling = settleJob(ticket, Number(run.inputs.attempt), run, changes, outcome);
  const out = await advance(ctx, advanceOnly, `settle ${ticket}`, settling);
  return { out, ws, run, changes };
}

/** The settle step of `ticket`'s job as the action makes it: its outcome file, its changes. */
function settleJob(
  ticket: string,
  attempt: number,
  run: FakeRun,
  changes: JobChanges,
  outcome: { outcome: "complete" | "failed" | "empty"; result?: string },
) {
  const outcomeFile = join(mkdtempSync(join(tmpdir(), "frontier-outcome-")), "outcome.json");
  writeFileSync(outcomeFile, JSON.stringify({ status: outcome.outcome, result: outcome.result }));
  const claim = run.inputs.claim as string;
  const inputs = { outcomeFile, jobStatus: "success" };
  return { start: false, job: { ticket, attempt, claim, by: "job", changes, inputs } };
}

const write = (ws: string, path: string, content: string | Buffer) => {
  mkdirSync(dirname(join(ws, path)), { recursive: true });
  writeFileSync(join(ws, path), content);
};

/** The commits of the branch whose trailers name `ticket`. */
const commitsOf = (w: World, ticket: string) =>
  w.repo.log("main").filter((c) => new RegExp(`^Frontier-Ticket: ${ticket}$`, "m").test(c.message));

/** Paths a commit changed against its parent. */
function changedIn(w: World, sha: string): string[] {
  const c = w.repo.git.expect(sha, "commit");
  const now = w.repo.git.flatten(c.tree);
  const before = c.parents[0]
    ? w.repo.git.flatten(w.repo.git.expect(c.parents[0], "commit").tree)
    : new Map();
  const out: string[] = [];
  for (const [p, e] of now)
    if (before.get(p)?.sha !== e.sha || before.get(p)?.mode !== e.mode) out.push(p);
  for (const p of before.keys()) if (!now.has(p)) out.push(p);
  return out.filter((p) => !p.startsWith("tickets/")).sort();
}

describe("changes on GitHub: each ticket's changes are its own commit on the run's branch", () => {
  it("a chain of three: one commit per ticket with its outcome, and each dependent's checkout holds its dependencies' changes", async () => {
    world = await makeWorld(
      Object.fromEntries([
        scoped("api", ["src/api/**"]),
        scoped("ui", ["src/ui/**"], ["api"]),
        scoped("docs", ["docs/**"], ["ui"]),
      ]),
    );
    const w = world;
    const png = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x00, 0x80,
    ]);
    await advance(runContext(w), advanceOnly, "push");
    const api = await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "export const port = 8080;\n");
      write(ws, "src/api/logo.png", png);
    });
    expect(api.out.result.kind).toBe("ok");
    // the report shows what the ticket changed, linked to its commit
    const apiCommit = commitsOf(w, "api")[0]!.sha;
    expect(api.out.markdown).toContain(
      `[2 paths +1 −0](https://github.com/acme/widgets/commit/${apiCommit})`,
    );
    // the receipt names the run's branch and the commit, as the attempt's record does
    expect(api.out.receipt.branch).toMatchObject({
      name: runContext(w).branch,
      commits: [{ commit: apiCommit, ticket: "api", attempt: 1 }],
    });
    const html = renderHtml(api.out.receipt);
    expect(html).toContain("Changes of attempt 1: 2 paths · commit");
    expect(html).toContain(`/commit/${apiCommit}`);
    const ui = await job(w, "ui", (ws) => {
      // the dependency's changes are in this job's checkout
      expect(readFileSync(join(ws, "src/api/server.ts"), "utf8")).toBe(
        "export const port = 8080;\n",
      );
      write(ws, "src/ui/app.ts", "import { port } from '../api/server';\n");
    });
    expect(ui.out.result.kind).toBe("ok");
    await job(w, "docs", (ws) => {
      expect(readFileSync(join(ws, "src/ui/app.ts"), "utf8")).toContain("port");
      expect(readFileSync(join(ws, "src/api/logo.png"))).toEqual(png);
      write(ws, "docs/guide.md", "# Guide\n\nThe API listens on 8080.\n");
    });

    // one commit per ticket, holding its changes and its outcome
    for (const [ticket, paths] of [
      ["api", ["src/api/logo.png", "src/api/server.ts"]],
      ["ui", ["src/ui/app.ts"]],
      ["docs", ["docs/guide.md"]],
    ] as const) {
      const commits = commitsOf(w, ticket);
      expect(commits, ticket).toHaveLength(1);
      expect(commits[0]!.message).toMatch(new RegExp(`^${ticket}: ${ticket} work\\n`));
      expect(commits[0]!.message).toMatch(/^Frontier-Attempt: 1$/m);
      expect(changedIn(w, commits[0]!.sha)).toEqual([...paths]);
      // the outcome is in the same commit: the ticket's result file appears there
      expect(w.repo.readFile(`tickets/.frontier/results/${ticket}@1.md`, commits[0]!.sha)).toBe(
        `${ticket} done`,
      );
      expect(
        w.repo.readFile(`tickets/.frontier/results/${ticket}@1.md`, commits[0]!.parents[0]),
      ).toBeUndefined();
    }
    expect(w.repo.readBytes("src/api/logo.png", "main")).toEqual(png);
    const state = stateOf(w) as unknown as State;
    expect(state.tickets.docs?.status).toBe("complete");
    const apiChanges = state.tickets.api?.attempts[0]?.changes;
    expect(apiChanges).toMatchObject({ verdict: "integrated", start: api.run.inputs.ref });
    expect(apiChanges?.paths.map((p) => p.path)).toEqual(["src/api/logo.png", "src/api/server.ts"]);
    // a later commit named the commits of the attempts it found in the branch's history
    expect(apiChanges?.commit).toBe(commitsOf(w, "api")[0]!.sha);
    expect(state.tickets.ui?.attempts[0]?.changes?.commit).toBe(commitsOf(w, "ui")[0]!.sha);
    // the dependent was dispatched at the commit that recorded its claim: its dependency's
    expect(ui.run.inputs.ref).toBe(commitsOf(w, "api")[0]!.sha);
  });

  it("a path outside the write_scope is a scope breach: the attempt fails naming it, nothing lands, the patch is kept", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "ok\n");
      write(ws, "README.md", "# widgets, rewritten\n");
    });
    const state = stateOf(w) as unknown as State;
    const a = state.tickets.api?.attempts[0];
    expect(state.tickets.api?.status).toBe("failed");
    expect(a?.reason).toMatch(/^scope-breach: changed 1 path outside its write_scope: README\.md/);
    expect(a?.changes?.verdict).toBe("breach");
    // worded as the local runner words it: where the evidence is
    expect(a?.reason).toMatch(
      /the change is kept as evidence in \.frontier\/results\/api@1\.patch$/,
    );
    expect(a?.changes?.patch_file).toBe(".frontier/results/api@1.patch");
    expect(w.repo.readFile("README.md")).toBe("# widgets\n");
    expect(w.repo.readFile("src/api/server.ts")).toBeUndefined();
    expect(commitsOf(w, "api")).toHaveLength(0);
    const patch = w.repo.readFile(`tickets/${a?.changes?.patch_file}`);
    expect(patch).toContain("+# widgets, rewritten");
    expect(patch).toContain("+++ b/src/api/server.ts");
  });

  it("a path a person pushed while the ticket ran is a conflict: the attempt fails naming path and commit, the push stays", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    w.repo.commit("main", { "src/api/server.ts": "v1\n" }, { message: "api v1" });
    await advance(runContext(w), advanceOnly, "push");
    let pushed = "";
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "the agent's v2\n");
      write(ws, "src/api/new.ts", "new\n");
      pushed = w.repo.commit(
        "main",
        { "src/api/server.ts": "a person's v2\n" },
        { message: "hotfix" },
      );
    });
    const state = stateOf(w) as unknown as State;
    const a = state.tickets.api?.attempts[0];
    expect(state.tickets.api?.status).toBe("failed");
    expect(a?.reason).toBe(
      `conflict: src/api/server.ts (changed by ${pushed.slice(0, 12)}) changed on the branch after the attempt started; nothing was overwritten — a retry starts from the new head`,
    );
    expect(a?.changes?.verdict).toBe("conflict");
    expect(w.repo.readFile("src/api/server.ts")).toBe("a person's v2\n");
    expect(w.repo.readFile("src/api/new.ts")).toBeUndefined();
  });

  it("a conflict over many paths names the first ones with their commits, looking up no more than it names", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    const files = Array.from({ length: 25 }, (_, i) => `src/api/f${String(i).padStart(2, "0")}.ts`);
    w.repo.commit("main", Object.fromEntries(files.map((f) => [f, "v1\n"])), { message: "v1" });
    await advance(runContext(w), advanceOnly, "push");
    let pushed = "";
    await job(w, "api", (ws) => {
      for (const f of files) write(ws, f, "the agent's v2\n");
      pushed = w.repo.commit("main", Object.fromEntries(files.map((f) => [f, "a person's v2\n"])), {
        message: "hotfix",
      });
    });
    const a = (stateOf(w) as unknown as State).tickets.api?.attempts[0];
    expect(a?.reason).toMatch(
      new RegExp(
        `^conflict: src/api/f00\\.ts \\(changed by ${pushed.slice(0, 12)}\\), .* and 5 more changed on the branch`,
      ),
    );
    expect(w.fake.countRequests({ operation: "repos/list-commits" })).toBeLessThanOrEqual(20);
  });

  it("binary, executable, symlink, deletion and rename land exactly (through the Git Data API)", async () => {
    world = await makeWorld(Object.fromEntries([scoped("tools", ["tools/**"])]));
    const w = world;
    w.repo.commit(
      "main",
      { "tools/old.txt": "a file that moves\n", "tools/gone.txt": "bye\n" },
      { message: "tools" },
    );
    await advance(runContext(w), advanceOnly, "push");
    const bin = Buffer.from([0, 1, 2, 0xff, 0xfe, 0xc3, 0x28, 0, 10]);
    const { changes } = await job(w, "tools", (ws) => {
      write(ws, "tools/data.bin", bin);
      write(ws, "tools/run.sh", "#!/bin/sh\necho hi\n");
      chmodSync(join(ws, "tools/run.sh"), 0o755);
      symlinkSync("run.sh", join(ws, "tools/link"));
      unlinkSync(join(ws, "tools/gone.txt"));
      renameSync(join(ws, "tools/old.txt"), join(ws, "tools/new.txt"));
    });
    expect(changes.route).toBe("git-data");
    const head = w.repo.head("main") as string;
    const tree = w.repo.git.expect(head, "commit").tree;
    const at = (p: string) => w.repo.git.lookup(tree, p);
    expect(at("tools/run.sh")?.mode).toBe("100755");
    expect(at("tools/link")?.mode).toBe("120000");
    expect(w.repo.readFile("tools/link")).toBe("run.sh");
    expect(w.repo.readBytes("tools/data.bin")).toEqual(bin);
    expect(w.repo.readFile("tools/new.txt")).toBe("a file that moves\n");
    expect(at("tools/old.txt")).toBeUndefined();
    expect(at("tools/gone.txt")).toBeUndefined();
    const commits = commitsOf(w, "tools");
    expect(commits).toHaveLength(1);
    expect(commits[0]!.sha).toBe(head);
    const state = stateOf(w) as unknown as State;
    expect(state.tickets.tools?.status).toBe("complete");
    expect(
      state.tickets.tools?.attempts[0]?.changes?.paths.map(
        (p) => `${p.status} ${p.path} ${p.mode ?? ""}`,
      ),
    ).toEqual([
      "added tools/data.bin 100644",
      "deleted tools/gone.txt ",
      "added tools/link 120000",
      "renamed tools/new.txt 100644",
      "added tools/run.sh 100755",
    ]);
    // the rename's blob was on GitHub already: only new content went up
    expect(w.fake.countRequests({ operation: "git/create-blob" })).toBe(3);
  });

  it("names with a tab, a line break, a quote or a leading dash are changed, added and deleted as they are", async () => {
    world = await makeWorld(Object.fromEntries([scoped("tools", ["tools/**"])]));
    const w = world;
    w.repo.commit("main", { "tools/tab\there": "one\n", "tools/-rf": "two\n" }, { message: "odd" });
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "tools", (ws) => {
      write(ws, "tools/tab\there", "one, changed\n");
      unlinkSync(join(ws, "tools/-rf"));
      write(ws, "tools/new\nline", "three\n");
      write(ws, 'tools/quo"te', "four\n");
    });
    expect(w.repo.readFile("tools/tab\there")).toBe("one, changed\n");
    expect(w.repo.readFile("tools/-rf")).toBeUndefined();
    expect(w.repo.readFile("tools/new\nline")).toBe("three\n");
    expect(w.repo.readFile('tools/quo"te')).toBe("four\n");
    expect(commitsOf(w, "tools")).toHaveLength(1);
  });

  it.each(["graphql", "rest"] as const)(
    "a directory made a symlink or a file lands (no conflict with itself); one a person added to since is a conflict (%s)",
    async (api) => {
      const files = (d: string) => ({ [`${d}/lib/a.txt`]: "a\n", [`${d}/lib/b/c.txt`]: "c\n" });
      world = await makeWorld(
        Object.fromEntries(["link", "file", "pushed"].map((d) => scoped(d, [`${d}/**`]))),
      );
      const w = world;
      w.repo.commit("main", { ...files("link"), ...files("file"), ...files("pushed") }, {});
      await advance(runContext(w), advanceOnly, "push");
      const replace = (d: string, by: (path: string) => void) => (ws: string) => {
        rmSync(join(ws, d, "lib"), { recursive: true });
        by(join(ws, d, "lib"));
      };
      const repo = { owner: "acme", repo: "widgets" };
      const over = api === "rest" ? { store: restStore(w.gh, repo, "main") } : {};
      const done = { outcome: "complete" as const, result: "done" };
      await job(
        w,
        "link",
        replace("link", (p) => symlinkSync("/tmp", p)),
        done,
        over,
      );
      await job(
        w,
        "file",
        replace("file", (p) => writeFileSync(p, "a file now\n")),
        done,
        over,
      );
      const pushed = w.repo.commit("main", { "pushed/lib/new.txt": "a person's\n" }, {});
      await job(
        w,
        "pushed",
        replace("pushed", (p) => writeFileSync(p, "a file now\n")),
        done,
        over,
      );
      const state = stateOf(w) as unknown as State;
      expect(state.tickets.link?.status).toBe("complete");
      expect(state.tickets.file?.status).toBe("complete");
      const tree = w.repo.git.expect(w.repo.head("main") as string, "commit").tree;
      expect(w.repo.git.lookup(tree, "link/lib")?.mode).toBe("120000");
      expect(w.repo.readFile("file/lib")).toBe("a file now\n");
      expect(w.repo.git.lookup(tree, "file/lib/a.txt")).toBeUndefined();
      // under the directory, a file the attempt never saw: replacing it would drop that file
      expect(state.tickets.pushed?.status).toBe("failed");
      expect(state.tickets.pushed?.attempts[0]?.reason).toContain(
        `conflict: pushed/lib (changed by ${pushed.slice(0, 12)})`,
      );
      expect(w.repo.readFile("pushed/lib/new.txt")).toBe("a person's\n");
    },
  );

  it.each(["symlink", "file"] as const)(
    "a ticket of write_scope ** that replaces the ticket directory with a %s fails saying so: no record is among its changes, nothing lands, nothing is lost",
    async (by) => {
      world = await makeWorld(Object.fromEntries([scoped("all", ["**"])]));
      const w = world;
      await advance(runContext(w), advanceOnly, "push");
      const before = w.repo.head("main");
      await job(w, "all", (ws) => {
        rmSync(join(ws, "tickets"), { recursive: true });
        if (by === "symlink") symlinkSync("/tmp", join(ws, "tickets"));
        else writeFileSync(join(ws, "tickets"), "flat\n");
      });
      const a = (stateOf(w) as unknown as State).tickets.all?.attempts[0];
      expect(a?.outcome).toBe("failed");
      expect(a?.reason).toMatch(
        new RegExp(`^integration refused: tickets/, which holds the run's records, made a ${by} `),
      );
      expect(a?.reason).not.toContain("fields only the runner writes");
      expect(a?.changes?.paths.map((p) => p.path).filter((p) => p.includes(".frontier"))).toEqual(
        [],
      );
      const patch = w.repo.readFile(`tickets/${a?.changes?.patch_file}`);
      expect(patch).toContain("+++ b/tickets\n");
      expect(patch).not.toContain(".frontier");
      expect(commitsOf(w, "all")).toHaveLength(0);
      // the branch moved only by the run's own records: its tickets are all there
      expect(w.repo.head("main")).not.toBe(before);
      expect(w.repo.readFile("tickets/all.md")).toContain("status: failed");
    },
  );

  it.each(["graphql", "rest"] as const)(
    "a file added under a directory a person made a file or a submodule since is a conflict: their file stays (%s)",
    async (api) => {
      world = await makeWorld(
        Object.fromEntries(["x", "y", "z"].map((d) => scoped(d, [`${d}/**`]))),
      );
      const w = world;
      w.repo.commit(
        "main",
        { "x/lib/a.txt": "a\n", "y/lib/a.txt": "a\n", "z/lib/a.txt": "a\n" },
        {},
      );
      await advance(runContext(w), advanceOnly, "push");
      const repo = { owner: "acme", repo: "widgets" };
      const over = api === "rest" ? { store: restStore(w.gh, repo, "main") } : {};
      let pushed = "";
      await job(
        w,
        "x",
        (ws) => {
          write(ws, "x/lib/new.txt", "the agent's\n");
          w.repo.commit("main", { "x/lib": null }, {});
          pushed = w.repo.commit("main", { "x/lib": "a person's file\n" }, { message: "flat" });
        },
        undefined,
        over,
      );
      await job(
        w,
        "y",
        (ws) => {
          write(ws, "y/lib/b/new.txt", "the agent's\n");
          w.repo.commit("main", { y: null }, {});
          w.repo.commit("main", { y: "a person's file\n" }, {});
        },
        undefined,
        over,
      );
      let module = "";
      await job(
        w,
        "z",
        (ws) => {
          write(ws, "z/lib/new.txt", "the agent's\n");
          // a person's push made z/lib a submodule
          const gitmodules =
            '[submodule "lib"]\n\tpath = z/lib\n\turl = https://github.com/acme/lib.git\n';
          const head = w.repo.commit("main", { "z/lib": null, ".gitmodules": gitmodules }, {});
          const c = w.repo.git.expect(head, "commit");
          const flat = w.repo.git.flatten(c.tree);
          flat.set("z/lib", { mode: "160000", type: "commit", sha: head });
          const { message, author, committer } = c;
          const tree = w.repo.git.buildTree(flat);
          module = w.repo.git.writeCommit({ tree, parents: [head], message, author, committer });
          w.repo.refs.set("refs/heads/main", module);
        },
        undefined,
        over,
      );
      const state = stateOf(w) as unknown as State;
      expect(state.tickets.x?.status).toBe("failed");
      expect(state.tickets.x?.attempts[0]?.reason).toContain(
        `conflict: x/lib/new.txt (changed by ${pushed.slice(0, 12)})`,
      );
      expect(w.repo.readFile("x/lib")).toBe("a person's file\n");
      expect(state.tickets.y?.status).toBe("failed");
      expect(state.tickets.y?.attempts[0]?.reason).toContain("conflict: y/lib/b/new.txt");
      expect(w.repo.readFile("y")).toBe("a person's file\n");
      expect(state.tickets.z?.attempts[0]?.reason).toContain("conflict: z/lib/new.txt");
      const tree = w.repo.git.expect(w.repo.head("main") as string, "commit").tree;
      expect(w.repo.git.lookup(tree, "z/lib")?.type).toBe("commit");
    },
  );

  it.each(["graphql", "rest"] as const)(
    "a person's chmod on the branch while the ticket ran is a conflict: their mode stays (%s)",
    async (api) => {
      world = await makeWorld(Object.fromEntries([scoped("tools", ["tools/**"])]));
      const w = world;
      /** A commit on main that gives `path` the mode `mode` (its content as it is). */
      const chmod = (path: string, mode: "100644" | "100755") => {
        const head = w.repo.head("main") as string;
        const c = w.repo.git.expect(head, "commit");
        const flat = w.repo.git.flatten(c.tree);
        flat.set(path, { ...flat.get(path)!, mode });
        const tree = w.repo.git.buildTree(flat);
        const { author, committer } = c;
        const sha = w.repo.git.writeCommit({
          tree,
          parents: [head],
          message: "chmod",
          author,
          committer,
        });
        w.repo.refs.set("refs/heads/main", sha);
        return sha;
      };
      w.repo.commit("main", { "tools/run.sh": "#!/bin/sh\necho hi\n" }, {});
      chmod("tools/run.sh", "100755");
      await advance(runContext(w), advanceOnly, "push");
      const over =
        api === "rest"
          ? { store: restStore(w.gh, { owner: "acme", repo: "widgets" }, "main") }
          : {};
      let pushed = "";
      await job(
        w,
        "tools",
        (ws) => {
          write(ws, "tools/run.sh", "#!/bin/sh\necho hello\n");
          pushed = chmod("tools/run.sh", "100644");
        },
        undefined,
        over,
      );
      const state = stateOf(w) as unknown as State;
      expect(state.tickets.tools?.status).toBe("failed");
      expect(state.tickets.tools?.attempts[0]?.reason).toContain(
        `conflict: tools/run.sh (changed by ${pushed.slice(0, 12)})`,
      );
      const tree = w.repo.git.expect(w.repo.head("main") as string, "commit").tree;
      expect(w.repo.git.lookup(tree, "tools/run.sh")?.mode).toBe("100644");
      expect(w.repo.readFile("tools/run.sh")).toBe("#!/bin/sh\necho hi\n");
    },
  );

  it("a blob GitHub refuses to store (push protection: a secret in it) fails the attempt by name, the outcome recorded, nothing of it on the branch", async () => {
    world = await makeWorld(Object.fromEntries([scoped("tools", ["tools/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    // every answer the same, as GitHub gives it: the client's retries of a 409 do not help
    const said = "Secret detected in content";
    w.fake.inject({ status: 409, operation: "git/create-blob", message: said, times: 20 });
    await job(w, "tools", (ws) => {
      write(ws, "tools/deploy.sh", "#!/bin/sh\nTOKEN=ghp_not_a_real_one\n");
      chmodSync(join(ws, "tools/deploy.sh"), 0o755);
    });
    const tools = (stateOf(w) as unknown as State).tickets.tools;
    expect(tools?.status).toBe("failed");
    expect(tools?.attempts[0]?.reason).toMatch(
      /^integration refused: GitHub refused to store tools\/deploy\.sh \(Secret detected in content\) /,
    );
    expect(tools?.attempts[0]?.changes?.paths.map((p) => p.path)).toEqual(["tools/deploy.sh"]);
    // its patch holds what GitHub refused: it is not written to the branch either
    expect(tools?.attempts[0]?.changes?.patch_file).toBeUndefined();
    expect(w.repo.listFiles("main").filter((p) => /deploy|\.patch$/.test(p))).toEqual([]);
  });

  it("on the REST API (GraphQL's budget spent), a file not in UTF-8 GitHub refuses to store fails the attempt by name the same", async () => {
    world = await makeWorld(Object.fromEntries([scoped("tools", ["tools/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    const said = "Secret detected in content";
    w.fake.inject({ status: 409, operation: "git/create-blob", message: said, times: 20 });
    const store = restStore(w.gh, { owner: "acme", repo: "widgets" }, "main");
    const key = Buffer.from([0xff, 0xfe, ...Buffer.from("TOKEN=ghp_not_a_real_one\n")]);
    await job(w, "tools", (ws) => write(ws, "tools/key.bin", key), undefined, { store });
    const tools = (stateOf(w) as unknown as State).tickets.tools;
    expect(tools?.status).toBe("failed");
    expect(tools?.attempts[0]?.reason).toMatch(
      /^integration refused: GitHub refused to store tools\/key\.bin \(Secret detected in content\) /,
    );
    expect(tools?.attempts[0]?.changes?.patch_file).toBeUndefined();
    expect(w.repo.listFiles("main").filter((p) => /key|\.patch$/.test(p))).toEqual([]);
  });

  it("1,500 paths (an npm install the repository does not ignore) fail the attempt saying so, its settle reading the branch once, not a query per 250 paths, its record listing the first 1,000", async () => {
    world = await makeWorld(Object.fromEntries([scoped("deps", ["app/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    let before = 0;
    await job(w, "deps", (ws) => {
      for (let i = 0; i < 1500; i++) write(ws, `app/node_modules/p${i % 50}/f${i}.js`, `${i}\n`);
      before = w.fake.requests.length;
    });
    const a = (stateOf(w) as unknown as State).tickets.deps?.attempts[0];
    expect(a?.reason).toMatch(/^integration refused: 1500 changed paths, over 1000 /);
    const queries = w.fake.requests.slice(before).filter((r) => r.operation === "graphql/query");
    expect(queries).toHaveLength(1);
    // the record goes with the run's state, which every later event reads and writes
    expect(a?.changes?.paths).toHaveLength(1000);
    expect(a?.reason).toMatch(/; the attempt record lists the first 1,000 of its 1,500 paths$/);
  });

  it("a lost commit answer: the changes are integrated once", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    const lost = w.fake.inject({
      operation: "graphql/mutation:createCommitOnBranch",
      status: 502,
      applied: true,
      times: 1,
    });
    const { out } = await job(w, "api", (ws) => write(ws, "src/api/server.ts", "once\n"));
    // the commit that carried the change landed and its answer was lost
    expect(lost.fired).toBe(1);
    expect(out.result.kind).toBe("ok");
    expect(commitsOf(w, "api")).toHaveLength(1);
    expect(w.repo.readFile("src/api/server.ts")).toBe("once\n");
    expect((stateOf(w) as unknown as State).tickets.api?.status).toBe("complete");
  });

  it("8 tickets with disjoint scopes settling at once: every change lands, none twice (lost races re-read and re-apply)", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    world = await makeWorld(Object.fromEntries(ids.map((id) => scoped(id, [`src/${id}/**`]))));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    const landedBefore = w.repo.log("main").length;
    const commitRequests = () =>
      w.fake.requests.filter((r) => r.operation === "graphql/mutation:createCommitOnBranch").length;
    const triedBefore = commitRequests();
    await Promise.all(
      ids.map((id) =>
        job(
          w,
          id,
          (ws) => write(ws, `src/${id}/index.ts`, `export const id = "${id}";\n`),
          undefined,
          {
            backoffMs: 2,
          },
        ),
      ),
    );
    const state = stateOf(w) as unknown as State;
    for (const id of ids) {
      expect(state.tickets[id]?.status, id).toBe("complete");
      expect(w.repo.readFile(`src/${id}/index.ts`), id).toBe(`export const id = "${id}";\n`);
      expect(commitsOf(w, id), id).toHaveLength(1);
    }
    // the races were real: more commits were tried than landed, so settles re-read and re-applied
    expect(commitRequests() - triedBefore).toBeGreaterThan(
      w.repo.log("main").length - landedBefore,
    );
  }, 60_000);
});

/** git as an agent runs it in its checkout. */
const agentGit = (ws: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: ws,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "agent",
      GIT_AUTHOR_EMAIL: "agent@example.com",
      GIT_COMMITTER_NAME: "agent",
      GIT_COMMITTER_EMAIL: "agent@example.com",
    },
  });

describe("an agent that does what it likes with git in its checkout (SPEC §4b)", () => {
  it("its commits land: once, or twice and then a branch of its own with a file left uncommitted", async () => {
    world = await makeWorld(
      Object.fromEntries([scoped("api", ["src/api/**"]), scoped("ui", ["src/ui/**"], ["api"])]),
    );
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "export const port = 8080;\n");
      agentGit(ws, "add", "-A");
      agentGit(ws, "commit", "-qm", "api: done, cleanly");
    });
    expect(w.repo.readFile("src/api/server.ts")).toBe("export const port = 8080;\n");
    await job(w, "ui", (ws) => {
      expect(readFileSync(join(ws, "src/api/server.ts"), "utf8")).toContain("8080");
      write(ws, "src/ui/one.ts", "1\n");
      agentGit(ws, "add", "-A");
      agentGit(ws, "commit", "-qm", "one");
      write(ws, "src/ui/two.ts", "2\n");
      agentGit(ws, "commit", "-qam", "two", "--allow-empty");
      agentGit(ws, "add", "-A");
      agentGit(ws, "commit", "-qm", "two, really");
      agentGit(ws, "checkout", "-qb", "my-branch");
      write(ws, "src/ui/three.ts", "3\n");
    });
    const state = stateOf(w) as unknown as State;
    expect(state.tickets.ui?.status).toBe("complete");
    expect(changedIn(w, commitsOf(w, "ui")[0]!.sha)).toEqual([
      "src/ui/one.ts",
      "src/ui/three.ts",
      "src/ui/two.ts",
    ]);
    // the agent's own commits are carried by the ticket's one commit, never pushed as they are
    expect(w.repo.log("main").map((c) => c.message)).not.toContain("one");
  });

  it("files it hides with its git's excludes (info/exclude, core.excludesFile) land all the same", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "export const port = 8080;\n");
      write(ws, "src/api/routes.ts", "export const routes = [];\n");
      write(ws, ".git/info/exclude", "server.ts\n");
      write(ws, "src/api/.excludes", "routes.ts\n");
      agentGit(ws, "config", "core.excludesFile", join(ws, "src/api/.excludes"));
    });
    expect((stateOf(w) as unknown as State).tickets.api?.status).toBe("complete");
    expect(changedIn(w, commitsOf(w, "api")[0]!.sha)).toEqual([
      "src/api/.excludes",
      "src/api/routes.ts",
      "src/api/server.ts",
    ]);
  });

  it("a file a .gitignore ignores that it committed (git add -f) lands; one it only left there does not", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/.gitignore", "*.gen\n");
      write(ws, "src/api/client.gen", "generated, shipped\n");
      write(ws, "src/api/scratch.gen", "generated, not shipped\n");
      agentGit(ws, "add", "-A");
      agentGit(ws, "add", "-f", "src/api/client.gen");
      agentGit(ws, "commit", "-qm", "api: the generated client, as the project ships it");
    });
    expect((stateOf(w) as unknown as State).tickets.api?.status).toBe("complete");
    expect(changedIn(w, commitsOf(w, "api")[0]!.sha)).toEqual([
      "src/api/.gitignore",
      "src/api/client.gen",
    ]);
  });

  it("removing .git fails the attempt saying why; nothing passes as done and its dependent waits", async () => {
    world = await makeWorld(
      Object.fromEntries([scoped("api", ["src/api/**"]), scoped("ui", ["src/ui/**"], ["api"])]),
    );
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "lost?\n");
      rmSync(join(ws, ".git"), { recursive: true, force: true });
    });
    const state = stateOf(w) as unknown as State;
    expect(state.tickets.api?.status).toBe("failed");
    expect(state.tickets.api?.attempts[0]?.reason).toMatch(
      /^its changes could not be collected: .* is no longer a git work tree \(its \.git was removed\); nothing was integrated/,
    );
    expect(state.tickets.ui?.status).not.toBe("claimed");
    expect(w.fake.allRuns().filter((r) => r.inputs.ticket === "ui")).toEqual([]);
  });

  it("its own index left unreadable (written by a git that is not the runner's) is not read: its changes land", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "export const port = 8080;\n");
      writeFileSync(join(ws, ".git/index"), "DIRC not an index git 2 reads");
    });
    const api = (stateOf(w) as unknown as State).tickets.api;
    expect(api?.attempts[0]?.reason).toBeUndefined();
    expect(api?.status).toBe("complete");
    expect(w.repo.readFile("src/api/server.ts")).toBe("export const port = 8080;\n");
  });

  it("line endings or an encoding its git's info/attributes sets are never applied to what lands: the attempt fails naming the file", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/build.bat", "@echo off\r\nnpm run build\r\n");
      write(ws, "src/api/names.txt", "café\n");
      write(ws, ".git/info/attributes", "*.bat text\n*.txt working-tree-encoding=ISO-8859-1\n");
    });
    const api = (stateOf(w) as unknown as State).tickets.api;
    expect(api?.status).toBe("failed");
    expect(api?.attempts[0]?.reason).toMatch(
      /^its changes could not be collected: its git directory's attributes \(\S+\/\.git\/info\/attributes\) would change its files/,
    );
    // never the bytes git would have made of them: `@echo off\n…`, `cafÃ©`
    expect(w.repo.readFile("src/api/build.bat")).toBeUndefined();
    expect(w.repo.readFile("src/api/names.txt")).toBeUndefined();
  });

  it("a nested repository, names not in UTF-8 and a .GIT are refused by name; the files are kept as evidence", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "ok\n");
      write(ws, "src/api/lib/c.js", "the nested file\n");
      agentGit(join(ws, "src/api/lib"), "init", "-q");
      writeFileSync(Buffer.from(`${ws}/src/api/caf\xe9`, "latin1"), "first\n");
      writeFileSync(Buffer.from(`${ws}/src/api/caf\xe8`, "latin1"), "second\n");
      write(ws, "src/api/.GIT/config", "[core]\n\tfsmonitor = ./x\n");
    });
    const state = stateOf(w) as unknown as State;
    const a = state.tickets.api?.attempts[0];
    expect(state.tickets.api?.status).toBe("failed");
    expect(a?.reason).toMatch(
      /^integration refused: nested git repositories: src\/api\/lib .*; names not in UTF-8: src\/api\/caf\\xE8, src\/api\/caf\\xE9 .*; names git refuses: src\/api\/\.GIT\/config /,
    );
    expect(commitsOf(w, "api")).toHaveLength(0);
    expect(w.repo.readFile("src/api/server.ts")).toBeUndefined();
    expect(w.repo.readFile(`tickets/${a?.changes?.patch_file}`)).toContain("+the nested file");
    // no patch holds a .GIT, and the job's workspace goes with the job: never said to be kept
    expect(a?.reason).toContain(
      `the change is kept as evidence in ${a?.changes?.patch_file}, but for what no patch holds: the files under names git refuses went with the job's workspace`,
    );
  });

  it("a directory under a name not in UTF-8 made a file is refused by name, as locally, its patch kept", async () => {
    const ws = mkdtempSync(join(tmpdir(), "frontier-job-latin1-"));
    scratch.push(ws);
    const latin1 = (p: string) => Buffer.from(`${ws}/${p}`, "latin1");
    mkdirSync(latin1("src/caf\xe9"), { recursive: true });
    writeFileSync(latin1("src/caf\xe9/f.txt"), "in it\n");
    agentGit(ws, "init", "-q");
    agentGit(ws, "add", "-A");
    agentGit(ws, "commit", "-qm", "start");
    rmSync(latin1("src/caf\xe9"), { recursive: true });
    writeFileSync(latin1("src/caf\xe9"), "flat\n");
    const changes = await collectJobChanges(ws, "tickets", {
      start: agentGit(ws, "rev-parse", "HEAD").toString().trim(),
    });
    expect(changes.refused).toMatch(
      /^integration refused: names not in UTF-8: src\/caf\\xE9, src\/caf\\xE9\/f\.txt /,
    );
    expect(changes.patch?.toString("latin1")).toContain("+flat");
  });

  /** A job checkout of its own repository (one commit, its start) with a file added since. */
  function checkoutWithAChange(name: string) {
    const ws = mkdtempSync(join(tmpdir(), `frontier-job-${name}-`));
    scratch.push(ws);
    write(ws, "src/a.txt", "a\n");
    agentGit(ws, "init", "-q");
    agentGit(ws, "add", "-A");
    agentGit(ws, "commit", "-qm", "start");
    write(ws, "src/b.txt", "b\n");
    return { ws, start: agentGit(ws, "rev-parse", "HEAD").toString().trim() };
  }

  it.each(["HEAD", "config", "index", "packed-refs", "objects/info/alternates"])(
    "a FIFO an agent put at .git/%s fails the attempt at once, naming it (git would wait on it for good)",
    async (file) => {
      const { ws, start } = checkoutWithAChange("fifo");
      agentGit(ws, "pack-refs", "--all");
      rmSync(join(ws, ".git", file), { force: true });
      execFileSync("mkfifo", [join(ws, ".git", file)]);
      const started = Date.now();
      const changes = await collectJobChanges(ws, "tickets", { start });
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(changes.paths).toEqual([]);
      expect(changes.refused).toBe(
        `its changes could not be collected: ${ws}/.git/${file} is a FIFO or a device, where git would wait for good: remove it, or make it a plain file; nothing was integrated — leave the workspace's .git as it was checked out (commit, branch or reset as you like) and its files where git can read and store them (their permissions, its .gitattributes), then retry the ticket`,
      );
    },
  );

  it.each([
    [
      "core.bare true",
      ["config", "core.bare", "true"],
      "this operation must be run in a work tree",
    ],
    ["a line git cannot read", undefined, "in file .git/config"],
    ["core.worktree elsewhere", ["config", "core.worktree", "/"], undefined],
  ])(
    "an agent that leaves its .git's configuration with %s fails with what git says, not that .git was removed",
    async (_, set, said) => {
      const { ws, start } = checkoutWithAChange("config");
      if (set) agentGit(ws, ...set);
      else
        writeFileSync(
          join(ws, ".git", "config"),
          `${readFileSync(join(ws, ".git", "config"))}[core\n`,
        );
      const changes = await collectJobChanges(ws, "tickets", { start });
      expect(changes.paths).toEqual([]);
      expect(changes.refused).not.toContain("removed");
      const why = said
        ? "is no work tree to git: git rev-parse --show-toplevel --git-common-dir failed (exit 128): fatal: "
        : "is not the work tree its .git names (/: core.worktree);";
      expect(changes.refused).toContain(`${ws} ${why}`);
      if (said) expect(changes.refused).toContain(`${said};`);
    },
  );

  /** An object under `id` in the checkout's own store that holds `text` instead. */
  const plant = (ws: string, id: string, text: string) => {
    const loose = join(ws, ".git", "objects", id.slice(0, 2), id.slice(2));
    mkdirSync(dirname(loose), { recursive: true });
    rmSync(loose, { force: true });
    writeFileSync(loose, deflateSync(Buffer.from(`blob ${Buffer.byteLength(text)}\0${text}`)));
  };
  const idOf = (ws: string, spec: string) =>
    execFileSync("git", ["rev-parse", spec], { cwd: ws, encoding: "utf8" }).trim();
  const refused = /^its changes could not be collected: git's object/;

  it.each([
    ["the start of a file it changed, with the new bytes (git then sees no lines changed)", false],
    ["a file it wrote (an executable: the Git Data API uploads its bytes)", true],
  ])(
    "an object planted under the id of %s fails the attempt by name, never with Node's words or a crash",
    async (_, wrote) => {
      world = await makeWorld(Object.fromEntries([scoped("api", ["src/**"])]));
      const w = world;
      w.repo.commit("main", { "src/a.txt": "one\n" }, { message: "a" });
      await advance(runContext(w), advanceOnly, "push");
      await job(w, "api", (ws) => {
        if (!wrote) {
          write(ws, "src/a.txt", "two\n");
          return plant(ws, idOf(ws, "HEAD:src/a.txt"), "two\n");
        }
        write(ws, "src/run.sh", "two\n");
        chmodSync(join(ws, "src/run.sh"), 0o755);
        const id = execFileSync("git", ["hash-object", "src/run.sh"], {
          cwd: ws,
          encoding: "utf8",
        });
        plant(ws, id.trim(), "planted\n");
      });
      const state = stateOf(w) as unknown as State;
      expect(state.tickets.api?.status).toBe("failed");
      expect(state.tickets.api?.attempts[0]?.reason).toMatch(refused);
      expect(w.repo.readFile("src/a.txt")).toBe("one\n");
      expect(w.repo.readFile("src/run.sh")).toBeUndefined();
    },
  );

  it.each([
    ["is a breach naming it, even inside its scope", false],
    // git reads an object without checking its bytes against its id
    [
      "with the start's object of that file planted with the new fields (so they look unchanged) is refused",
      true,
    ],
  ])(
    "writing the engine's fields into another ticket's file %s: no field of it lands",
    async (_, plants) => {
      world = await makeWorld(
        Object.fromEntries([scoped("planner", ["tickets/**"]), scoped("later", ["src/**"])]),
      );
      const w = world;
      await advance(runContext(w), advanceOnly, "push");
      await job(w, "planner", (ws) => {
        const file = join(ws, "tickets/later.md");
        const now = readFileSync(file, "utf8").replace("---\n", "---\nstatus: complete\n");
        writeFileSync(file, now);
        write(ws, "tickets/new.md", "---\nwrite_scope: [docs/**]\n---\n\n# new\n");
        if (plants) plant(ws, idOf(ws, "HEAD:tickets/later.md"), `${now}x\n`);
      });
      const state = stateOf(w) as unknown as State;
      expect(state.tickets.planner?.status).toBe("failed");
      expect(state.tickets.planner?.attempts[0]?.reason).toMatch(
        plants
          ? refused
          : /^scope-breach: changed the fields only the runner writes .* in tickets\/later\.md — /,
      );
      expect(w.repo.readFile("tickets/later.md")).not.toContain("status: complete");
    },
  );

  it.each([
    ["createCommitOnBranch", false],
    ["the Git Data API (an executable file)", true],
  ])(
    "a ticket file whose body an agent changed shows the runner's fields after its integration, the agent's line kept (%s)",
    async (_, executable) => {
      world = await makeWorld(
        Object.fromEntries([
          scoped("api", ["tickets/**", "src/api/**"]),
          scoped("later", ["src/later/**"]),
        ]),
      );
      const w = world;
      await advance(runContext(w), advanceOnly, "push");
      const append = (ws: string, file: string, line: string) =>
        writeFileSync(join(ws, file), `${readFileSync(join(ws, file), "utf8")}${line}\n`);
      await job(w, "api", (ws) => {
        append(ws, "tickets/api.md", "Done: see src/api.");
        append(ws, "tickets/later.md", "Note from api.");
        if (executable) {
          write(ws, "src/api/run.sh", "#!/bin/sh\n");
          chmodSync(join(ws, "src/api/run.sh"), 0o755);
        }
      });
      expect((stateOf(w) as unknown as State).tickets.api?.status).toBe("complete");
      expect(w.repo.readFile("src/api/run.sh")).toBe(executable ? "#!/bin/sh\n" : undefined);
      const api = w.repo.readFile("tickets/api.md");
      expect(api).toContain("Done: see src/api.");
      expect(api).toContain("status: complete");
      expect(api).not.toMatch(/claim:|status: claimed/);
      // a push of the branch (its checkout shows both files changed since the run's base)
      const head = w.repo.log("main")[0]!.sha;
      const dir = mkdtempSync(join(tmpdir(), "frontier-head-"));
      scratch.push(dir);
      const checkout = new Checkout(await checkoutCommit(w.repo, head, dir), "tickets");
      await advance(
        runContext(w, { checkout, sha: head, checkoutIsHead: true }),
        advanceOnly,
        "push",
      );
      // another ticket's file: its later fields are written into it too, the note kept
      await job(w, "later", (ws) => write(ws, "src/later/x.ts", "x\n"));
      const later = w.repo.readFile("tickets/later.md");
      expect(later).toContain("Note from api.");
      expect(later).toContain("status: complete");
      expect(later).not.toMatch(/claim:|status: claimed/);
    },
  );
});

describe("the agent's git configuration runs nothing in the settle step, which holds the job's token", () => {
  /** A file the agent's planted command would make, were it run. */
  const plant = () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-planted-"));
    scratch.push(dir);
    return join(dir, "ran");
  };

  it("a filter driver whose name holds an '=' (which `-c` cannot empty) is never run: the attempt fails naming it", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    const planted = plant();
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "export const port = 8080;\n");
      write(ws, "src/api/.gitattributes", "* filter=a=b\n");
      agentGit(ws, "config", "filter.a=b.clean", `touch '${planted}'; tr a-z A-Z`);
    });
    expect(existsSync(planted)).toBe(false);
    const api = (stateOf(w) as unknown as State).tickets.api;
    expect(api?.status).toBe("failed");
    expect(api?.attempts[0]?.reason).toMatch(/could not be collected: .*filter\.a=b.*rename it/);
    expect(w.repo.readFile("src/api/server.ts")).toBeUndefined();
  });

  it("a partial clone's lazy fetch of an object it removed does not run its core.sshCommand", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    await advance(runContext(w), advanceOnly, "push");
    const planted = plant();
    await job(w, "api", (ws) => {
      write(ws, "src/api/server.ts", "export const port = 8080;\n");
      rmSync(join(ws, ".git/objects"), { recursive: true, force: true });
      mkdirSync(join(ws, ".git/objects/pack"), { recursive: true });
      agentGit(ws, "config", "core.repositoryformatversion", "1");
      agentGit(ws, "config", "extensions.partialClone", "origin");
      agentGit(ws, "config", "remote.origin.url", "ssh://example.invalid/widgets");
      agentGit(ws, "config", "remote.origin.promisor", "true");
      agentGit(ws, "config", "protocol.ssh.allow", "always");
      agentGit(ws, "config", "core.sshCommand", `touch '${planted}'; false`);
    });
    expect(existsSync(planted)).toBe(false);
    const api = (stateOf(w) as unknown as State).tickets.api;
    expect(api?.status).toBe("failed");
    expect(api?.attempts[0]?.reason).toMatch(/^its changes could not be collected: /);
  });
});

describe("CI on the run's branch", () => {
  it("when the run ends, the user's CI workflow is dispatched on its branch, once — a redelivered settle sends it no more", async () => {
    world = await makeWorld(Object.fromEntries([scoped("api", ["src/api/**"])]));
    const w = world;
    w.repo.addWorkflow("ci.yml", { name: "ci", dispatchable: true });
    const over = { ciWorkflow: "ci.yml" };
    await advance(runContext(w, over), advanceOnly, "push");
    const ciRuns = () => w.fake.allRuns().filter((r) => r.workflow.path.endsWith("ci.yml"));
    expect(ciRuns()).toHaveLength(0);
    const { changes, run } = await job(
      w,
      "api",
      (ws) => write(ws, "src/api/a.ts", "a\n"),
      undefined,
      over,
    );
    expect(ciRuns().map((r) => r.ref)).toEqual(["main"]);
    expect((stateOf(w) as { ci?: { workflow: string; state: string } }).ci).toMatchObject({
      workflow: "ci.yml",
      state: "complete",
    });
    // the same settle delivered again, and a push: the run has ended, nothing is sent again
    const again = settleJob("api", 1, run, changes, { outcome: "complete", result: "again" });
    await advance(runContext(w, over), advanceOnly, "settle api again", again);
    await advance(runContext(w, over), advanceOnly, "push again");
    expect(ciRuns()).toHaveLength(1);
  });
});

describe("naming an integrated attempt's commit when the event read only part of the state", () => {
  const record = (claim: string) =>
    ({
      status: "complete",
      attempt: 1,
      attempts: [
        {
          n: 1,
          claim,
          claimed_by: "x",
          started_at: "2026-12-01T00:00:00.000Z",
          outcome: "complete",
          changes: { start: "s", verdict: "integrated", paths: [{ path: "a", status: "added" }] },
        },
      ],
      answers: [],
    }) as never;
  const history = [{ oid: "f".repeat(40), body: "api: API\n\nFrontier-Claim: c1\n" }];
  const unnamed = [{ ticket: "api", attempt: 1, claim: "c1", seq: 3 }];

  it("keeps the commit it found for a ticket whose history it did not read, and writes it once one does", () => {
    // a stub: its shard was not read, so its attempts are not here
    const stubs = { api: { status: "complete", attempt: 1, attempts: [], answers: [] } as never };
    const left = nameCommits(stubs, unnamed, history, () => false);
    expect(left).toEqual([{ ...unnamed[0], commit: "f".repeat(40) }]);
    // later, past the history window: the id was kept, so it is still written
    const tickets = { api: record("c1") };
    expect(nameCommits(tickets, left, [], () => true)).toEqual([]);
    expect(
      (tickets.api as { attempts: Array<{ changes: { commit?: string } }> }).attempts[0]!.changes
        .commit,
    ).toBe("f".repeat(40));
  });
});
