/**
 * SPEC §4b locally: a ticket with `isolation: worktree` runs in a git worktree of its own
 * at the head of `frontier/<run>`; its changes are checked against its write_scope and
 * integrated as one commit on that branch, and the user's tree is never touched.
 * In process (runCommand), in real repositories.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/core/model.js";
import { runBranchName } from "../../src/workspace/refname.js";
import {
  commitsOf,
  exampleRepo,
  git,
  IDENTITY,
  pushOnto,
  readJson,
  repoWith,
  runHere,
  ticket,
} from "./git-repo.js";
import { startFrontier } from "./harness.js";

const attemptOf = (dir: string, id: string, n: number) =>
  readJson<AttemptRecord>(join(dir, ".frontier", "attempts", `${id}@${n}.json`));

const receiptOf = (dir: string) =>
  readJson<{
    state: string;
    tickets: Array<{ id: string; status: string; isolation?: string; reason?: string }>;
  }>(join(dir, ".frontier", "receipt.json"));

/** The worktrees git knows of, other than the user's own. */
/** `frontier reset DIR` in this process: its exit code and what it printed. */
async function resetHere(dir: string): Promise<{ code: number; text: string }> {
  const { resetCommand } = await import("../../src/cli/reset.js");
  const { PassThrough } = await import("node:stream");
  const out = new PassThrough();
  let text = "";
  out.on("data", (c: Buffer) => {
    text += c.toString();
  });
  const code = await resetCommand(
    dir,
    { stdout: out, stderr: out, isTTY: false, env: process.env },
    Date.now(),
  );
  return { code, text };
}

const otherWorktrees = (root: string) =>
  git(root, "worktree", "list", "--porcelain")
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .slice(1);

describe("a chain of coding tickets, each in its own worktree (examples/coding-graph)", () => {
  it("each dependent builds on its dependencies' commits; the branch ends with one commit per ticket; the user's tree, index and branch are untouched", async () => {
    const repo = exampleRepo();
    const ran = await runHere(repo.dir);
    expect(ran.stderr).toContain("run coding-graph: complete");
    expect(ran.code).toBe(0);

    const commits = commitsOf(repo.root, `${repo.start}..frontier/coding-graph`);
    expect(commits.map((c) => [c.ticket, c.attempt, c.paths])).toEqual([
      ["api", "1", ["app/api/todos.js"]],
      ["ui", "1", ["app/ui/list.js"]],
      ["docs", "1", ["docs/todos.md"]],
    ]);
    expect(commits[0]?.subject).toBe("api: The todo API");
    // the fake agent refuses to write the UI without the API, and the docs without both:
    // each worktree held what its dependencies integrated
    const docs = git(repo.root, "show", "frontier/coding-graph:docs/todos.md");
    expect(docs).toContain("`addTodo` (from app/api/todos.js)");
    expect(docs).toContain("`renderList` (from app/ui/list.js)");

    // every attempt record names its commit and its claim token is in the commit's trailers
    for (const c of commits) {
      const record = attemptOf(repo.dir, c.ticket, 1);
      expect(record.changes).toMatchObject({ verdict: "integrated", commit: c.sha });
      expect(c.claim).toBe(record.claim);
    }
    expect(receiptOf(repo.dir).tickets.map((t) => t.isolation)).toEqual([
      "worktree",
      "worktree",
      "worktree",
    ]);

    // the user's side: still on main at the start, nothing staged, nothing changed but the
    // run's records (the ticket files' state; .frontier/ is ignored by the example)
    expect(git(repo.root, "rev-parse", "HEAD")).toBe(repo.start);
    expect(git(repo.root, "symbolic-ref", "HEAD")).toBe("refs/heads/main");
    expect(git(repo.root, "diff", "--cached", "--name-only")).toBe("");
    expect(
      git(repo.root, "status", "--porcelain")
        .split("\n")
        .map((l) => l.trim())
        .sort(),
    ).toEqual(["M tickets/api.md", "M tickets/docs.md", "M tickets/ui.md"]);
    expect(existsSync(join(repo.root, "app", "api", "todos.js"))).toBe(false);
    expect(otherWorktrees(repo.root)).toEqual([]);
    // and how to look at it and merge it
    expect(ran.stderr).toContain("changes: 3 commits on frontier/coding-graph");
    expect(ran.stderr).toContain("git merge frontier/coding-graph");
    expect(ran.stderr).toContain(
      `git log --stat ${repo.start.slice(0, 10)}..frontier/coding-graph`,
    );
  });
});

