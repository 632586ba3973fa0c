/**
 * What isolated tickets must not touch, checked rather than assumed (SPEC §4b): the
 * user's working tree (of the ticket directory, what the run itself writes aside), HEAD and
 * its branch, their other branches, tags and stash, and the repository's shared git
 * directory every worktree can reach — its config, hooks and info/, where code an executor
 * left would run in the user's own git commands, and in the integration's. A snapshot is
 * taken when the run starts; the integration compares the shared directory before each
 * commit, and the run's end compares everything and says what changed.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import type { ChangedPath } from "../core/changes.js";
import { shellWord } from "../terminal/text.js";
import { authoredPart, engineFieldRule } from "../tickets/parse.js";
import { namesIn, tryReadJson } from "../tickets/read-optional.js";
import { replaceAtomically } from "../tickets/store.js";
import { diffTrees, readBlobs } from "../workspace/changes.js";
import { endlessIn, git, gitText } from "../workspace/git.js";
import { pathspec } from "../workspace/names.js";
import { checkedOutAt, tryIsAncestor, tryResolveCommit } from "../workspace/worktrees.js";
import { TICKET_TEMP } from "./leftovers.js";
import { isLiveFrontierProcess } from "./lock.js";
import { type RunBranch, recordsPath } from "./worktree.js";

export interface Snapshot {
  /** `ref:<branch>` or the detached commit, then the commit HEAD is at */
  head: string;
  /** the working tree but the run's records, as a tree object; undefined: it could not be read */
  tree: string | undefined;
  /** what the user had staged, as a tree object ("" while a merge is unresolved) */
  staged?: string;
  /** the shared git directory's config, hooks and info/: path → content hash */
  shared: Map<string, string>;
  /** the user's branches, tags, replace and notes refs (not frontier/…) and what holds a run's evidence (refs/frontier/kept/) → object, and each stash entry as `stash:<commit>` */
  refs: Map<string, string>;
}

interface Touched {
  /** HEAD (or its branch) moved: from, to */
  head?: [string, string];
  /** paths of the working tree that changed */
  tree: string[];
  /** what the user had staged changed (an agent's `git add` or `git reset` there): that tree */
  staged?: string;
  /** files of the shared git directory that changed, appeared or went, as `.git/…` */
  shared: string[];
  /** branches, tags and stash entries that moved or went, each with how to put it back */
  refs: string[];
  /** the working tree could not be read with git, at the start or now */
  unchecked?: true;
}

/**
 * What in the shared git directory changes what git runs or sees: its config, hooks, and
 * of info/ the attributes (filters), excludes, grafts and sparse checkout (not info/refs: a
 * repack rewrites it), the object stores it reads (alternates: an integration's blobs would be
 * outside the repository), and a `commondir`: none is there, and one points git elsewhere.
 */
const SHARED = [
  "commondir",
  "config",
  "config.worktree",
  "hooks",
  "info/attributes",
  "info/exclude",
  "info/grafts",
  "info/sparse-checkout",
  "objects/info/alternates",
];

/**
 * Settings a person changes while they work beside a run (a remote, an upstream, their
 * name): not code git runs, so a change to them is no alarm. Everything else in a config
 * file counts (filters, fsmonitor, hooksPath, external diff, includes, submodules, and a
 * remote's programs: uploadpack, receivepack, vcs…).
 */
const BENIGN =
  /^(branch|user|color|advice|gui|push|pull|fetch|rerere|init|maintenance)\.|^remote\.(pushdefault|.*\.(url|pushurl|fetch|push|prune|tagopt|mirror|gh-resolved))(\n|$)/;

