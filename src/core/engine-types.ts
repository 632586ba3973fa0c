/**
 * The engine's types and the small pure helpers its parts share (engine.ts is the contract).
 */

import { STATUSES } from "./constants.js";
import type {
  AnswerRecord,
  AttemptChanges,
  AttemptRecord,
  BlockedBy,
  BlockKind,
  Bound,
  RunBound,
  RunState,
  Status,
  TicketState,
  Usage,
  WorklogEntry,
} from "./model.js";
import type { CompiledScope } from "./scope.js";
import type { Interpreted } from "./settle.js";

export interface EngineConfig {
  run: string;
  /** at most this many tickets claimed at once; unset = no cap */
  maxParallel?: number;
  /** default automatic retries after a failed attempt (a ticket's own `retries` wins) */
  retries?: number;
  /** lease of a ticket whose bound is not a duration (default 60 minutes) */
  leaseMs?: number;
  /** default bound of a ticket without its own */
  ticketBound?: Bound;
  /** the run bound: dispatch count and/or deadline, spent by dispatches */
  bound?: RunBound;
  /** the commit a GitHub run is pinned to */
  base?: string;
}

/** What remains of the run's bound when an attempt starts: handed down to it. */
export interface RunBoundLeft {
  /** dispatches the run may still make */
  dispatchesLeft?: number;
  /** ISO time after which the run dispatches nothing */
  deadline?: string;
  /** usage the run may still spend, per key (`tokens`, `cost_usd`, …) */
  usage?: Record<string, number>;
}

/** A dispatch the engine has decided on; the caller commits it, then performs it. */
export interface Claim {
  ticket: string;
  attempt: number;
  /** unique token for this dispatch (from the caller's token source) */
  claim: string;
  /** when the claim goes stale unless settled */
  leaseUntil: string;
  /** the ticket's bound (its own, else the run default) */
  bound?: Bound;
  /** what remains of the run bound, handed down to this dispatch */
  runBound: RunBoundLeft;
}

/** What holds an open ticket: the data its remainder line is worded from. */
export type Hold =
  /** behind a closed dependency: the root that started the chain, and the direct one */
  | { kind: "blocked"; root: string; rootStatus: Status; via?: string }
  | { kind: "question"; question: string | undefined }
  /** the dependencies not complete yet, in the author's order */
  | { kind: "waiting"; on: string[] }
  | { kind: "ready" }
  | { kind: "run-cancelled"; by: string }
  | { kind: "bound-spent"; spent: SpentBound }
  | { kind: "running"; attempt: number; by: string | undefined }
  | { kind: "failed"; reason: string | undefined }
  | { kind: "limited" }
  | { kind: "cancelled"; by?: string; reason?: string | undefined };

/** The part of a run's bound that is spent. */
export type SpentBound =
  | { kind: "dispatches"; limit: number; spent: number }
  | { kind: "deadline"; deadline: string }
  | { kind: "usage"; key: string; limit: number; total: number };

/** An attempt's end, as interpreted (settle.ts): its result is the caller's to write, as a file. */
export interface SettleInput extends Omit<Interpreted, "result"> {
  ticket: string;
  attempt: number;
  resultFile?: string;
  resultBytes?: number;
  /** who settled: a job, a user, the sweep */
  by?: string;
  runUrl?: string;
  /** when given, must equal the live claim token, else the settle is stale */
  claim?: string;
  /** what the attempt changed in the repository, when its changes were collected (SPEC §4b) */
  changes?: AttemptChanges;
}

/**
 * Why an event changed nothing: a code and its data, which report/refusals.ts words for
 * people. `not-live`: a settle or interrupt of an attempt that is not the live one (the
 * ticket's `status` and `live` attempt; `claim` when only the token differs). `said`: a
 * refusal an outer layer worded itself.
 */
export type Refusal =
  | { code: "unknown"; ticket: string }
  | {
      code: "not-live";
      event: "settle" | "interrupt";
      ticket: string;
      attempt: number;
      status: Status;
      live: number;
      claim?: string;
    }
  | { code: "not-suspended"; ticket: string; status: Status }
  | { code: "not-retryable"; ticket: string; status: Status; attempt: number; root?: string }
  | { code: "behind"; ticket: string; behind: string; status: Status; root: string }
  | { code: "cancelled"; event: "retry" | "cancel"; by: string; at: string }
  | { code: "finished"; state: RunState }
  | { code: "said"; text: string };

