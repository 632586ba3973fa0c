/** Which worktree has a branch checked out, asked of a repository an agent ran in. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { checkedOutAt } from "../../src/workspace/worktrees.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it("a worktree whose path holds line breaks can neither hide the branch it has checked out nor name another path", async () => {
  const top = mkdtempSync(join(tmpdir(), "frontier-wt-"));
  dirs.push(top);
  const root = join(top, "repo");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "pipe" });
  execFileSync("git", ["init", "-q", "-b", "main", root]);
  writeFileSync(join(root, "a"), "a\n");
  git("add", "a");
  git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a");
  git("branch", "frontier/run");
  git("branch", "other");
  // its path puts a blank line in the listing (the end of a worktree's lines), then a
  // worktree of its own with another branch
  const forged = join(top, `x\n\nworktree ${top}/y\nbranch refs/heads/other\n\nz`);
  git("worktree", "add", "-q", forged, "frontier/run");
  // (git before 2.36 lists paths as they are: the branch is found, the path may be forged)
  expect(await checkedOutAt(root, "refs/heads/frontier/run")).toBe(forged);
  expect(await checkedOutAt(root, "refs/heads/main")).toBe(root);
});
