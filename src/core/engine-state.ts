/**
 * The engine's state: its fields, how a run's tickets and saved state become it, and the
 * small helpers every event uses. `Frontier` (engine.ts) is the class callers hold.
 */

import { DEFAULTS, SATISFIED } from "./constants.js";
import {
  addUsage,
  appended,
  BAD,
  type Changes,
  CLOSED_BAD_OWN,
  cloneAttempt,
  END_FIELDS,
  type EndFields,
  type EngineConfig,
  type EventResult,
  IndexList,
  iso,
  KIND_OF,
  NONE,
  ownState,
  questionOf,
  RUN_SCHEMA,
  sameBlocker,
  setDefined,
  zeroCounts,
} from "./engine-types.js";
import { buildGraph, dependenciesOf, type Graph, IndexHeap } from "./graph.js";
import type {
  AttemptOutcome,
  AttemptRecord,
  BlockedBy,
  Bound,
  RunBound,
  RunRecord,
  SavedState,
  Status,
  TicketSpec,
  TicketState,
  WorklogEntry,
} from "./model.js";
import type { CompiledScope } from "./scope.js";

export abstract class FrontierState {
  protected readonly specList: readonly TicketSpec[];
  protected readonly graph: Graph;
  protected readonly config: EngineConfig;
  protected readonly states: TicketState[];
  protected readonly unmet: Int32Array;
  /** failed attempts since the last manual retry: what `retries` is measured against */
  protected readonly failures: Int32Array;
  protected readonly leaseUntil: Float64Array;
  /** each ticket's write_scope, compiled when first asked for (read-only commands never ask) */
  protected readonly scopes: Array<CompiledScope | undefined>;
  protected readonly claimed = new Set<number>();
  protected readonly agents = new Map<string, number>();
  protected readonly heap: IndexHeap;
  /** in the heap already (entries of tickets no longer ready are skipped when popped) */
  protected readonly queued: Uint8Array;
  /** each ticket's priority (dispatch order's first key) */
  protected readonly priority: Float64Array;
  protected readonly statusCounts = zeroCounts();
  protected run: RunRecord;
  protected deadlineMs: number | undefined;
  /** the usage every attempt reported, summed per key: what a usage bound is spent by */
  protected readonly usage: Record<string, number> = {};
  protected waveCache: string[][] | undefined;
  protected pathCache: string[] | undefined;

  // what changed since the last drain
  protected readonly changedTickets: IndexList;
  protected changedAttempts: Changes["attempts"] = [];
  protected changedAnswers: Changes["answers"] = [];
  protected changedLog: WorklogEntry[] = [];
  protected runChanged = false;

  // the event being applied, and the tickets it changed
  protected at: string | undefined;
  protected readonly eventChanged: IndexList;

  protected constructor(
    specs: readonly TicketSpec[],
    config: EngineConfig,
    saved: SavedState | undefined,
    now: number | undefined,
  ) {
    this.specList = specs;
    this.config = config;
    this.graph = buildGraph(specs, (i) => this.leaseOf(i));
    const n = specs.length;
    this.unmet = new Int32Array(n);
    this.failures = new Int32Array(n);
    this.leaseUntil = new Float64Array(n).fill(Number.NaN);
    this.queued = new Uint8Array(n);
    this.priority = new Float64Array(n);
    for (let i = 0; i < n; i++) this.priority[i] = specs[i]!.priority;
    this.changedTickets = new IndexList(n);
    this.eventChanged = new IndexList(n);
    this.scopes = new Array(n);
    this.heap = new IndexHeap((a, b) => this.dispatchBefore(a, b));
    this.at = now === undefined ? undefined : iso(now);
    this.run = this.loadRun(saved?.run, now);
    this.states = specs.map((s, i) => this.loadState(i, saved?.tickets[s.id]));
    this.normalise(saved !== undefined);
    this.eventChanged.clear();
  }

  /* ---------------------------------------------------------------------- */
  /* building                                                               */
  /* ---------------------------------------------------------------------- */

  protected effectiveBound(spec: TicketSpec): Bound | undefined {
    return spec.bound ?? this.config.ticketBound;
  }

  protected leaseOf(i: number): number {
    const own = this.effectiveBound(this.specList[i]!)?.leaseMs;
    return own ?? this.config.leaseMs ?? DEFAULTS.leaseMs;
  }

  protected retriesOf(i: number): number {
    return this.specList[i]!.retries ?? this.config.retries ?? 0;
  }

