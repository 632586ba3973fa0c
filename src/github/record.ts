/**
 * Record one event on the run's branch by compare-and-swap:
 *
 *   read    ONE query: the head of the branch and, at that commit, state.json and its
 *           shards, worklog.jsonl, live.json (and base.json when the checkout is not the
 *           run's base)
 *   decide  decide.ts, without a request
 *   commit  ONE createCommitOnBranch on the head read
 *
 * A lost race reads again and decides again after a jittered back-off; a lost answer
 * reads again and finds the event's id in the state if its commit landed. The clock,
 * the jitter and the sleep are the context's: nothing here reads the time of day.
 * The only request besides the read and the commit is the runs listing of overdue
 * claims (a read, at most once per event); every other effect waits for the commit.
 */
import { randomBytes } from "node:crypto";
import { NAMED_PATHS } from "../core/changes.js";
import {
  type BranchRead,
  type BranchStore,
  graphqlStore,
  type ReadExtra,
  restStore,
} from "./branch.js";
import {
  commitThatChanged,
  HISTORY_READ,
  type JobChanges,
  movedPaths,
  probesOf,
} from "./changes.js";
import { type Decided, decide, type RunsSeen } from "./decide.js";
import { UserError, workflowRefusal } from "./errors.js";
import { archiveForeignRun, pushRefused } from "./foreign.js";
import { archiveRun } from "./fresh.js";
import { stillRunning } from "./fresh-words.js";
import { isFinishedCopy } from "./history.js";
import { describeError, isPushRefused, rateLimitOf } from "./octokit.js";
import { OUTBOX_LAG_MS } from "./outbox.js";
import type { RunContext, RunEvent } from "./run-context.js";
import { authoredChanges, type RunSource, runSource } from "./source.js";
import {
  type GitHubState,
  livePath,
  partOfRead,
  shardDirPath,
  shardPathOf,
  snapshotPath,
  statePath,
  worklogPath,
} from "./state.js";
import { readsWhole } from "./status-index.js";
import { findClaimRuns } from "./sweep.js";

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
  /** a ticket attempt's changes the event may integrate: each try reads their paths' ids */
  changes?: JobChanges;
  /**
   * the event made from the run's tickets, once the first read gave them (a settle reads
   * its outcome with the run's result cap and bound): it replaces `event` and `label`
   */
  prepare?: (source: RunSource) => Promise<{ event: RunEvent; label: string }>;
}

