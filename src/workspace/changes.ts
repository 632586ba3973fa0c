/**
 * A ticket's changes, read from a git workspace (SPEC §4b): the difference between the
 * workspace as the attempt left it and the commit it started from — files added,
 * modified, deleted or renamed, the executable bit, symlinks. Paths the repository
 * ignores (.gitignore and git's other excludes) and the paths the caller excludes (the
 * ticket directory's `.frontier/`) are not changes.
 *
 * One module for both runners: the action's settle step reads the job's checkout, the
 * local runner a ticket's worktree. Nothing here touches the workspace or its index:
 * the workspace is staged into a temporary index, so what the agent staged or not, and
 * the user's own index, do not matter and are not changed. The blobs it writes are the
 * workspace's content, in the repository's object store, where an integration commit
 * (local) or an upload (GitHub) finds them.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChangedPath, ChangeMode } from "../core/changes.js";
import { git, gitText } from "./git.js";
import { moveRef } from "./worktrees.js";

export interface Collected {
  /** the commit the attempt started from */
  start: string;
  /** the workspace's tree as collected (in the repository's object store) */
  tree: string;
  /** in path order */
  paths: ChangedPath[];
}

const MODES: ReadonlySet<string> = new Set(["100644", "100755", "120000", "160000"]);
const asMode = (m: string): ChangeMode | undefined =>
  MODES.has(m) ? (m as ChangeMode) : undefined;
const ZERO = /^0+$/;