  protected loadRun(saved: RunRecord | undefined, now: number | undefined): RunRecord {
    let run: RunRecord;
    if (saved) {
      run = structuredClone(saved);
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
    // (config.ts sets only the fields it has, and no bound without one)
    const flags = this.config.bound;
    if (flags) {
      // keys keep their place when overwritten: the same text is the same bound
      const merged: RunBound = { ...run.bound, ...flags };
      if (JSON.stringify(merged) !== JSON.stringify(run.bound ?? {})) this.runChanged = true;
      run.bound = merged;
    }
    const deadline = run.bound?.deadline;
    this.deadlineMs = deadline === undefined ? undefined : Date.parse(deadline);
    return run;
  }

  protected loadState(i: number, saved: TicketState | undefined): TicketState {
    if (!saved) {
      this.changedTickets.add(i);
      return ownState({ status: "pending", attempt: 0, attempts: NONE, answers: NONE });
    }
    const s = ownState(saved);
    s.attempts.sort((a, b) => a.n - b.n);
    s.answers.sort((a, b) => a.n - b.n);
    s.attempt = Math.max(s.attempt, s.attempts.at(-1)?.n ?? 0);
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
  protected normalise(hadSaved: boolean): void {
    const n = this.specList.length;
    const { topo } = this.graph;

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
      for (const a of s.attempts) if (a.usage !== undefined) addUsage(this.usage, a.usage);
      this.statusCounts[s.status]++;
      this.failures[i] = this.failuresSinceRetry(i, !CLOSED_BAD_OWN.has(s.status));
      for (const d of dependenciesOf(this.graph, i))
        if (!SATISFIED.has(this.states[d]!.status)) this.unmet[i]!++;
      if (s.status === "claimed") this.holdClaim(i, this.claimStart(s));
    }

    for (let p = 0; p < n; p++) {
      const i = topo[p]!;
      const s = this.states[i]!;
      if (s.status !== "pending" && s.status !== "ready" && s.status !== "blocked") continue;
      const blocker = this.blockerFor(i);
      if (s.status === "blocked" || blocker !== undefined) {
        this.judgeBlocked(i, blocker);
        continue;
      }
      const wanted: Status = this.unmet[i] === 0 ? "ready" : "pending";
      if (s.status !== wanted) {
        this.setStatus(i, wanted);
        if (wanted === "ready" && hadSaved) this.log({ event: "promote", ticket: this.id(i) });
      }
      if (wanted === "ready") this.enqueue(i);
    }
  }

  protected claimStart(s: TicketState): number {
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
  protected failuresSinceRetry(i: number, reopened: boolean): number {
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

  protected recoverOutcome(i: number, live: AttemptRecord): void {
    const s = this.states[i]!;
    this.dropClaimFields(s);
    const outcome = live.outcome!;
    if (outcome === "failed") {
      // failuresSinceRetry counts this attempt too
      s.status = this.failuresSinceRetry(i, false) <= this.retriesOf(i) ? "ready" : "failed";
    } else s.status = outcome === "interrupted" ? "ready" : outcome;
    if (outcome === "complete" || outcome === "empty") s.reason = undefined;
    else if (outcome === "suspended") s.reason = questionOf(live);
    else if (outcome !== "interrupted" && live.reason !== undefined) s.reason = live.reason;
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

  protected id(i: number): string {
    return this.specList[i]!.id;
  }

  /**
   * Priority, then remaining critical path, then file order. The specs are sorted by
   * `order` (create sorts them), so file order is index order; priorities are copied
   * into a typed array once, so the heap compares numbers, not spec objects.
   */
  protected dispatchBefore(a: number, b: number): boolean {
    const pa = this.priority[a]!;
    const pb = this.priority[b]!;
    if (pa !== pb) return pa > pb;
    const ra = this.graph.remaining[a]!;
    const rb = this.graph.remaining[b]!;
    if (ra !== rb) return ra > rb;
    return a < b;
  }

  protected touch(i: number): void {
    this.changedTickets.add(i);
    this.eventChanged.add(i);
    if (this.at !== undefined) this.states[i]!.updated_at = this.at;
  }

  protected setStatus(i: number, status: Status): void {
    const s = this.states[i]!;
    if (s.status !== status) {
      this.statusCounts[s.status]--;
      this.statusCounts[status]++;
      s.status = status;
    }
    this.touch(i);
  }

  /** Append a worklog line: none without a clock (`create` without `now`). */
  protected log(entry: Omit<WorklogEntry, "at">): void {
    if (this.at !== undefined) this.changedLog.push({ at: this.at, ...entry });
  }

  /** A "promote" or "block" line: built whole, the hot paths' lines (no spread). */
  protected logTicket(event: "promote" | "block", i: number, detail?: string): void {
    const at = this.at;
    if (at !== undefined) this.changedLog.push({ at, event, ticket: this.id(i), detail });
  }

  protected enqueue(i: number): void {
    if (this.queued[i]) return;
    this.queued[i] = 1;
    this.heap.push(i);
  }

  protected begin(now: number): void {
    this.at = iso(now);
    this.eventChanged.clear();
  }

  /** The ids of the tickets in `list`, in its order. */
  protected ids(list: IndexList): string[] {
    const out = new Array<string>(list.size);
    for (let k = 0; k < list.size; k++) out[k] = this.id(list.items[k]!);
    return out;
  }

  protected done(): Extract<EventResult, { kind: "ok" }> {
    const changed = this.ids(this.eventChanged);
    this.eventChanged.clear();
    return { kind: "ok", changed };
  }

  protected lookup(ticket: string): number | undefined {
    return this.graph.index.get(ticket);
  }

  protected unknown(ticket: string): EventResult {
    return { kind: "rejected", why: { code: "unknown", ticket } };
  }

  /** Why an `event` for (attempt, claim) is not for the live attempt; undefined when it is. */
  protected staleness(
    i: number,
    attempt: number,
    claim: string | undefined,
    event: "settle" | "interrupt" = "settle",
  ): EventResult | undefined {
    const { status, attempt: live, claim: token } = this.states[i]!;
    const held = status === "claimed" && attempt === live;
    if (held && (claim === undefined || claim === token)) return undefined;
    const why = { code: "not-live", event, ticket: this.id(i), attempt, status, live } as const;
    // the live attempt, under another claim token: the token named
    return { kind: "stale", why: held ? { ...why, claim } : why };
  }

  protected holdClaim(i: number, claimedAtMs: number): void {
    this.claimed.add(i);
    this.leaseUntil[i] = claimedAtMs + this.leaseOf(i);
    const agent = this.specList[i]!.agent;
    if (agent !== undefined) this.agents.set(agent, (this.agents.get(agent) ?? 0) + 1);
  }

  protected dropClaimFields(s: TicketState): void {
    s.claimed_by = undefined;
    s.claimed_at = undefined;
    s.claim = undefined;
  }

  protected releaseClaim(i: number): void {
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
  protected endLive(i: number, outcome: AttemptOutcome, fields: EndFields = {}): AttemptRecord {
    const s = this.states[i]!;
    const at = s.attempts.length - 1;
    // the live record is the engine's own (claim and create made it): it is ended in
    // place, field by field, in this order (keys come out as a copy's would; a copy per
    // settle was the engine's most expensive line at 100k tickets)
    const record = s.attempts[at]!;
    for (const key of END_FIELDS) setDefined(record, key, fields[key]);
    if (fields.usage !== undefined) addUsage(this.usage, fields.usage);
    record.outcome = outcome;
    record.ended_at = this.at!;
    this.changedAttempts.push({ ticket: this.id(i), record: cloneAttempt(record) });
    this.releaseClaim(i);
    return record;
  }

  /** The closed-bad dependency that keeps ticket i from ever running, if any. */
  protected blockerFor(i: number): BlockedBy | undefined {
    const s = this.states[i]!;
    const deps = dependenciesOf(this.graph, i);
    const current = s.blocked_by ? this.lookup(s.blocked_by.ticket) : undefined;
    if (current !== undefined && BAD.has(this.states[current]!.status) && deps.includes(current))
      return this.blockedByVia(current);
    const bad = deps.find((d) => BAD.has(this.states[d]!.status));
    return bad === undefined ? undefined : this.blockedByVia(bad);
  }

  /**
   * Ticket i, blocked or behind a closed-bad dependency: blocked by that dependency (its
   * direct blocker kept while still closed-bad), else unblocked and reopened.
   */
  protected judgeBlocked(i: number, blocker = this.blockerFor(i)): void {
    const s = this.states[i]!;
    if (blocker === undefined) {
      s.blocked_by = undefined;
      this.reopen(i);
      this.log({ event: "unblock", ticket: this.id(i) });
    } else if (!sameBlocker(s.blocked_by, blocker)) this.block(i, blocker);
  }

  protected block(i: number, by: BlockedBy): void {
    const s = this.states[i]!;
    s.blocked_by = by;
    s.reason = undefined;
    this.setStatus(i, "blocked");
    this.logTicket("block", i, `${by.kind} ${by.ticket}, root ${by.root}`);
  }

  /** Back to ready (or pending, if somehow a dependency is not satisfied). */
  protected reopen(i: number): void {
    if (this.unmet[i] === 0) {
      this.setStatus(i, "ready");
      this.enqueue(i);
    } else {
      this.setStatus(i, "pending");
    }
  }

  protected blockedByVia(dep: number): BlockedBy {
    const ds = this.states[dep]!;
    const root = ds.status === "blocked" ? (ds.blocked_by?.root ?? this.id(dep)) : this.id(dep);
    return { ticket: this.id(dep), kind: KIND_OF[ds.status] ?? "dep-blocked", root };
  }
}
