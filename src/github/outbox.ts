/**
 * The dispatch outbox. A claim is committed before it is dispatched (claim, then
 * dispatch), so a process that dies — or loses GitHub's answer — between the two leaves
 * a claim that no workflow run carries. Every event looks at the claims of the run it
 * touches: one that has gone `lagMs` without a run carrying its token in its run-name is
 * looked for in the runs listing (one request for all of them, at most once a minute per
 * run) and sent again only when no run carries it. A claim sent more than once is
 * marked `resent` before the send, and its runs take it by compare-and-swap at their
 * context step: only the first runs the agent.
 *
 * Pure decisions here; the listing lookup is `findRunsByClaims` (dispatch.ts).
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
  const out: Outbox = {};
  for (const [ticket, entry] of Object.entries(outbox ?? {})) {
    const s = frontier.state(ticket);
    if (s?.status === "claimed" && s.claim === entry.claim) out[ticket] = entry;
  }
  return out;
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
    if (outbox[id]) continue;
    const s = frontier.state(id);
    if (!s?.claim) continue;
    outbox[id] = {
      claim: s.claim,
      attempt: s.attempt,
      workflow: workflowOf(id),
      at: s.claimed_at ?? new Date(0).toISOString(),
      status: "pending",
      sends: 1,
    };
  }
}

/** Entries to look for in the runs listing now: unseen for `lagMs`, not yet taken. */
export function overdue(outbox: Outbox, now: number, lagMs: number): string[] {
  return Object.entries(outbox)
    .filter(
      ([, e]) =>
        (e.status === "pending" || e.status === "resent") &&
        e.taken_by === undefined &&
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
