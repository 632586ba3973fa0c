/**
 * A ticket's changes, read from a git workspace (SPEC §4b): the difference between the
 * workspace's files as the attempt left them and the commit it started from, whatever
 * the agent did with git meanwhile (commits, branches, resets, stashes) — files added,
 * modified, deleted or renamed, the executable bit, symlinks. Paths the repository
 * ignores (its .gitignore files, and the info/exclude of the git directory the caller trusts, never
 * an agent's info/exclude or core.excludesFile: its git could hide its files with them) and
 * the paths the caller excludes (the ticket directory's `.frontier/`) are not changes.
 *
 * One module for both runners: the action's settle step reads the job's checkout, the
 * local runner a ticket's worktree. The workspace is untrusted (git.ts):
 * its files are hashed as `git add` stores them, with no filter driver run (a checkout's
 * line endings undone as the attributes say, never the agent's settings), listed with none of its
 * configuration's code, and staged into a temporary index — its own index (read only for what it
 * tracks that the start lacks: past a .gitignore, a submodule), and the user's, are never changed. What cannot be carried faithfully (a nested
 * repository, a name that is not UTF-8 or that git refuses) is named, and what git can
 * hold of it kept as evidence. The blobs it writes are the workspace's content, in the
 * repository's object store, where an integration commit (local) or an upload (GitHub)
 * finds them.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type ChangedPath, type ChangeMode, named } from "../core/changes.js";
import { errorText } from "../core/errors.js";
import {
  endlessIn,
  GitError,
  type GitOptions,
  git,
  gitText,
  lstatOr,
  NotCollected,
  noCodeRun,
  noWorkTree,
  REMOVED,
  readableNames,
  Stopped,
  TooMuchOutput,
  writeTree,
} from "./git.js";
import { addParents, atTab, bytesOf, pathspec, quoted, shown, split0 } from "./names.js";
import { moveRef, type RefMove } from "./worktrees.js";

export interface Collected {
  /** the commit the attempt started from */
  start: string;
  /** the workspace's tree as collected (in the repository's object store) */
  tree: string;
  /** in path order; a name that is not UTF-8 is shown by its escaped bytes */
  paths: ChangedPath[];
  /** why these changes cannot be carried as they are (planSettle refuses them), naming what */
  refused?: string;
  /** why the workspace is the only copy of files: names git refuses, or none could be collected */
  unstored?: string;
  /** ticket files whose engine-written fields the attempt changed (`engineFields` judged) */
  engineEdits: string[];
}

/** The reason an attempt whose changes could not be collected fails with: the same on both runners. */
export function notCollectedReason(why: string, kept?: string): string {
  return `its changes could not be collected: ${why}; nothing was integrated${kept ? `, its files are kept in ${kept}` : ""} — leave the workspace's .git as it was checked out (commit, branch or reset as you like) and its files where git can read and store them (their permissions, its .gitattributes), then retry the ticket`;
}

/**
 * What an attempt changed, as both runners settle it: its changes against `start`, their
 * patch (evidence) within `cap` — none above — and where the files no patch holds `stay`.
 * Changes that could not be collected are none, refused saying why (their files `kept`
 * where they are), and the workspace is all there is of them.
 */
export async function attemptChanges(
  workdir: string,
  start: string,
  options: CollectOptions & { cap?: number; stay?: string; kept?: string },
): Promise<Collected & { patch?: Buffer }> {
  try {
    const collected = await collectChanges(workdir, start, options);
    if (collected.unstored && options.stay)
      collected.refused += `, but for what no patch holds: ${options.stay}`;
    const patch = await patchOf(workdir, collected.start, collected.tree, options);
    return { ...collected, patch };
  } catch (error) {
    // (git past its bound: a FIFO no look found, in .git or where it reads a file)
    if (!(error instanceof NotCollected || error instanceof Stopped)) throw error;
    const refused = notCollectedReason(error.message, options.kept);
    return { start, tree: "", paths: [], engineEdits: [], refused, unstored: error.message };
  }
}

/** The nearest directory from `workdir` up that holds a `.git` (`/` when none does). */
export function gitTopOf(workdir: string): string {
  let own = resolve(workdir);
  while (!lstatOr(Buffer.from(join(own, ".git"))) && dirname(own) !== own) own = dirname(own);
  return own;
}

