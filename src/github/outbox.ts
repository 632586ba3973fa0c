/**
 * The dispatch outbox: the whole life of one claim's dispatch, as pure functions over its
 * record (OutboxEntry, in the run's state). Nothing else decides when a claim is sent,
 * sent again, taken or taken for granted.
 *
 *   enqueue   a claim is committed before it is dispatched (claim, then dispatch):
 *             `pending`, one send
 *   unsent    GitHub answered that it started nothing (a rate limit): sent again by the
 *             next event without looking
 *   overdue   a claim that no run has been seen carrying `lagMs` after it was committed
 *             is looked for in the runs listing (one request for all, at most once a
 *             minute per run); one a run carries is `sent` with that run's id
 *   resend    one the listing does not show is sent again (`resent`): the dispatch may
 *             have been lost with the process that made it
 *   take      at its context step a run decides whether it may run the agent (`admit`):
 *             a run of a claim sent more than once takes it by compare-and-swap, and the
 *             first to take it runs the agent; a first send needs no take when its
 *             workflow runs the dispatches of one claim one after the other (its
 *             `concurrency` group is the claim) — the second then starts after the first
 *             has settled, and finds the claim no longer live
 *   settles   a settle from a run another took changes nothing; a run that died without
 *             taking a claim sent more than once leaves it to the other dispatch
 *
 * The runs listing lags (a run may be missing from it for minutes), so the listing's
 * silence never decides alone that a claim may run twice: with the claim's concurrency
 * group GitHub itself keeps two dispatches of one claim apart, and without it every run
 * takes its claim before the agent runs.
 */
import type { Frontier } from "../core/engine.js";
import type { OutboxEntry } from "./state.js";

/** How long a committed claim may go unseen before the runs listing is searched for it. */
export const OUTBOX_LAG_MS = 120_000;
/** The runs listing is searched at most this often per run. */
export const OUTBOX_CHECK_EVERY_MS = 60_000;

export type Outbox = Record<string, OutboxEntry>;

/** The entries whose claim is still the ticket's live one; the rest are done with. */
export function liveEntries(outbox: Outbox | undefined, frontier: Frontier): Outbox {
  return Object.fromEntries(
    Object.entries(outbox ?? {}).filter(([t, entry]) => frontier.isLive(t, { claim: entry.claim })),
  );
}

/** A claim this event committed: dispatched right after the commit. */
export function enqueue(
  outbox: Outbox,
  claim: { ticket: string; attempt: number; claim: string; workflow: string },
  at: string,
  event?: string,
): void {
  outbox[claim.ticket] = {
    claim: claim.claim,
    attempt: claim.attempt,
    workflow: claim.workflow,
    at,
    event,
    status: "pending",
    sends: 1,
  };
}

/**
 * Claims that are live but not in the outbox: written by an older version, or recorded
 * by hand. They are treated as committed at their claim time and not yet seen.
 */
export function adoptUntracked(
  outbox: Outbox,
  frontier: Frontier,
  workflowOf: (t: string) => string,
): void {
  for (const id of frontier.claimedIds()) {
    const s = frontier.state(id);
    if (outbox[id] || !s?.claim) continue;
    const claim = { ticket: id, attempt: s.attempt, claim: s.claim, workflow: workflowOf(id) };
    enqueue(outbox, claim, s.claimed_at ?? new Date(0).toISOString());
  }
}

/**
 * Entries to look for in the runs listing now: unseen for `lagMs`, with no run on record
 * (GitHub named none when it was dispatched, no run took it). `own`: this event's claims,
 * never overdue.
 */
export function overdue(outbox: Outbox, now: number, lagMs: number, own?: string): string[] {
  return Object.entries(outbox)
    .filter(
      ([, e]) =>
        (e.status === "pending" || e.status === "resent") &&
        e.taken_by === undefined &&
        e.run_id === undefined &&
        (own === undefined || e.event !== own) &&
        now - Date.parse(e.at) >= lagMs,
    )
    .map(([ticket]) => ticket);
}

/** Entries GitHub said it did not start (a rate limit): sent again without looking. */
export function unsent(outbox: Outbox): string[] {
  return Object.entries(outbox)
    .filter(([, e]) => e.status === "unsent")
    .map(([ticket]) => ticket);
}

