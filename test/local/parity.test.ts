/**
 * One answer to "what are this attempt's changes?" on both runners (SPEC §4b): the same
 * agent history, run in a local ticket's worktree by the local runner and in a checkout of
 * the same commit as a GitHub job's settle step collects it, gives the same paths, modes
 * and blobs — whatever the agent did with git.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../src/core/model.js";
import { collectJobChanges } from "../../src/github/changes.js";
import { git, IDENTITY, readJson, repoWith, runHere, ticket } from "./git-repo.js";

const HISTORIES: Record<string, string> = {
  "commits once": "echo v2 > src/a.txt && git add -A && git commit -qm once",
  "commits twice, then a branch of its own with an uncommitted file": [
    "echo one > src/one.txt && git add -A && git commit -qm one",
    "echo two > src/two.txt && git add -A && git commit -qm two",
    "git checkout -qb agent && echo three > src/three.txt",
  ].join(" && "),
  "resets a commit away, stashes an edit, leaves untracked files": [
    "echo gone > src/gone.txt && git add -A && git commit -qm gone && git reset -q --hard HEAD~1",
    "echo stashed >> src/a.txt && git stash -q",
    "mkdir -p src/new && echo untracked > src/new/u.txt",
  ].join(" && "),
  "deletes, renames, makes executable, links": [
    "git rm -q src/del.txt && git mv src/old.txt src/moved.txt && git commit -qm moves",
    "chmod +x src/run.sh && ln -s a.txt src/link",
  ].join(" && "),
};

type Shown = [string, string, string | undefined, string | undefined];
const shown = (
  paths: ReadonlyArray<{ path: string; status: string; mode?: string; blob?: string }>,
) => paths.map((p): Shown => [p.path, p.status, p.mode, p.blob]);

describe("the same history gives the same changes on both runners", () => {
  for (const [name, history] of Object.entries(HISTORIES)) {
    it(name, async () => {
      const repo = repoWith({
        "tickets/frontier.yml": "run: parity\nisolation: worktree\n",
        "tickets/api.md": ticket({ write_scope: ["src/**"] }),
        "src/a.txt": "v1\n",
        "src/del.txt": "bye\n",
        "src/old.txt": "moves\nwith\nits\nlines\n",
        "src/run.sh": "#!/bin/sh\necho run\n",
      });
      const ran = await runHere(repo.dir, `set -e\n${history}\necho done`);
      const local = readJson<AttemptRecord>(join(repo.dir, ".frontier", "attempts", "api@1.json"));
      expect(local.changes?.verdict, ran.stderr).toBe("integrated");

      // a GitHub job: a checkout of the same commit, the same agent, the settle step's collection
      const ws = mkdtempSync(join(tmpdir(), "frontier-parity-"));
      git(ws, "clone", "-q", repo.root, ".");
      git(ws, "checkout", "-q", "--detach", repo.start);
      execFileSync("sh", ["-c", `set -e\n${history}`], {
        cwd: ws,
        env: { ...process.env, ...IDENTITY },
      });
      const job = await collectJobChanges(ws, "tickets", { start: repo.start });
      expect(job.refused).toBeUndefined();
      expect(shown(job.paths)).toEqual(shown(local.changes?.paths ?? []));
      expect(job.paths.length).toBeGreaterThan(0);
      rmSync(ws, { recursive: true, force: true });
      rmSync(repo.root, { recursive: true, force: true });
    });
  }
});