/** An index nobody wrote, for plumbing that reads one (diff-tree): never the workspace's own. */
const NO_INDEX = { GIT_INDEX_FILE: join(tmpdir(), `frontier-no-index-${randomUUID()}`) };
const MODES: ReadonlySet<string> = new Set(["100644", "100755", "120000", "160000"]);
const ZERO = /^0+$/;

/** Run `fn` on a fresh temporary index holding `base`'s tree, removed afterwards. */
async function withIndex<T>(
  root: string,
  base: string,
  fn: (o: GitOptions) => Promise<T>,
  bound: { boundMs?: number } = {},
): Promise<T> {
  // the pid names it for the next run's sweep of what a killed one left (local/leftovers.ts)
  const dir = await mkdtemp(join(tmpdir(), `frontier-index-${process.pid}-`));
  // whether names differing in case are one file is the disk's answer, never the workspace's
  // configuration's: git told they are would take a file renamed `a` → `A` for deleted
  const [lower, upper] = [".git", ".GIT"].map((n) => lstatOr(Buffer.from(join(root, n))));
  const folds = upper !== undefined && upper.ino === lower?.ino && upper.dev === lower.dev;
  try {
    const config = [`core.ignoreCase=${folds}`, ...(await noCodeRun(root))];
    const o = { cwd: root, env: { GIT_INDEX_FILE: join(dir, "index") }, config, ...bound };
    await git(["read-tree", base], o);
    return await fn(o);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface CollectOptions {
  /** repository-relative paths that are not changes */
  exclude?: readonly string[];
  /** the git directory the workspace's must share, whose `info/` (attributes, exclude) is honoured: locally the user's, which the run guards */
  gitDir?: string;
  /** the ticket files (repository-relative paths), and whether a change edits their engine-written fields */
  engineFields?: {
    isTicket: (path: string) => boolean;
    changed: (path: string, before: string | undefined, after: string | undefined) => boolean;
  };
  /** how long git may list and hash the workspace's files (GitOptions `boundMs`): 5 minutes unless given */
  boundMs?: number;
}

/**
 * The changes of the work tree at `workdir` (any directory inside it) against the commit
 * `start`, leaving out `options.exclude`. Throws NotCollected when the workspace is no
 * git work tree any more, or its repository no longer holds `start` (`.git` removed or
 * made anew).
 */
export async function collectChanges(
  workdir: string,
  start: string,
  options: CollectOptions = {},
): Promise<Collected> {
  const own = gitTopOf(workdir);
  const [endless] = await endlessIn(join(own, ".git"));
  const fix = "where git would wait for good: remove it, or make it a plain file";
  if (endless) throw new NotCollected(`${endless} is a FIFO or a device, ${fix}`);
  // git past its bound is one that waits on a FIFO no look found (an include, a ref, a pack)
  const bound = { boundMs: options.boundMs ?? 300_000 };
  const asked = ["rev-parse", "--show-toplevel", "--git-common-dir"];
  const [said = "", refusal = "", stopped] = await gitText(asked, { cwd: workdir, ...bound }).then(
    (text) => [text],
    (error: unknown) => ["", errorText(error), error instanceof Stopped ? "stopped" : ""],
  );
  const [root = "", common = ""] = said.split("\n");
  if (root === "" || root !== realpathSync(own)) {
    const why = await noWorkTree(workdir, own, [root, common, refusal], stopped === "stopped");
    throw new NotCollected(`${workdir} ${why}`);
  }
  const verify = ["rev-parse", "--verify", "--quiet", `${start}^{commit}`];
  const startCommit = await gitText(verify, { cwd: root, ...bound }).catch((error: unknown) => {
    if (error instanceof Stopped) throw error; // no "commit pruned": attemptChanges says why
  });
  if (startCommit === undefined) {
    throw new NotCollected(
      `${root}'s repository does not hold the commit the attempt started from (${start.slice(0, 12)}): its .git was made anew, or the commit pruned from it`,
    );
  }
  // its git directory is the caller's (where an integration finds its blobs), else one without
  // info/attributes (on GitHub): git would hash files as that says, altered (line endings, an encoding)
  const shared = realpathSync(resolve(workdir, common));
  const info = join(shared, "info", "attributes");
  if (options.gitDir === undefined ? existsSync(info) : shared !== realpathSync(options.gitDir))
    throw new NotCollected(
      existsSync(info)
        ? `its git directory's attributes (${info}) would change its files as git stores them: remove them, or put them in a .gitattributes`
        : `its .git points at another repository (${shared}) than the run's (${options.gitDir})`,
    );
  const listed = async (o: GitOptions) => {
    const found = await workspaceFiles(o, options);
    return { ...found, tree: await writeTree(o, found.lines, "latin1") };
  };
  const { tree, nested, submodules, changed } = await withIndex(root, startCommit, listed, bound);
  const names: string[] = [];
  const paths = await diffTrees(root, startCommit, tree, names, { ...options, ...bound });
  // a path git will not store, and leaves as it was without failing: a `.git` in another
  // spelling (`.GIT`, `git~1`) no clone could check out, a symlinked `.gitmodules`
  const inTree = new Set(paths.map((c) => c.path));
  const dropped = changed.map((p) => shown(p).name).filter((p) => !inTree.has(p));
  const collected: Collected = { start: startCommit, tree, paths, engineEdits: [] };
  const why: string[] = [];
  // a directory above an excluded path (the ticket directory) made a file: named, not its files
  const flat = paths.find((c) => options.exclude?.some((e) => e.startsWith(`${c.path}/`)));
  const made = flat?.mode === "120000" ? "a symlink" : "a file";
  if (flat) why.push(`${flat.path}/, which holds the run's records, made ${made} (keep it one)`);
  if (nested.length > 0) {
    const list = named(nested.map((p) => shown(p).name));
    why.push(`nested git repositories: ${list} (delete their .git, or list them in .gitignore)`);
  }
  if (submodules.length > 0) {
    const list = named(submodules.map((p) => shown(p).name));
    why.push(`changes inside submodules: ${list} (make them in the submodule's own repository)`);
  }
  if (names.length > 0) why.push(`names not in UTF-8: ${named(names)} (rename them)`);
  if (dropped.length > 0) {
    collected.unstored = `names git refuses: ${named(dropped)} (rename them, or make them plain files)`;
    why.push(collected.unstored);
  }
  if (why.length > 0) {
    collected.refused = `integration refused: ${why.join("; ")} — a ticket's commit cannot carry them as made; nothing was integrated, the change is kept as evidence`;
  }
  if (options.engineFields && !flat)
    collected.engineEdits = await engineEdits(root, paths, options.engineFields);
  return collected;
}

/**
 * Every file of the workspace as git would commit it: the paths of the
 * start commit and the untracked paths the repository does not ignore, as the index-info
 * lines that make the start's tree (in the index `o`) the workspace's. A directory with
 * its own `.git` is a nested repository, a submodule's directory the agent changed is
 * another: its files are taken (as evidence) and it is named.
 */
async function workspaceFiles(o: GitOptions, { exclude, gitDir }: CollectOptions) {
  const spec = pathspec(exclude);
  const excludes = gitDir && join(gitDir, "info", "exclude");
  const from = excludes && lstatOr(Buffer.from(excludes)) ? [`--exclude-from=${excludes}`] : [];
  const ignores = ["--exclude-per-directory=.gitignore", ...from, ...spec];
  const [tracked, untracked, own] = await Promise.all([
    git(["ls-files", "-z", "-s", ...spec], o),
    git(["ls-files", "-z", "-o", ...ignores], { ...o, strict: true }).catch(unreadable),
    // its own index (one its git cannot read: none), for what it tracks that the start does not
    git(["ls-files", "-z", "-s", "-t", ...spec], { cwd: o.cwd }).catch(() => Buffer.alloc(0)),
  ]);
  const fsPath = (p: string) => Buffer.concat([Buffer.from(`${o.cwd}/`), bytesOf(p)]);
  const dirs = new Map<string, Stats | undefined>();
  const dirStat = (d: string): Stats | undefined => {
    if (!dirs.has(d)) dirs.set(d, lstatOr(fsPath(d)));
    return dirs.get(d);
  };
  // a path under a directory that is gone, or is a symlink now, is gone (git's rule too)
  const reachable = (p: string): boolean => {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++)
      if (!dirStat(parts.slice(0, i).join("/"))?.isDirectory()) return false;
    return true;
  };
  const files: Array<{ path: string; mode: string }> = [];
  const links: string[] = [];
  const gone: string[] = [];
  const ownIndex = split0(own).map(atTab); // `S 100644 <blob> 0`: skip-worktree
  // a file its git left out of a sparse checkout is not there, and not deleted either
  const sparse = new Set(ownIndex.flatMap(([head, path]) => (head[0] === "S" ? [path] : [])));
  const take = (path: string) => {
    const st = reachable(path) ? lstatOr(fsPath(path)) : undefined;
    if (st?.isFile()) files.push({ path, mode: st.mode & 0o100 ? "100755" : "100644" });
    else if (st?.isSymbolicLink()) links.push(path);
    else if (!sparse.has(path)) gone.push(path);
  };
  const nested = new Set<string>();
  const listedDirs = new Set<string>();
  const atStart = new Map<string, string>();
  const submodules: string[] = [];
  for (const line of split0(tracked)) {
    const [head, path] = atTab(line); // a name may hold a tab
    atStart.set(path, head.replace(/ \d+$/, "")); // its mode and blob
    // a submodule the start holds stays as it was, unless it is gone or a file now
    if (!(head.startsWith("160000 ") && reachable(path) && dirStat(path)?.isDirectory()))
      take(path);
    else if (await submoduleChanged(fsPath(path), head.split(" ")[1] as string)) {
      submodules.push(path);
      gone.push(path);
      walk(fsPath(path), `${path}/`, take);
    }
    addParents(path, listedDirs);
  }
  const loose = new Set(split0(untracked));
  for (const path of loose) {
    if (!path.endsWith("/")) take(path);
    else {
      // git lists a nested repository as its directory, and does not look inside
      nested.add(path.slice(0, -1));
      walk(fsPath(path.slice(0, -1)), path, take);
    }
    addParents(path, listedDirs);
  }
  // a file it tracks past a .gitignore (`git add -f`) is no ignored path; a submodule it added
  // (a gitlink, whose directory `git submodule deinit` emptied) is not carried by its files
  for (const [head, path] of ownIndex) {
    if (atStart.has(path) || loose.has(path)) continue; // (an untracked path is taken already)
    if (head.slice(2).startsWith("160000 ")) nested.add(path);
    else take(path);
  }
  // a nested repository made inside a listed directory, or a .git git takes for no
  // repository (and leaves out): either cannot be carried as made
  for (const dir of listedDirs) {
    if (dirStat(dir)?.isDirectory() && lstatOr(fsPath(`${dir}/.git`))) nested.add(dir);
  }
  const lines = await hashed(o, fsPath, { gone, files, links });
  return { lines, nested: [...nested].sort(), submodules, changed: changedIn(lines, atStart) };
}

/**
 * Files git could not read (a directory the agent took the permissions off) or store as the
 * workspace's .gitattributes say (an encoding): none is stored altered or left out, and the
 * attempt is refused by git's words.
 */
function unreadable(error: unknown): never {
  if (!(error instanceof GitError) || error instanceof TooMuchOutput) throw error;
  const said = error.message.replace(/^.*? failed \(exit \d+\): /, "");
  throw new NotCollected(`git cannot read or store its files as they are (${said.trim()})`);
}

/** Index-info lines: `gone` paths out, files and symlinks hashed (no filter driver). */
async function hashed(
  o: GitOptions,
  fsPath: (p: string) => Buffer,
  found: { gone: string[]; files: Array<{ path: string; mode: string }>; links: string[] },
): Promise<string[]> {
  const { gone, files, links } = found;
  const input = bytesOf(files.map((e) => `${quoted(e.path)}\n`).join(""));
  const hashing = ["hash-object", "-w", "--stdin-paths"];
  const stored = await git(hashing, { ...o, input }).catch(unreadable);
  const blobs = stored.toString("latin1").split("\n");
  const lines = [
    ...gone.map((p) => `${REMOVED}${p}`),
    ...files.map((f, i) => `${f.mode} ${blobs[i]}\t${f.path}`),
  ];
  for (const path of links) {
    const target = readlinkSync(fsPath(path), { encoding: "buffer" });
    const blob = await gitText(["hash-object", "-w", "--stdin"], { ...o, input: target });
    lines.push(`120000 ${blob}\t${path}`);
  }
  return lines;
}

/** Whether an agent changed a submodule's directory: files in one never checked out, any in one that is. */
async function submoduleChanged(dir: Buffer, commit: string): Promise<boolean> {
  const names = readableNames(dir).map(String);
  if (!names.includes(".git")) return names.length > 0;
  const got = await collectChanges(dir.toString(), commit).catch(() => undefined);
  return got === undefined || got.paths.length > 0 || got.refused !== undefined;
}

/** The paths whose mode or content index-info `lines` change from `atStart` (path → mode blob). */
const changedIn = (lines: readonly string[], atStart: ReadonlyMap<string, string>) =>
  lines.flatMap((l) => {
    const [head, path] = atTab(l);
    return atStart.get(path) === head || l.startsWith(REMOVED) ? [] : [path];
  });

/** Every file under a nested repository's directory, its own `.git` left out. */
function walk(dir: Buffer, prefix: string, take: (path: string) => void): void {
  for (const name of readableNames(dir)) {
    const n = name.toString("latin1");
    if (n === ".git") continue;
    const full = Buffer.concat([dir, Buffer.from("/"), name]);
    if (lstatOr(full)?.isDirectory()) walk(full, `${prefix}${n}/`, take);
    else take(`${prefix}${n}`);
  }
}

/** The changed ticket files whose engine-written fields differ between the start and now. */
async function engineEdits(
  root: string,
  paths: readonly ChangedPath[],
  fields: NonNullable<CollectOptions["engineFields"]>,
): Promise<string[]> {
  // a rename is its old file deleted and its new one added
  const versions = paths
    .flatMap(
      (c): Array<[string, string | undefined, string | undefined]> =>
        c.from === undefined
          ? [[c.path, c.oldBlob, c.blob]]
          : [
              [c.from, c.oldBlob, undefined],
              [c.path, undefined, c.blob],
            ],
    )
    .filter(([path]) => fields.isTicket(path));
  const blobs = await readBlobs(
    root,
    versions.flatMap(([, a, b]) => [a ?? "", b ?? ""]).filter(Boolean),
  );
  const text = (b: string | undefined) =>
    b === undefined ? undefined : blobs.get(b)?.toString("utf8");
  return versions
    .filter(([path, a, b]) => fields.changed(path, text(a), text(b)))
    .map(([path]) => path);
}

/**
 * The changed paths between two tree-ish objects, renames found, with modes, blobs and
 * line counts (GitHub adds sizes, from the contents it reads); a name that is not UTF-8 is shown escaped and pushed onto `unshown`.
 */
export async function diffTrees(
  root: string,
  from: string,
  to: string,
  unshown: string[] = [],
  { exclude, boundMs }: { exclude?: readonly string[]; boundMs?: number } = {},
): Promise<ChangedPath[]> {
  const name = (p: string) => {
    const s = shown(p);
    if (!s.utf8) unshown.push(s.name);
    return s.name;
  };
  const args = ["diff-tree", "-r", "-z", "-M", "--raw", "--numstat", "--no-textconv", from, to];
  const o = { cwd: root, env: NO_INDEX, boundMs };
  const out = split0(await git([...args, ...pathspec(exclude)], o));
  const paths: ChangedPath[] = [];
  let i = 0;
  while (out[i]?.startsWith(":")) {
    // :<old mode> <new mode> <old blob> <new blob> <status>[score]
    const [oldMode, newMode, oldBlob, newBlob, status] = (out[i++] as string)
      .slice(1)
      .split(" ") as [string, string, string, string, string];
    const letter = status.charAt(0);
    const first = name(out[i++] as string);
    const c: ChangedPath =
      letter === "R"
        ? { path: name(out[i++] as string), status: "renamed", from: first }
        : {
            path: first,
            status: letter === "A" ? "added" : letter === "D" ? "deleted" : "modified",
          };
    if (c.status !== "deleted" && MODES.has(newMode)) c.mode = newMode as ChangeMode;
    if (c.status !== "added" && MODES.has(oldMode)) c.oldMode = oldMode as ChangeMode;
    if (c.status !== "deleted" && !ZERO.test(newBlob)) c.blob = newBlob;
    if (c.status !== "added" && !ZERO.test(oldBlob)) c.oldBlob = oldBlob;
    paths.push(c);
  }
  // then +/− lines, path by path in the same order (a binary file has none)
  for (const c of paths) {
    // none: git found the same bytes under the two ids (an object planted under another's id)
    const line = out[i++];
    if (line === undefined)
      throw new NotCollected(`git's objects of ${c.path} are not what their ids say`);
    const [added, removed] = line.split("\t");
    if (c.status === "renamed") i += 2; // "added\tremoved\t", then its old path and new path
    if (added !== "-") {
      c.added = Number(added);
      c.removed = Number(removed);
    }
  }
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The changes as a binary-safe patch (evidence); undefined past `cap` bytes, where git is stopped. */
export async function patchOf(
  root: string,
  start: string,
  tree: string,
  {
    cap,
    exclude,
    boundMs = 300_000,
  }: { cap?: number; exclude?: readonly string[]; boundMs?: number } = {},
): Promise<Buffer | undefined> {
  // the bytes git gives: a text file in another encoding than UTF-8 stays as it was; and
  // plumbing, which no diff setting of the workspace's (colour, prefixes, context) reshapes
  const how = ["-p", "--binary", "--no-ext-diff", "--no-textconv", "-M"];
  const args = ["diff-tree", ...how, start, tree, ...pathspec(exclude)];
  const o = { cwd: root, maxBytes: cap, env: NO_INDEX, boundMs };
  return await git(args, o).catch((error: unknown) => {
    if (error instanceof TooMuchOutput) return undefined;
    throw error;
  });
}

/** The contents of blobs by id, from the repository's object store (one `git cat-file --batch`). */
export async function readBlobs(root: string, oids: readonly string[]) {
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
    const content = bytes.subarray(at, at + n);
    // git reads an object without checking it against its id: one planted under another's
    // id (by an agent, to pass off other bytes) is refused, never carried
    const hash = createHash(oid?.length === 64 ? "sha256" : "sha1").update(`${type} ${n}\0`);
    if (hash.update(content).digest("hex") !== oid)
      throw new NotCollected(`git's object ${oid} holds bytes other than its id says`);
    out.set(oid as string, content);
    at += n + 1; // the content, then a newline
  }
  return out;
}

/**
 * The paths among `paths` that a commit between `start` and `head` changed, each with
 * the newest commit that did: what a ticket's changes would overwrite (or delete).
 */
export async function changedSince(
  root: string,
  start: string,
  head: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const moved = new Map<string, string>();
  if (paths.length === 0 || start === head) return moved;
  const o = { cwd: root, env: { GIT_LITERAL_PATHSPECS: "1" } };
  // a path changed under one (a directory it made a file) or at a directory above one (made
  // a file, or from one) is its conflict: its commit would delete the other side's files
  const ours = new Set(paths);
  const above = new Set<string>();
  for (const p of paths) addParents(p, above);
  // every path the head changed, matched here: a pathspec per path would pass the kernel's
  // limit on one command line (an agent's `npm install`)
  const diff = ["diff", "--name-only", "-z", "--no-renames", start, head];
  for (const path of (await git(diff, o)).toString("utf8").split("\0").filter(Boolean)) {
    const parents = new Set<string>();
    addParents(path, parents);
    // (the list is searched only for a path that holds one of ours, or is held by one)
    const near = above.has(path) || [...parents].some((d) => ours.has(d));
    const at = (p: string) => path.startsWith(`${p}/`) || p.startsWith(`${path}/`);
    const mine = ours.has(path) ? path : near ? paths.find(at) : undefined;
    if (mine === undefined) continue;
    const commit = await gitText(["rev-list", "-1", `${start}..${head}`, "--", path], o);
    if (commit !== "") moved.set(mine, commit);
  }
  return moved;
}

/** The commit made, or why the ref was not moved onto it (moveRef's answer). */
type CommitOnto = { kind: "ok"; commit: string } | Exclude<RefMove, { kind: "ok" }>;

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
  },
): Promise<CommitOnto> {
  const lines = options.changes.flatMap((c) => [
    ...(c.from !== undefined ? [`${REMOVED}${c.from}`] : []),
    c.status === "deleted" ? `${REMOVED}${c.path}` : `${c.mode ?? "100644"} ${c.blob}\t${c.path}`,
  ]);
  const tree = await withIndex(root, options.head, (o) => writeTree(o, lines, "utf8"));
  const commit = await gitText(["commit-tree", tree, "-p", options.head, "-F", "-"], {
    cwd: root,
    input: options.message,
    env: await fallbackIdentity(root),
  });
  const moved = await moveRef(root, options.ref, commit, options.head, "frontier: integrate");
  return moved.kind === "ok" ? { kind: "ok", commit } : moved;
}

/**
 * Who commits: the user's own identity as git knows it (read with their configuration:
 * `git var` runs nothing of the repository's), else — a fresh CI machine — Ticket Frontier.
 */
async function fallbackIdentity(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const o = { cwd: root, trusted: true } as const;
  for (const who of ["AUTHOR", "COMMITTER"]) {
    const ident = await gitText(["var", `GIT_${who}_IDENT`], o).catch(() => "");
    const m = /^(.*) <(.*)> (\d+ [+-]\d{4})$/.exec(ident);
    out[`GIT_${who}_NAME`] = m ? (m[1] as string) : "Ticket Frontier";
    out[`GIT_${who}_EMAIL`] = m ? (m[2] as string) : "ticket-frontier@users.noreply.github.com";
  }
  return out;
}