/** Content hashes of the shared git directory's files that matter (SHARED, the files under them, its top's FIFOs). */
async function sharedFiles(commonDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const hash = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
  const walk = async (path: string): Promise<void> => {
    const stat = await lstat(path).catch(() => undefined);
    if (stat === undefined) return; // not there
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) await walk(join(path, name));
      return;
    }
    const name = relative(commonDir, path);
    // a FIFO is never read (it could block), a link never followed (to `/`, the walk would not end)
    const kind = stat.isSymbolicLink() ? `link:${await readlink(path)}` : `${stat.mode}`;
    if (!stat.isFile()) return void out.set(name, kind);
    let text: string | Buffer = readFileSync(path);
    if (basename(name).startsWith("config")) {
      // as git reads it: the settings that are not BENIGN, each once (a file git cannot read counts whole)
      const listed = await git(["config", "--file", path, "--list", "-z"], {
        cwd: commonDir,
      }).catch(() => text);
      text = [...new Set(listed.toString("utf8").split("\0"))]
        .filter((kv) => !BENIGN.test(kv))
        .sort()
        .join("\0");
    }
    out.set(name, `${stat.mode & 0o111 ? "x" : "-"}${hash(text)}`);
  };
  // and those of each submodule's git directory (`modules/<name>/`, nested too): the user's
  // `git status` reads its config and runs its hooks
  for (const dir of [commonDir, ...(await gitDirsIn(join(commonDir, "modules")))])
    for (const name of SHARED) await walk(join(dir, name));
  // (fsmonitor's socket is none)
  for (const path of await endlessIn(commonDir)) out.set(relative(commonDir, path), "endless");
  return out;
}

/** The git directories below `dir` (each holds a HEAD), never found through a link. */
async function gitDirsIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const sub of namesIn(dir).map((n) => join(dir, n))) {
    if (!(await lstat(sub).catch(() => undefined))?.isDirectory()) continue;
    const own = existsSync(join(sub, "HEAD"));
    found.push(...(own ? [sub] : []), ...(await gitDirsIn(own ? join(sub, "modules") : sub)));
  }
  return found;
}

/**
 * Where a run that saw the shared git directory change says what it was before, for every
 * run of the repository (any ticket directory, after a reset too) to check.
 */
const alarmFile = (rb: RunBranch) =>
  join(rb.repository.commonDir, "frontier", "git-dir-changed.json");

/**
 * Where a run keeps the shared directory as it found it (Snapshot.shared) until its end
 * compares: a run killed before then (by an executor, say) is compared by the next.
 */
const foundBy = (rb: RunBranch, pid: number) =>
  join(rb.repository.commonDir, "frontier", `git-dir-${pid}.json`);
type Found = Record<"shared" | "refs", Record<string, string>> & { head: string };

/**
 * The files of the shared git directory that changed, appeared or went since `before`;
 * any are remembered as they were before (alarmFile), for the next run to check.
 */
export async function sharedChangedSince(
  rb: RunBranch,
  before: { shared: ReadonlyMap<string, string | undefined> },
): Promise<string[]> {
  const now = await sharedFiles(rb.repository.commonDir);
  const names = new Set([...before.shared.keys(), ...now.keys()]);
  const changed = [...names].filter((n) => before.shared.get(n) !== now.get(n)).sort();
  const was = Object.fromEntries(changed.map((name) => [name, before.shared.get(name) ?? ""]));
  // an alarm already raised keeps what it says was there before (the earliest)
  const all = { ...was, ...tryReadJson<Record<string, string>>(alarmFile(rb)) };
  if (changed.length > 0) replaceAtomically(alarmFile(rb), `${JSON.stringify(all, null, 2)}\n`);
  return changed;
}

/**
 * What the runs killed before their end compared (foundBy) find changed: the shared
 * directory's files are remembered for stillAlarmed, the user's refs lost are answered.
 */
export async function killedRunsLost(rb: RunBranch): Promise<string[]> {
  const lost: string[] = [];
  const names = namesIn(join(rb.repository.commonDir, "frontier"));
  for (const pid of names.flatMap((n) => /^git-dir-(\d+)\.json$/.exec(n)?.[1] ?? [])) {
    if (isLiveFrontierProcess(Number(pid))) continue; // its own end compares
    const found = tryReadJson<Found>(foundBy(rb, Number(pid)));
    if (found?.shared && found.refs) {
      await sharedChangedSince(rb, { shared: new Map(Object.entries(found.shared)) });
      const refs = new Map(Object.entries(found.refs));
      lost.push(...(await refsLost(rb, { head: found.head ?? "", refs })));
    }
    rmSync(foundBy(rb, Number(pid)), { force: true });
  }
  return lost;
}

