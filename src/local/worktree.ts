/**
 * The run's integration branch and the worktrees of its isolated tickets (SPEC §4b).
 *
 * A run whose tickets run isolated (`isolation: worktree`) integrates their changes on
 * `frontier/<run>`, made from HEAD when the run starts; each attempt runs in a detached
 * worktree of that branch's head, kept in the repository's git directory (where the
 * user's tree never sees it), and removed once what it did is recorded. The user's
 * working tree, index and branch are never touched. `DIR/.frontier/branch.json` says
 * which branch the run integrates on and where it started, so a resumed run goes on
 * where it was, and `frontier reset` knows what to tidy.
 *
 * This module holds the branch's and the worktrees' lifecycle; integrate.ts what an
 * attempt's end does with them.
 */
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { claimTrailer } from "../core/changes.js";
import { REASON, runsIsolated, TICKET_ID } from "../core/constants.js";
import type { Frontier } from "../core/engine.js";
import { errorText } from "../core/errors.js";
import type { AttemptRecord, Settings, TicketSpec } from "../core/model.js";
import type { Interpreted } from "../core/settle.js";
import type { ReceiptOptions } from "../report/receipt.js";
import { plural, shellWord } from "../terminal/text.js";
import {
  attemptFile,
  BRANCH_FILE,
  INTEGRATING_DIR,
  STATE_DIR,
  unintegratedPatchFile,
} from "../tickets/layout.js";
import { fieldLine } from "../tickets/load.js";
import { engineFieldRule } from "../tickets/parse.js";
import { type Problem, problem } from "../tickets/problems.js";
import { namesIn, tryReadJson, tryReadText } from "../tickets/read-optional.js";
import { SETTINGS_FILE } from "../tickets/setting-keys.js";
import { replaceAtomically } from "../tickets/store.js";
import { attemptChanges, type CollectOptions } from "../workspace/changes.js";
import { gitText } from "../workspace/git.js";
import { runBranchName } from "../workspace/refname.js";
import {
  checkedOutAt,
  checkRepository,
  commitsBetween,
  commitWithTrailer,
  MIN_GIT,
  madeAt,
  moveRef,
  pruneStale,
  type Repository,
  removeWorktree,
  tryIsAncestor,
  tryResolveCommit,
  tryValidBranchName,
  worktreesUnder,
} from "../workspace/worktrees.js";
import { acquireLock, isDeadLocalHolder } from "./lock.js";

/** A run's integration branch, as the runner works with it. */
export interface RunBranch {
  repository: Repository;
  /** `frontier/<run>` */
  branch: string;
  /** the commit the branch was made from */
  base: string;
  /** where this run's worktrees live: in the repository's git directory */
  home: string;
  /** the ticket directory, from the repository's top ("" when it is the top) */
  ticketDir: string;
  /** the executor's directory in a worktree, from its top: the ticket directory's parent */
  cwd: string;
}

interface BranchRecord {
  schema: "ticket-frontier/branch@1";
  branch: string;
  base: string;
  created_at: string;
}

/**
 * What stands in the way of isolated tickets in `dir`, before anything starts (validate
 * and run check the same): no git, a git too old for worktrees, no repository, no
 * commit to start from. One problem, where the isolation is asked for.
 */
export async function isolationProblems(
  dir: string,
  specs: readonly TicketSpec[],
  settings: Pick<Settings, "isolation">,
): Promise<Problem[]> {
  const isolated = specs.filter((s) => runsIsolated(s, settings));
  if (isolated.length === 0) return [];
  const check = await checkRepository(dir);
  if (check.kind === "ok") return [];
  const byDefault = settings.isolation !== undefined && settings.isolation !== "none";
  const own = isolated.find((s) => s.isolation === "worktree");
  const where =
    byDefault || own === undefined
      ? { file: SETTINGS_FILE, line: fieldLine(join(dir, SETTINGS_FILE), "isolation", false) }
      : { file: own.file, line: fieldLine(join(dir, own.file), "isolation") };
  const who = `${plural(isolated.length, "ticket")} ${isolated.length === 1 ? "runs" : "run"} with isolation: worktree`;
  const drop =
    "or set isolation: none to run without (changes are then neither checked nor integrated)";
  const need = `git ${MIN_GIT.join(".")} or newer`;
  const [message, fix] = {
    "no-git": [`which needs git, and git is not installed (or not on PATH)`, `install ${need}`],
    "too-old": [
      `which needs ${need} for its worktrees; this git is ${check.kind === "too-old" && check.version}`,
      "upgrade git",
    ],
    "not-a-repository": [
      "which needs a git repository, and the ticket directory is not in one",
      "make the project a repository (git init, then commit it)",
    ],
    "no-commit": [
      `which starts each from a commit, and the repository at ${check.kind === "no-commit" && check.root} has none yet`,
      "commit once (git add -A && git commit -m start)",
    ],
  }[check.kind];
  return [
    problem(
      "isolation-unavailable",
      where.file,
      where.line,
      `${who}, ${message}`,
      `${fix}, ${drop}`,
    ),
  ];
}

