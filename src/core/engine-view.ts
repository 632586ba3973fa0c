/**
 * The engine's transitions of one ticket (satisfy, cascade, fail, reopen) and its
 * read-only queries.
 */

import { SATISFIED } from "./constants.js";
import { FrontierState } from "./engine-state.js";
import {
  type Changes,
  cloneState,
  type Hold,
  type RunBoundLeft,
  type SpentBound,
} from "./engine-types.js";
import { criticalPathOf, dependenciesOf, dependentsOf, wavesOf } from "./graph.js";
import type {
  BlockerGroup,
  RunRecord,
  RunState,
  SavedState,
  Status,
  TicketSpec,
  TicketState,
} from "./model.js";

export abstract class FrontierView extends FrontierState {
  /* ---------------------------------------------------------------------- */
  /* transitions                                                            */
  /* ---------------------------------------------------------------------- */

  /** i became complete or empty: each dependent has one fewer unmet dependency. */
  protected satisfyDependents(i: number): void {
    for (const d of dependentsOf(this.graph, i)) {
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
  protected cascade(from: number): void {
    const queue = [from];
    for (let head = 0; head < queue.length; head++) {
      const p = queue[head]!;
      const by = this.blockedByVia(p);
      for (const d of dependentsOf(this.graph, p)) {
        const status = this.states[d]!.status;
        if (status !== "pending" && status !== "ready") continue;
        this.block(d, { ...by });
        queue.push(d);
      }
    }
  }

  /** A failed attempt: retry automatically within the budget, else fail and cascade. */
  protected failAttempt(i: number, reason: string | undefined): string {
    const s = this.states[i]!;
    this.failures[i]!++;
    s.reason = reason;
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

  /**
   * Whether `id` is claimed by this claim: its attempt and token, each matching any when
   * left out. A lease that ran out still holds until `expire` records its end: every
   * runner asks this, so none judges a lease on its own clock.
   */
  isLive(id: string, claim: { attempt?: number; claim?: string }): boolean {
    const i = this.lookup(id);
    if (i === undefined) return false;
    return this.staleness(i, claim.attempt ?? this.states[i]!.attempt, claim.claim) === undefined;
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

  runState(now: number): RunState {
    const c = this.statusCounts;
    const cancelled = this.run.cancelled !== undefined;
    const spent = this.spentBound(now) !== undefined;
    // nothing dispatched, nothing closed: the graph has not been run yet
    const untouched = this.states.length > 0 && c.pending + c.ready === this.states.length;
    if (untouched && this.run.dispatched === 0 && !cancelled && !spent) return "not started";
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
    return this.states.flatMap((s, i) =>
      SATISFIED.has(s.status)
        ? []
        : [{ id: this.id(i), status: s.status, hold: this.holdOf(i, spent) }],
    );
  }

  protected holdOf(i: number, spent: SpentBound | undefined): Hold {
    const s = this.states[i]!;
    switch (s.status) {
      case "blocked": {
        // every blocked ticket has its blocker, root included, once built (normalise, cascade)
        const b = s.blocked_by!;
        const rootStatus = this.states[this.lookup(b.root)!]!.status;
        return b.ticket === b.root
          ? { kind: "blocked", root: b.root, rootStatus }
          : { kind: "blocked", root: b.root, rootStatus, via: b.ticket };
      }
      case "suspended":
        return { kind: "question", question: s.reason ?? s.attempts.at(-1)?.question };
      case "pending": {
        const on: string[] = [];
        for (const d of dependenciesOf(this.graph, i))
          if (!SATISFIED.has(this.states[d]!.status)) on.push(this.id(d));
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
        return s.status satisfies never;
    }
  }

  /** Blocked tickets grouped by the root that started their chain (roots in file order). */
  blockerGroups(): BlockerGroup[] {
    const byRoot = new Map<number, string[]>();
    for (let i = 0; i < this.states.length; i++) {
      const s = this.states[i]!;
      if (s.status !== "blocked") continue;
      const root = this.lookup(s.blocked_by!.root)!;
      const list = byRoot.get(root);
      if (list) list.push(this.id(i));
      else byRoot.set(root, [this.id(i)]);
    }
    return [...byRoot]
      .sort(([a], [b]) => a - b)
      .map(([r, tickets]) => {
        const rs = this.states[r]!;
        const group: BlockerGroup = { root: this.id(r), root_status: rs.status, tickets };
        if (rs.reason !== undefined) group.reason = rs.reason;
        return group;
      });
  }

  runRecord(): RunRecord {
    return structuredClone(this.run);
  }

  snapshot(): SavedState {
    const tickets: Record<string, TicketState> = {};
    for (let i = 0; i < this.states.length; i++) tickets[this.id(i)] = cloneState(this.states[i]!);
    return { run: this.runRecord(), tickets };
  }

  drainChanges(): Changes {
    const out: Changes = {
      tickets: this.ids(this.changedTickets),
      attempts: this.changedAttempts,
      answers: this.changedAnswers,
      log: this.changedLog,
      run: this.runChanged,
    };
    this.changedTickets.clear();
    this.changedAttempts = [];
    this.changedAnswers = [];
    this.changedLog = [];
    this.runChanged = false;
    return out;
  }
}