describe("a scope breach: nothing is integrated, the change is kept as evidence", () => {
  it("a change whose patch is over max_result_bytes is kept as its paths and blob ids, and no patch is made", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: big\nisolation: worktree\nmax_result_bytes: 4096\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const ran = await runHere(
      repo.dir,
      "mkdir -p app docs && seq 1 20000 > docs/big.txt && echo done",
    );
    expect(ran.code).toBe(1);
    const api = attemptOf(repo.dir, "api", 1);
    expect(api.reason).toMatch(
      /^scope-breach: .* kept as evidence: its paths and blob ids in the attempt record \(the patch is over max_result_bytes\), its tree held by refs\/frontier\/kept\/[0-9a-f]{40}$/,
    );
    expect(api.changes?.patch_file).toBeUndefined();
    const blob = api.changes?.paths[0]?.blob as string;
    expect(git(repo.root, "cat-file", "-p", blob).split("\n").length).toBe(20000);
  });

  it("those blobs outlive a `git gc --prune=now` a later agent runs: the record names the ref that holds them", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: big\nisolation: worktree\nmax_result_bytes: 4096\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      "tickets/tidy.md": ticket({ write_scope: ["app/**"] }),
    });
    const ran = await runHere(
      repo.dir,
      '[ "$FRONTIER_TICKET" = tidy ] && { sleep 1; git gc -q --prune=now; echo tidied; exit 0; }; mkdir -p docs && seq 1 20000 > docs/big.txt && echo done',
    );
    expect(ran.code).toBe(1);
    const api = attemptOf(repo.dir, "api", 1);
    const blob = api.changes?.paths[0]?.blob as string;
    expect(git(repo.root, "cat-file", "-p", blob).split("\n").length).toBe(20000);
    const held = / held by (refs\/\S+)$/.exec(api.reason ?? "")?.[1] as string;
    expect(git(repo.root, "rev-parse", `${held}:docs/big.txt`)).toBe(blob);
  });

  it("fails the attempt naming every path outside write_scope, keeps a patch, and leaves the branch where it was", async () => {
    const run = "breach: v1..";
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": `run: "${run}"\nisolation: required\n`,
      "tickets/api.md": ticket({ write_scope: ["app/api/**"] }),
      "tickets/loose.md": ticket({ write_scope: ["src/**", "!src/secret/**"] }),
    });
    const exec = [
      'if [ "$FRONTIER_TICKET" = api ]; then',
      "  mkdir -p app/api && echo ok > app/api/a.js && echo sneaky > app/other.js && echo changed >> README.md",
      "else mkdir -p src/secret && echo x > src/ok.js && echo k > src/secret/key; fi",
      "echo done",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    const branch = runBranchName(run);
    expect(branch).toBe("frontier/breach-v1");
    expect(git(repo.root, "rev-parse", branch)).toBe(repo.start);

    const api = attemptOf(repo.dir, "api", 1);
    expect(api.outcome).toBe("failed");
    expect(api.reason).toMatch(/^scope-breach: changed 2 paths outside its write_scope: /);
    expect(api.reason).toContain("README.md");
    expect(api.reason).toContain("app/other.js");
    expect(api.reason).not.toContain("app/api/a.js");
    expect(api.changes?.verdict).toBe("breach");
    expect(api.changes?.paths.map((p) => p.path)).toEqual([
      "README.md",
      "app/api/a.js",
      "app/other.js",
    ]);
    expect(api.changes?.paths.every((p) => /^[0-9a-f]{40}$/.test(p.blob ?? ""))).toBe(true);
    expect(api.changes?.patch_file).toBe(".frontier/results/api@1.patch");
    // the reason says where the evidence is
    expect(api.reason).toContain("the change is kept as evidence in .frontier/results/api@1.patch");
    const patch = readFileSync(join(repo.dir, ".frontier", "results", "api@1.patch"), "utf8");
    expect(patch).toContain("+sneaky");
    // a patch git applies
    expect(
      git(repo.root, "apply", "--check", join(repo.dir, ".frontier", "results", "api@1.patch")),
    ).toBe("");

    const loose = attemptOf(repo.dir, "loose", 1);
    // a `!` entry takes back what the entry before it allowed
    expect(loose.reason).toMatch(
      /^scope-breach: changed 1 path outside its write_scope: src\/secret\/key/,
    );
    // nothing reached the user's tree
    expect(git(repo.root, "status", "--porcelain", "--", ".", ":!tickets")).toBe("");
    expect(otherWorktrees(repo.root)).toEqual([]);
    expect(ran.stderr).toContain(`changes: none integrated yet — ${branch} is still at`);
  });
});