export type OpenedBranch =
  | { kind: "ok"; branch: RunBranch; notes: string[] }
  | { kind: "bad"; message: string };

/**
 * The integration branch of the run `run` in `dir` (absolute): the one its
 * branch.json names, else `frontier/<run>` made from HEAD now. A branch of that name
 * left by an earlier run is taken over only when HEAD already holds all of it;
 * otherwise nothing starts, and the message says how to go on. Call under the run's lock.
 */
export async function openRunBranch(dir: string, run: string, now: number): Promise<OpenedBranch> {
  const check = await checkRepository(dir);
  if (check.kind !== "ok") {
    return { kind: "bad", message: `isolation: worktree cannot run here (${check.kind})` };
  }
  const { repository, head } = check;
  const { root } = repository;
  // one run of the repository at a time takes its branch: two started at once never share one
  const lock = await acquireLock(join(repository.commonDir, "frontier"), now);
  if (lock.kind !== "ok") return { kind: "bad", message: lock.message };
  try {
    const notes: string[] = [];
    const recorded = readBranchRecord(dir);
    const taken = otherOwner(repository, dir, recorded?.branch ?? runBranchName(run));
    if (taken !== undefined) return { kind: "bad", message: taken };
    // a new run's branch is made from HEAD
    const { branch, base } = recorded ?? { branch: runBranchName(run), base: head };
    if (recorded !== undefined) {
      if ((await tryResolveCommit(root, `refs/heads/${branch}`)) === undefined) {
        // deleted while the run was not running: what it held is the user's to have kept
        const made = await makeBranch(root, branch, head, undefined, "again");
        if (made !== undefined) return { kind: "bad", message: made };
        notes.push(
          `${branch} was gone (deleted?): made again from HEAD (${short(head)}); tickets that ran before build on HEAD now`,
        );
      }
    } else {
      if (!(await tryValidBranchName(root, branch))) {
        return {
          kind: "bad",
          message: `the run's name ${JSON.stringify(run)} gives no branch name git accepts (${branch}) — set another run: in frontier.yml`,
        };
      }
      const existing = await tryResolveCommit(root, `refs/heads/${branch}`);
      if (existing !== undefined && !(await tryIsAncestor(root, existing, head))) {
        const ahead = await commitsBetween(root, head, existing);
        return {
          kind: "bad",
          message: `the branch ${branch} holds ${plural(ahead, "commit")} that HEAD does not have (an earlier run's changes?) — merge it (git merge ${branch}) or delete it (git branch -D ${branch}), or give this run another name (run: in frontier.yml); nothing was started`,
        };
      }
      const made = await makeBranch(root, branch, head, existing, "from HEAD");
      if (made !== undefined) return { kind: "bad", message: made };
      if (existing !== undefined && existing !== head) {
        notes.push(
          `${branch} was left by an earlier run and HEAD holds all of it: it starts again from HEAD (${short(head)})`,
        );
      }
      const record: BranchRecord = {
        schema: "ticket-frontier/branch@1",
        branch,
        base,
        created_at: new Date(now).toISOString(),
      };
      replaceAtomically(join(dir, BRANCH_FILE), `${JSON.stringify(record, null, 2)}\n`);
    }
    replaceAtomically(ownerFile(repository, branch), realpathSync(dir));
    return { kind: "ok", branch: locate(dir, repository, branch, base), notes };
  } finally {
    await lock.release();
  }
}

/**
 * The run's branch as its receipt names it (none when no ticket of the run ran isolated),
 * and the claims held: their attempt ended, its record waits for a run to integrate it (while
 * the run that made it lives, it is on its way).
 */
export function isolatedReceipt(dir: string, frontier: Frontier): Partial<ReceiptOptions> {
  const held = new Set<string>();
  for (const p of readPendings(dir, "json", undefined)) {
    const s = frontier.state(p.ticket);
    if (s?.claim === p.claim && isDeadLocalHolder(s.claimed_by ?? "", -1)) held.add(p.ticket);
  }
  const record = readBranchRecord(dir);
  if (record === undefined) return { held };
  const merge = `git merge ${shellWord(record.branch)}`;
  return { held, branch: { name: record.branch, base: record.base, merge } };
}