/**
 * Why no git may run yet: files a last run saw change are not back as they were. Once
 * each is (or the record is removed by someone who looked), the alarm is over.
 */
export async function stillAlarmed(rb: RunBranch): Promise<string | undefined> {
  const was = tryReadJson<Record<string, string>>(alarmFile(rb));
  if (was === undefined) return undefined;
  const now = await sharedFiles(rb.repository.commonDir);
  const still = Object.keys(was).filter((name) => (now.get(name) ?? "") !== was[name]);
  if (still.length === 0) {
    rmSync(alarmFile(rb), { force: true });
    return undefined;
  }
  const shown = still.map((p) => relative(rb.repository.root, join(rb.repository.commonDir, p)));
  return `the repository's git directory still holds what changed while the last run ran (${shown.join(", ")}): an executor may have left code there that git would run — look at it and put it right; if it is as you want it, remove ${alarmFile(rb)}; then run again`;
}

/** Snapshot.refs: what an agent's git can drop or move of the user's, besides HEAD. */
async function refsOf(root: string): Promise<Map<string, string>> {
  const o = { cwd: root };
  // a symbolic ref's line (refs/heads/alias → main) ends in the ref it names: that one is said
  const kinds = ["refs/heads", "refs/tags", "refs/replace", "refs/notes", "refs/frontier/kept"];
  const each = ["for-each-ref", "--format=%(refname) %(objectname) %(symref)", ...kinds];
  const refs = await gitText(each, o).catch(() => "");
  const stash = await gitText(["reflog", "--format=stash:%H %H ", "refs/stash"], o).catch(() => "");
  const lines = `${refs}\n${stash}`.split("\n").filter((l) => l.endsWith(" "));
  const mine = lines.filter((line) => !line.startsWith("refs/heads/frontier/"));
  return new Map(mine.map((line) => line.split(" ") as [string, string]));
}

async function headOf(root: string): Promise<string> {
  const ref = await gitText(["symbolic-ref", "-q", "HEAD"], { cwd: root }).catch(() => "");
  const commit = (await tryResolveCommit(root, "HEAD")) ?? "";
  return `${ref === "" ? "detached" : ref.replace(/^refs\/heads\//, "")} ${commit.slice(0, 10)}`;
}

/**
 * The user's working tree but the run's records (`.frontier/`) as a tree object — every file
 * added to HEAD's tree, none of their index's flags trusted (an `--assume-unchanged` an agent
 * set would hide its write) — and what they staged, from a copy of their index.
 * Neither their index nor their tree is touched.
 */