/** Record one event: read, decide, commit on the head read; again on a lost race. */
export async function recordEvent(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  options: RecordOptions,
): Promise<Recorded> {
  let prepare = options.prepare;
  const { clock, random, sleep } = ctx;
  const maxTries = ctx.maxTries ?? 25;
  const backoffMs = ctx.backoffMs ?? 250;
  const store = { current: ctx.store ?? graphqlStore(ctx.gh, ctx.repo, ctx.branch) };
  const eventId = `e${randomBytes(6).toString("hex")}`;
  // the runs listing, searched once per event however often the race is lost
  let seen: RunsSeen | undefined;
  let archives = 0;
  /** what a try whose commit answer was lost decided: the event, if that commit landed */
  let unclear: Decided | undefined;
  // a job's steps read the run's tickets from base.json, never from their checkout
  let withSnapshot = (options.readBase || ctx.jobCheckout) ?? false;
  let fresh = options.fresh === true;
  // which shards the first read takes: every one, or those of the tickets the event touches
  const reading = await readPlan(ctx, options.readAll ? undefined : (options.touches ?? []));
  const extra = { probes: probesOf(options.changes), history: HISTORY_READ };
  // the commit that moved a path, looked up once per path and id (only on a conflict)
  const movers = new Map<string, string>();
  // The checkout's tickets and digest are loaded before the branch is read, not between
  // the read and the commit: the shorter that window, the fewer races a busy run loses.
  // (A checkout that cannot be loaded is said so by the source, when it is used.)
  if (!ctx.jobCheckout)
    await Promise.all([ctx.checkout.tickets(), ctx.checkout.digest()]).catch(() => undefined);

  for (let tries = 1; ; tries++) {
    const tryStarted = clock();
    const read = await readWithFallback(
      ctx,
      store,
      [...runPaths(ctx, withSnapshot), ...(reading.all ? [] : reading.shards)],
      reading.all ? [shardDirPath(ctx.dir)] : [],
      extra,
    );
    const readAt = clock();
    if (!read) {
      throw new UserError(
        `branch ${ctx.branch} does not exist in ${ctx.repo.owner}/${ctx.repo.repo}: the run lives on the branch the workflow ran for — push it, or run the workflow on an existing branch`,
      );
    }
    const part = partOfRead(ctx.dir, read, reading.all ? undefined : reading.shards);
    if (part === "need-all") {
      // a state from before the status index: read whole once, written indexed
      reading.all = true;
      tries--;
      continue;
    }
    let state = part?.state;
    let foreign: GitHubState | undefined;
    let history: GitHubState | undefined;
    if (state && state.branch !== ctx.branch) {
      // A copy carried along when this branch was cut from the run's (or its pull request
      // merged): not this branch's run. A finished one is this branch's history (history.ts).
      if (!fresh && isFinishedCopy(ctx.dir, read, state)) history = state;
      else foreign = state;
      state = undefined;
    }
    if (foreign && options.mayStart) {
      // A new run of this branch: the copied run's records move under runs/ first, so
      // no record of it is overwritten and none is taken for this run's.
      if (++archives > 10) {
        throw new Error(
          `${label}: could not move the run copied from ${foreign.branch} aside on ${ctx.branch} after 10 tries; nothing was started`,
        );
      }
      await archiveForeignRun(ctx, read.head, foreign);
      await sleep(random() * backoffMs * archives);
      continue;
    }
    if (history && !reading.all) {
      // a finished run's history is carried whole into a new run: read it whole
      reading.all = true;
      tries--;
      continue;
    }
    if (fresh && state) {
      // a fresh run: the old one is archived in a commit of its own, then this event starts
      if (read.files.has(livePath(ctx.dir))) throw stillRunning(ctx.branch, state);
      if (++archives > 10) {
        throw new Error(
          `${label}: could not archive run ${state.run.run} on ${ctx.branch} after 10 tries; nothing was started`,
        );
      }
      if ((await archiveRun(ctx, read.head, state)) !== undefined) fresh = false;
      else await sleep(random() * backoffMs * archives);
      continue;
    }
    if (unclear && state?.events?.includes(eventId)) {
      ctx.log(`${label}: the commit landed although GitHub's answer was lost`);
      ctx.onRecorded?.(`${label} (commit ${read.head.slice(0, 12)} or before)`);
      return { ...unclear, state, head: read.head, tries };
    }
    // (an unclear commit may still land later: every later read looks for its id)

    const source = await runSource(ctx, state, read, withSnapshot);
    if (source === "need-snapshot") {
      withSnapshot = true;
      tries--;
      continue;
    }
    if (prepare) {
      ({ event, label } = await prepare(source));
      prepare = undefined;
    }
    const digest = source.files ? await ctx.checkout.digest() : undefined;
    // a push on the branch shows what the author changed or deleted since the run's base
    const authoredChanged =
      state && !source.files && ctx.checkoutIsHead
        ? authoredChanges(source, await ctx.checkout.authoredFiles())
        : [];
    // what moved on the branch under the changes since their start: judged on every try
    const moved = new Map<string, string>();
    for (const [i, path] of movedPaths(options.changes, read.oids).entries()) {
      // a conflict's reason names its first paths with their commits: only those are looked
      // up (a request each); the rest moved by the time of the head that was read
      if (i >= NAMED_PATHS) {
        moved.set(path, read.head);
        continue;
      }
      const key = `${path}\0${read.oids?.get(path) ?? ""}`;
      let commit = movers.get(key);
      if (commit === undefined) {
        commit =
          (await commitThatChanged(ctx.gh, ctx.repo, ctx.branch, path).catch(() => undefined)) ??
          read.head;
        movers.set(key, commit);
      }
      moved.set(path, commit);
    }
    const input = {
      ctx,
      event,
      label,
      eventId,
      read,
      state,
      foreign,
      history,
      source,
      digest,
      authoredChanged,
      mayStart: options.mayStart,
      drainOutbox: options.drainOutbox ?? true,
      ...(reading.all || !part ? {} : { shardsRead: shardNames(ctx.dir, reading.shards) }),
      moved,
    };
    let decision = decide({ ...input, now: clock(), seen });
    if (decision.kind === "search-runs") {
      seen = await searchRuns(ctx, decision.entries);
      decision = decide({ ...input, now: clock(), seen });
    }
    if (decision.kind === "search-runs") throw new Error("the runs listing was searched twice");
    if (decision.kind === "need-shards") {
      // the decision needs state this read did not take: read it with the state, decide again
      const { need } = decision;
      if (need.kind === "all" || ++reading.extra > 2) reading.all = true;
      else for (const t of need.tickets) reading.shards.add(shardPathOf(ctx.dir, t));
      ctx.debug?.(
        `${label}: reading ${need.kind === "all" ? `every shard (${need.why})` : `the shards of ${need.tickets.join(", ")}`}`,
      );
      tries--;
      continue;
    }
    if (decision.kind !== "commit") return { ...decision.decided, head: read.head, tries };

    const decidedAt = clock();
    let answer: Awaited<ReturnType<BranchStore["commit"]>>;
    try {
      answer = await store.current.commit(
        read.head,
        {
          additions: decision.additions,
          deletions: decision.deletions,
          ...(decision.entries ? { entries: decision.entries } : {}),
        },
        decision.message,
        read.tree,
      );
    } catch (error) {
      const refused = workflowRefusal(error);
      if (refused && options.changes && options.changes.refused === undefined) {
        // never sent again as it is: decided again, the attempt fails by name, its change kept
        options.changes.refused = refused;
        tries--;
        continue;
      }
      if (isPushRefused(error)) throw pushRefused(ctx, error);
      if (store.current.api === "graphql" && rateLimitOf(error)) {
        ctx.log(
          `GitHub's GraphQL budget is spent (${describeError(error, clock())}): recording with the REST API`,
        );
        store.current = restStore(ctx.gh, ctx.repo, ctx.branch);
        tries--;
        continue;
      }
      throw error;
    }
    ctx.debug?.(
      `${label}: try ${tries}: read ${readAt - tryStarted} ms, decided ${decidedAt - readAt} ms, commit ${clock() - decidedAt} ms: ${answer.kind}`,
    );
    if (answer.kind === "ok") {
      ctx.onRecorded?.(`${label} (commit ${answer.sha.slice(0, 12)})`);
      if (tries > 1) ctx.log(`${label}: recorded after ${tries} tries (the branch moved under us)`);
      return { ...decision.decided, commit: answer.sha, head: read.head, tries };
    }
    if (tries >= maxTries) {
      throw new Error(
        `${label}: the branch ${ctx.branch} kept moving; gave up after ${tries} tries. Nothing was dispatched; the next event records it.`,
      );
    }
    if (answer.kind === "unclear") {
      // It may have landed: the next read tells, by this event's id in the state.
      ctx.log(
        `${label}: no clear answer to the commit (${answer.message}); reading the branch again`,
      );
      unclear = decision.decided;
      await sleep(random() * backoffMs);
      continue;
    }
    // full jitter over a window that grows with each lost race and with how long a try takes
    const tryMs = Math.max(backoffMs, clock() - tryStarted);
    const window = Math.min(30_000, tryMs * 2 ** Math.min(tries, 6));
    await sleep(random() * window);
  }
}