/** Which ticket directory's run integrates on `branch`: a file in the repository's git directory. */
const ownerFile = (repository: Repository, branch: string) =>
  join(repository.commonDir, "frontier", "branches", encodeURIComponent(branch));

/**
 * Two runs never integrate onto one branch: why `dir` may not take `branch`, when
 * another ticket directory of the repository integrates on it (its record says so).
 */
function otherOwner(repository: Repository, dir: string, branch: string): string | undefined {
  const owner = tryReadText(ownerFile(repository, branch));
  if (
    owner === undefined ||
    owner === realpathSync(dir) ||
    readBranchRecord(owner)?.branch !== branch
  )
    return undefined;
  const shown = (p: string) => relative(repository.root, p) || ".";
  return `the branch ${branch} is where the run of another ticket directory in this repository, ${shown(owner)}, integrates — two runs never share one branch: give this run another name (run: in ${join(shown(realpathSync(dir)), SETTINGS_FILE)}); nothing was started`;
}

/** Make `branch` at `head` (compare-and-swap with `existing`); why it could not, else undefined. */
async function makeBranch(
  root: string,
  branch: string,
  head: string,
  existing: string | undefined,
  how: string,
): Promise<string | undefined> {
  const ref = `refs/heads/${branch}`;
  const at = existing === head ? undefined : await checkedOutAt(root, ref);
  if (at !== undefined) {
    return `the run's branch ${branch} is checked out in ${at}, and the run never moves a branch a worktree has checked out — detach that worktree from it (git -C ${shellWord(at)} switch --detach); nothing was started`;
  }
  // git keeps no branch `a/b` beside a branch `a`: the one in the way, above or below, is named
  const parts = branch.split("/");
  const above = parts.slice(1).map((_, n) => parts.slice(0, n + 1).join("/"));
  const below = ["for-each-ref", "--count=1", "--format=%(refname:lstrip=2)", `${ref}/`];
  for (const inTheWay of [...above, await gitText(below, { cwd: root })]) {
    if (inTheWay !== "" && (await tryResolveCommit(root, `refs/heads/${inTheWay}`)) !== undefined) {
      const beside = above.includes(inTheWay) ? `${inTheWay}/…` : branch;
      return `the run's branch ${branch} cannot be made: a branch named ${inTheWay} exists, and git keeps no branch ${beside} beside it — rename that branch (git branch -m ${inTheWay} NEW-NAME); nothing was started`;
    }
  }
  const moved = await moveRef(root, ref, head, existing, `frontier: run branch ${how}`);
  if (moved.kind === "ok") return undefined;
  return moved.kind === "moved"
    ? `could not make the branch ${branch}: it changed meanwhile (run again)`
    : `could not make the branch ${branch}: ${moved.message}`;
}

/** The run's branch.json; none (or not ours): the run makes its branch. */
function readBranchRecord(dir: string): BranchRecord | undefined {
  const value = tryReadJson<BranchRecord>(join(dir, BRANCH_FILE));
  const whole = typeof value?.branch === "string" && typeof value.base === "string";
  return whole ? (value as BranchRecord) : undefined;
}

function locate(dir: string, repository: Repository, branch: string, base: string): RunBranch {
  const real = realpathSync(dir);
  const ticketDir = toPosix(relative(repository.root, real));
  const parent = toPosix(relative(repository.root, dirname(real)));
  // tickets at the top of the repository: their parent is outside it, the executor runs at the top
  const cwd = parent.startsWith("..") || isAbsolute(parent) ? "" : parent;
  const key = `${basename(real) || "tickets"}-${createHash("sha256").update(real).digest("hex").slice(0, 10)}`;
  const home = join(repository.commonDir, "frontier", "worktrees", key);
  return { repository, branch, base, home, ticketDir, cwd };
}

const toPosix = (p: string) => p.split(sep).join("/");

export const short = (commit: string) => commit.slice(0, 10);

/** What the run says of a directory among its worktrees that git no longer takes for one. */
export const noWorktree = (path: string) =>
  `${path} holds files but is no worktree of the run (its .git was removed, or a run kept it): they stay there`;
const INTERRUPTED = new Set<string>([REASON.interrupted, REASON.leaseExpired, REASON.holderGone]);

/** The worktree of one attempt. */
export function worktreePath(rb: RunBranch, ticket: string, attempt: number): string {
  return join(rb.home, `${ticket}@${attempt}`);
}