async function treeOf(rb: RunBranch, scratch: string): Promise<[string, string] | undefined> {
  const { root } = rb.repository;
  const dir = mkdtempSync(join(scratch, `guard-${process.pid}-`));
  const o = { cwd: root, env: { GIT_INDEX_FILE: join(dir, "index") } };
  try {
    const index = resolve(root, await gitText(["rev-parse", "--git-path", "index"], { cwd: root }));
    if (existsSync(index)) copyFileSync(index, o.env.GIT_INDEX_FILE);
    const staged = await gitText(["write-tree"], o).catch(() => "");
    await git(["read-tree", "HEAD"], o);
    // records a .gitignore ignores (init's) need no exclude, and one naming them fails `add`
    const ignored = await git(["check-ignore", "-q", recordsPath(rb)], o).catch(() => undefined);
    await git(["add", "-A", ...pathspec(ignored ? [] : [recordsPath(rb)])], o);
    return [await gitText(["write-tree"], o), staged];
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function takeSnapshot(rb: RunBranch, scratch: string): Promise<Snapshot> {
  const { root, commonDir } = rb.repository;
  const shared = await sharedFiles(commonDir);
  const [head, refs] = [await headOf(root), await refsOf(root)];
  const found = { head, shared: Object.fromEntries(shared), refs: Object.fromEntries(refs) };
  replaceAtomically(foundBy(rb, process.pid), JSON.stringify(found));
  const [tree, staged] = (await treeOf(rb, scratch)) ?? [];
  return { head, tree, staged, shared, refs };
}

/**
 * What changed since `before`, read with git only while the shared directory is as it was:
 * else its config may run an executor's code, or an executor's FIFO there hold git for good.
 */
export async function touchedSince(rb: RunBranch, before: Snapshot, scratch: string) {
  const { root } = rb.repository;
  const out: Touched = { tree: [], shared: await sharedChangedSince(rb, before), refs: [] };
  rmSync(foundBy(rb, process.pid), { force: true });
  if (out.shared.length === 0) {
    const head = await headOf(root);
    if (head !== before.head) out.head = [before.head, head];
    out.refs = await refsLost(rb, before);
    // git could not list it (a name it refuses, as a .GIT): never said to be untouched
    const [now, staged] = (before.tree && (await treeOf(rb, scratch))) || [];
    if (now && before.staged && staged !== before.staged) out.staged = before.staged;
    if (!before.tree || !now) out.unchecked = true;
    else if (now !== before.tree) {
      // git's objects not what their ids say (planted): what changed cannot be told
      const changed = await diffTrees(root, before.tree, now)
        .then((d) => notTheRuns(root, d, rb.ticketDir))
        .catch(() => undefined);
      if (changed) out.tree = changed;
      else out.unchecked = true;
    }
  }
  return out;
}

/** The user's refs that went or moved since `before`, each with how to put it back, and stash entries added. */
async function refsLost(rb: RunBranch, before: Pick<Snapshot, "head" | "refs">) {
  const { root } = rb.repository;
  const [refs, out] = [await refsOf(root), [] as string[]];
  // (HEAD's own branch is said on its own)
  const own = `refs/heads/${before.head.split(" ")[0]}`;
  for (const [ref, was] of before.refs) {
    const now = refs.get(ref);
    // a branch checked out in the user's other worktree that only moved on: their commit
    const at = now === undefined ? undefined : await checkedOutAt(root, ref);
    const theirs = at && !at.startsWith(rb.home) && (await tryIsAncestor(root, was, now!));
    if (now === was || ref === own || theirs) continue;
    const name = ref.replace(/^refs\/(heads|tags)\//, "");
    out.push(
      ref.startsWith("stash:")
        ? `a stash entry (git stash store ${was})`
        : `${name} (was ${was.slice(0, 10)}: git update-ref ${shellWord(ref)} ${was})`,
    );
  }
  // added: a stash entry on top of theirs (for their `git stash pop`), a replacement of an
  // object or notes (each changes what their git shows)
  for (const [ref, now] of refs) {
    if (before.refs.has(ref) || !/^(stash:|refs\/(replace|notes)\/)/.test(ref)) continue;
    const stash = `a stash entry added (${now.slice(0, 10)}: look at git stash list before you pop)`;
    out.push(ref.startsWith("stash:") ? stash : `${ref}, added (git update-ref -d ${ref})`);
  }
  return out;
}

/** The paths that changed, but for ticket files whose only change is the run's own (engine-written fields). */
async function notTheRuns(root: string, changed: ChangedPath[], ticketDir: string) {
  const { isTicket } = engineFieldRule(ticketDir);
  const runs = new Set(
    changed.filter((c) => isTicket(c.path) && c.from === undefined && c.oldBlob && c.blob),
  );
  const blobs = await readBlobs(
    root,
    [...runs].flatMap((c) => [c.oldBlob!, c.blob!]),
  );
  const authored = (blob?: string) => authoredPart(blobs.get(blob!)?.toString("utf8") ?? "");
  const theirs = (c: ChangedPath) => !runs.has(c) || authored(c.oldBlob) !== authored(c.blob);
  // (a write a killed run left half-done is the run's own to tidy: leftovers.ts)
  const temp = (c: ChangedPath) => TICKET_TEMP.test(c.path.slice(c.path.lastIndexOf("/") + 1));
  return changed.filter((c) => theirs(c) && !temp(c)).map((c) => c.path);
}
