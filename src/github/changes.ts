/**
 * A ticket's changes on GitHub (the GitHub half of SPEC §4b): what the orch-task job
 * changed in its checkout, how those changes go up in the ticket's one commit, and which
 * of its paths moved on the run's branch since the job's checkout.
 *
 *   collect   the settle step: workspace/changes.ts against the commit the job checked
 *             out (the dispatch's `ref`) whatever the agent did with git, the ticket
 *             directory's .frontier/ left out; the content of every changed blob read
 *             once, a patch kept for evidence
 *   judge     core/settle.ts `planSettle`, inside the compare-and-swap loop: every try
 *             reads each touched path's id at the branch head in the same query as the
 *             state; a path whose id is not the one at the start moved (a conflict), and
 *             only then is the commit that moved it looked up, to be named
 *   integrate in the same commit as the outcome: `createCommitOnBranch` when every file
 *             is a plain file, else the Git Data API (blobs uploaded once, before the
 *             loop — content-addressed, so a retry re-uses them — then a tree with modes,
 *             a commit and a non-forced ref update)
 *   name      a commit cannot hold its own id: each read also takes the branch's newest
 *             commits, and a later event that commits anyway writes the id of an
 *             integrated attempt's commit into its record, found by its trailers
 *
 * Limits (GitHub's, and what one request can carry) fail the attempt with a clear reason
 * before anything is sent, never half a commit: see LIMITS.
 */
import { isUtf8 } from "node:buffer";
import { relative, resolve } from "node:path";
import { type ChangedPath, type ChangeMode, claimOf, touchedPaths } from "../core/changes.js";
import { errorText } from "../core/errors.js";
import type { AttemptChanges, TicketState } from "../core/model.js";
import { singleLine } from "../core/text.js";
import { engineFieldRule } from "../tickets/parse.js";
import {
  attemptChanges,
  type Collected,
  gitTopOf,
  notCollectedReason,
  readBlobs,
} from "../workspace/changes.js";
import { gitText } from "../workspace/git.js";
import { addParents } from "../workspace/names.js";
import { type BranchRead, type FileChanges, TREE } from "./branch.js";
import { workflowRefusal } from "./errors.js";
import { ContentRefused, type Repo, uploadBlob } from "./git.js";
import type { GitHub } from "./octokit.js";
import { frontierDirPath, joinRepoPath, type Unnamed } from "./state.js";

/** What one ticket attempt may integrate on GitHub. */
const LIMITS = {
  /** GitHub refuses a file over 100 MiB in a push */
  fileBytes: 100 * 1024 * 1024,
  /** every changed file of one attempt together: what the settle step holds in memory */
  totalBytes: 100 * 1024 * 1024,
  /** changed paths of one attempt */
  paths: 1_000,
  /** file bytes sent inline in one `createCommitOnBranch` (base64 adds a third); above, blobs go up one by one */
  inlineBytes: 8 * 1024 * 1024,
  /** blobs uploaded for one attempt: each is a write, from the scarcest budget */
  uploads: 100,
} as const;

/** An orch-task job's changes, as its settle step collected them. */
export interface JobChanges extends Pick<Collected, "paths" | "engineEdits"> {
  /** the commit the job checked out, as GitHub names it (the dispatch's `ref`) */
  start: string;
  /** content of every changed blob by id (deleted paths have none) */
  contents: Map<string, Buffer>;
  /** the changes as a binary-safe patch: evidence, when they are not integrated (none over GitHub's file limit) */
  patch?: Buffer;
  /** bytes of every changed file's new content */
  bytes: number;
  /** why GitHub could not take these changes as one commit; undefined when it can */
  refused?: string;
  /** `git-data` when a mode, a symlink or the size needs the Git Data API */
  route: "graphql" | "git-data";
}

