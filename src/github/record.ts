/**
 * Record one event on the run's branch by compare-and-swap:
 *
 *   read    ONE query: the head of the branch and, at that commit, state.json and its
 *           shards, worklog.jsonl, live.json (and base.json when the checkout is not the
 *           run's base: only its id once a try or a job's checkout holds it)
 *   decide  decide.ts, without a request
 *   commit  ONE createCommitOnBranch on the head read
 *
 * A lost race reads again and decides again after a jittered back-off; a lost answer
 * reads again and finds the event's id in the state if its commit landed. The clock,
 * the randomness (the jitter, the event's id) and the sleep are the context's: nothing
 * here reads the time of day.
 * The only request besides the read and the commit is the runs listing of overdue
 * claims (a read, at most once per event); every other effect waits for the commit.
 */
import { join } from "node:path";
import { NAMED_PATHS } from "../core/changes.js";
import { readCapped } from "../tickets/outcome-file.js";
import {
  type BranchRead,
  type BranchStore,
  type CommitAnswer,
  graphqlStore,
  type ReadExtra,
  restStore,
} from "./branch.js";
import { HISTORY_READ, type JobChanges, movedPaths, probesOf, refusedBy } from "./changes.js";
import { type Decided, type Decision, decide, type RunsSeen, type TryInput } from "./decide.js";
import { findClaimRuns } from "./dispatch.js";
import { UserError } from "./errors.js";
import { jobEvent, type SettleJob } from "./events.js";
import { archiveForeignRun, pushRefused } from "./foreign.js";
import { archiveRun, blobSha } from "./fresh.js";
import { stillRunning } from "./fresh-words.js";
import { isFinishedCopy } from "./history.js";
import { describeError, isPushRefused, rateLimitOf } from "./octokit.js";
import { OUTBOX_LAG_MS } from "./outbox.js";
import type { RunContext, RunEvent } from "./run-context.js";
import { authoredChanges, runSource, snapshotSource } from "./source.js";
import {
  type GitHubState,
  livePath,
  partOfRead,
  shardDirPath,
  shardFileOf,
  snapshotPath,
  statePath,
  worklogPath,
} from "./state.js";
import { readsWhole } from "./status-index.js";

/**
 * A base.json larger than this in a job's checkout is read from the branch instead: what
 * an agent put there is parsed too (never used), and this bounds what that costs.
 */
const SNAPSHOT_CAP = 8 << 20;

export interface Recorded extends Decided {
  /** the commit that recorded the event; undefined when it changed nothing */
  commit?: string;
  /** the head the last try read (holds the event when its commit answer was lost) */
  head: string;
  /** tries it took (1 = no race lost) */
  tries: number;
}

export interface RecordOptions {
  /** may this event start a run when the branch has none */
  mayStart: boolean;
  /** read base.json with the state at once (the bot, the sweep) */
  readBase?: boolean;
  /** send again what the outbox holds (default true; a follow-up sends only its own claims) */
  drainOutbox?: boolean;
  /** archive the branch's run first, as `frontier reset` does, and start a new one (fresh.ts) */
  fresh?: boolean;
  /**
   * the tickets whose history the event changes (the one it settles, answers, retries):
   * their shards are read with the state; undefined: none known (status-index.ts)
   */
  touches?: readonly string[];
  /** read every shard (a follow-up of an event whose report comment is due) */
  readAll?: boolean;
  /**
   * a job's settle: its changes' paths are read on each try, and its event, made once the
   * first read gave the run's tickets (events.ts `jobEvent`), replaces `event` and `label`
   */
  job?: SettleJob;
}

/** Record one event: read, decide, commit on the head read; again on a lost race. */
export async function recordEvent(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  options: RecordOptions,
): Promise<Recorded> {
  // which shards the first read takes: every one, or those of the tickets the event touches
  const reading = await readPlan(ctx, options.readAll ? undefined : (options.touches ?? []));
  // The checkout's tickets and digest are loaded before the branch is read, not between
  // the read and the commit: the shorter that window, the fewer races a busy run loses.
  // (A checkout that cannot be loaded is said so by the source, when it is used.)
  if (!ctx.jobCheckout)
    await Promise.all([ctx.checkout.tickets(), ctx.checkout.digest()]).catch(() => undefined);
  // its own options: a try clears `fresh` and `job` once they are done
  const recording = new Recording(ctx, event, label, { ...options }, reading);
  recording.snapshot = await checkoutSnapshot(ctx);
  for (;;) {
    const recorded = await recording.try();
    if (recorded) return recorded;
  }
}