/** Which shards an event reads with the state (status-index.ts). */
interface ReadPlan {
  all: boolean;
  /** shard paths, when not all */
  shards: Set<string>;
  /** reads taken again for shards a decision needed */
  extra: number;
}

async function readPlan(
  ctx: RunContext,
  /** undefined: read everything */
  touches: readonly string[] | undefined,
): Promise<ReadPlan> {
  const plan: ReadPlan = { all: true, shards: new Set(), extra: 0 };
  if (touches === undefined) return plan;
  // whether the run reads its whole state, guessed from the checkout before the read (a
  // wrong guess reads again); a job's checkout, where an agent runs, is only counted
  const loaded = ctx.jobCheckout ? undefined : await ctx.checkout.tickets().catch(() => undefined);
  const count = loaded?.specs.length ?? (await ctx.checkout.ticketCount());
  if (readsWhole(count, loaded?.settings.bound) !== undefined) return plan;
  plan.all = false;
  for (const t of touches) plan.shards.add(shardPathOf(ctx.dir, t));
  return plan;
}

const shardNames = (dir: string, paths: ReadonlySet<string>) =>
  new Set([...paths].map((p) => p.slice(shardDirPath(dir).length + 1)));

/** The files an event reads at the head of the run's branch. */
export function runPaths(ctx: RunContext, withSnapshot: boolean): string[] {
  const paths = [statePath(ctx.dir), worklogPath(ctx.dir), livePath(ctx.dir)];
  if (withSnapshot) paths.push(snapshotPath(ctx.dir));
  return paths;
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
    if (store.current.api === "graphql" && rateLimitOf(error)) {
      ctx.log(
        `GitHub's GraphQL budget is spent (${describeError(error, ctx.clock())}): using the REST API for this event`,
      );
      store.current = restStore(ctx.gh, ctx.repo, ctx.branch);
      return store.current.read(paths, dirs, extra);
    }
    throw error;
  }
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