/** The repository's top directory, for a path inside its work tree; undefined outside one. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
  try {
    return await gitText(["rev-parse", "--show-toplevel"], { cwd: dir });
  } catch {
    return undefined;
  }
}

/** Run `fn` with a fresh temporary index file, removed afterwards. */
async function withIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  // the pid names it for the next run's sweep of what a killed one left (local/leftovers.ts)
  const dir = await mkdtemp(join(tmpdir(), `frontier-index-${process.pid}-`));
  try {
    return await fn({ GIT_INDEX_FILE: join(dir, "index") });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `:(exclude)` pathspecs for repository-relative paths (directories or files). */
function excludes(paths: readonly string[]): string[] {
  return paths.filter((p) => p !== "").map((p) => `:(exclude,top,literal)${p}`);
}

/**
 * The changes of the work tree at `workdir` (any directory inside it) against the commit
 * `start`, leaving out `exclude` (repository-relative paths).
 */
export async function collectChanges(
  workdir: string,
  start: string,
  options: { exclude?: readonly string[] } = {},
): Promise<Collected> {
  const root = (await repositoryRoot(workdir)) ?? workdir;
  const cwd = { cwd: root };
  const startCommit = await gitText(["rev-parse", "--verify", `${start}^{commit}`], cwd);
  const tree = await withIndex(async (env) => {
    await git(["read-tree", startCommit], { ...cwd, env });
    // -A: additions, modifications and deletions; ignored files stay out, as in a commit
    await git(["add", "-A", "--", ":(top)", ...excludes(options.exclude ?? [])], {
      ...cwd,
      env,
    });
    return gitText(["write-tree"], { ...cwd, env });
  });
  return { start: startCommit, tree, paths: await diffTrees(root, startCommit, tree) };
}

/** The changed paths between two tree-ish objects, renames found, with modes, blobs and line counts. */
export async function diffTrees(root: string, from: string, to: string): Promise<ChangedPath[]> {
  const cwd = { cwd: root };
  const raw = (await git(["diff-tree", "-r", "-z", "-M", "--raw", from, to], cwd))
    .toString("utf8")
    .split("\0");
  const paths: ChangedPath[] = [];
  for (let i = 0; i < raw.length; ) {
    const head = raw[i++];
    if (head === undefined || head === "") continue;
    // :<old mode> <new mode> <old blob> <new blob> <status>[score]
    const [oldMode, newMode, oldBlob, newBlob, status] = head.slice(1).split(" ") as [
      string,
      string,
      string,
      string,
      string,
    ];
    const letter = status.charAt(0);
    const first = raw[i++] as string;
    const c: ChangedPath =
      letter === "R"
        ? { path: raw[i++] as string, status: "renamed", from: first }
        : {
            path: first,
            status: letter === "A" ? "added" : letter === "D" ? "deleted" : "modified",
          };
    const nm = asMode(newMode);
    const om = asMode(oldMode);
    if (c.status !== "deleted" && nm) c.mode = nm;
    if (c.status !== "added" && om) c.oldMode = om;
    if (c.status !== "deleted" && !ZERO.test(newBlob)) c.blob = newBlob;
    if (c.status !== "added" && !ZERO.test(oldBlob)) c.oldBlob = oldBlob;
    paths.push(c);
  }
  // +/− lines (a binary file has none)
  const num = (await git(["diff-tree", "-r", "-z", "-M", "--numstat", from, to], cwd))
    .toString("utf8")
    .split("\0");
  const byPath = new Map(paths.map((c) => [c.path, c]));
  for (let i = 0; i < num.length; ) {
    const entry = num[i++];
    if (entry === undefined || entry === "") continue;
    const [added, removed, path] = entry.split("\t") as [string, string, string];
    // a rename: "added\tremoved\t" then the old path and the new path
    let target = path;
    if (path === "") {
      i++; // the old path
      target = num[i++] as string;
    }
    const c = byPath.get(target);
    if (c && added !== "-") {
      c.added = Number(added);
      c.removed = Number(removed);
    }
  }
  await addSizes(root, paths);
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function addSizes(root: string, paths: ChangedPath[]): Promise<void> {
  const blobs = paths.filter((c) => c.blob !== undefined && c.mode !== "160000");
  if (blobs.length === 0) return;
  const out = (
    await git(["cat-file", "--batch-check=%(objectname) %(objectsize)"], {
      cwd: root,
      input: `${blobs.map((c) => c.blob).join("\n")}\n`,
    })
  )
    .toString("utf8")
    .split("\n");
  const sizes = new Map<string, number>();
  for (const line of out) {
    const [oid, size] = line.split(" ");
    if (oid && size && /^\d+$/.test(size)) sizes.set(oid, Number(size));
  }
  for (const c of blobs) {
    const size = sizes.get(c.blob as string);
    if (size !== undefined) c.bytes = size;
  }
}

/** The changes as a patch (binary-safe), for keeping a change that was not integrated. */
export async function patchOf(root: string, start: string, tree: string): Promise<Buffer> {
  // the bytes git gives: a text file in another encoding than UTF-8 stays as it was
  return await git(["diff", "--binary", "-M", start, tree], { cwd: root });
}

/** The contents of blobs by id, from the repository's object store (one `git cat-file --batch`). */
export async function readBlobs(
  root: string,
  oids: readonly string[],
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const wanted = [...new Set(oids)];
  if (wanted.length === 0) return out;
  const bytes = await git(["cat-file", "--batch"], { cwd: root, input: `${wanted.join("\n")}\n` });
  let at = 0;
  while (at < bytes.length) {
    const eol = bytes.indexOf(0x0a, at);
    if (eol < 0) break;
    const [oid, type, size] = bytes.subarray(at, eol).toString("utf8").split(" ");
    at = eol + 1;
    if (type === "missing" || size === undefined) continue;
    const n = Number(size);
    out.set(oid as string, bytes.subarray(at, at + n));
    at += n + 1; // the content, then a newline
  }
  return out;
}

/**
 * The paths among `paths` that a commit between `start` and `head` changed, each with
 * the newest commit that did: what a ticket's changes would overwrite.
 */
export async function changedSince(
  root: string,
  start: string,
  head: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const moved = new Map<string, string>();
  if (paths.length === 0 || start === head) return moved;
  const env = { GIT_LITERAL_PATHSPECS: "1" };
  const names = (
    await git(["diff", "--name-only", "-z", "--no-renames", start, head, "--", ...paths], {
      cwd: root,
      env,
    })
  )
    .toString("utf8")
    .split("\0")
    .filter(Boolean);
  for (const path of names) {
    const commit = await gitText(["rev-list", "-1", `${start}..${head}`, "--", path], {
      cwd: root,
      env,
    });
    if (commit !== "") moved.set(path, commit);
  }
  return moved;
}

export type CommitOnto =
  | { kind: "ok"; commit: string }
  /** the ref no longer points at `head` (it holds `now`): read it again and judge again */
  | { kind: "moved"; now: string | undefined }
  /** the ref still points at `head` but could not be moved (a lock left behind, a full disk): git's words */
  | { kind: "failed"; message: string };

/**
 * One commit of `changes` on top of `head`, and `ref` moved to it only if it still
 * points at `head` (git's own compare-and-swap): the local runner's integration. The
 * changes' blobs must be in the repository's object store (collectChanges put them
 * there). Touches no work tree and no index but a temporary one.
 */
export async function commitOnto(
  root: string,
  options: {
    head: string;
    ref: string;
    changes: readonly ChangedPath[];
    message: string;
    /** author and committer, e.g. { GIT_AUTHOR_NAME, … }; default git's own configuration */
    identity?: Record<string, string>;
  },
): Promise<CommitOnto> {
  const cwd = { cwd: root };
  const tree = await withIndex(async (env) => {
    await git(["read-tree", options.head], { ...cwd, env });
    const lines: string[] = [];
    const zero = "0".repeat(40);
    for (const c of options.changes) {
      if (c.from !== undefined) lines.push(`0 ${zero}\t${c.from}`);
      if (c.status === "deleted") lines.push(`0 ${zero}\t${c.path}`);
      else lines.push(`${c.mode ?? "100644"} ${c.blob}\t${c.path}`);
    }
    await git(["update-index", "-z", "--index-info"], {
      ...cwd,
      env,
      input: lines.map((l) => `${l}\0`).join(""),
    });
    return gitText(["write-tree"], { ...cwd, env });
  });
  const identity = options.identity ?? (await fallbackIdentity(root));
  const commit = await gitText(["commit-tree", tree, "-p", options.head, "-F", "-"], {
    ...cwd,
    input: options.message,
    ...(identity ? { env: identity } : {}),
  });
  const moved = await moveRef(root, options.ref, commit, options.head, "frontier: integrate");
  return moved.kind === "ok" ? { kind: "ok", commit } : moved;
}

/** Who commits when git knows nobody (a fresh CI machine): Ticket Frontier itself. */
async function fallbackIdentity(root: string): Promise<Record<string, string> | undefined> {
  try {
    await git(["var", "GIT_COMMITTER_IDENT"], { cwd: root });
    await git(["var", "GIT_AUTHOR_IDENT"], { cwd: root });
    return undefined;
  } catch {
    return {
      GIT_AUTHOR_NAME: "Ticket Frontier",
      GIT_AUTHOR_EMAIL: "ticket-frontier@users.noreply.github.com",
      GIT_COMMITTER_NAME: "Ticket Frontier",
      GIT_COMMITTER_EMAIL: "ticket-frontier@users.noreply.github.com",
    };
  }
}