/** One event's tries, and what they share and learn as they go. */
class Recording {
  /** tries so far (1 = no race lost); a read taken again for more of the state is no try */
  private tries = 1;
  private readonly store: { current: BranchStore };
  /** this event's id, recorded in the state: a lost answer is found by it */
  private readonly eventId: string;
  /** the runs listing, searched once per event however often the race is lost */
  private seen: RunsSeen | undefined;
  /** commits that moved a copied run aside or archived the old one */
  private archives = 0;
  /** what a try whose commit answer was lost decided: the event, if that commit landed */
  private unclear: Decided | undefined;
  /** a job's steps read the run's tickets from base.json, never from their checkout */
  private withSnapshot: boolean;
  /** the commit that moved a path, looked up once per path and id (only on a conflict) */
  private readonly movers = new Map<string, string>();
  /** the job's changes, kept once its event is made: each try reads their paths' ids */
  private readonly changes: JobChanges | undefined;
  /** base.json as a try read it (or a job's checkout holds it): tries read only its id, and use it while it is the branch's */
  snapshot: { oid: string; text: string } | undefined;

  constructor(
    private readonly ctx: RunContext,
    private event: RunEvent,
    private label: string,
    private readonly options: RecordOptions,
    private readonly reading: ReadPlan,
  ) {
    this.store = { current: ctx.store ?? graphqlStore(ctx.gh, ctx.repo, ctx.branch) };
    const hex = Array.from({ length: 12 }, () => Math.floor(ctx.random() * 16).toString(16));
    this.eventId = `e${hex.join("")}`;
    this.withSnapshot = (options.readBase || ctx.jobCheckout) ?? false;
    this.changes = options.job?.changes;
  }

  /** One try: read the branch, decide, commit on the head read; undefined: read again. */
  async try(): Promise<Recorded | undefined> {
    const { ctx, reading, tries } = this;
    const tryStarted = ctx.clock();
    const shardDir = shardDirPath(ctx.dir);
    const read = await readWithFallback(
      ctx,
      this.store,
      [
        ...runPaths(ctx, this.withSnapshot && !this.snapshot),
        ...(reading.all ? [] : [...reading.shards].map((name) => `${shardDir}/${name}`)),
        ...reading.files,
      ],
      reading.all ? [shardDir] : [],
      {
        probes: [...probesOf(this.changes), ...(this.withSnapshot ? [snapshotPath(ctx.dir)] : [])],
        history: HISTORY_READ,
      },
    );
    const readAt = ctx.clock();
    if (!read) {
      throw new UserError(
        `branch ${ctx.branch} does not exist in ${ctx.repo.owner}/${ctx.repo.repo}: the run lives on the branch the workflow ran for — push it, or run the workflow on an existing branch`,
      );
    }
    if (!this.withKnownSnapshot(read)) return undefined;
    const shardsRead = reading.all ? undefined : reading.shards;
    const found = partOfRead(ctx.dir, read, shardsRead);
    const copy = found !== "need-all" && found && found.branch !== ctx.branch ? found : undefined;
    // A copy carried along when this branch was cut from the run's (or its pull request
    // merged): not this branch's run. A finished one is this branch's history (history.ts).
    const history =
      copy && !this.options.fresh && isFinishedCopy(ctx.dir, read, copy) ? copy : undefined;
    // a state from before the status index is read whole once, written indexed; a finished
    // run's history is carried whole into a new run
    if (found === "need-all" || (history && !reading.all)) {
      reading.all = true;
      return undefined;
    }
    const foreign = history ? undefined : copy;
    const state = copy ? undefined : found;
    if (await this.moveAside(read, state, foreign)) return undefined;
    if (this.unclear && state?.events?.includes(this.eventId)) {
      ctx.log(`${this.label}: the commit landed although GitHub's answer was lost`);
      ctx.onRecorded?.(`${this.label} (commit ${read.head.slice(0, 12)} or before)`);
      return { ...this.unclear, state, head: read.head, tries };
    }
    // (an unclear commit may still land later: every later read looks for its id)
    // (a run that starts writes every shard)
    const also = { foreign, history, shardsRead: found ? shardsRead : undefined };
    const input = await this.inputOf(read, state, also);
    if (!input) return undefined;
    let decision = decide({ ...input, now: ctx.clock(), seen: this.seen });
    // decided again with the runs listing, which it asks for only while it has none
    while (decision.kind === "search-runs") {
      this.seen = await searchRuns(ctx, decision.entries);
      decision = decide({ ...input, now: ctx.clock(), seen: this.seen });
    }
    if (decision.kind === "need-shards") {
      // the decision needs state this read did not take: read it with the state, decide again
      const { need } = decision;
      if (need.kind === "all" || ++reading.extra > 2) reading.all = true;
      else for (const t of need.tickets) reading.shards.add(shardFileOf(t));
      ctx.debug?.(
        `${this.label}: reading ${need.kind === "all" ? `every shard (${need.why})` : `the shards of ${need.tickets.join(", ")}`}`,
      );
      return undefined;
    }
    if (decision.kind === "need-files") {
      for (const path of decision.files) reading.files.add(path);
      return undefined;
    }
    if (decision.kind !== "commit") return { ...decision.decided, head: read.head, tries };
    return this.commit(decision, read, { tryStarted, readAt, decidedAt: ctx.clock() });
  }

