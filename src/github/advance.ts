/**
 * One event of a run on GitHub, for every entry point (push, settle, a dead job, the
 * sweep, the context step's take, the bot's commands):
 *
 *   record   record.ts: one read of the run's branch, the decision (decide.ts, around
 *            the engine's step in core/event.ts), one compare-and-swap commit; a lost
 *            race reads and decides again, a lost answer is found by the event's id
 *   perform  effects.ts, only after the outcome is recorded: dispatch the claims, open
 *            question issues, post or refresh the report comment — each idempotent,
 *            each retried by a later event if it fails, none undone by a lost race.
 *            What they learn is recorded by one more small event.
 *
 * Requests per event: 2 GraphQL (read, commit) plus one REST request per dispatch, the
 * report comment at most every 30 s or when its headline changes, and one runs listing a
 * minute while claims are overdue. Nothing here reads or writes per ticket of the graph.
 */
import type { EventResult, Frontier } from "../core/engine.js";
import type { Receipt, Settings } from "../core/model.js";
import { branchCommits } from "../report/receipt.js";
import { graphqlStore } from "./branch.js";
import { openBranchRun } from "./decide.js";
import { type Dispatched, performEffects, receiptOf, renderReport, showReport } from "./effects.js";
import {
  type Recorded,
  type RecordOptions,
  readWithFallback,
  recordEvent,
  runPaths,
} from "./record.js";
import type { RunContext, RunEvent } from "./run-context.js";
import { runSource } from "./source.js";
import { type GitHubState, stateOfRead } from "./state.js";

export interface AdvanceOutcome extends Pick<Recorded, "frontier" | "state" | "commit" | "tries"> {
  /** what the event itself did (the first event, not the follow-ups) */
  result: EventResult;
  dispatched: Dispatched[];
  receipt: Receipt;
  /** the report as markdown (also the job summary); absent when the event read only part of the record */
  markdown?: string;
  /** optional work that failed and is left to the next event, in words */
  deferred: string[];
  /**
   * the receipt holds every ticket's whole record; false when the event read only the
   * status index and what it touched (status-index.ts): then the receipt has each
   * ticket's state, and the attempts of those it read
   */
  complete: boolean;
}

// (`readBase`: the bot and the sweep, whose checkout is seldom the run's base, read
// base.json with the state at once instead of a second query when it turns out needed)
export interface AdvanceOptions
  extends Pick<RecordOptions, "fresh" | "touches" | "job" | "readBase"> {
  /**
   * Whether this event may start a run when the branch has none (default true: push,
   * workflow_dispatch, the bot). A settle, a dead job or the sweep on a branch without a
   * run changes nothing and says so.
   */
  start?: boolean;
}

/** Run one event to completion: record it by compare-and-swap, then dispatch and report. */
export async function advance(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  options: AdvanceOptions = {},
): Promise<AdvanceOutcome> {
  const { start, ...rest } = options;
  const first = await recordEvent(ctx, event, label, { ...rest, mayStart: start !== false });
  const done: Done = { dispatched: [], deferred: [], refresh: first.refreshReport };
  const last = await drive(ctx, first, done);

  const receipt = receiptOf(ctx, last.frontier, last.settings);
  // the attempt this event integrated: its commit is this event's (a later one names it in the record)
  const integrated = first.commit
    ? first.state.unnamed?.find((u) => u.seq === first.state.seq)
    : undefined;
  const a = receipt.tickets
    .find((t) => t.id === integrated?.ticket)
    ?.attempts.find((x) => x.n === integrated?.attempt);
  if (a?.changes && a.changes.commit === undefined) {
    a.changes = { ...a.changes, commit: first.commit };
    if (receipt.branch) receipt.branch.commits = branchCommits(receipt.tickets);
  }
  // a report needs every ticket's record: an event that read part of it writes none (a due
  // refresh always reads everything)
  const markdown = last.partial ? undefined : renderReport(ctx, receipt, last.state.seq);
  if (markdown !== undefined && done.refresh && last.state.report) {
    const learned = await showReport(ctx, last, markdown, done.deferred);
    if (learned) {
      const again = await recordEvent(ctx, learned.event, learned.label, {
        mayStart: false,
        drainOutbox: false,
      });
      // the commit that recorded a comment posted again may have claimed what became ready
      if (again.sends.length > 0) await drive(ctx, again, done);
    }
  }
  return {
    result: first.result,
    dispatched: done.dispatched,
    frontier: last.frontier,
    state: last.state,
    receipt,
    markdown,
    commit: last.commit ?? first.commit,
    tries: first.tries,
    deferred: done.deferred,
    complete: !last.partial,
  };
}

/** What an event's rounds of effects did, so far. */
interface Done {
  dispatched: Dispatched[];
  deferred: string[];
  /** the report comment is due: a follow-up reads the whole record, to render it from */
  refresh: boolean;
}

/**
 * Effects, after the outcome is on the branch. A refused dispatch and anything the
 * effects learn (an issue opened, a comment posted, a dispatch GitHub did not start)
 * is one more event, which may claim more: at most a few rounds.
 */
async function drive(ctx: RunContext, from: Recorded, done: Done): Promise<Recorded> {
  let at = from;
  let sends = from.sends;
  for (let round = 0; round < 10; round++) {
    const learned = await performEffects(ctx, at, sends, done.dispatched, done.deferred);
    if (!learned) break;
    // a follow-up sends only what it claims itself: the outbox waits for the next event
    const next = await recordEvent(ctx, learned.event, learned.label, {
      mayStart: false,
      drainOutbox: false,
      // the report shown at the end is rendered from the last event's frontier: whole
      ...(done.refresh ? { readAll: true } : {}),
    });
    await learned.after?.();
    // (what the first round performed once — the CI dispatch — is not carried on)
    const { ci: _done, ...was } = at;
    at =
      next.commit !== undefined
        ? next
        : { ...was, frontier: next.frontier, state: next.state, partial: next.partial };
    done.refresh ||= next.refreshReport;
    sends = next.sends;
  }
  return at;
}

/** The run on the branch as it stands, read-only: nothing is committed or dispatched. */
export async function readRun(
  ctx: RunContext,
): Promise<{ frontier: Frontier; state: GitHubState; settings: Settings } | undefined> {
  const store = { current: ctx.store ?? graphqlStore(ctx.gh, ctx.repo, ctx.branch) };
  // base.json in the same query: the bot's checkout is seldom the run's base
  const read = await readWithFallback(ctx, store, runPaths(ctx, true));
  const state = read ? stateOfRead(ctx.dir, read) : undefined;
  if (!read || !state || state.branch !== ctx.branch) return undefined;
  const source = await runSource(ctx, state, read, true);
  if (source === "need-snapshot") return undefined; // (asked with the state: never)
  const frontier = openBranchRun(ctx, source, state, ctx.clock());
  return { frontier, state, settings: source.settings };
}
