/**
 * The status index: how an event reads what it touches and not the whole run.
 *
 * state.json holds every ticket's head — status, attempt, updated_at, and while they
 * apply the claim, the blocker and the reason — one compact line each:
 *
 *   "build":["claimed",2,"2026-12-01T10:00:00.000Z",{"claimed_by":"…","claimed_at":"…","claim":"c1a2"}]
 *
 * and each shard under state/ holds the history of the tickets that hash to it: their
 * ended attempts and their answers (the live attempt is the head's claim, rebuilt on
 * load). The engine schedules from the heads alone — what is ready, claimed, blocked,
 * promoted, what a claim may start — so an event reads state.json and the shards of the
 * tickets whose history it changes: the ticket it settles, answers or retries. A ticket
 * whose shard was not read is a stub (its head, no history).
 *
 * An event whose decision turns out to need more reads them and decides again (one
 * more query; `need` below says which):
 *  - the shards of every ticket whose history it changes that it did not read (a claim
 *    that expired, a cancel, an older question whose issue is still to open);
 *  - every shard, when it must show the whole record: the report comment is due, the
 *    run ends, or the run is small (at most FULL_READ_MAX tickets: its HTML report and
 *    receipt are written on every event, and its whole state is a few kilobytes);
 *  - every shard, when the run's bound names usage totals: they are summed over every
 *    attempt of the run.
 * The bot's /status and the context step read everything (advance.ts readRun,
 * context-step.ts). Shard file names hash the ticket id over INDEXED_SHARDS, so the
 * shard of a ticket is known before state.json is read.
 */
import { z } from "zod";
import type { Changes, Frontier } from "../core/engine.js";
import { AnswerRecord, AttemptRecord, Status, TicketState } from "../core/model.js";

/** The shards of an indexed state: fixed, so a ticket's shard is known before any read. */
export const INDEXED_SHARDS = 128;
/** Runs of at most this many tickets read their whole state on every event. */
export const FULL_READ_MAX = 200;

/** What an index line holds of a ticket besides status, attempt and updated_at, while it applies. */
const HeadRest = TicketState.pick({
  claimed_by: true,
  claimed_at: true,
  claim: true,
  blocked_by: true,
  reason: true,
}).partial();
const HEAD_REST = HeadRest.keyof().options;

export const IndexEntry = z.union([
  z.tuple([Status, z.number().int().nonnegative(), z.string().nullable()]),
  z.tuple([Status, z.number().int().nonnegative(), z.string().nullable(), HeadRest]),
]);
export type IndexEntry = z.infer<typeof IndexEntry>;

export const History = z.object({
  attempts: z.array(AttemptRecord).default([]),
  answers: z.array(AnswerRecord).default([]),
});

/** A ticket's head as its index line holds it. */
export function headOf(t: TicketState): IndexEntry {
  const rest = Object.fromEntries(
    HEAD_REST.flatMap((k) => (t[k] === undefined ? [] : [[k, t[k]]])),
  );
  const head: IndexEntry = [t.status, t.attempt, t.updated_at ?? null];
  return Object.keys(rest).length > 0 ? [...head, rest] : head;
}

/** A ticket's state from its index line and its history (none: a stub). */
export function ticketOf(
  entry: IndexEntry,
  history: z.infer<typeof History> | undefined,
): TicketState {
  const [status, attempt, updated, rest] = entry;
  const t: TicketState = {
    status,
    attempt,
    ...(rest ?? {}),
    attempts: history?.attempts ?? [],
    answers: history?.answers ?? [],
  };
  if (updated !== null) t.updated_at = updated;
  return t;
}

/** A ticket's history line, or undefined when it has none (it is then in no shard file). */
export function historyOf(t: TicketState): string | undefined {
  // the live attempt is the head's claim: rebuilt from it on load, never stored twice
  const ended = t.attempts.filter((a) => a.outcome !== undefined);
  if (ended.length === 0 && t.answers.length === 0) return undefined;
  // (an empty list is left out: JSON drops what is undefined)
  const some = <T>(list: T[]) => (list.length > 0 ? list : undefined);
  return JSON.stringify({ attempts: some(ended), answers: some(t.answers) });
}

/**
 * Why a run reads its whole state on every event, or undefined when it reads only what it
 * touches: a small run (its HTML report is written on every event), or one whose bound
 * counts usage (totals over every attempt). The one rule: the read plan asks it before the
 * read, from the checkout's tickets; `need` after it, from the run.
 */
export function readsWhole(
  tickets: number,
  bound: number | { usage?: unknown } | undefined,
): string | undefined {
  if (tickets <= FULL_READ_MAX) return `a run of at most ${FULL_READ_MAX} tickets`;
  return typeof bound === "object" && bound.usage !== undefined
    ? "the run's bound names usage totals"
    : undefined;
}

/** What a decision on a partly read state still needs read before it can be committed. */
export type Need = { kind: "shards"; tickets: string[] } | { kind: "all"; why: string };

export function need(
  frontier: Frontier,
  changes: Pick<Changes, "attempts" | "answers">,
  loaded: (ticket: string) => boolean,
  also: {
    /** the report comment is brought up to date by this event */
    refreshReport: boolean;
    now: number;
    /** tickets whose older question still needs its issue opened (their question text) */
    questions: readonly string[];
  },
): Need | undefined {
  const whole = readsWhole(frontier.specs().length, frontier.runRecord().bound);
  if (whole !== undefined) return { kind: "all", why: whole };
  if (also.refreshReport) return { kind: "all", why: "the report comment is due" };
  if (frontier.runState(also.now) !== "running") return { kind: "all", why: "the run ends" };
  const changed = [...changes.attempts, ...changes.answers].map((c) => c.ticket);
  const missing = new Set([...changed, ...also.questions].filter((t) => !loaded(t)));
  return missing.size > 0 ? { kind: "shards", tickets: [...missing] } : undefined;
}