  /**
   * base.json in `read`: as known when the read found its id (a lost race's next try reads
   * only the id: what a run decides from never changes while it runs, and the shorter a try,
   * the fewer races it loses); false when that is not the branch's (read it again).
   */
  private withKnownSnapshot(read: BranchRead): boolean {
    const [path, known] = [snapshotPath(this.ctx.dir), this.snapshot];
    const id = read.oids?.get(path);
    const text = read.files.get(path);
    if (known) {
      if (id !== known.oid) this.snapshot = undefined;
      else read.files.set(path, known.text);
      return id === known.oid;
    }
    if (id && text !== undefined) this.snapshot = { oid: id, text };
    return true;
  }

  /**
   * A run copied from the branch this one was cut from, moved aside when this event may
   * start one; the branch's old run archived when this event starts a fresh one. Each is
   * a commit of its own, and a try: true when one was made (read again).
   */
  private async moveAside(
    read: BranchRead,
    state: GitHubState | undefined,
    foreign: GitHubState | undefined,
  ): Promise<boolean> {
    const { ctx, label, options } = this;
    // (a copy and the branch's own run are never both read: `state` is the branch's own)
    if (!(foreign ? options.mayStart : options.fresh && state)) return false;
    // A new run of this branch: the copied run's records move under runs/ first, so no
    // record of it is overwritten and none is taken for this run's. A fresh run: the old
    // one is archived in a commit of its own, then this event starts.
    if (state && read.files.has(livePath(ctx.dir))) throw stillRunning(ctx.branch, state);
    if (++this.archives > 10) {
      const what = foreign
        ? `move the run copied from ${foreign.branch} aside`
        : `archive run ${state?.run.run}`;
      throw new Error(
        `${label}: could not ${what} on ${ctx.branch} after 10 tries; nothing was started`,
      );
    }
    if (foreign) await archiveForeignRun(ctx, read, foreign);
    else if (state && (await archiveRun(ctx, read, state)) !== undefined) options.fresh = false;
    // read again after a back-off, but at once on a fresh run's archive that landed
    if (foreign || options.fresh) {
      await ctx.sleep(ctx.random() * (ctx.backoffMs ?? 250) * this.archives);
    }
    this.tries++;
    return true;
  }