/**
 * The job's changes: its workspace against the commit it checked out (`start`, the
 * dispatch's `ref`; its HEAD when the settle step was not told), leaving out the ticket
 * directory's `.frontier/` and `exclude` (paths relative to the workspace, e.g. a second
 * checkout inside it). Changes that could not be collected (the agent removed or remade
 * `.git`) are refused, saying why: the attempt is never done without them.
 */
export async function collectJobChanges(
  workspace: string,
  dir: string,
  options: { start?: string; exclude?: readonly string[] } = {},
): Promise<JobChanges> {
  let collected: Awaited<ReturnType<typeof attemptChanges>>;
  let contents: Map<string, Buffer>;
  try {
    // where the workspace is inside its work tree, as a repository path (before any git runs)
    const prefix = relative(gitTopOf(workspace), resolve(workspace));
    const inRepo = (p: string) => joinRepoPath(prefix, p);
    const exclude = [frontierDirPath(inRepo(dir)), ...(options.exclude ?? []).map(inRepo)];
    collected = await attemptChanges(workspace, options.start ?? "HEAD", {
      exclude,
      engineFields: engineFieldRule(inRepo(dir)),
      cap: LIMITS.fileBytes,
      // the job's workspace goes with the job: a file no patch can hold is not kept
      stay: "the files under names git refuses went with the job's workspace",
    });
    if (!collected.refused) await replacedTrees(workspace, collected.start, collected.paths);
    const blobs = collected.paths.flatMap((c) => (c.blob !== undefined ? [c.blob] : []));
    contents = await readBlobs(workspace, blobs); // over 1 GiB in all: git is stopped, and it says so
  } catch (error) {
    collected = { start: "", tree: "", paths: [], engineEdits: [] };
    collected.refused = notCollectedReason(singleLine(errorText(error)));
    contents = new Map();
  }
  let bytes = 0;
  for (const c of collected.paths) {
    if (c.blob !== undefined) bytes += c.bytes = contents.get(c.blob)?.byteLength ?? 0;
  }
  const changes: JobChanges = {
    start: options.start ?? collected.start,
    paths: collected.paths,
    contents,
    patch: collected.patch,
    bytes,
    route: routeOf(collected.paths, bytes),
    engineEdits: collected.engineEdits,
  };
  const refused = collected.refused ?? refusalOf(changes);
  if (refused !== undefined) changes.refused = refused;
  return changes;
}

/**
 * The start's tree at each path an addition puts where a directory was (its files all
 * deleted): the id a branch head that nobody changed there still has at that path.
 */
async function replacedTrees(workspace: string, start: string, paths: ChangedPath[]) {
  const gone = paths.flatMap((c) => (c.status === "deleted" ? [c.path] : (c.from ?? [])));
  for (const c of paths) {
    const made = c.status === "added" || c.status === "renamed";
    if (!made || !gone.some((p) => p.startsWith(`${c.path}/`))) continue;
    c.oldTree = await gitText(["rev-parse", "--verify", `${start}:${c.path}`], { cwd: workspace });
  }
}