/** Mark an entry to be sent again now (unsent, or overdue and in no run): one more send. */
export function resend(
  outbox: Outbox,
  ticket: string,
  at: string,
  status: "pending" | "resent",
): void {
  const e = outbox[ticket];
  if (e) outbox[ticket] = { ...e, status, at, sends: e.sends + 1 };
}

/** A run carrying the entry's claim was seen (the listing, or GitHub's answer to the dispatch). */
export function seen(outbox: Outbox, ticket: string, claim: string, runId: number): void {
  const e = outbox[ticket];
  if (e?.claim === claim && e.run_id === undefined)
    outbox[ticket] = { ...e, status: "sent", run_id: runId };
}

/** GitHub answered that the dispatch started nothing: the next event sends it again. */
export function markUnsent(outbox: Outbox, ticket: string, claim: string): void {
  const e = outbox[ticket];
  if (e?.claim === claim) outbox[ticket] = { ...e, status: "unsent" };
}

/** What a run of a claim may do at its context step. */
export type Admission =
  /** run the agent; no write needed */
  | { kind: "run" }
  /** take the claim by compare-and-swap first; the agent runs only if this run took it */
  | { kind: "take" }
  /** another run took it: skip the agent */
  | { kind: "skip"; takenBy: number };

/**
 * Whether workflow run `runId` may run the agent for `entry`'s claim. `serialized`: its
 * workflow runs the dispatches of one claim one after the other (a concurrency group
 * keyed on the claim), so a first send cannot run beside a second.
 */
export function admit(
  entry: OutboxEntry | undefined,
  runId: number,
  serialized: boolean,
): Admission {
  if (!entry) return { kind: "run" }; // recorded by hand or an older version: nothing sent twice
  if (entry.taken_by !== undefined) {
    return entry.taken_by === runId ? { kind: "run" } : { kind: "skip", takenBy: entry.taken_by };
  }
  if (runId <= 0) return { kind: "run" }; // not on a runner: nothing to take it with
  const sentOnce = entry.sends <= 1 && entry.status !== "resent";
  // GitHub named this very run when the claim was dispatched once
  if (sentOnce && entry.run_id === runId) return { kind: "run" };
  if (sentOnce && serialized) return { kind: "run" };
  return { kind: "take" };
}

/**
 * Take the claim for `runId` in the outbox an event sees. Answers who has it now: this
 * run, another, or nobody (the claim is no longer live).
 */
export function take(
  outbox: Outbox,
  ticket: string,
  claim: string,
  runId: number,
): { kind: "taken" } | { kind: "taken-by"; runId: number } | { kind: "gone" } {
  const e = outbox[ticket];
  if (!e || e.claim !== claim) return { kind: "gone" };
  if (e.taken_by !== undefined && e.taken_by !== runId)
    return { kind: "taken-by", runId: e.taken_by };
  outbox[ticket] = { ...e, status: "sent", run_id: runId, taken_by: runId };
  return { kind: "taken" };
}

/**
 * Why a settle reported by workflow run `runId` changes nothing, or undefined when it
 * counts. `died`: the run ended before its settle step (a workflow_run event).
 */
export function settleRefused(
  entry: OutboxEntry | undefined,
  job: { ticket: string; attempt: number; claim?: string; runId?: number },
  died: boolean,
): string | undefined {
  if (job.runId === undefined || entry === undefined) return undefined;
  if (job.claim !== undefined && entry.claim !== job.claim) return undefined;
  if (entry.taken_by !== undefined && entry.taken_by !== job.runId) {
    return `${job.ticket}#${job.attempt} was taken by workflow run ${entry.taken_by}; workflow run ${job.runId} (a second dispatch of the same claim) changes nothing`;
  }
  if (died && entry.taken_by === undefined && (entry.sends > 1 || entry.status === "resent")) {
    // A claim sent twice: this run ended without taking it (cancelled while it waited
    // behind the other in the claim's concurrency group, say). The other dispatch carries
    // it; if that one dies too, its own end or the lease settles it.
    return `${job.ticket}#${job.attempt} was dispatched more than once and workflow run ${job.runId} ended without taking it; the other dispatch carries it`;
  }
  return undefined;
}