  /**
   * What `decide` works from in this try: the run's tickets, what the author and the
   * branch changed; undefined when the run's tickets must be read with the state.
   */
  private async inputOf(
    read: BranchRead,
    state: GitHubState | undefined,
    also: Pick<TryInput, "foreign" | "history" | "shardsRead">,
  ): Promise<Omit<TryInput, "now" | "seen"> | undefined> {
    const { ctx, options } = this;
    const source = await runSource(ctx, state, read, this.withSnapshot);
    if (source === "need-snapshot") {
      this.withSnapshot = true;
      return undefined;
    }
    if (this.options.job) {
      ({ event: this.event, label: this.label } = await jobEvent(
        this.options.job,
        source,
        ctx.clock(),
      ));
      this.options.job = undefined;
    }
    return {
      ctx,
      event: this.event,
      label: this.label,
      eventId: this.eventId,
      read,
      state,
      ...also,
      filesRead: this.reading.files,
      source,
      // a push on the branch shows what the author changed or deleted since the run's base
      authoredChanged:
        state && !source.files && ctx.checkoutIsHead
          ? authoredChanges(source, await ctx.checkout.authoredFiles())
          : [],
      mayStart: options.mayStart,
      drainOutbox: options.drainOutbox ?? true,
      moved: await this.movedOf(read),
    };
  }

  /** What moved on the branch under the changes since their start: judged on every try. */
  private async movedOf(read: BranchRead): Promise<Map<string, string>> {
    const moved = new Map<string, string>();
    for (const [i, path] of movedPaths(this.changes, read).entries()) {
      // a conflict's reason names its first paths with their commits: only those are looked
      // up (a request each); the rest moved by the time of the head that was read
      const key = `${path}\0${read.oids?.get(path) ?? ""}`;
      if (i < NAMED_PATHS && !this.movers.has(key)) {
        const { gh, repo, branch } = this.ctx;
        const listed = await gh.rest.repos
          .listCommits({ ...repo, sha: branch, path, per_page: 1 })
          .catch(() => undefined);
        this.movers.set(key, listed?.data[0]?.sha ?? read.head);
      }
      moved.set(path, i < NAMED_PATHS ? (this.movers.get(key) ?? read.head) : read.head);
    }
    return moved;
  }

  /** Commit a decision on the head read: recorded, or undefined to read again (after a back-off). */
  private async commit(
    decision: Extract<Decision, { kind: "commit" }>,
    read: BranchRead,
    { tryStarted, readAt, decidedAt }: { tryStarted: number; readAt: number; decidedAt: number },
  ): Promise<Recorded | undefined> {
    const { ctx, label, tries } = this;
    let answer: CommitAnswer;
    try {
      const head = { sha: read.head, tree: read.tree };
      answer = await this.store.current.commit(head, decision, decision.message);
    } catch (error) {
      // never sent again as it is: decided again, the attempt fails by name
      if (refusedBy(this.changes, error)) return undefined;
      if (isPushRefused(error)) throw pushRefused(ctx, error);
      if (restAfter(ctx, this.store, error, "recording with the REST API")) return undefined;
      throw error;
    }
    ctx.debug?.(
      `${label}: try ${tries}: read ${readAt - tryStarted} ms, decided ${decidedAt - readAt} ms, commit ${ctx.clock() - decidedAt} ms: ${answer.kind}`,
    );
    if (answer.kind === "ok") {
      ctx.onRecorded?.(`${label} (commit ${answer.sha.slice(0, 12)})`);
      if (tries > 1) ctx.log(`${label}: recorded after ${tries} tries (the branch moved under us)`);
      return { ...decision.decided, commit: answer.sha, head: read.head, tries };
    }
    if (tries >= 25) {
      throw new Error(
        `${label}: the branch ${ctx.branch} kept moving; gave up after ${tries} tries. Nothing was dispatched; the next event records it.`,
      );
    }
    this.tries++;
    const backoffMs = ctx.backoffMs ?? 250;
    if (answer.kind === "unclear") {
      // It may have landed: the next read tells, by this event's id in the state.
      ctx.log(
        `${label}: no clear answer to the commit (${answer.message}); reading the branch again`,
      );
      this.unclear = decision.decided;
      await ctx.sleep(ctx.random() * backoffMs);
      return undefined;
    }
    // full jitter over a window that grows with each lost race and with how long a try takes
    const tryMs = Math.max(backoffMs, ctx.clock() - tryStarted);
    await ctx.sleep(ctx.random() * Math.min(30_000, tryMs * 2 ** Math.min(tries, 6)));
    return undefined;
  }
}