describe("a conflict: someone else's commit on frontier/<run> touched the same path", () => {
  it("fails the attempt naming the path and the commit, overwrites nothing, and its retry starts from the new head", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: conflict\nisolation: worktree\nretries: 1\n",
      "tickets/api.md": ticket({ write_scope: ["app/api/**"] }),
    });
    const exec = [
      "set -e",
      // it runs in its worktree, in the repository's git directory; the records stay the user's
      `test "$FRONTIER_DIR" = '${repo.dir}' && test "$FRONTIER_TICKET_FILE" = '${repo.dir}/api.md'`,
      'case "$(pwd -P)" in "$(cd "$(git rev-parse --git-common-dir)" && pwd -P)"/frontier/worktrees/*) ;; *) exit 3 ;; esac',
      'if [ "$FRONTIER_ATTEMPT" = 1 ]; then',
      // another writer commits app/api/x.js on the run's branch while this attempt runs
      '  idx="$(mktemp -u)"',
      '  GIT_INDEX_FILE="$idx" git read-tree refs/heads/frontier/conflict',
      "  blob=$(printf 'theirs\\n' | git hash-object -w --stdin)",
      '  GIT_INDEX_FILE="$idx" git update-index --add --cacheinfo "100644,$blob,app/api/x.js"',
      '  tree=$(GIT_INDEX_FILE="$idx" git write-tree); rm -f "$idx"',
      '  them=$(git commit-tree "$tree" -p refs/heads/frontier/conflict -m "someone else")',
      '  git update-ref refs/heads/frontier/conflict "$them"',
      "fi",
      // the second attempt's worktree starts from that commit
      'test "$FRONTIER_ATTEMPT" = 1 || grep -q theirs app/api/x.js',
      'mkdir -p app/api && echo "ours $FRONTIER_ATTEMPT" > app/api/x.js && echo written',
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(ran.stderr).toContain("run conflict: complete");

    const commits = commitsOf(repo.root, `${repo.start}..frontier/conflict`);
    expect(commits.map((c) => c.subject)).toEqual(["someone else", "api: A ticket"]);
    const theirs = commits[0]!.sha;
    const first = attemptOf(repo.dir, "api", 1);
    expect(first.outcome).toBe("failed");
    expect(first.reason).toBe(
      `conflict: app/api/x.js (changed by ${theirs.slice(0, 12)}) changed on the branch after the attempt started; nothing was overwritten — a retry starts from the new head`,
    );
    expect(first.changes).toMatchObject({ verdict: "conflict", start: repo.start });
    const second = attemptOf(repo.dir, "api", 2);
    expect(second.changes).toMatchObject({ verdict: "integrated", start: theirs });
    expect(git(repo.root, "show", "frontier/conflict:app/api/x.js")).toBe("ours 2");
    expect(commits[1]).toMatchObject({ ticket: "api", attempt: "2" });
  });

  it("a directory the attempt made a file, into which someone else added a file: a conflict naming the directory, their file stays", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: dirfile\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/api/**"] }),
      "app/api/routes/index.js": "export {};\n",
    });
    const exec = [
      "set -e",
      pushOnto("refs/heads/frontier/dirfile", "app/api/routes/users.js", "theirs", "someone else"),
      // the attempt puts its routes in one file where the directory was
      "rm -r app/api/routes && echo 'export const routes = [];' > app/api/routes && echo written",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    const theirs = commitsOf(repo.root, `${repo.start}..frontier/dirfile`)[0]!.sha;
    expect(attemptOf(repo.dir, "api", 1).reason).toMatch(
      new RegExp(`^conflict: app/api/routes \\(changed by ${theirs.slice(0, 12)}\\)`),
    );
    expect(git(repo.root, "show", "frontier/dirfile:app/api/routes/users.js")).toBe("theirs");
  });
});

/** Two isolated coding tickets, the UI on the API, in a repository of their own. */
const apiAndUi = (run: string) =>
  repoWith({
    "tickets/frontier.yml": `run: ${run}\nisolation: worktree\n`,
    "tickets/api.md": ticket({ write_scope: ["app/api/**"] }),
    "tickets/ui.md": ticket({ depends_on: ["api"], write_scope: ["app/ui/**"] }),
  });

/** Their executor: logs each attempt, writes the API, and the UI only where the API is; `extra` runs before it ends. */
const apiAndUiExec = (extra: string[] = []) =>
  [
    "set -e",
    'echo "$FRONTIER_TICKET $FRONTIER_ATTEMPT" >> "$FRONTIER_DIR/../runs.log"',
    'case "$FRONTIER_TICKET" in',
    "  api) mkdir -p app/api && echo api > app/api/a.js ;;",
    "  ui) test -f app/api/a.js && mkdir -p app/ui && echo ui > app/ui/u.js ;;",
    "esac",
    ...extra,
    "echo done",
  ].join("\n");

describe("an attempt that ended but was not integrated loses nothing", () => {
  const graph = () => apiAndUi("kill");
  const exec = apiAndUiExec([
    'if [ -n "$LOCK_REF" ] && [ "$FRONTIER_TICKET" = api ]; then',
    '  : > "$(git rev-parse --git-common-dir)/refs/heads/frontier/kill.lock"',
    "fi",
  ]);
  /** A run whose branch could not be moved (its attempt ended unintegrated), its ref lock then removed. */
  const heldAndUnlocked = async () => {
    const repo = graph();
    process.env.LOCK_REF = "1";
    try {
      await runHere(repo.dir, exec);
    } finally {
      delete process.env.LOCK_REF;
    }
    rmSync(join(repo.root, ".git", "refs", "heads", "frontier", "kill.lock"));
    return repo;
  };
  const runs = (root: string) => readFileSync(join(root, "runs.log"), "utf8").trim().split("\n");

  it("a branch that cannot be moved keeps the attempt claimed with its worktree; the next run integrates it once, without running it again", async () => {
    const repo = graph();
    process.env.LOCK_REF = "1";
    let ran: Awaited<ReturnType<typeof runHere>>;
    try {
      ran = await runHere(repo.dir, exec);
    } finally {
      delete process.env.LOCK_REF;
    }
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /error: api attempt 1 ended, but its changes could not be integrated on frontier\/kill: .*kill\.lock/,
    );
    expect(readFileSync(join(repo.dir, "api.md"), "utf8")).toMatch(/status: claimed/);
    expect(existsSync(join(repo.dir, ".frontier", "integrating", "api@1.json"))).toBe(true);
    expect(otherWorktrees(repo.root)).toHaveLength(1);
    expect(git(repo.root, "rev-parse", "frontier/kill")).toBe(repo.start);

    rmSync(join(repo.root, ".git", "refs", "heads", "frontier", "kill.lock"));
    const again = await runHere(repo.dir, exec);
    expect(again.stderr).toContain(
      "api: attempt 1 had ended before the last run stopped: its changes are on frontier/kill as",
    );
    expect(again.code).toBe(0);
    expect(runs(repo.root)).toEqual(["api 1", "ui 1"]);
    const commits = commitsOf(repo.root, `${repo.start}..frontier/kill`);
    expect(commits.map((c) => c.ticket)).toEqual(["api", "ui"]);
    expect(attemptOf(repo.dir, "api", 1).changes?.commit).toBe(commits[0]?.sha);
    expect(existsSync(join(repo.dir, ".frontier", "integrating", "api@1.json"))).toBe(false);
    expect(otherWorktrees(repo.root)).toEqual([]);
  });

  it("a commit that landed before its record was written is found by its trailer: integrated exactly once", async () => {
    const repo = graph();
    // the attempt's result cannot be written: the run stops after the commit, before the record
    mkdirSync(join(repo.dir, ".frontier"), { recursive: true });
    writeFileSync(join(repo.dir, ".frontier", "results"), "");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("could not write");
    const landed = commitsOf(repo.root, `${repo.start}..frontier/kill`);
    expect(landed.map((c) => c.ticket)).toEqual(["api"]);
    expect(existsSync(join(repo.dir, ".frontier", "attempts", "api@1.json"))).toBe(false);

    rmSync(join(repo.dir, ".frontier", "results"));
    const again = await runHere(repo.dir, exec);
    expect(again.code).toBe(0);
    expect(runs(repo.root)).toEqual(["api 1", "ui 1"]);
    const commits = commitsOf(repo.root, `${repo.start}..frontier/kill`);
    expect(commits.map((c) => c.ticket)).toEqual(["api", "ui"]);
    expect(commits[0]?.sha).toBe(landed[0]?.sha);
    expect(attemptOf(repo.dir, "api", 1).changes).toMatchObject({
      verdict: "integrated",
      commit: landed[0]?.sha,
    });
  });

  it("a commit that landed before its record stays what it is when the ticket's write_scope is narrowed before the next run: integrated, never a breach", async () => {
    const repo = graph();
    mkdirSync(join(repo.dir, ".frontier"), { recursive: true });
    writeFileSync(join(repo.dir, ".frontier", "results"), "");
    expect((await runHere(repo.dir, exec)).code).toBe(1);
    const [landed] = commitsOf(repo.root, `${repo.start}..frontier/kill`);
    expect(landed?.ticket).toBe("api");

    rmSync(join(repo.dir, ".frontier", "results"));
    const api = join(repo.dir, "api.md");
    writeFileSync(api, readFileSync(api, "utf8").replace("app/api/**", "app/server/**"));
    const again = await runHere(repo.dir, exec);
    expect(attemptOf(repo.dir, "api", 1)).toMatchObject({
      outcome: "complete",
      changes: { verdict: "integrated", commit: landed?.sha },
    });
    expect(again.code).toBe(0);
    expect(runs(repo.root)).toEqual(["api 1", "ui 1"]);
    expect(commitsOf(repo.root, `${repo.start}..frontier/kill`).map((c) => c.ticket)).toEqual([
      "api",
      "ui",
    ]);
  });

  it("`frontier reset` removes the run's worktrees, keeps what ended unintegrated as a patch, and keeps the branch", async () => {
    const repo = await heldAndUnlocked();
    const { code, text } = await resetHere(repo.dir);
    expect(code).toBe(0);
    expect(text).toContain(
      "api attempt 1 had ended but its changes were never integrated; they are kept as integrating/api@1.patch in the archived records",
    );
    expect(text).toContain("removed 1 worktree of the run");
    expect(text).toContain("kept the branch frontier/kill: it has no commits past");
    expect(otherWorktrees(repo.root)).toEqual([]);
    const patch = readFileSync(
      join(repo.dir, ".frontier", "runs", "kill-1", "integrating", "api@1.patch"),
      "utf8",
    );
    expect(patch).toContain("+api");
    // the next run starts afresh on the branch
    const again = await runHere(repo.dir, exec);
    expect(again.code).toBe(0);
    expect(commitsOf(repo.root, `${repo.start}..frontier/kill`).map((c) => c.ticket)).toEqual([
      "api",
      "ui",
    ]);
  });

  it("`frontier reset` that cannot keep an unintegrated attempt's patch leaves its worktree instead", async () => {
    const repo = await heldAndUnlocked();
    // where the patch would go stands a directory: the patch cannot be written
    mkdirSync(join(repo.dir, ".frontier", "integrating", "api@1.patch"));
    const { code, text } = await resetHere(repo.dir);
    expect(code).toBe(0);
    expect(text).toMatch(
      /api attempt 1 had ended but its changes were never integrated; they could not be kept as a patch \(.*\): they stay in /,
    );
    expect(text).not.toContain("removed 1 worktree");
    const [left] = otherWorktrees(repo.root);
    expect(left).toBeDefined();
    expect(readFileSync(join(left!.slice("worktree ".length), "app", "api", "a.js"), "utf8")).toBe(
      "api\n",
    );
  });

  it("`frontier reset` leaves the worktree of an attempt holding a file no patch can hold (a .GIT)", async () => {
    const repo = await heldAndUnlocked();
    const tree = otherWorktrees(repo.root)[0]!.slice("worktree ".length);
    mkdirSync(join(tree, "app", "api", ".GIT"));
    writeFileSync(join(tree, "app", "api", ".GIT", "config"), "only copy\n");
    const { code, text } = await resetHere(repo.dir);
    expect(code).toBe(0);
    expect(text).toMatch(
      /could not be kept as a patch \(names git refuses: app\/api\/\.GIT\/config \(rename them, or make them plain files\)\): they stay in /,
    );
    expect(text).not.toContain("kept as evidence");
    expect(readFileSync(join(tree, "app", "api", ".GIT", "config"), "utf8")).toBe("only copy\n");
  });
});

