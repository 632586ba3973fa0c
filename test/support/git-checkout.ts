/**
 * A checkout as actions/checkout leaves one: a real git work tree whose HEAD holds the
 * tree of a commit of the fake GitHub — every file with its mode (executables, symlinks).
 * The local HEAD's id differs from the fake's (another committer and time), its blobs'
 * ids are the same: git's content ids.
 */
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { FakeRepo } from "../fake-github/server.js";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "checkout",
  GIT_AUTHOR_EMAIL: "checkout@example.com",
  GIT_COMMITTER_NAME: "checkout",
  GIT_COMMITTER_EMAIL: "checkout@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: "/nonexistent",
};

/** Run git in `dir`; its stdout. */
export function gitIn(dir: string, args: string[], input?: string): string {
  return execFileSync("git", args, {
    cwd: dir,
    env: GIT_ENV,
    encoding: "utf8",
    ...(input !== undefined ? { input } : {}),
  });
}

const run = promisify(execFile);

/**
 * Write the tree of `sha` (every file, or those `keep` keeps) into `dir` and commit it as
 * HEAD. Git runs without blocking: the fake GitHub in this process keeps answering.
 */
export async function checkoutCommit(
  repo: FakeRepo,
  sha: string,
  dir: string,
  keep: (path: string) => boolean = () => true,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const commit = repo.git.expect(sha, "commit");
  for (const [path, entry] of repo.git.flatten(commit.tree)) {
    if (!keep(path) || entry.type !== "blob") continue;
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    const content = repo.git.expect(entry.sha, "blob").content;
    if (entry.mode === "120000") symlinkSync(content.toString("utf8"), target);
    else {
      writeFileSync(target, content);
      if (entry.mode === "100755") chmodSync(target, 0o755);
    }
  }
  const git = (args: string[]) => run("git", args, { cwd: dir, env: GIT_ENV });
  await git(["init", "-q", "-b", "checkout"]);
  await git(["add", "-A"]);
  await git(["commit", "-q", "--allow-empty", "-m", `checkout of ${sha}`]);
  return dir;
}