/**
 * base.json as a job's checkout holds it, parsed before the first read (out of the
 * read → commit window); the read asks only its id, and what an agent changed is never used.
 */
async function checkoutSnapshot(ctx: RunContext): Promise<Recording["snapshot"]> {
  if (!ctx.jobCheckout) return undefined;
  const path = join(ctx.checkout.workspace, snapshotPath(ctx.dir));
  const read = await readCapped(path, SNAPSHOT_CAP).catch(() => undefined);
  if (read?.kind !== "text") return undefined;
  // a Windows checkout's line ends (the id says whether what is left is the branch's)
  const text = read.text.replace(/\r\n/g, "\n");
  await snapshotSource(text, ctx.dir, ctx.checkout.workspace).catch(() => undefined);
  return { oid: blobSha(text), text };
}

/** Which shards an event reads with the state (status-index.ts). */
interface ReadPlan {
  all: boolean;
  /** shard file names, when not all */
  shards: Set<string>;
  /** reads taken again for shards a decision needed */
  extra: number;
  /** ticket files an integration rewrote that a decision writes (repository paths) */
  files: Set<string>;
}

async function readPlan(
  ctx: RunContext,
  /** undefined: read everything */
  touches: readonly string[] | undefined,
): Promise<ReadPlan> {
  const plan: ReadPlan = { all: true, shards: new Set(), extra: 0, files: new Set() };
  if (touches === undefined) return plan;
  // whether the run reads its whole state, guessed from the checkout before the read (a
  // wrong guess reads again); a job's checkout, where an agent runs, is only counted
  const loaded = ctx.jobCheckout ? undefined : await ctx.checkout.tickets().catch(() => undefined);
  const count = loaded?.specs.length ?? (await ctx.checkout.ticketCount());
  if (readsWhole(count, loaded?.settings.bound) !== undefined) return plan;
  return { ...plan, all: false, shards: new Set(touches.map(shardFileOf)) };
}

/** The files an event reads at the head of the run's branch. */
export function runPaths({ dir }: RunContext, withSnapshot: boolean): string[] {
  return [
    statePath(dir),
    worklogPath(dir),
    livePath(dir),
    ...(withSnapshot ? [snapshotPath(dir)] : []),
  ];
}

/** A read of the branch; a spent GraphQL budget reads with REST for the rest of the event. */
export async function readWithFallback(
  ctx: RunContext,
  store: { current: BranchStore },
  paths: string[],
  dirs: string[] = [shardDirPath(ctx.dir)],
  extra: ReadExtra = {},
): Promise<BranchRead | undefined> {
  try {
    return await store.current.read(paths, dirs, extra);
  } catch (error) {
    if (!restAfter(ctx, store, error, "using the REST API for this event")) throw error;
    return store.current.read(paths, dirs, extra);
  }
}

/** A spent GraphQL budget: the rest of the event reads and commits through REST (true). */
function restAfter(
  ctx: RunContext,
  store: { current: BranchStore },
  error: unknown,
  what: string,
): boolean {
  if (store.current.api !== "graphql" || !rateLimitOf(error)) return false;
  ctx.log(`GitHub's GraphQL budget is spent (${describeError(error, ctx.clock())}): ${what}`);
  store.current = restStore(ctx.gh, ctx.repo, ctx.branch);
  return true;
}

/**
 * One runs listing per workflow for the overdue claims. Optional work: a listing that
 * fails sends nothing again, and the next event looks again.
 */
async function searchRuns(
  ctx: RunContext,
  entries: ReadonlyArray<{ claim: string; workflow: string; at: string }>,
): Promise<RunsSeen> {
  const searched = new Set(entries.map((e) => e.claim));
  try {
    const runs = await findClaimRuns(
      ctx.gh,
      ctx.repo,
      entries.map((e) => ({
        ...e,
        // a resent claim's first send was earlier than its entry says
        since: (Date.parse(e.at) || 0) - (ctx.outboxLagMs ?? OUTBOX_LAG_MS) * 2,
      })),
    );
    return { runs, searched };
  } catch (error) {
    ctx.log(
      `could not search the runs listing for overdue claims (${describeError(error, ctx.clock())}); the next event looks again`,
    );
    return { runs: undefined, searched };
  }
}
