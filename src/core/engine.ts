/**
 * The frontier engine: a pure state machine the caller drives.
 * No I/O, no timers, no promises; the clock and the claim-token source are passed in,
 * so every race replays in a test where no time passes.
 *
 * THIS FILE IS THE CONTRACT other modules code against. The implementation is being
 * written now; signatures here must not change without telling everyone.
 */
import type {
  AnswerRecord,
  AttemptRecord,
  BlockerGroup,
  Bound,
  Outcome,
  RemainderEntry,
  RunBound,
  RunRecord,
  RunState,
  SavedState,
  Status,
  TicketSpec,
  TicketState,
  Usage,
  WorklogEntry,
} from "./model.js";

export interface EngineConfig {
  /** the run's name */
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

/** A dispatch the engine has decided on; the caller commits it, then performs it. */
export interface Claim {
  ticket: string;
  attempt: number;
  /** unique token for this dispatch (from the caller's token source) */
  claim: string;
  claimedBy: string;
  claimedAt: string;
  /** when the claim goes stale unless settled */
  leaseUntil: string;
  /** the ticket's bound (its own, else the run default) */
  bound?: Bound;
  /** what remains of the run bound, handed down to this dispatch */
  runBound: { dispatchesLeft?: number; deadline?: string };
}

export interface SettleInput {
  ticket: string;
  attempt: number;
  outcome: Outcome;
  reason?: string;
  question?: string;
  resultFile?: string;
  resultBytes?: number;
  usage?: Usage;
  /** who settled: a job, a user, the sweep */
  by?: string;
  runUrl?: string;
  /** when given, must equal the live claim token, else the settle is stale */
  claim?: string;
}

/**
 * What an event did. `stale`: an event for an attempt that is not live, or a
 * repeat: it changed nothing, and says so. `rejected`: the event makes no sense
 * (unknown ticket, answer to a ticket that is not suspended, …), with a message a
 * person can act on.
 */
export type EventResult =
  | { kind: "ok"; changed: string[] }
  | { kind: "stale"; message: string }
  | { kind: "rejected"; message: string };

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

export declare class Frontier {
  /**
   * Build from checked specs (the graph is known to be acyclic with known deps) and
   * optionally a saved state. Normalises in O(N+E): promotes pending tickets whose
   * dependencies are all satisfied, blocks those behind a closed failure, and
   * records the run start when there was no run record.
   */
  static create(
    specs: readonly TicketSpec[],
    config: EngineConfig,
    saved?: SavedState,
    now?: number,
  ): Frontier;

  /** Claim every ticket that may run now, in dispatch order, within every cap. */
  claimReady(now: number, claimedBy: string, token: (ticket: string, attempt: number) => string): Claim[];
  settle(input: SettleInput, now: number): EventResult;
  answer(ticket: string, text: string, by: string, now: number): EventResult;
  retry(ticket: string, by: string, now: number): EventResult;
  /** Reclaim claims whose lease ran out, or whose holder `isDead` says is gone. */
  expire(now: number, isDead?: (ticket: string, claimedBy: string) => boolean): EventResult;
  /** Ctrl-C: the live attempt ends `interrupted`; the ticket is re-readied, retries untouched. */
  interrupt(ticket: string, attempt: number, now: number): EventResult;
  cancel(by: string, now: number): EventResult;

  spec(id: string): TicketSpec | undefined;
  state(id: string): Readonly<TicketState> | undefined;
  /** specs in file order */
  specs(): readonly TicketSpec[];
  /** ready tickets in dispatch order (priority, remaining critical path, file order) */
  readyIds(): string[];
  /** tickets currently claimed */
  claimedIds(): string[];
  runState(now: number): RunState;
  counts(): Record<Status, number>;
  waves(): string[][];
  criticalPath(): string[];
  remainder(now: number): RemainderEntry[];
  blockerGroups(): BlockerGroup[];
  runRecord(): RunRecord;
  snapshot(): SavedState;
  drainChanges(): Changes;
}
