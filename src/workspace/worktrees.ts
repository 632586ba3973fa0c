/**
 * Git worktrees and the refs around them, for a ticket that runs isolated (SPEC §4b):
 * where the repository keeps its objects, a branch made or moved only by
 * compare-and-swap, a detached worktree at a commit, its removal, and the commit a
 * ticket's integration made, found again by its trailer. Nothing here touches the
 * user's working tree, index or branch.
 */
import { existsSync, readFileSync, realpathSync, rmdirSync, rmSync, statSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import { errorText } from "../core/errors.js";
import { git, gitText } from "./git.js";

/** The oldest git whose worktrees do all of this (`git worktree remove` is 2.17). */
export const MIN_GIT: readonly [number, number] = [2, 17];

export interface Repository {
  /** the top of the work tree the ticket directory is in */
  root: string;
  /** the directory shared by all its worktrees (`.git` of the main one) */
  commonDir: string;
}

type RepositoryCheck =
  | { kind: "ok"; repository: Repository; head: string }
  | { kind: "no-git" }
  | { kind: "too-old"; version: string }
  | { kind: "not-a-repository" }
  | { kind: "no-commit"; root: string };

/** Whether `dir` can hold isolated tickets: git there, new enough, a repository with a commit. */
export async function checkRepository(dir: string): Promise<RepositoryCheck> {
  const version = /(\d+)\.(\d+)/.exec(await gitText(["--version"], { cwd: dir }).catch(() => ""));
  if (version === null) return { kind: "no-git" };
  const [major, minor] = [Number(version[1]), Number(version[2])];
  if (major < MIN_GIT[0] || (major === MIN_GIT[0] && minor < MIN_GIT[1])) {
    return { kind: "too-old", version: `${major}.${minor}` };
  }
  const args = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"];
  const [root, gitDir, common] = (await gitText(args, { cwd: dir }).catch(() => "")).split("\n");
  if (!root || !gitDir || !common) return { kind: "not-a-repository" };
  // the git directory, or git's (links resolved, as `worktree list` names it) when it holds that
  // in `worktrees/`: git follows a `commondir` an agent writes into the repository's (guard.ts)
  const [named = "", own = ""] = [common, gitDir].map((p) => realpathSync(resolve(dir, p)));
  const commonDir = relative(named, own) === `worktrees/${basename(own)}` ? named : own;
  const head = await tryResolveCommit(root, "HEAD");
  if (head === undefined) return { kind: "no-commit", root };
  return { kind: "ok", repository: { root, commonDir }, head };
}

/** The commit `rev` names, or undefined when it names none (or git cannot tell). */
export function tryResolveCommit(root: string, rev: string) {
  const args = ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`];
  return gitText(args, { cwd: root }).catch(() => undefined);
}

/** Whether git takes `branch` as a branch name; false as well when git cannot tell. */
export function tryValidBranchName(root: string, branch: string): Promise<boolean> {
  return succeeds(["check-ref-format", "--branch", branch], root);
}

export type RefMove =
  | { kind: "ok" }
  /** the ref no longer points at `expected`: it holds `now` (undefined: it is gone) */
  | { kind: "moved"; now: string | undefined }
  /** it is as expected but could not be moved (a lock left behind, a full disk, a name in the way): git's words */
  | { kind: "failed"; message: string };

/**
 * Point `ref` at `commit` only if it still points at `expected` (undefined: only if it
 * does not exist yet): git's own compare-and-swap, the one way the runner moves a ref.
 */
export async function moveRef(
  root: string,
  ref: string,
  commit: string,
  expected: string | undefined,
  reason: string,
): Promise<RefMove> {
  try {
    await git(["update-ref", "-m", reason, ref, commit, expected ?? ""], { cwd: root });
    return { kind: "ok" };
  } catch (error) {
    const now = await tryResolveCommit(root, ref);
    if (now === expected) return { kind: "failed", message: errorText(error) };
    return { kind: "moved", now };
  }
}

/** Whether `ancestor` is `descendant` or one of its ancestors; false as well when git cannot tell. */
export function tryIsAncestor(root: string, ancestor: string, descendant: string) {
  return succeeds(["merge-base", "--is-ancestor", ancestor, descendant], root);
}

/** Whether `git ARGS` exits 0: a failure of any kind is a no. */
function succeeds(args: readonly string[], root: string): Promise<boolean> {
  return git(args, { cwd: root }).then(
    () => true,
    () => false,
  );
}

/** How many commits `to` has that `from` has not. */
export async function commitsBetween(root: string, from: string, to: string): Promise<number> {
  return Number(await gitText(["rev-list", "--count", `${from}..${to}`], { cwd: root }));
}

/**
 * A detached worktree of `commit` at `path`, made by untrusted git (an executor can write
 * the configuration it is checked out with). Its commit is written beside it first (madeAt),
 * where no git command the agent runs changes it.
 */
export async function addWorktree(root: string, path: string, commit: string): Promise<void> {
  // what is there already (files a run kept, after a reset restarted the count) is moved aside
  if (existsSync(path)) {
    await rename(path, `${path}.${Date.now()}`);
    await git(["worktree", "prune"], { cwd: root });
  }
  await mkdir(resolve(path, ".."), { recursive: true });
  await writeFile(startFile(path), commit);
  await git(["worktree", "add", "--detach", "--quiet", path, commit], { cwd: root });
}

/** Remove the worktree at `path` (its files and git's record of it), if there is one. */
export async function removeWorktree(root: string, path: string): Promise<void> {
  try {
    await git(["worktree", "remove", "--force", "--force", path], { cwd: root });
  } catch {
    // not a worktree (any more): its directory, if any, and git's stale record go — never
    // the repository itself or a directory that holds it
    if (!/^\.\.(\/|$)/.test(relative(path, root))) return;
    await rm(path, { recursive: true, force: true });
    await git(["worktree", "prune"], { cwd: root }).catch(() => undefined);
  }
  await rm(startFile(path), { force: true });
}

/**
 * What a kill inside `git worktree add` leaves, tidied: git's record of a worktree still
 * locked "initializing" — one under `under` (the run's own, under its lock), or one with
 * no `gitdir` yet that is older than a minute — is unlocked and pruned, and the empty
 * directories under `under` that no worktree holds go. Never a directory with files: those
 * are returned (an executor removed its worktree's `.git`, say).
 */
export async function pruneStale(repo: Repository, under: string, now: number): Promise<string[]> {
  const admin = join(repo.commonDir, "worktrees");
  for (const name of await namesIn(admin)) {
    const locked = join(admin, name, "locked");
    try {
      if (readFileSync(locked, "utf8").trim() !== "initializing") continue;
      const gitdir = existsSync(join(admin, name, "gitdir"))
        ? readFileSync(join(admin, name, "gitdir"), "utf8").trim()
        : undefined;
      const ours = gitdir?.startsWith(join(under, "/")) === true;
      const old = gitdir === undefined && now - statSync(locked).mtimeMs > 60_000;
      if (ours || old) rmSync(locked, { force: true });
    } catch {
      // not locked, or not readable: git's own to judge
    }
  }
  await git(["worktree", "prune"], { cwd: repo.root }).catch(() => undefined);
  const held = new Set(await worktreesUnder(repo.root, under));
  const left: string[] = [];
  for (const name of await namesIn(under)) {
    const path = join(under, name);
    const start = name.endsWith(".start");
    try {
      if (start && !held.has(path.slice(0, -".start".length))) rmSync(path);
      else if (!start && !held.has(path)) rmdirSync(path); // only an empty one: rmdir refuses the rest
    } catch {
      left.push(path); // it holds files: they may be someone's work, and stay
    }
  }
  return left;
}

/** The names in `dir`; none when it cannot be read (it is not there). */
const namesIn = (dir: string) => readdir(dir).catch((): string[] => []);

/** The repository's worktrees: each one's path, and the branches listed with it. */
async function worktreeList(root: string): Promise<Array<{ path: string; branches: string[] }>> {
  // NUL-separated where git can (2.36): else a path's line breaks could forge the listing, so
  // every `branch` line counts for the worktree above it (a branch checked out is never missed)
  const args = ["worktree", "list", "--porcelain"];
  const o = { cwd: root };
  const z = await git([...args, "-z"], o).catch(() => undefined);
  const text = z?.toString("utf8") ?? (await gitText(args, o).catch(() => ""));
  const list: Array<{ path: string; branches: string[] }> = [];
  for (const line of text.split(z ? "\0" : "\n")) {
    if (line.startsWith("worktree ")) list.push({ path: line.slice(9), branches: [] });
    else if (line.startsWith("branch ")) list.at(-1)?.branches.push(line.slice(7));
  }
  return list;
}

/** The paths of the repository's worktrees under `under`. */
export async function worktreesUnder(root: string, under: string): Promise<string[]> {
  const prefix = join(under, "/");
  return (await worktreeList(root)).map((w) => w.path).filter((p) => p.startsWith(prefix));
}

const startFile = (path: string) => `${path}.start`;
/** The commit the worktree at `path` was made at (addWorktree), while it is there. */
export const madeAt = (path: string) => readFile(startFile(path), "utf8").catch(() => undefined);

/** Detach the worktree at `path` where its HEAD is: its HEAD alone is written, none of its files. */
export async function detachHead(path: string): Promise<void> {
  await git(["update-ref", "--no-deref", "-m", "frontier: detach", "HEAD", "HEAD"], { cwd: path });
}

/** Where `ref` (refs/heads/…) is checked out, if a worktree (the user's own included) has it. */
export async function checkedOutAt(root: string, ref: string): Promise<string | undefined> {
  return (await worktreeList(root)).find((w) => w.branches.includes(ref))?.path;
}

/**
 * The newest commit in `from..to` whose message has the line `trailer` exactly
 * (`Frontier-Claim: <token>`): an integration that already landed.
 */
export async function commitWithTrailer(root: string, from: string, to: string, trailer: string) {
  const args = ["log", "--fixed-strings", `--grep=${trailer}`, "--format=%H%x00%B%x00"];
  const found = (await gitText([...args, `${from}..${to}`], { cwd: root })).split("\0");
  for (let i = 0; i + 1 < found.length; i += 2) {
    if (found[i + 1]!.split("\n").some((l) => l.trim() === trailer)) return found[i]!.trim();
  }
  return undefined;
}