describe("SIGKILL between an attempt's end and its integration", () => {
  it("the next run integrates it exactly once, from its worktree or by finding its commit, and runs nothing again", async () => {
    const repo = apiAndUi("sigkill");
    const exec = apiAndUiExec();
    const integrating = join(repo.dir, ".frontier", "integrating");
    mkdirSync(integrating, { recursive: true });
    const started = startFrontier(["run", repo.dir, "--exec", exec], { env: IDENTITY });
    // the moment the attempt's end is written down, before its commit and its record
    let recordedAtKill: boolean | undefined;
    const watcher = watch(integrating, (_event, name) => {
      if (name !== "api@1.json" || recordedAtKill !== undefined) return;
      recordedAtKill = existsSync(join(repo.dir, ".frontier", "attempts", "api@1.json"));
      started.child.kill("SIGKILL");
    });
    const killed = await started.done;
    watcher.close();
    expect(killed.signal).toBe("SIGKILL");
    expect(recordedAtKill).toBe(false);

    const again = await runHere(repo.dir, exec);
    expect(again.stderr).toContain("api: attempt 1 had ended before the last run stopped");
    expect(again.code).toBe(0);
    expect(readFileSync(join(repo.root, "runs.log"), "utf8").trim().split("\n")).toEqual([
      "api 1",
      "ui 1",
    ]);
    const commits = commitsOf(repo.root, `${repo.start}..frontier/sigkill`);
    expect(commits.map((c) => c.ticket)).toEqual(["api", "ui"]);
    expect(attemptOf(repo.dir, "api", 1).changes?.commit).toBe(commits[0]?.sha);
    expect(otherWorktrees(repo.root)).toEqual([]);
  });
});

