/**
 * A checkout as actions/checkout leaves one (`fetch-depth: 1`): a real, shallow git work
 * tree whose detached HEAD is the fake GitHub's commit itself — its objects written with
 * their ids, every file with its mode (executables, symlinks).
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { deflateSync } from "node:zlib";
import type { GitObject } from "../fake-github/git.js";
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
 * Write the tree of `sha` (every file, or those `keep` keeps) into `dir`, with the commit
 * `sha` as its HEAD; a whole tree with attributes is converted as they say, as
 * actions/checkout converts it. Git runs without blocking: the fake GitHub in this process keeps answering.
 */
export async function checkoutCommit(
  repo: FakeRepo,
  sha: string,
  dir: string,
  keep: (path: string) => boolean = () => true,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const commit = repo.git.expect(sha, "commit");
  let attributes = false;
  let whole = true;
  for (const [path, entry] of repo.git.flatten(commit.tree)) {
    if (entry.type !== "blob") continue;
    if (!keep(path)) {
      whole = false;
      continue;
    }
    attributes ||= path === ".gitattributes" || path.endsWith("/.gitattributes");
    const target = join(dir, path);
    // each file written without blocking: a large checkout would hold the fake GitHub in this
    // process for a second, and every request of every job queue behind it
    await mkdir(dirname(target), { recursive: true });
    const content = repo.git.expect(entry.sha, "blob").content;
    if (entry.mode === "120000") await symlink(content.toString("utf8"), target);
    else {
      await writeFile(target, content);
      if (entry.mode === "100755") await chmod(target, 0o755);
    }
  }
  const git = (args: string[]) => run("git", args, { cwd: dir, env: GIT_ENV });
  await git(["init", "-q", "-b", "checkout"]);
  await writeObjects(repo, sha, join(dir, ".git"));
  writeFileSync(join(dir, ".git", "shallow"), `${sha}\n`);
  await git(["update-ref", "--no-deref", "HEAD", sha]);
  await git(["read-tree", sha]);
  // files written again as actions/checkout writes them where attributes say how (line endings, ident)
  if (attributes && whole) await git(["checkout-index", "-f", "-a"]);
  await git(["update-index", "-q", "--refresh"]).catch(() => undefined);
  return dir;
}

const gitTime = (iso: string) => `${Math.floor(new Date(iso).getTime() / 1000)} +0000`;

/** An object's content as git stores it (what the fake hashed for its id). */
function rawOf(o: GitObject): Buffer {
  if (o.type === "blob") return o.content;
  if (o.type === "tree") {
    return Buffer.concat(
      o.entries.flatMap((e) => [
        Buffer.from(`${e.mode === "040000" ? "40000" : e.mode} ${e.name}\0`),
        Buffer.from(e.sha, "hex"),
      ]),
    );
  }
  const lines = [`tree ${o.tree}`, ...o.parents.map((p) => `parent ${p}`)];
  lines.push(`author ${o.author.name} <${o.author.email}> ${gitTime(o.author.date)}`);
  lines.push(`committer ${o.committer.name} <${o.committer.email}> ${gitTime(o.committer.date)}`);
  return Buffer.from(`${lines.join("\n")}\n\n${o.message}`);
}

/** The commit `sha`, its tree and every blob under it, as loose objects of `gitDir`. */
async function writeObjects(repo: FakeRepo, sha: string, gitDir: string): Promise<void> {
  const stack = [sha];
  while (stack.length > 0) {
    const o = repo.git.get(stack.pop() as string);
    if (!o) continue;
    const raw = rawOf(o);
    const body = Buffer.concat([Buffer.from(`${o.type} ${raw.length}\0`), raw]);
    const id = createHash("sha1").update(body).digest("hex");
    if (id !== o.sha) throw new Error(`the fake's ${o.type} ${o.sha} serializes as ${id}`);
    await mkdir(join(gitDir, "objects", id.slice(0, 2)), { recursive: true });
    await writeFile(join(gitDir, "objects", id.slice(0, 2), id.slice(2)), deflateSync(body));
    if (o.type === "commit") stack.push(o.tree);
    if (o.type === "tree")
      stack.push(...o.entries.filter((e) => e.type !== "commit").map((e) => e.sha));
  }
}