/** Whether `createCommitOnBranch` can write these changes (plain files only, small enough). */
function routeOf(paths: readonly ChangedPath[], bytes: number): "graphql" | "git-data" {
  const plain = (m: ChangeMode | undefined) => m === undefined || m === "100644";
  const special = paths.some(
    (c) => c.status !== "deleted" && (!plain(c.mode) || !plain(c.oldMode)),
  );
  return special || bytes > LIMITS.inlineBytes ? "git-data" : "graphql";
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** Why these changes cannot be one commit on GitHub, or undefined. */
function refusalOf(changes: Pick<JobChanges, "paths" | "bytes" | "route">): string | undefined {
  const huge = changes.paths.filter((c) => (c.bytes ?? 0) > LIMITS.fileBytes);
  if (huge.length > 0) {
    return `integration refused: ${huge.map((c) => `${c.path} (${mb(c.bytes ?? 0)})`).join(", ")} over GitHub's 100 MB limit for a file — keep large files out of the repository (Git LFS, a release asset); nothing was integrated`;
  }
  if (changes.paths.length > LIMITS.paths) {
    return `integration refused: ${changes.paths.length} changed paths, over ${LIMITS.paths} for one ticket's commit — split the ticket; nothing was integrated`;
  }
  if (changes.bytes > LIMITS.totalBytes) {
    return `integration refused: ${mb(changes.bytes)} of changed files, over ${mb(LIMITS.totalBytes)} for one ticket's commit — split the ticket; nothing was integrated`;
  }
  if (changes.route === "git-data") {
    const uploads = uploadsOf(changes.paths).length;
    if (uploads > LIMITS.uploads) {
      return `integration refused: ${uploads} files to upload, over ${LIMITS.uploads} for one ticket's commit (each upload is a write, and GitHub allows 80 a minute) — split the ticket; nothing was integrated`;
    }
  }
  return undefined;
}

/**
 * The blobs a Git Data commit must upload: every new content GitHub may not have. A blob
 * that was at the start commit (a rename, a mode change) is there already.
 */
function uploadsOf(paths: readonly ChangedPath[]): string[] {
  const there = new Set(paths.map((c) => c.oldBlob));
  const skip = (c: ChangedPath) =>
    c.status === "deleted" || c.blob === undefined || there.has(c.blob);
  return [...new Set(paths.flatMap((c) => (skip(c) ? [] : [c.blob as string])))];
}

/**
 * Upload what a Git Data commit needs, once, before the compare-and-swap loop (a lost
 * race re-uses them: a blob's id is its content's). Answers the bytes sent.
 */
export async function uploadChanges(gh: GitHub, repo: Repo, changes: JobChanges): Promise<number> {
  if (changes.route !== "git-data" || changes.refused !== undefined) return 0;
  let sent = 0;
  for (const blob of uploadsOf(changes.paths)) {
    const content = changes.contents.get(blob);
    if (content === undefined) throw new Error(`the content of blob ${blob} was not collected`);
    const sha = await uploadBlob(gh, repo, content)
      .catch(ContentRefused.of(changes.paths.find((c) => c.blob === blob)?.path ?? blob))
      .catch((error: unknown) => {
        if (!refusedBy(changes, error)) throw error;
      });
    if (sha === undefined) return sent;
    if (sha !== blob) {
      throw new Error(`GitHub stored blob ${blob} as ${sha}: the upload did not keep its bytes`);
    }
    sent += content.byteLength;
  }
  return sent;
}

/** Whether GitHub's refusal (a workflow file, a file's content) fails the attempt by name: decide again. */
export function refusedBy(changes: JobChanges | undefined, error: unknown): boolean {
  const content = error instanceof ContentRefused;
  const why = content ? error.message : workflowRefusal(error);
  if (!changes || !why || (changes.refused && !(content && changes.patch))) return false;
  changes.refused ??= why;
  if (content) changes.patch = undefined; // it holds what GitHub refused
  return true;
}

/** The files of the ticket's commit: what `decide` adds to the event's commit. */
export function integrationFiles(changes: JobChanges): FileChanges {
  const additions = new Map<string, string | Uint8Array>();
  const entries = new Map<string, { mode: ChangeMode; sha: string }>();
  const deletions: string[] = [];
  for (const c of changes.paths) {
    if (c.from !== undefined) deletions.push(c.from);
    if (c.status === "deleted") {
      deletions.push(c.path);
      continue;
    }
    if (changes.route === "git-data") {
      entries.set(c.path, { mode: c.mode ?? "100644", sha: c.blob as string });
    } else {
      const content = changes.contents.get(c.blob as string) ?? Buffer.alloc(0);
      additions.set(c.path, isUtf8(content) ? content.toString("utf8") : content);
    }
  }
  return { additions, deletions, ...(entries.size > 0 ? { entries } : {}) };
}

/**
 * The paths a read must look at: every path the changes touch, and the directories above
 * the paths they add (which a person's push may have made a file); none of changes that
 * cannot land.
 */
export function probesOf(changes: JobChanges | undefined): string[] {
  if (!changes || changes.refused !== undefined) return [];
  const above = new Set<string>();
  for (const c of changes.paths)
    if (c.status === "added" || c.status === "renamed") addParents(c.path, above);
  return [...new Set([...touchedPaths(changes.paths), ...above])];
}

/**
 * The touched paths whose id at the branch head is not their id at the start, or under a
 * directory that is not one there now: changed on the branch since the job's checkout (by
 * a person's push: scopes of live tickets never overlap). Pure; ids are git's content ids
 * on both sides.
 */
export function movedPaths(
  changes: JobChanges | undefined,
  { oids, modes }: Pick<BranchRead, "oids" | "modes">,
): string[] {
  if (!changes || !oids || changes.refused !== undefined) return [];
  const touched = touchedPaths(changes.paths);
  // what a person's push made a file, a link or a submodule where the changes need a directory
  const flat = [...oids.keys()].filter((d) => modes?.get(d) !== TREE && !touched.includes(d));
  // the mode and id each touched path must still have at the head (undefined: nothing there):
  // a person's chmod is a change as well, which a commit of the agent's mode would undo
  const entry = (mode?: string, id?: string) => id && `${mode} ${id}`;
  const expected = new Map<string, string | undefined>();
  for (const c of changes.paths) {
    const old = entry(c.oldMode, c.oldBlob);
    if (c.from !== undefined) expected.set(c.from, old);
    // a rename's new path was empty at the start (or a directory); any other path held its old blob
    expected.set(c.path, (c.status !== "renamed" && old) || entry(TREE, c.oldTree));
  }
  // in the order a verdict names them (touchedPaths), so the first named are the first found
  const under = (path: string) => flat.some((d) => path.startsWith(`${d}/`));
  return touched.filter((p) => entry(modes?.get(p), oids.get(p)) !== expected.get(p) || under(p));
}

/* ------------------------------------------------------------------------- */
/* the commit of an integrated attempt                                        */
/* ------------------------------------------------------------------------- */

/** Commits a read takes, newest first, to name the commits of integrated attempts. */
export const HISTORY_READ = 10;

/**
 * Write into the saved tickets the commit of each unnamed integrated attempt that the
 * history shows (found by its claim's trailer); answers the ones still to write. Pure
 * but for `tickets`, which it edits in place (they are the state just read). A ticket
 * whose history this event did not read (`loaded` false: the status index read only
 * what the event touches) keeps its entry — with the commit, once found — until an
 * event that reads it writes it into the record.
 */
export function nameCommits(
  tickets: Record<string, TicketState>,
  unnamed: readonly Unnamed[],
  history: ReadonlyArray<{ oid: string; body: string }>,
  loaded: (ticket: string) => boolean = () => true,
): Unnamed[] {
  if (unnamed.length === 0) return [];
  const byClaim = new Map<string, string>();
  for (const c of history) {
    const claim = claimOf(c.body);
    if (claim !== undefined && !byClaim.has(claim)) byClaim.set(claim, c.oid);
  }
  const left: Unnamed[] = [];
  for (const u of unnamed) {
    const sha = u.commit ?? byClaim.get(u.claim);
    if (!loaded(u.ticket)) {
      left.push(sha !== undefined && u.commit === undefined ? { ...u, commit: sha } : u);
      continue;
    }
    const record = tickets[u.ticket]?.attempts.find((a) => a.n === u.attempt);
    if (!record?.changes || record.claim !== u.claim) continue; // gone: nothing to name
    if (sha === undefined) {
      left.push(u);
      continue;
    }
    record.changes = { ...record.changes, commit: sha } satisfies AttemptChanges;
  }
  return left;
}