describe("the run's branch is made from HEAD when the run starts", () => {
  it("a branch of that name holding commits HEAD lacks starts nothing; once HEAD holds them, the run starts it again from HEAD", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: again\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["a.txt"] }),
    });
    git(repo.root, "checkout", "-q", "-b", "frontier/again");
    git(repo.root, "commit", "-q", "--allow-empty", "-m", "an earlier run's work");
    git(repo.root, "checkout", "-q", "main");
    const refused = await runHere(repo.dir, "echo a > a.txt; echo done");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "error: the branch frontier/again holds 1 commit that HEAD does not have (an earlier run's changes?) — merge it (git merge frontier/again) or delete it (git branch -D frontier/again), or give this run another name (run: in frontier.yml); nothing was started",
    );
    expect(readFileSync(join(repo.dir, "a.md"), "utf8")).not.toContain("status:");

    git(repo.root, "merge", "-q", "--no-ff", "-m", "merge the earlier run", "frontier/again");
    const head = git(repo.root, "rev-parse", "HEAD");
    const ran = await runHere(repo.dir, "echo a > a.txt; echo done");
    expect(ran.stderr).toContain(
      `frontier/again was left by an earlier run and HEAD holds all of it: it starts again from HEAD (${head.slice(0, 10)})`,
    );
    expect(ran.code).toBe(0);
    expect(commitsOf(repo.root, `${head}..frontier/again`).map((c) => c.ticket)).toEqual(["a"]);
  });
});