/** Where a run's attempts write (their `.frontier/` records are not changes), from the top. */
export function recordsPath(rb: RunBranch): string {
  return rb.ticketDir === "" ? ".frontier" : `${rb.ticketDir}/.frontier`;
}

/**
 * How an attempt's worktree's changes are read: the run's records are none, and the
 * user's own excludes and attributes (the shared `info/`, which the run guards) are honoured.
 */
export const worktreeChanges = (rb: RunBranch): CollectOptions => ({
  exclude: [recordsPath(rb)],
  gitDir: rb.repository.commonDir,
  engineFields: engineFieldRule(rb.ticketDir),
});

/**
 * `frontier reset`: the run's worktrees are removed (an attempt that ended without its
 * changes integrated keeps them as a patch among the records first), and its branch is
 * kept — it is the user's work. Returns what was done, in lines; none when the run
 * integrated on no branch.
 */
export async function resetWorktrees(dir: string): Promise<string[]> {
  const recorded = readBranchRecord(dir);
  if (recorded === undefined) return [];
  const check = await checkRepository(dir);
  if (check.kind !== "ok") return [];
  const rb = locate(dir, check.repository, recorded.branch, recorded.base);
  const { root } = rb.repository;
  const out: string[] = [];
  // a worktree with no record had not ended: what it had begun is kept all the same
  const records = [...readPendings(dir, "kept", rb), ...readPendings(dir, "json", rb)];
  const endedAt = new Map(records.map((p) => [worktreePath(rb, p.ticket, p.attempt), p]));
  const archived = (file: string) =>
    `${file.slice(`${STATE_DIR}/`.length)} in the archived records`;
  let removed = 0;
  const stayed = new Set<string>();
  for (const path of await worktreesUnder(root, rb.home)) {
    const e = endedAt.get(path);
    const they = `${e?.ticket} attempt ${e?.attempt} had ended but its changes were never integrated; they`;
    const kept = await (e === undefined
      ? keepBegun(dir, rb, path, archived)
      : keepAsPatch(dir, rb, { ...e, worktree: path }, they, archived));
    if (kept.said !== undefined) out.push(kept.said);
    if (kept.stays && stayed.add(path)) continue; // never lose them: the worktree stays where it is
    await removeWorktree(root, path);
    removed++;
  }
  if (removed > 0) out.push(`removed ${plural(removed, "worktree")} of the run (${rb.home})`);
  for (const path of await pruneStale(rb.repository, rb.home, Date.now()))
    if (!stayed.has(path)) out.push(noWorktree(path));
  const head = await tryResolveCommit(root, `refs/heads/${rb.branch}`);
  if (head === undefined) return out;
  const commits = await commitsBetween(root, rb.base, head);
  const past = `${plural(commits, "commit")} past ${short(rb.base)}`;
  if (commits === 0) {
    out.push(
      `kept the branch ${rb.branch}: it has no commits past ${short(rb.base)}, and the next run starts it again from HEAD`,
    );
  } else if (await tryIsAncestor(root, head, "HEAD")) {
    out.push(
      `kept the branch ${rb.branch} (${past}): HEAD holds all of it (merged), so the next run starts it again from HEAD — delete it when you like (git branch -d ${rb.branch})`,
    );
  } else {
    out.push(
      `kept the branch ${rb.branch} (${past}): it is your work — merge it (git merge ${rb.branch}) or delete it (git branch -D ${rb.branch}); the next run makes it afresh from HEAD once HEAD holds it or it is gone`,
    );
  }
  return out;
}

/** An attempt that ended and is not yet recorded: `integrating/<id>@<n>.json` (`.kept` once kept). */
export interface Pending {
  schema: "ticket-frontier/integrating@1";
  ticket: string;
  attempt: number;
  claim: string;
  worktree: string;
  /** the commit its worktree was made at */
  start: string;
  /** the outcome, as the executor's end was read */
  outcome: Interpreted;
  exit_code: number | null;
  signal: NodeJS.Signals | null;
  duration_ms: number;
}

/** The attempts a killed run left ended (`kind` json), or ended and kept (`kind` kept). */
export function readPendings(dir: string, kind: "json" | "kept", rb: RunBranch | undefined) {
  return namesIn(join(dir, INTEGRATING_DIR)).flatMap((name): Pending[] => {
    const p = name.endsWith(`.${kind}`) ? readPending(join(dir, INTEGRATING_DIR, name)) : undefined;
    // an executor can write one too: its worktree is where the run makes it (under the
    // run's home, by its name), never a path the file names
    if (p === undefined || name !== `${p.ticket}@${p.attempt}.${kind}`) return [];
    return [{ ...p, worktree: rb ? worktreePath(rb, p.ticket, p.attempt) : "" }];
  });
}