/**
 * What an event did. `stale`: an event for an attempt that is not live, or a
 * repeat: it changed nothing, and says so. `rejected`: the event makes no sense
 * (unknown ticket, answer to a ticket that is not suspended, …), with why.
 */
export type EventResult =
  | { kind: "ok"; changed: string[] }
  | { kind: "stale"; why: Refusal }
  | { kind: "rejected"; why: Refusal };

/** What changed since the last drain: what the shell must write. */
export interface Changes {
  /** tickets whose engine fields changed (rewrite their front matter) */
  tickets: string[];
  /** attempts that ended: write each once, never overwrite */
  attempts: Array<{ ticket: string; record: AttemptRecord }>;
  /** answers recorded: write each once */
  answers: Array<{ ticket: string; record: AnswerRecord }>;
  /** lines to append to the worklog */
  log: WorklogEntry[];
  /** the run record changed (dispatch count, cancel, start) */
  run: boolean;
}

export const RUN_SCHEMA = "ticket-frontier/run@1";

/** Closed and bad: a dependent of such a ticket can never run, so it is blocked. */
export const BAD: ReadonlySet<Status> = new Set(["failed", "limited", "cancelled", "blocked"]);
/** Has not started in this run: a dependent that a retry of its dependency simply waits. */
export const OPEN_WAITING: ReadonlySet<Status> = new Set(["pending", "ready", "blocked"]);
/** Open: still has somewhere to go in this run. */
export const OPEN: ReadonlySet<Status> = new Set(["pending", "ready", "claimed", "suspended"]);

export const KIND_OF: Readonly<Record<string, BlockKind>> = {
  failed: "dep-failed",
  limited: "dep-limited",
  cancelled: "dep-cancelled",
  blocked: "dep-blocked",
};

/** A ticket's own bad ending (not `blocked`, which is its dependency's). */
export const CLOSED_BAD_OWN: ReadonlySet<Status> = new Set(["failed", "limited", "cancelled"]);

/** Latest instant Date#toISOString writes with a four-digit year (9999-12-31T23:59:59.999Z). */
export const ISO_LIMIT = 253_402_300_799_999;
export const isoMinutes = new Map<number, string>();

/**
 * Date#toISOString, with the date and hour formatted once per minute: an event stamps
 * several fields (claimed_at, started_at, ended_at, updated_at, the worklog) and every
 * claim a lease, so at 100k tickets formatting dates was a tenth of the engine's time.
 */
export const iso = (ms: number): string => {
  const t = Math.floor(ms);
  if (!(t >= 0 && t <= ISO_LIMIT)) return new Date(ms).toISOString();
  const minute = Math.floor(t / 60_000);
  let prefix = isoMinutes.get(minute);
  if (prefix === undefined) {
    if (isoMinutes.size >= 64) isoMinutes.clear();
    prefix = new Date(minute * 60_000).toISOString().slice(0, 17);
    isoMinutes.set(minute, prefix);
  }
  const rest = t - minute * 60_000;
  const sec = Math.floor(rest / 1000);
  const milli = rest - sec * 1000;
  return `${prefix}${sec < 10 ? "0" : ""}${sec}.${milli < 100 ? (milli < 10 ? "00" : "0") : ""}${milli}Z`;
};

/**
 * The attempts and answers of a ticket that has none yet: one shared, frozen empty
 * list (100k fresh tickets made 200k empty arrays that lived to the end of the run).
 * The first record replaces it with a list of its own.
 */
export const NONE: never[] = Object.freeze([]) as unknown as never[];
/** The compiled write_scope of a ticket without one. */
export const NO_SCOPE: CompiledScope = Object.freeze([]) as unknown as CompiledScope;

/** Append to a ticket's attempts or answers, which may still be the shared NONE. */
export function appended<T>(list: T[], item: T): T[] {
  if (list.length === 0) return [item];
  list.push(item);
  return list;
}

export const zeroCounts = () =>
  Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;