describe("an agent that misbehaves with git in its worktree (SPEC §4b)", () => {
  const run = async (exec: string, extra: Record<string, string> = {}) => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: odd\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**", "tickets/**"] }),
      "tickets/later.md": ticket({ write_scope: ["docs/**"], depends_on: ["api"] }),
      ...extra,
    });
    const ran = await runHere(repo.dir, `set -e\n${exec}\necho done`);
    return { repo, ran, api: attemptOf(repo.dir, "api", 1) };
  };

  it("a nested repository, committed or not, and a .GIT are refused by name: no gitlink lands and its files are kept in the patch", async () => {
    const { repo, ran, api } = await run(
      [
        "mkdir -p app/lib app/fresh && echo c > app/lib/c.js && echo f > app/fresh/f.js",
        "(cd app/lib && git init -q && git add -A && git commit -qm nested)",
        "(cd app/fresh && git init -q)",
        "mkdir -p app/.GIT && echo '[core]' > app/.GIT/config",
        "echo ok > app/ok.js",
      ].join("\n"),
    );
    expect(ran.code).toBe(1);
    expect(api.outcome).toBe("failed");
    expect(api.reason).toMatch(
      /^integration refused: nested git repositories: app\/fresh, app\/lib .*; names git refuses: app\/\.GIT\/config /,
    );
    expect(git(repo.root, "rev-parse", "frontier/odd")).toBe(repo.start);
    const patch = readFileSync(join(repo.dir, api.changes!.patch_file!), "utf8");
    expect(patch).toContain("+++ b/app/lib/c.js");
    expect(patch).toContain("+++ b/app/fresh/f.js");
    expect(patch).not.toContain("Subproject commit");
    // no patch can hold a .GIT: its worktree, the only copy, stays
    expect(api.reason).toContain(`kept as evidence in ${api.changes!.patch_file}, but for what`);
    const kept = /no patch holds: it stays in (\S+)$/.exec(api.reason ?? "")?.[1] as string;
    expect(readFileSync(join(kept, "app/.GIT/config"), "utf8")).toBe("[core]\n");
  });

  it("the user's own .git/info/exclude is honoured; the worktree's files are changes whatever else excludes them", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: odd\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    writeFileSync(join(repo.root, ".git/info/exclude"), "*.log\n");
    const ran = await runHere(
      repo.dir,
      "mkdir -p app && echo ok > app/ok.js && echo noise > app/run.log",
    );
    expect(ran.code).toBe(0);
    expect(commitsOf(repo.root, `${repo.start}..frontier/odd`).map((c) => c.paths)).toEqual([
      ["app/ok.js"],
    ]);
  });

  it("files written into a submodule's directory (never checked out in a worktree) are refused by name and kept, never dropped", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: odd\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    git(repo.root, "update-index", "--add", "--cacheinfo", `160000,${repo.start},app/vendor`);
    git(repo.root, "commit", "-qm", "a submodule");
    const head = git(repo.root, "rev-parse", "HEAD");
    const ran = await runHere(repo.dir, "mkdir -p app/vendor && echo mine > app/vendor/mine.js");
    const api = attemptOf(repo.dir, "api", 1);
    expect(ran.code).toBe(1);
    expect(api.reason).toMatch(/^integration refused: changes inside submodules: app\/vendor \(/);
    expect(git(repo.root, "rev-parse", "frontier/odd")).toBe(head);
    const patch = readFileSync(join(repo.dir, api.changes!.patch_file!), "utf8");
    expect(patch).toContain("+mine");
  });

  it("names not in UTF-8 are two files refused by their escaped bytes, never merged", async () => {
    const { ran, api } = await run(
      "mkdir -p app && printf first > \"app/caf$(printf '\\351')\" && printf second > \"app/caf$(printf '\\350')\"",
    );
    expect(ran.code).toBe(1);
    expect(api.reason).toMatch(/names not in UTF-8: app\/caf\\xE8, app\/caf\\xE9 \(rename them\)/);
    expect(api.changes?.paths.map((p) => p.path)).toEqual(["app/caf\\xE8", "app/caf\\xE9"]);
  });

  it("a .git made anew ends the attempt failed, saying why, and keeps its worktree", async () => {
    const { repo, ran, api } = await run(
      'mkdir -p app && echo mine > app/mine.js && top=$(git rev-parse --show-toplevel) && rm -rf "$top/.git" && git -C "$top" init -q',
    );
    expect(ran.code).toBe(1);
    expect(api.outcome).toBe("failed");
    expect(api.reason).toMatch(
      /^its changes could not be collected: .* does not hold the commit the attempt started from .*made anew, or the commit pruned from it; nothing was integrated, its files are kept in (\S+)/,
    );
    const kept = /its files are kept in (\S+) —/.exec(api.reason ?? "")?.[1] as string;
    expect(readFileSync(join(kept, "app", "mine.js"), "utf8")).toBe("mine\n");
    // the ticket is not left claimed for ever
    expect(receiptOf(repo.dir).tickets.find((t) => t.id === "api")?.status).toBe("failed");
    // its files are the only copy: neither the next run nor a reset deletes them
    const again = await runHere(repo.dir, "echo done");
    expect(again.code).toBe(1);
    expect(readFileSync(join(kept, "app", "mine.js"), "utf8")).toBe("mine\n");
    const reset = await resetHere(repo.dir);
    expect(reset.text).toContain(kept);
    expect(readFileSync(join(kept, "app", "mine.js"), "utf8")).toBe("mine\n");
  });

  it("an agent that writes the engine's fields into another ticket breaches, naming the file", async () => {
    const { repo, ran, api } = await run(
      "printf -- '---\\nstatus: complete\\nwrite_scope: [docs/**]\\ndepends_on: [api]\\n---\\n# A ticket\\n' > tickets/later.md",
    );
    expect(ran.code).toBe(1);
    expect(api.reason).toMatch(
      /^scope-breach: changed the fields only the runner writes .* in tickets\/later\.md/,
    );
    expect(git(repo.root, "rev-parse", "frontier/odd")).toBe(repo.start);
  });
});