/** One of them; none, or not one of ours, is undefined (a record is never half-written: created whole). */
function readPending(path: string): Pending | undefined {
  const p = tryReadJson<Pending>(path);
  const whole =
    p?.schema === "ticket-frontier/integrating@1" &&
    typeof p.ticket === "string" &&
    TICKET_ID.test(p.ticket) &&
    Number.isSafeInteger(p.attempt) &&
    typeof p.claim === "string" &&
    typeof p.start === "string" &&
    p.outcome !== undefined;
  return whole ? (p as Pending) : undefined;
}

/** The commit an attempt's integration already made on the run's branch, found by its claim trailer. */
export async function landedCommit(rb: RunBranch, a: Pick<Pending, "start" | "claim">) {
  const { root } = rb.repository;
  const head = await tryResolveCommit(root, `refs/heads/${rb.branch}`);
  if (head === undefined) return undefined;
  return commitWithTrailer(root, a.start, head, claimTrailer(a.claim));
}

/**
 * The changes of an attempt that was never integrated, kept as a patch among the run's
 * records before its worktree goes, said in a line that begins with `they` (the patch's
 * file shown by `where`); nothing is said when there is nothing to keep (no worktree, no
 * change, or the branch has its commit already). `stays`: they could not be kept, so the
 * worktree must stay.
 */
export async function keepAsPatch(
  dir: string,
  rb: RunBranch,
  a: Pick<Pending, "ticket" | "attempt" | "worktree" | "start"> & { claim?: string },
  they: string,
  where = (file: string) => file,
): Promise<{ said?: string; stays?: true }> {
  try {
    if (!existsSync(a.worktree)) return {};
    if (a.claim !== undefined && (await landedCommit(rb, { ...a, claim: a.claim }))) return {};
    const collected = await attemptChanges(a.worktree, a.start, worktreeChanges(rb));
    // files no patch can hold (a .GIT), or none collected: the worktree is their only copy
    if (collected.unstored) throw new Error(collected.unstored);
    if (collected.paths.length === 0) return {};
    const file = unintegratedPatchFile(a.ticket, a.attempt);
    if (collected.patch === undefined) throw new Error("their patch would be over 1 GiB");
    replaceAtomically(join(dir, file), collected.patch);
    return { said: `${they} are kept as ${where(file)}` };
  } catch (error) {
    return {
      stays: true,
      said: `${they} could not be kept as a patch (${errorText(error)}): they stay in ${a.worktree}`,
    };
  }
}

/**
 * The worktree at `path` of an attempt that was interrupted (Ctrl-C, or its run killed
 * outright): what it had changed is kept as a patch, from `start`, else from the commit it
 * was made at (madeAt) — one the run's branch holds; else the worktree stays.
 */
export async function keepBegun(
  dir: string,
  rb: RunBranch,
  path: string,
  where?: (file: string) => string,
  start?: string,
): Promise<{ said?: string; stays?: true }> {
  const [, ticket = "", n] = /^(.+)@(\d+)$/.exec(basename(path)) ?? [];
  if (!existsSync(path)) return {};
  const remove = `git worktree remove --force ${shellWord(path)} once you have them`;
  if (n === undefined) {
    // none of the run's: an executor's (`git worktree add ../x`), named and never removed
    const said = `${path} is a worktree the run did not make (an executor's git worktree add?): its files stay there (${remove})`;
    return { stays: true, said };
  }
  const attempt = Number(n);
  const they = `${ticket} attempt ${attempt} was interrupted; its changes so far`;
  // an attempt recorded as ended otherwise was not interrupted (a kill as its worktree went)
  const record = tryReadJson<AttemptRecord>(join(dir, attemptFile(ticket, attempt)));
  if (record && !INTERRUPTED.has(record.reason ?? "")) return {};
  const from = start ?? (await madeAt(path))?.trim() ?? "";
  const ref = `refs/heads/${rb.branch}`;
  const known =
    /^[0-9a-f]{40,64}$/.test(from) && (await tryIsAncestor(rb.repository.root, from, ref));
  return start !== undefined || known
    ? keepAsPatch(dir, rb, { ticket, attempt, worktree: path, start: from }, they, where)
    : {
        stays: true,
        said: `${they} stay in ${path}, since the commit it started from is unknown or no longer on ${rb.branch} (${remove})`,
      };
}
