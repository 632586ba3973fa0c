/**
 * The frontier engine: a pure state machine the caller drives.
 * No I/O, no timers, no promises; the clock and the claim-token source are passed in,
 * so every race replays in a test where no time passes.
 *
 * THIS FILE IS THE CONTRACT other modules code against: the signatures of the exported
 * types and of `Frontier` must not change without telling everyone (methods may be added).
 */

import { SATISFIED, STATUSES } from "./constants.js";
import type { RunBoundLeft } from "./executor.js";
import {
  buildGraph,
  criticalPathOf,
  dependentsOf,
  type Graph,
  IndexHeap,
  wavesOf,
} from "./graph.js";
import type {
  AnswerRecord,
  AttemptChanges,
  AttemptOutcome,
  AttemptRecord,
  BlockedBy,
  BlockerGroup,
  BlockKind,
  Bound,
  Outcome,
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
import { type CompiledScope, compileScope, scopesOverlap } from "./scope.js";

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
  runBound: RunBoundLeft;
}

/** What holds an open ticket: the data its remainder line is worded from. */
export type Hold =
  /** behind a closed dependency: the root that started the chain, and the direct one */
  | { kind: "blocked"; root?: string; rootStatus?: Status; via?: string }
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
  /** what the attempt changed in the repository, when its changes were collected (SPEC §4b) */
  changes?: AttemptChanges;
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

const HOUR_MS = 60 * 60 * 1000;
const RUN_SCHEMA = "ticket-frontier/run@1";

/** Closed and bad: a dependent of such a ticket can never run, so it is blocked. */
const BAD: ReadonlySet<Status> = new Set(["failed", "limited", "cancelled", "blocked"]);
/** Has not started in this run: a dependent that a retry of its dependency simply waits. */
const OPEN_WAITING: ReadonlySet<Status> = new Set(["pending", "ready", "blocked"]);
/** Open: still has somewhere to go in this run. */
const OPEN: ReadonlySet<Status> = new Set(["pending", "ready", "claimed", "suspended"]);

const KIND_OF: Readonly<Record<string, BlockKind>> = {
  failed: "dep-failed",
  limited: "dep-limited",
  cancelled: "dep-cancelled",
  blocked: "dep-blocked",
};

/** A ticket's own bad ending (not `blocked`, which is its dependency's). */
const CLOSED_BAD_OWN: ReadonlySet<Status> = new Set(["failed", "limited", "cancelled"]);

/** Latest instant Date#toISOString writes with a four-digit year (9999-12-31T23:59:59.999Z). */
const ISO_LIMIT = 253_402_300_799_999;
const isoMinutes = new Map<number, string>();

/**
 * Date#toISOString, with the date and hour formatted once per minute: an event stamps
 * several fields (claimed_at, started_at, ended_at, updated_at, the worklog) and every
 * claim a lease, so at 100k tickets formatting dates was a tenth of the engine's time.
 */