/** What an ending adds to the live attempt's record, in the record's order. */
export const END_FIELDS = [
  "reason",
  "question",
  "result_file",
  "result_bytes",
  "usage",
  "settled_by",
  "run_url",
  "changes",
] as const;
export type EndFields = Partial<Pick<AttemptRecord, (typeof END_FIELDS)[number]>>;

/**
 * Ticket indices, each once, in the order first added: a list and a mark per ticket, not
 * a Set (no new Set per event). `clear` starts a new epoch of marks and reuses the list.
 */
export class IndexList {
  readonly items: number[] = [];
  size = 0;
  private readonly mark: Uint32Array;
  private epoch = 1;

  constructor(n: number) {
    this.mark = new Uint32Array(n);
  }

  add(i: number): void {
    if (this.mark[i] === this.epoch) return;
    this.mark[i] = this.epoch;
    this.items[this.size++] = i;
  }

  clear(): void {
    if (this.size === 0) return;
    // only the count goes back (setting .length is a runtime call)
    this.size = 0;
    if (++this.epoch > 0xffff_fff0) {
      this.mark.fill(0);
      this.epoch = 1;
    }
  }
}

/** Add an attempt's `usage` to `total`, per key (a value that is not a finite number counts nothing). */
export function addUsage(total: Usage, usage: Usage): void {
  for (const [key, value] of Object.entries(usage)) {
    if (Number.isFinite(value)) total[key] = (total[key] ?? 0) + value;
  }
}

/** Every attempt's `usage` of `tickets` added up by key. */
export function usageTotal(tickets: Iterable<{ attempts: readonly { usage?: Usage }[] }>): Usage {
  const total: Usage = {};
  for (const t of tickets) for (const a of t.attempts) if (a.usage) addUsage(total, a.usage);
  return total;
}

export function setDefined<T, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

export function cloneAttempt(a: AttemptRecord): AttemptRecord {
  const out = a.usage ? { ...a, usage: { ...a.usage } } : { ...a };
  if (a.changes) out.changes = { ...a.changes, paths: a.changes.paths.map((p) => ({ ...p })) };
  return out;
}

/** A copy for the outside: only the fields that are set. */
export function cloneState(s: TicketState): TicketState {
  const out: TicketState = {
    status: s.status,
    attempt: s.attempt,
    attempts: s.attempts.map(cloneAttempt),
    answers: s.answers.map((a) => ({ ...a })),
  };
  if (s.claimed_by !== undefined) out.claimed_by = s.claimed_by;
  if (s.claimed_at !== undefined) out.claimed_at = s.claimed_at;
  if (s.claim !== undefined) out.claim = s.claim;
  if (s.blocked_by !== undefined) out.blocked_by = { ...s.blocked_by };
  if (s.reason !== undefined) out.reason = s.reason;
  if (s.updated_at !== undefined) out.updated_at = s.updated_at;
  return out;
}

/**
 * The engine's own copy of a ticket's state: every field present, unset ones
 * undefined, always in this order. V8 then keeps all states on one hidden class;
 * `delete` would turn each ticket it touches into a slow dictionary object (at 100k
 * tickets: a quarter of the engine's time, 35 MB). Fields are cleared by assigning
 * undefined, and cloneState hands out only the set ones.
 */
export function ownState(s: TicketState): TicketState {
  return {
    status: s.status,
    attempt: s.attempt,
    claimed_by: s.claimed_by,
    claimed_at: s.claimed_at,
    claim: s.claim,
    blocked_by: s.blocked_by ? { ...s.blocked_by } : undefined,
    reason: s.reason,
    updated_at: s.updated_at,
    attempts: s.attempts.length === 0 ? NONE : s.attempts.map(cloneAttempt),
    answers: s.answers.length === 0 ? NONE : s.answers.map((a) => ({ ...a })),
  };
}

export function sameBlocker(a: BlockedBy | undefined, b: BlockedBy): boolean {
  return a !== undefined && a.ticket === b.ticket && a.kind === b.kind && a.root === b.root;
}

/** A suspended attempt's question: its own, else its reason, else this placeholder. */
export const questionOf = (a: { question?: string; reason?: string }): string =>
  a.question ?? a.reason ?? "(no question given)";