const iso = (ms: number): string => {
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
const NONE: never[] = Object.freeze([]) as unknown as never[];
/** The compiled write_scope of a ticket without one. */
const NO_SCOPE: CompiledScope = Object.freeze([]) as unknown as CompiledScope;

/** Append to a ticket's attempts or answers, which may still be the shared NONE. */
function appended<T>(list: T[], item: T): T[] {
  if (list.length === 0) return [item];
  list.push(item);
  return list;
}

function zeroCounts(): Record<Status, number> {
  const c = {} as Record<Status, number>;
  for (const s of STATUSES) c[s] = 0;
  return c;
}

/** What an ending adds to the live attempt's record. */
type EndFields = Partial<
  Pick<
    AttemptRecord,
    | "reason"
    | "question"
    | "result_file"
    | "result_bytes"
    | "usage"
    | "settled_by"
    | "run_url"
    | "changes"
  >
>;

function cloneAttempt(a: AttemptRecord): AttemptRecord {
  const out = a.usage ? { ...a, usage: { ...a.usage } } : { ...a };
  if (a.changes) out.changes = { ...a.changes, paths: a.changes.paths.map((p) => ({ ...p })) };
  return out;
}

/** A copy for the outside: only the fields that are set. */
function cloneState(s: TicketState): TicketState {
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
function ownState(s: TicketState): TicketState {
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

function sameBlocker(a: BlockedBy | undefined, b: BlockedBy): boolean {
  return a !== undefined && a.ticket === b.ticket && a.kind === b.kind && a.root === b.root;
}

/**
 * The frontier engine.
 *
 * Bookkeeping that keeps every event proportional to the tickets it touches:
 * reverse edges and a topological order (graph.ts), an unmet-dependency counter per
 * ticket, per-status counts, the set of claimed tickets (with their agents), and a
 * heap of ready tickets in dispatch order. Nothing in an event rescans the graph;
 * only the report queries (remainder, waves, snapshot, blockerGroups) and `cancel`
 * (which touches every open ticket) are O(N).
 *
 * Decisions beyond SPEC.md, kept here so the code and its reasons stay together:
 * - A stale or repeated event changes nothing at all, not even the worklog: the
 *   caller gets `{kind: "stale", message}` and may log it. So a redelivered event
 *   leaves nothing to commit.
 * - `claimed_by`, `claimed_at` and `claim` describe the live claim only: they are
 *   cleared when the attempt ends (the attempt record keeps who ran it).
 * - The automatic-retry budget counts failed attempts since the last manual retry.
 *   It is not stored: on `create` it is recomputed from the attempts — an attempt
 *   that follows one which closed the ticket (failed past the budget, limited,
 *   cancelled) can only exist because of a manual retry, so the count restarts there.
 * - A ticket's weight for the critical path and its lease come from its effective
 *   bound (its own, else `config.ticketBound`): weight = timeoutMs ?? leaseMs, lease =
 *   leaseMs; without any bound both are `config.leaseMs` ?? 60 minutes.
 * - `expire` asks `isDead` before looking at the lease: a claim whose holder is gone
 *   is `interrupted` (not counted against retries) even if its lease also ran out.
 * - `create` without `now` stamps nothing: no `updated_at`, no `started_at`, and no
 *   worklog lines (read-only uses such as `plan` and `status` have no clock).
 * - A saved state for a run record keeps its `base` (a run stays pinned); `config.base`
 *   fills it only when missing. The saved run name is kept.
 * - A retried ticket whose blocked dependents are re-evaluated keeps a dependent's
 *   direct blocker when that one is still closed-bad; else the first closed-bad
 *   dependency in `depends_on` order becomes the blocker.
 * - `remainder` words for a blocked ticket: "<root> <root status>" ("a failed",
 *   "a limited", "a cancelled"), plus " (via <direct>)" when the direct blocker differs.
 * - After an automatic retry the ticket is `ready` and keeps the failed attempt's
 *   `reason` for display until it is claimed again; a blocked ticket carries no reason
 *   of its own (its `blocked_by` says it all).
 * - A suspended settle without a question records the reason as the question, else
 *   "(no question given)": an answer always has something to answer.
 * - Every dispatch spends the run bound, including one later interrupted or reclaimed.
 * - `retry` of a ticket that itself sits behind a closed dependency (only possible in a
 *   hand-edited state) is rejected, naming the root to retry first.
 * - `claimedIds()` lists in file order; `readyIds()` in dispatch order.
 */
export class Frontier {
  private readonly specList: readonly TicketSpec[];
  private readonly graph: Graph;
  private readonly config: EngineConfig;
  private readonly states: TicketState[];
  private readonly unmet: Int32Array;
  /** failed attempts since the last manual retry: what `retries` is measured against */
  private readonly failures: Int32Array;
  private readonly leaseUntil: Float64Array;
  /** each ticket's write_scope, compiled when first asked for (read-only commands never ask) */
  private readonly scopes: Array<CompiledScope | undefined>;
  private readonly claimed = new Set<number>();
  private readonly agents = new Map<string, number>();
  private readonly heap: IndexHeap;
  /** in the heap already (entries of tickets no longer ready are skipped when popped) */
  private readonly queued: Uint8Array;
  /** each ticket's priority (dispatch order's first key) */
  private readonly priority: Float64Array;
  private readonly statusCounts = zeroCounts();
  private run: RunRecord;
  private deadlineMs: number | undefined;
  /** the usage every attempt reported, summed per key: what a usage bound is spent by */
  private readonly usage: Record<string, number> = {};
  private waveCache: string[][] | undefined;
  private pathCache: string[] | undefined;

  // what changed since the last drain: tickets in first-touched order, each once
  // (a list and a mark per ticket, not a Set: no new Set per event)
  private changedTickets: number[] = [];
  private readonly changedMark: Uint32Array;
  private changedEpoch = 1;
  private changedAttempts: Changes["attempts"] = [];
  private changedAnswers: Changes["answers"] = [];
  private changedLog: WorklogEntry[] = [];
  private runChanged = false;

  // the event being applied, and the tickets it changed (list + marks, as above)
  private at: string | undefined;
  private readonly eventChanged: number[] = [];
  private eventCount = 0;
  private readonly eventMark: Uint32Array;
  private eventEpoch = 1;

  private constructor(
    specs: readonly TicketSpec[],
    config: EngineConfig,
    saved: SavedState | undefined,
    now: number | undefined,
  ) {
    this.specList = specs;
    this.config = config;
    this.graph = buildGraph(specs, (i) => this.weightOf(specs[i]!));
    const n = specs.length;
    this.unmet = new Int32Array(n);
    this.failures = new Int32Array(n);
    this.leaseUntil = new Float64Array(n).fill(Number.NaN);
    this.queued = new Uint8Array(n);
    this.priority = new Float64Array(n);
    for (let i = 0; i < n; i++) this.priority[i] = specs[i]!.priority;
    this.changedMark = new Uint32Array(n);
    this.eventMark = new Uint32Array(n);
    this.scopes = new Array(n);
    this.heap = new IndexHeap((a, b) => this.dispatchBefore(a, b));
    this.at = now === undefined ? undefined : iso(now);
    this.run = this.loadRun(saved?.run, now);
    this.states = specs.map((s, i) => this.loadState(i, saved?.tickets[s.id]));
    this.normalise(saved !== undefined);
    this.newEvent();
  }

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
  ): Frontier {
    // the loader hands specs over in file order already: sort only when they are not
    let sorted = true;
    for (let i = 1; i < specs.length && sorted; i++)
      sorted = specs[i - 1]!.order <= specs[i]!.order;
    const ordered = sorted ? specs : [...specs].sort((a, b) => a.order - b.order);
    return new Frontier(ordered, config, saved, now);
  }

  /* ---------------------------------------------------------------------- */
  /* building                                                               */
  /* ---------------------------------------------------------------------- */

  private effectiveBound(spec: TicketSpec): Bound | undefined {
    return spec.bound ?? this.config.ticketBound;
  }

  private weightOf(spec: TicketSpec): number {
    const b = this.effectiveBound(spec);
    return b?.timeoutMs ?? b?.leaseMs ?? this.config.leaseMs ?? HOUR_MS;
  }

  private leaseOf(i: number): number {
    return this.effectiveBound(this.specList[i]!)?.leaseMs ?? this.config.leaseMs ?? HOUR_MS;
  }

  private retriesOf(i: number): number {
    return this.specList[i]!.retries ?? this.config.retries ?? 0;
  }

  private loadRun(saved: RunRecord | undefined, now: number | undefined): RunRecord {
    let run: RunRecord;
    if (saved) {
      run = { ...saved };
      if (saved.bound) run.bound = { ...saved.bound };
      if (saved.cancelled) run.cancelled = { ...saved.cancelled };
      if (run.base === undefined && this.config.base !== undefined) {
        run.base = this.config.base;
        this.runChanged = true;
      }
    } else {
      run = { schema: RUN_SCHEMA, run: this.config.run, dispatched: 0 };
      if (this.config.base !== undefined) run.base = this.config.base;
      if (now !== undefined) run.started_at = iso(now);
      this.runChanged = true;
      this.log({ event: "start", detail: `run ${this.config.run}` });
    }
    // the flags of this invocation win over the saved bound
    const flags = this.config.bound;
    if (
      flags &&
      (flags.dispatches !== undefined || flags.deadline !== undefined || flags.usage !== undefined)
    ) {
      const merged: RunBound = { ...run.bound };
      if (flags.dispatches !== undefined) merged.dispatches = flags.dispatches;
      if (flags.deadline !== undefined) merged.deadline = flags.deadline;
      if (flags.usage !== undefined) merged.usage = { ...flags.usage };
      if (
        merged.dispatches !== run.bound?.dispatches ||
        merged.deadline !== run.bound?.deadline ||
        JSON.stringify(merged.usage) !== JSON.stringify(run.bound?.usage)
      ) {
        this.runChanged = true;
      }
      run.bound = merged;
    }
    const deadline = run.bound?.deadline;
    this.deadlineMs = deadline === undefined ? undefined : Date.parse(deadline);
    return run;
  }

  private loadState(i: number, saved: TicketState | undefined): TicketState {
    if (!saved) {
      this.markChanged(i);
      return ownState({ status: "pending", attempt: 0, attempts: NONE, answers: NONE });
    }
    const s = ownState(saved);
    s.attempts.sort((a, b) => a.n - b.n);
    s.answers.sort((a, b) => a.n - b.n);
    const lastN = s.attempts.at(-1)?.n ?? 0;
    if (s.attempt < lastN) s.attempt = lastN;
    if (s.status === "claimed" && !s.attempts.some((a) => a.n === s.attempt)) {
      // the live attempt lives in the front matter only: rebuild its record from there
      const live: AttemptRecord = {
        n: Math.max(1, s.attempt),
        claim: s.claim ?? "",
        claimed_by: s.claimed_by ?? "",
        started_at: s.claimed_at ?? "",
      };
      s.attempt = live.n;
      s.attempts = appended(s.attempts, live);
    }
    return s;
  }

  /** Recount everything from the loaded states, then bring them in line with the graph. */
  private normalise(hadSaved: boolean): void {
    const n = this.specList.length;
    const { depStart, depList, topo } = this.graph;

    // a crash between writing the attempt file and the front matter: the live
    // attempt already has its outcome; apply it now (its record is written already)
    for (let i = 0; i < n; i++) {
      const s = this.states[i]!;
      const live = s.attempts.at(-1);
      if (s.status === "claimed" && live?.outcome !== undefined && live.n === s.attempt) {
        this.recoverOutcome(i, live);
      }
    }

    for (let i = 0; i < n; i++) {
      const s = this.states[i]!;
      for (const a of s.attempts) if (a.usage !== undefined) this.addUsage(a.usage);
      this.statusCounts[s.status]++;
      this.failures[i] = this.failuresSinceRetry(i, !CLOSED_BAD_OWN.has(s.status));
      let unmet = 0;
      for (let k = depStart[i]!; k < depStart[i + 1]!; k++) {
        if (!SATISFIED.has(this.states[depList[k]!]!.status)) unmet++;
      }
      this.unmet[i] = unmet;
      if (s.status === "claimed") this.holdClaim(i, this.claimStart(s));
    }

    for (let p = 0; p < n; p++) {
      const i = topo[p]!;
      const s = this.states[i]!;
      if (s.status !== "pending" && s.status !== "ready" && s.status !== "blocked") continue;
      const blocker = this.blockerFor(i);
      if (blocker) {
        if (!sameBlocker(s.blocked_by, blocker)) {
          s.blocked_by = blocker;
          s.reason = undefined;
          this.setStatus(i, "blocked");
          this.log({ event: "block", ticket: this.id(i), detail: this.blockDetail(blocker) });
        }
        continue;
      }
      const wanted: Status = this.unmet[i] === 0 ? "ready" : "pending";
      if (s.status === "blocked") {
        s.blocked_by = undefined;
        this.setStatus(i, wanted);
        this.log({ event: "unblock", ticket: this.id(i) });
      } else if (s.status !== wanted) {
        this.setStatus(i, wanted);
        if (wanted === "ready" && hadSaved) this.log({ event: "promote", ticket: this.id(i) });
      }
      if (wanted === "ready") this.enqueue(i);
    }
  }

  private claimStart(s: TicketState): number {
    const t = Date.parse(s.claimed_at ?? s.attempts.at(-1)?.started_at ?? "");
    // no readable claim time: let the next `expire` reclaim it
    return Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t;
  }

  /**
   * Failed attempts since the last manual retry, read back from the attempts: an
   * attempt after one that closed the ticket can only follow a manual retry. When the
   * last attempt closed the ticket but the ticket is open again (`reopened`), the
   * manual retry is the latest event and nothing counts yet.
   */
  private failuresSinceRetry(i: number, reopened: boolean): number {
    const retries = this.retriesOf(i);
    let count = 0;
    let closed = false;
    for (const a of this.states[i]!.attempts) {
      if (closed) {
        count = 0;
        closed = false;
      }
      if (a.outcome === "failed") {
        count++;
        if (count > retries) closed = true;
      } else if (a.outcome === "limited" || a.outcome === "cancelled") {
        closed = true;
      }
    }
    return closed && reopened ? 0 : count;
  }

  private recoverOutcome(i: number, live: AttemptRecord): void {
    const s = this.states[i]!;
    this.dropClaimFields(s);
    const outcome = live.outcome!;
    switch (outcome) {
      case "complete":
      case "empty":
        s.status = outcome;
        s.reason = undefined;
        break;
      case "failed": {
        // failuresSinceRetry counts this attempt too
        const count = this.failuresSinceRetry(i, false);
        s.status = count <= this.retriesOf(i) ? "ready" : "failed";
        if (live.reason !== undefined) s.reason = live.reason;
        break;
      }
      case "limited":
        s.status = "limited";
        if (live.reason !== undefined) s.reason = live.reason;
        break;
      case "suspended":
        s.status = "suspended";
        s.reason = live.question ?? live.reason ?? "(no question given)";
        break;
      case "cancelled":
        s.status = "cancelled";
        if (live.reason !== undefined) s.reason = live.reason;
        break;
      case "interrupted":
        s.status = "ready";
        break;
      default:
        assertNever(outcome);
    }
    this.touch(i);
    // the state changed when the attempt ended, not when it was read back: exactly the
    // state its settle gave (a local run leaves the file of a ticket whose failed attempt
    // will be retried as it was until the retry's claim, and `frontier status` meanwhile
    // shows what the file will say)
    if (live.ended_at !== undefined) s.updated_at = live.ended_at;
    this.log({
      event: "settle",
      ticket: this.id(i),
      attempt: live.n,
      outcome,
      detail: "recovered from the attempt record",
    });
  }

  /* ---------------------------------------------------------------------- */
  /* small helpers                                                          */
  /* ---------------------------------------------------------------------- */

  private id(i: number): string {
    return this.specList[i]!.id;
  }

  /**
   * Priority, then remaining critical path, then file order. The specs are sorted by
   * `order` (create sorts them), so file order is index order; priorities are copied
   * into a typed array once, so the heap compares numbers, not spec objects.
   */
  private dispatchBefore(a: number, b: number): boolean {
    const pa = this.priority[a]!;
    const pb = this.priority[b]!;
    if (pa !== pb) return pa > pb;
    const ra = this.graph.remaining[a]!;
    const rb = this.graph.remaining[b]!;
    if (ra !== rb) return ra > rb;
    return a < b;
  }

  private markChanged(i: number): void {
    if (this.changedMark[i] === this.changedEpoch) return;
    this.changedMark[i] = this.changedEpoch;
    this.changedTickets.push(i);
  }

  private touch(i: number): void {
    this.markChanged(i);
    if (this.eventMark[i] !== this.eventEpoch) {
      this.eventMark[i] = this.eventEpoch;
      this.eventChanged[this.eventCount++] = i;
    }
    if (this.at !== undefined) this.states[i]!.updated_at = this.at;
  }

  private setStatus(i: number, status: Status): void {
    const s = this.states[i]!;
    if (s.status !== status) {
      this.statusCounts[s.status]--;
      this.statusCounts[status]++;
      s.status = status;
    }
    this.touch(i);
  }

  /** Append a worklog line; returns it so a detail learnt later can be added. */
  private log(entry: Omit<WorklogEntry, "at">): WorklogEntry | undefined {
    if (this.at === undefined) return undefined;
    const line: WorklogEntry = { at: this.at, ...entry };
    this.changedLog.push(line);
    return line;
  }

  /** A "promote" or "block" line: built whole, the hot paths' lines (no spread). */
  private logTicket(event: "promote" | "block", i: number, detail?: string): void {
    if (this.at === undefined) return;
    this.changedLog.push(
      detail === undefined
        ? { at: this.at, event, ticket: this.id(i) }
        : { at: this.at, event, ticket: this.id(i), detail },
    );
  }

  private enqueue(i: number): void {
    if (this.queued[i]) return;
    this.queued[i] = 1;
    this.heap.push(i);
  }

  private begin(now: number): void {
    this.at = iso(now);
    this.newEvent();
  }

  /** Forget which tickets the event changed (a new epoch of marks; no allocation). */
  private newEvent(): void {
    if (this.eventCount === 0) return;
    // the list is reused: only the count goes back (setting .length is a runtime call)
    this.eventCount = 0;
    if (++this.eventEpoch > 0xffff_fff0) {
      this.eventMark.fill(0);
      this.eventEpoch = 1;
    }
  }

  private done(): EventResult {
    const list = this.eventChanged;
    const changed = new Array<string>(this.eventCount);
    for (let k = 0; k < this.eventCount; k++) changed[k] = this.id(list[k]!);
    this.newEvent();
    return { kind: "ok", changed };
  }

  private boundSpent(now: number): boolean {
    return this.spentBound(now) !== undefined;
  }

  private addUsage(usage: Usage): void {
    for (const [key, value] of Object.entries(usage)) {
      if (Number.isFinite(value)) this.usage[key] = (this.usage[key] ?? 0) + value;
    }
  }

  private lookup(ticket: string): number | undefined {
    return this.graph.index.get(ticket);
  }

  private unknown(ticket: string): EventResult {
    return {
      kind: "rejected",
      message: `unknown ticket "${ticket}": no ticket in this run has that id (frontier status lists them)`,
    };
  }

  /** Why an event for (attempt, claim) is not for the live attempt; undefined when it is. */
  private staleness(i: number, attempt: number, claim: string | undefined): string | undefined {
    const s = this.states[i]!;
    const id = this.id(i);
    if (s.status !== "claimed") return `${id} is ${s.status} (attempt ${s.attempt})`;
    if (attempt !== s.attempt) return `${id} is running attempt ${s.attempt}`;
    if (claim !== undefined && claim !== s.claim) {
      return `claim ${claim} is not the live claim of ${id} attempt ${s.attempt}`;
    }
    return undefined;
  }

  private holdClaim(i: number, claimedAtMs: number): void {
    this.claimed.add(i);
    this.leaseUntil[i] = claimedAtMs + this.leaseOf(i);
    const agent = this.specList[i]!.agent;
    if (agent !== undefined) this.agents.set(agent, (this.agents.get(agent) ?? 0) + 1);
  }

  private dropClaimFields(s: TicketState): void {
    s.claimed_by = undefined;
    s.claimed_at = undefined;
    s.claim = undefined;
  }

  private releaseClaim(i: number): void {
    if (this.claimed.delete(i)) {
      const agent = this.specList[i]!.agent;
      if (agent !== undefined) {
        const left = (this.agents.get(agent) ?? 1) - 1;
        if (left > 0) this.agents.set(agent, left);
        else this.agents.delete(agent);
      }
    }
    this.leaseUntil[i] = Number.NaN;
    this.dropClaimFields(this.states[i]!);
  }

  /** End the live attempt with an outcome; the record is emitted once for writing. */
  private endLive(i: number, outcome: AttemptOutcome, fields: EndFields = {}): AttemptRecord {
    const s = this.states[i]!;
    const at = s.attempts.length - 1;
    // the live record is the engine's own (claim and create made it): it is ended in
    // place, field by field, in this order (keys come out as a copy's would; a copy per
    // settle was the engine's most expensive line at 100k tickets)
    const record = s.attempts[at]!;
    if (fields.reason !== undefined) record.reason = fields.reason;
    if (fields.question !== undefined) record.question = fields.question;
    if (fields.result_file !== undefined) record.result_file = fields.result_file;
    if (fields.result_bytes !== undefined) record.result_bytes = fields.result_bytes;
    if (fields.usage !== undefined) {
      record.usage = fields.usage;
      this.addUsage(fields.usage);
    }
    if (fields.settled_by !== undefined) record.settled_by = fields.settled_by;
    if (fields.run_url !== undefined) record.run_url = fields.run_url;
    if (fields.changes !== undefined) record.changes = fields.changes;
    record.outcome = outcome;
    record.ended_at = this.at!;
    this.changedAttempts.push({ ticket: this.id(i), record: cloneAttempt(record) });
    this.releaseClaim(i);
    return record;
  }

  /** The closed-bad dependency that keeps ticket i from ever running, if any. */
  private blockerFor(i: number): BlockedBy | undefined {
    const s = this.states[i]!;
    const { depStart, depList, index } = this.graph;
    const from = depStart[i]!;
    const to = depStart[i + 1]!;
    const current = s.blocked_by ? index.get(s.blocked_by.ticket) : undefined;
    if (current !== undefined && BAD.has(this.states[current]!.status)) {
      for (let k = from; k < to; k++) if (depList[k] === current) return this.blockedByVia(current);
    }
    for (let k = from; k < to; k++) {
      const d = depList[k]!;
      if (BAD.has(this.states[d]!.status)) return this.blockedByVia(d);
    }
    return undefined;
  }

  private blockedByVia(dep: number): BlockedBy {
    const ds = this.states[dep]!;
    const root = ds.status === "blocked" ? (ds.blocked_by?.root ?? this.id(dep)) : this.id(dep);
    return { ticket: this.id(dep), kind: KIND_OF[ds.status] ?? "dep-blocked", root };
  }

  private blockDetail(b: BlockedBy): string {
    return `${b.kind} ${b.ticket}, root ${b.root}`;
  }

  /* ---------------------------------------------------------------------- */
  /* transitions                                                            */
  /* ---------------------------------------------------------------------- */

  /** i became complete or empty: each dependent has one fewer unmet dependency. */
  private satisfyDependents(i: number): void {
    const { dependentStart, dependentList } = this.graph;
    for (let k = dependentStart[i]!; k < dependentStart[i + 1]!; k++) {
      const d = dependentList[k]!;
      this.unmet[d]!--;
      if (this.unmet[d] === 0 && this.states[d]!.status === "pending") {
        this.setStatus(d, "ready");
        this.enqueue(d);
        this.logTicket("promote", d);
      }
    }
  }

  /**
   * i closed badly (failed, limited, cancelled): every ticket that depends on it,
   * directly or not, is closed at once as blocked. A ticket already blocked keeps its
   * first blocker, and what is behind it is blocked already.
   */
  private cascade(from: number): void {
    const { dependentStart, dependentList } = this.graph;
    const queue = [from];
    for (let head = 0; head < queue.length; head++) {
      const p = queue[head]!;
      const by = this.blockedByVia(p);
      for (let k = dependentStart[p]!; k < dependentStart[p + 1]!; k++) {
        const d = dependentList[k]!;
        const s = this.states[d]!;
        if (s.status !== "pending" && s.status !== "ready") continue;
        s.blocked_by = { ...by };
        s.reason = undefined;
        this.setStatus(d, "blocked");
        this.logTicket("block", d, this.blockDetail(by));
        queue.push(d);
      }
    }
  }

  /** A failed attempt: retry automatically within the budget, else fail and cascade. */
  private failAttempt(i: number, reason: string | undefined): string {
    const s = this.states[i]!;
    this.failures[i]!++;
    if (reason !== undefined) s.reason = reason;
    else s.reason = undefined;
    const retries = this.retriesOf(i);
    if (this.failures[i]! <= retries) {
      // the reason stays for display until the next claim
      this.reopen(i);
      return `automatic retry ${this.failures[i]} of ${retries}`;
    }
    this.setStatus(i, "failed");
    this.cascade(i);
    return retries > 0
      ? `failed after ${retries} automatic ${retries === 1 ? "retry" : "retries"}`
      : "failed";
  }

  /** Back to ready (or pending, if somehow a dependency is not satisfied). */
  private reopen(i: number): void {
    if (this.unmet[i] === 0) {
      this.setStatus(i, "ready");
      this.enqueue(i);
    } else {
      this.setStatus(i, "pending");
    }
  }

  /* ---------------------------------------------------------------------- */
  /* events                                                                 */
  /* ---------------------------------------------------------------------- */

  /** Claim every ticket that may run now, in dispatch order, within every cap. */
  claimReady(
    now: number,
    claimedBy: string,
    token: (ticket: string, attempt: number) => string,
  ): Claim[] {
    const claims: Claim[] = [];
    if (this.run.cancelled || this.boundSpent(now)) return claims;
    const max = this.config.maxParallel;
    if (max !== undefined && this.claimed.size >= max) return claims;
    this.begin(now);
    const heldBack: number[] = [];
    while (this.heap.size > 0) {
      if (max !== undefined && this.claimed.size >= max) break;
      if (this.boundSpent(now)) break;
      const i = this.heap.pop()!;
      this.queued[i] = 0;
      if (this.states[i]!.status !== "ready") continue;
      if (this.heldBack(i)) {
        heldBack.push(i);
        continue;
      }
      claims.push(this.claim(i, now, claimedBy, token));
    }
    for (const i of heldBack) this.enqueue(i);
    this.newEvent();
    return claims;
  }

  private scopeOf(i: number): CompiledScope {
    let scope = this.scopes[i];
    if (scope === undefined) {
      const raw = this.specList[i]!.writeScope;
      scope = raw.length === 0 ? NO_SCOPE : compileScope(raw);
      this.scopes[i] = scope;
    }
    return scope;
  }

  /** A live ticket with the same agent or an overlapping write_scope holds i back. */
  private heldBack(i: number): boolean {
    const agent = this.specList[i]!.agent;
    if (agent !== undefined && this.agents.has(agent)) return true;
    const scope = this.scopeOf(i);
    if (scope.length === 0) return false;
    for (const c of this.claimed) {
      const other = this.scopeOf(c);
      if (other.length > 0 && scopesOverlap(scope, other)) return true;
    }
    return false;
  }

  private claim(
    i: number,
    now: number,
    claimedBy: string,
    token: (ticket: string, attempt: number) => string,
  ): Claim {
    const s = this.states[i]!;
    const id = this.id(i);
    const attempt = s.attempt + 1;
    const claim = token(id, attempt);
    const claimedAt = iso(now);
    s.attempt = attempt;
    s.claimed_by = claimedBy;
    s.claimed_at = claimedAt;
    s.claim = claim;
    s.reason = undefined;
    s.blocked_by = undefined;
    s.attempts = appended(s.attempts, {
      n: attempt,
      claim,
      claimed_by: claimedBy,
      started_at: claimedAt,
    });
    this.setStatus(i, "claimed");
    this.holdClaim(i, now);
    this.run.dispatched++;
    this.runChanged = true;
    if (this.at !== undefined) {
      this.changedLog.push({ at: this.at, event: "claim", ticket: id, attempt, by: claimedBy });
    }

    const runBound = this.runBoundLeft();
    const result: Claim = {
      ticket: id,
      attempt,
      claim,
      claimedBy,
      claimedAt,
      leaseUntil: iso(this.leaseUntil[i]!),
      runBound,
    };
    const bound = this.effectiveBound(this.specList[i]!);
    if (bound) result.bound = bound;
    return result;
  }

  settle(input: SettleInput, now: number): EventResult {
    const i = this.lookup(input.ticket);
    if (i === undefined) return this.unknown(input.ticket);
    const why = this.staleness(i, input.attempt, input.claim);
    if (why !== undefined) {
      return {
        kind: "stale",
        message: `settle of ${input.ticket} attempt ${input.attempt} changed nothing: ${why}`,
      };
    }
    this.begin(now);
    const s = this.states[i]!;
    const question =
      input.outcome === "suspended"
        ? (input.question ?? input.reason ?? "(no question given)")
        : input.question;
    const record = this.endLive(i, input.outcome, {
      reason: input.reason,
      question,
      result_file: input.resultFile,
      result_bytes: input.resultBytes,
      usage: input.usage ? { ...input.usage } : undefined,
      settled_by: input.by,
      run_url: input.runUrl,
      changes: input.changes,
    });
    // the settle line goes first: the blocks and promotions it causes follow it
    // built whole, keys in the order the worklog always had them (no spreads)
    const entry: WorklogEntry = {
      at: this.at!,
      event: "settle",
      ticket: input.ticket,
      attempt: input.attempt,
      outcome: input.outcome,
    };
    if (input.by !== undefined) entry.by = input.by;
    if (input.reason !== undefined) entry.detail = input.reason;
    this.changedLog.push(entry);
    switch (input.outcome) {
      case "complete":
      case "empty":
        s.reason = undefined;
        this.setStatus(i, input.outcome);
        this.satisfyDependents(i);
        break;
      case "failed": {
        const detail = this.failAttempt(i, input.reason);
        entry.detail = input.reason === undefined ? detail : `${input.reason}; ${detail}`;
        break;
      }
      case "limited":
        if (input.reason !== undefined) s.reason = input.reason;
        else s.reason = undefined;
        this.setStatus(i, "limited");
        this.cascade(i);
        break;
      case "suspended":
        s.reason = record.question!;
        this.setStatus(i, "suspended");
        break;
      default:
        assertNever(input.outcome);
    }
    return this.done();
  }

  answer(ticket: string, text: string, by: string, now: number): EventResult {
    const i = this.lookup(ticket);
    if (i === undefined) return this.unknown(ticket);
    const s = this.states[i]!;
    if (s.status !== "suspended") {
      return {
        kind: "rejected",
        message: `${ticket} is ${s.status}; nothing to answer (only a suspended ticket has an open question)`,
      };
    }
    this.begin(now);
    const question = s.reason ?? s.attempts.at(-1)?.question ?? "";
    const record: AnswerRecord = {
      n: s.answers.length + 1,
      attempt: s.attempt,
      question,
      text,
      by,
      at: this.at!,
    };
    s.answers = appended(s.answers, record);
    this.changedAnswers.push({ ticket, record: { ...record } });
    s.reason = undefined;
    this.reopen(i);
    this.log({ event: "answer", ticket, attempt: s.attempt, by });
    return this.done();
  }

  /**
   * A new attempt of a ticket that failed, was limited or cancelled — or, with a
   * reviewer's `note`, of one that completed (a reviewer asking for a change). The note
   * is recorded as an immutable input of the next attempt, like an answer. Retrying a
   * completed ticket makes its dependents that have not started wait for the new
   * result; those that already ran keep what they did (`ranDependents` lists them).
   */
  retry(ticket: string, by: string, now: number, note?: string): EventResult {
    const i = this.lookup(ticket);
    if (i === undefined) return this.unknown(ticket);
    const s = this.states[i]!;
    if (this.run.cancelled) {
      return {
        kind: "rejected",
        message: `the run was cancelled by ${this.run.cancelled.by}; nothing in it can be retried (start a new run)`,
      };
    }
    const feedback = note !== undefined && note.trim() !== "" ? note : undefined;
    switch (s.status) {
      case "failed":
      case "limited":
      case "cancelled":
        break;
      case "complete":
      case "empty":
        if (feedback !== undefined) break;
        return {
          kind: "rejected",
          message: `${ticket} is ${s.status}; to ask for a change, retry it with feedback for its next attempt`,
        };
      case "blocked": {
        const root = s.blocked_by?.root ?? "?";
        return { kind: "rejected", message: `${ticket} is blocked by root ${root}; retry ${root}` };
      }
      case "claimed":
        return {
          kind: "rejected",
          message: `${ticket} is running attempt ${s.attempt}; wait for it to settle (or for its lease to run out)`,
        };
      case "suspended":
        return {
          kind: "rejected",
          message: `${ticket} is suspended on a question; answer it to run it again`,
        };
      case "pending":
      case "ready":
        return {
          kind: "rejected",
          message: `${ticket} is ${s.status}; it has not run yet, so there is nothing to retry`,
        };
      default:
        assertNever(s.status);
    }
    // only a hand-edited state gets here: a ticket that ran had its dependencies satisfied
    const behind = this.blockerFor(i);
    if (behind) {
      return {
        kind: "rejected",
        message: `${ticket} depends on ${behind.ticket}, which is ${this.states[this.graph.index.get(behind.ticket)!]!.status}; retry ${behind.root} first`,
      };
    }
    this.begin(now);
    const was = s.status;
    this.failures[i] = 0;
    s.reason = undefined;
    if (feedback !== undefined) {
      const record: AnswerRecord = {
        n: s.answers.length + 1,
        attempt: s.attempt,
        kind: "feedback",
        question: "",
        text: feedback,
        by,
        at: this.at!,
      };
      s.answers = appended(s.answers, record);
      this.changedAnswers.push({ ticket, record: { ...record } });
    }
    this.log({
      event: "retry",
      ticket,
      attempt: s.attempt,
      by,
      detail: feedback !== undefined ? `was ${was}, with feedback` : `was ${was}`,
    });
    if (SATISFIED.has(was)) this.unsatisfyDependents(i);
    this.reopen(i);
    this.reevaluateBlocked(i);
    return this.done();
  }

  /**
   * i is no longer complete (a reviewer retried it): each dependent has one more unmet
   * dependency, and one that was ready waits again. One that is running or has run keeps
   * going: it is never re-run unless it is retried too.
   */
  private unsatisfyDependents(i: number): void {
    const { dependentStart, dependentList } = this.graph;
    for (let k = dependentStart[i]!; k < dependentStart[i + 1]!; k++) {
      const d = dependentList[k]!;
      this.unmet[d]!++;
      if (this.states[d]!.status === "ready") this.setStatus(d, "pending");
    }
  }

  /** The dependents of `id` that are running or have run: what a retry of it does not re-run. */
  ranDependents(id: string): string[] {
    const i = this.lookup(id);
    if (i === undefined) return [];
    return dependentsOf(this.graph, i)
      .filter((d) => !OPEN_WAITING.has(this.states[d]!.status))
      .map((d) => this.id(d));
  }

  /**
   * After `from` reopened: every ticket blocked behind it (transitively) is looked at
   * again, in topological order so that each sees its dependencies' new status.
   */
  private reevaluateBlocked(from: number): void {
    const { dependentStart, dependentList, topoPos } = this.graph;
    const seen = new Set<number>();
    const found: number[] = [];
    const queue = [from];
    for (let head = 0; head < queue.length; head++) {
      const at = queue[head]!;
      for (let k = dependentStart[at]!; k < dependentStart[at + 1]!; k++) {
        const d = dependentList[k]!;
        if (seen.has(d) || this.states[d]!.status !== "blocked") continue;
        seen.add(d);
        found.push(d);
        queue.push(d);
      }
    }
    found.sort((a, b) => topoPos[a]! - topoPos[b]!);
    for (const d of found) {
      const s = this.states[d]!;
      const blocker = this.blockerFor(d);
      if (blocker) {
        if (!sameBlocker(s.blocked_by, blocker)) {
          s.blocked_by = blocker;
          this.touch(d);
          this.log({ event: "block", ticket: this.id(d), detail: this.blockDetail(blocker) });
        }
        continue;
      }
      s.blocked_by = undefined;
      this.reopen(d);
      this.log({ event: "unblock", ticket: this.id(d) });
    }
  }

  /** Reclaim claims whose lease ran out, or whose holder `isDead` says is gone. */
  expire(now: number, isDead?: (ticket: string, claimedBy: string) => boolean): EventResult {
    this.begin(now);
    for (const i of [...this.claimed]) {
      const s = this.states[i]!;
      const id = this.id(i);
      const attempt = s.attempt;
      if (isDead?.(id, s.claimed_by ?? "")) {
        this.endLive(i, "interrupted", { reason: "claim holder gone", settled_by: "expire" });
        this.reopen(i);
        this.log({
          event: "expire",
          ticket: id,
          attempt,
          outcome: "interrupted",
          detail: "claim holder gone",
        });
      } else if (now >= this.leaseUntil[i]!) {
        this.endLive(i, "failed", { reason: "lease-expired", settled_by: "expire" });
        const detail = this.failAttempt(i, "lease-expired");
        this.log({
          event: "expire",
          ticket: id,
          attempt,
          outcome: "failed",
          detail: `lease-expired; ${detail}`,
        });
      }
    }
    return this.done();
  }

  /** Ctrl-C: the live attempt ends `interrupted`; the ticket is re-readied, retries untouched. */
  interrupt(ticket: string, attempt: number, now: number): EventResult {
    const i = this.lookup(ticket);
    if (i === undefined) return this.unknown(ticket);
    const why = this.staleness(i, attempt, undefined);
    if (why !== undefined) {
      return {
        kind: "stale",
        message: `interrupt of ${ticket} attempt ${attempt} changed nothing: ${why}`,
      };
    }
    this.begin(now);
    this.endLive(i, "interrupted", { reason: "interrupted" });
    this.reopen(i);
    this.log({ event: "interrupt", ticket, attempt });
    return this.done();
  }

  cancel(by: string, now: number): EventResult {
    if (this.run.cancelled) {
      return {
        kind: "stale",
        message: `the run was already cancelled by ${this.run.cancelled.by} at ${this.run.cancelled.at}; nothing changed`,
      };
    }
    // a finished run stays what it ended as: cancelling it would rewrite its outcome
    let open = 0;
    for (const s of this.states) if (OPEN.has(s.status)) open++;
    if (open === 0) {
      return {
        kind: "rejected",
        message: `the run has finished (${this.runState(now)}); nothing is open to cancel`,
      };
    }
    this.begin(now);
    const reason = `run cancelled by ${by}`;
    this.run.cancelled = { by, at: this.at! };
    this.runChanged = true;
    this.log({ event: "cancel", by });
    for (let i = 0; i < this.states.length; i++) {
      const s = this.states[i]!;
      if (!OPEN.has(s.status)) continue;
      if (s.status === "claimed") {
        const attempt = s.attempt;
        this.endLive(i, "cancelled", { reason, settled_by: by });
        this.log({ event: "cancel", ticket: this.id(i), attempt, by, outcome: "cancelled" });
      }
      s.reason = reason;
      this.setStatus(i, "cancelled");
    }
    return this.done();
  }

  /* ---------------------------------------------------------------------- */
  /* queries                                                                */
  /* ---------------------------------------------------------------------- */

  spec(id: string): TicketSpec | undefined {
    const i = this.lookup(id);
    return i === undefined ? undefined : this.specList[i];
  }

  /** A copy: the live attempt (no outcome yet) is the last of `attempts`. */
  state(id: string): Readonly<TicketState> | undefined {
    const i = this.lookup(id);
    return i === undefined ? undefined : cloneState(this.states[i]!);
  }

  /** specs in file order */
  specs(): readonly TicketSpec[] {
    return this.specList;
  }

  /** ready tickets in dispatch order (priority, remaining critical path, file order) */
  readyIds(): string[] {
    const ready = this.heap.values().filter((i) => this.states[i]!.status === "ready");
    ready.sort((a, b) => (this.dispatchBefore(a, b) ? -1 : this.dispatchBefore(b, a) ? 1 : 0));
    return ready.map((i) => this.id(i));
  }

  /** How long a claim of `id` holds (its bound's lease, else the run's): a job's timeout on GitHub. */
  leaseMsOf(id: string): number | undefined {
    const i = this.lookup(id);
    return i === undefined ? undefined : this.leaseOf(i);
  }

  /** tickets currently claimed, in file order */
  claimedIds(): string[] {
    return [...this.claimed].sort((a, b) => a - b).map((i) => this.id(i));
  }

  /** Remaining critical path of a ticket (its own weight included), in ms. */
  remainingPath(id: string): number | undefined {
    const i = this.lookup(id);
    return i === undefined ? undefined : this.graph.remaining[i];
  }

  /** Ids of the tickets that depend on `id` directly, in file order. */
  dependentsOf(id: string): string[] {
    const i = this.lookup(id);
    return i === undefined ? [] : dependentsOf(this.graph, i).map((d) => this.id(d));
  }

  /** What remains of the run's bound now: what a dispatch is handed down (FRONTIER_RUN_BOUND). */
  runBoundLeft(): RunBoundLeft {
    const left: RunBoundLeft = {};
    const bound = this.run.bound;
    const limit = bound?.dispatches;
    if (limit !== undefined) left.dispatchesLeft = Math.max(0, limit - this.run.dispatched);
    if (bound?.deadline !== undefined) left.deadline = bound.deadline;
    if (bound?.usage !== undefined) {
      left.usage = {};
      for (const [key, max] of Object.entries(bound.usage)) {
        left.usage[key] = Math.max(0, max - (this.usage[key] ?? 0));
      }
    }
    return left;
  }

  /**
   * Which part of the run's bound is spent at `now`, first match: the dispatch count,
   * the deadline, a usage total (the first key, in the bound's order, that reached its
   * limit); undefined while none is.
   */
  spentBound(now: number): SpentBound | undefined {
    const bound = this.run.bound;
    const limit = bound?.dispatches;
    if (limit !== undefined && this.run.dispatched >= limit) {
      return { kind: "dispatches", limit, spent: this.run.dispatched };
    }
    if (this.deadlineMs !== undefined && now >= this.deadlineMs) {
      return { kind: "deadline", deadline: bound?.deadline ?? "" };
    }
    for (const [key, max] of Object.entries(bound?.usage ?? {})) {
      const total = this.usage[key] ?? 0;
      if (total >= max) return { kind: "usage", key, limit: max, total };
    }
    return undefined;
  }

  /** Every attempt's usage, summed per key. */
  usageTotals(): Usage {
    return { ...this.usage };
  }

  /** The run bound is spent at `now` (dispatch count reached or deadline passed). */
  boundSpentAt(now: number): boolean {
    return this.boundSpent(now);
  }

  runState(now: number): RunState {
    const c = this.statusCounts;
    const cancelled = this.run.cancelled !== undefined;
    const spent = this.boundSpent(now);
    // nothing dispatched, nothing closed: the graph has not been run yet
    if (this.run.dispatched === 0 && !cancelled && !spent && c.claimed === 0) {
      const closed = this.states.length - c.pending - c.ready;
      if (closed === 0 && c.pending + c.ready > 0) return "not started";
    }
    if (c.claimed > 0 || (c.ready > 0 && !spent && !cancelled)) return "running";
    if (cancelled) return "cancelled";
    // a failure outranks what else waits: the run cannot complete without a retry, and
    // its open questions and spent bound are still listed in the remainder
    if (c.failed > 0 || c.blocked > 0) return "failed";
    const open = c.pending + c.ready + c.claimed + c.suspended;
    if ((spent && open > 0) || c.limited > 0) return "limited";
    if (c.suspended > 0) return "suspended";
    return "complete";
  }

  counts(): Record<Status, number> {
    return { ...this.statusCounts };
  }

  waves(): string[][] {
    this.waveCache ??= wavesOf(this.graph);
    return this.waveCache.map((w) => [...w]);
  }

  criticalPath(): string[] {
    this.pathCache ??= criticalPathOf(this.graph);
    return [...this.pathCache];
  }

  /**
   * Every ticket not complete or empty, in file order, with what holds it — as data:
   * the reports and the terminal word it (src/report/remainder.ts).
   */
  holds(now: number): Array<{ id: string; status: Status; hold: Hold }> {
    const spent = this.spentBound(now);
    const out: Array<{ id: string; status: Status; hold: Hold }> = [];
    for (let i = 0; i < this.states.length; i++) {
      const s = this.states[i]!;
      if (SATISFIED.has(s.status)) continue;
      out.push({ id: this.id(i), status: s.status, hold: this.holdOf(i, spent) });
    }
    return out;
  }

  private holdOf(i: number, spent: SpentBound | undefined): Hold {
    const s = this.states[i]!;
    switch (s.status) {
      case "blocked": {
        const b = s.blocked_by;
        if (!b) return { kind: "blocked" };
        const rootIndex = this.graph.index.get(b.root);
        const rootStatus = rootIndex === undefined ? "failed" : this.states[rootIndex]!.status;
        return b.ticket === b.root
          ? { kind: "blocked", root: b.root, rootStatus }
          : { kind: "blocked", root: b.root, rootStatus, via: b.ticket };
      }
      case "suspended":
        return { kind: "question", question: s.reason ?? s.attempts.at(-1)?.question };
      case "pending": {
        // the unmet dependencies, in the author's order
        const { depStart, depList } = this.graph;
        const on: string[] = [];
        for (let k = depStart[i]!; k < depStart[i + 1]!; k++) {
          const d = depList[k]!;
          if (!SATISFIED.has(this.states[d]!.status)) on.push(this.id(d));
        }
        return { kind: "waiting", on };
      }
      case "ready":
        if (this.run.cancelled) return { kind: "run-cancelled", by: this.run.cancelled.by };
        return spent ? { kind: "bound-spent", spent } : { kind: "ready" };
      case "claimed":
        return { kind: "running", attempt: s.attempt, by: s.claimed_by };
      case "failed":
        return { kind: "failed", reason: s.reason };
      case "limited":
        return { kind: "limited" };
      case "cancelled":
        // a ticket cancelled in an earlier, cancelled run that was resumed says why it was
        return this.run.cancelled
          ? { kind: "cancelled", by: this.run.cancelled.by }
          : { kind: "cancelled", reason: s.reason };
      case "complete":
      case "empty":
        return { kind: "ready" };
      default:
        return assertNever(s.status);
    }
  }

  /** Blocked tickets grouped by the root that started their chain (roots in file order). */
  blockerGroups(): BlockerGroup[] {
    const byRoot = new Map<string, string[]>();
    for (let i = 0; i < this.states.length; i++) {
      const b = this.states[i]!.blocked_by;
      if (this.states[i]!.status !== "blocked" || !b) continue;
      const list = byRoot.get(b.root);
      if (list) list.push(this.id(i));
      else byRoot.set(b.root, [this.id(i)]);
    }
    const order = (id: string) => this.graph.index.get(id) ?? Number.MAX_SAFE_INTEGER;
    return [...byRoot.keys()]
      .sort((a, b) => order(a) - order(b))
      .map((root) => {
        const ri = this.graph.index.get(root);
        const rs = ri === undefined ? undefined : this.states[ri]!;
        const group: BlockerGroup = {
          root,
          root_status: rs?.status ?? "failed",
          tickets: byRoot.get(root)!,
        };
        if (rs?.reason !== undefined) group.reason = rs.reason;
        return group;
      });
  }

  runRecord(): RunRecord {
    const r: RunRecord = { ...this.run };
    if (this.run.bound) r.bound = { ...this.run.bound };
    if (this.run.cancelled) r.cancelled = { ...this.run.cancelled };
    return r;
  }

  snapshot(): SavedState {
    const tickets: Record<string, TicketState> = {};
    for (let i = 0; i < this.states.length; i++) tickets[this.id(i)] = cloneState(this.states[i]!);
    return { run: this.runRecord(), tickets };
  }

  drainChanges(): Changes {
    const out: Changes = {
      tickets: this.changedTickets.map((i) => this.id(i)),
      attempts: this.changedAttempts,
      answers: this.changedAnswers,
      log: this.changedLog,
      run: this.runChanged,
    };
    if (this.changedTickets.length > 0) {
      this.changedTickets = [];
      if (++this.changedEpoch > 0xffff_fff0) {
        this.changedMark.fill(0);
        this.changedEpoch = 1;
      }
    }
    this.changedAttempts = [];
    this.changedAnswers = [];
    this.changedLog = [];
    this.runChanged = false;
    return out;
  }
}

function assertNever(x: never): never {
  throw new Error(`unexpected value ${String(x)}`);
}
