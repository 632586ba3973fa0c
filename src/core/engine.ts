/**
 * The frontier engine: a pure state machine the caller drives.
 * No I/O, no timers, no promises; the clock and the claim-token source are passed in,
 * so every race replays in a test where no time passes.
 *
 * THIS FILE IS THE CONTRACT other modules code against: the signatures of the exported
 * types and of `Frontier` must not change without telling everyone (methods may be added).
 */

import { REASON, SATISFIED } from "./constants.js";
import {
  appended,
  type Claim,
  type EngineConfig,
  type EventResult,
  iso,
  NO_SCOPE,
  OPEN,
  OPEN_WAITING,
  questionOf,
  type Refusal,
  type SettleInput,
} from "./engine-types.js";
import { FrontierView } from "./engine-view.js";
import { dependentsOf } from "./graph.js";
import type { AnswerRecord, SavedState, TicketSpec, WorklogEntry } from "./model.js";
import { type CompiledScope, compileScope, scopesOverlap } from "./scope.js";

export type {
  Changes,
  Claim,
  EngineConfig,
  EventResult,
  Hold,
  Refusal,
  SettleInput,
  SpentBound,
} from "./engine-types.js";

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
 *   caller gets `{kind: "stale", why}` and may log it. So a redelivered event
 *   leaves nothing to commit.
 * - `claimed_by`, `claimed_at` and `claim` describe the live claim only: they are
 *   cleared when the attempt ends (the attempt record keeps who ran it).
 * - The automatic-retry budget counts failed attempts since the last manual retry.
 *   It is not stored: on `create` it is recomputed from the attempts — an attempt
 *   that follows one which closed the ticket (failed past the budget, limited,
 *   cancelled) can only exist because of a manual retry, so the count restarts there.
 * - A ticket's weight for the critical path is its lease, its effective bound's
 *   `leaseMs` (its own bound, else `config.ticketBound`; a duration is its timeout too);
 *   without any bound, `config.leaseMs` ?? 60 minutes.
 * - `expire` asks `isDead` before looking at the lease: a claim whose holder is gone
 *   is `interrupted` (not counted against retries) even if its lease also ran out.
 * - `create` without `now` stamps nothing: no `updated_at`, no `started_at`, and no
 *   worklog lines (read-only uses such as `plan` and `status` have no clock).
 * - A saved state for a run record keeps its `base` (a run stays pinned); `config.base`
 *   fills it only when missing. The saved run name is kept.
 * - A retried ticket whose blocked dependents are re-evaluated keeps a dependent's
 *   direct blocker when that one is still closed-bad; else the first closed-bad
 *   dependency in `depends_on` order becomes the blocker.
 * - A blocked ticket's hold names its root and, when it differs, its direct blocker
 *   (`via`); report/remainder.ts words it.
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
export class Frontier extends FrontierView {
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
    // in file order (the loader's already: a sorted list sorts in one pass)
    const ordered = [...specs].sort((a, b) => a.order - b.order);
    return new Frontier(ordered, config, saved, now);
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
    if (this.run.cancelled) return claims;
    const max = this.config.maxParallel;
    this.begin(now);
    const heldBack: number[] = [];
    while (this.heap.size > 0) {
      if ((max !== undefined && this.claimed.size >= max) || this.spentBound(now)) break;
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
    this.eventChanged.clear();
    return claims;
  }

  protected scopeOf(i: number): CompiledScope {
    const raw = this.specList[i]!.writeScope;
    this.scopes[i] ??= raw.length === 0 ? NO_SCOPE : compileScope(raw);
    return this.scopes[i];
  }

  /** A live ticket with the same agent or an overlapping write_scope holds i back. */
  protected heldBack(i: number): boolean {
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

  protected claim(
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

    const bound = this.effectiveBound(this.specList[i]!);
    return {
      ticket: id,
      attempt,
      claim,
      leaseUntil: iso(this.leaseUntil[i]!),
      runBound: this.runBoundLeft(),
      // last, as claims have always carried it
      ...(bound && { bound }),
    };
  }

  settle(input: SettleInput, now: number): EventResult {
    const i = this.lookup(input.ticket);
    if (i === undefined) return this.unknown(input.ticket);
    const stale = this.staleness(i, input.attempt, input.claim);
    if (stale !== undefined) return stale;
    this.begin(now);
    const s = this.states[i]!;
    const question = input.outcome === "suspended" ? questionOf(input) : input.question;
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
        s.reason = input.reason;
        this.setStatus(i, "limited");
        this.cascade(i);
        break;
      case "suspended":
        s.reason = record.question!;
        this.setStatus(i, "suspended");
        break;
      default:
        input.outcome satisfies never;
    }
    return this.done();
  }

  answer(ticket: string, text: string, by: string, now: number): EventResult {
    const i = this.lookup(ticket);
    if (i === undefined) return this.unknown(ticket);
    const s = this.states[i]!;
    if (s.status !== "suspended") {
      return { kind: "rejected", why: { code: "not-suspended", ticket, status: s.status } };
    }
    this.begin(now);
    this.addAnswer(i, s.reason ?? s.attempts.at(-1)?.question ?? "", text, by);
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
    const feedback = note !== undefined && note.trim() !== "" ? note : undefined;
    const refused = this.retryRefusal(i, feedback !== undefined);
    if (refused !== undefined) return { kind: "rejected", why: refused };
    this.begin(now);
    const was = s.status;
    this.failures[i] = 0;
    s.reason = undefined;
    if (feedback !== undefined) this.addAnswer(i, "", feedback, by, "feedback");
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

  /** Why ticket i cannot be retried (with feedback or without); undefined when it can. */
  protected retryRefusal(i: number, feedback: boolean): Refusal | undefined {
    const { status, attempt, blocked_by } = this.states[i]!;
    const ticket = this.id(i);
    if (this.run.cancelled) return { code: "cancelled", event: "retry", ...this.run.cancelled };
    const refused = { code: "not-retryable", ticket, status, attempt } as const;
    if (status === "blocked") return { ...refused, root: blocked_by!.root };
    if (OPEN.has(status) || (SATISFIED.has(status) && !feedback)) return refused;
    // failed, limited or cancelled; behind a closed dependency only in a hand-edited state
    // (a ticket that ran had its dependencies satisfied)
    const behind = this.blockerFor(i);
    if (behind === undefined) return undefined;
    return {
      code: "behind",
      ticket,
      behind: behind.ticket,
      status: this.states[this.lookup(behind.ticket)!]!.status,
      root: behind.root,
    };
  }

  /** An answer to ticket i's question, or a reviewer's feedback: recorded once, for its next attempt. */
  protected addAnswer(i: number, question: string, text: string, by: string, kind?: "feedback") {
    const s = this.states[i]!;
    const record: AnswerRecord = {
      n: s.answers.length + 1,
      attempt: s.attempt,
      ...(kind && { kind }),
      question,
      text,
      by,
      at: this.at!,
    };
    s.answers = appended(s.answers, record);
    this.changedAnswers.push({ ticket: this.id(i), record: { ...record } });
  }

  /**
   * i is no longer complete (a reviewer retried it): each dependent has one more unmet
   * dependency, and one that was ready waits again. One that is running or has run keeps
   * going: it is never re-run unless it is retried too.
   */
  protected unsatisfyDependents(i: number): void {
    for (const d of dependentsOf(this.graph, i)) {
      this.unmet[d]!++;
      if (this.states[d]!.status === "ready") this.setStatus(d, "pending");
    }
  }

  /** The dependents of `id` that are running or have run: what a retry of it does not re-run. */
  ranDependents(id: string): string[] {
    const i = this.lookup(id);
    if (i === undefined) return [];
    return Array.from(dependentsOf(this.graph, i))
      .filter((d) => !OPEN_WAITING.has(this.states[d]!.status))
      .map((d) => this.id(d));
  }

  /**
   * After `from` reopened: every ticket blocked behind it (transitively) is looked at
   * again, in topological order so that each sees its dependencies' new status.
   */
  protected reevaluateBlocked(from: number): void {
    const { topoPos } = this.graph;
    const seen = new Set<number>();
    const found: number[] = [];
    const queue = [from];
    for (let head = 0; head < queue.length; head++) {
      const at = queue[head]!;
      for (const d of dependentsOf(this.graph, at)) {
        if (seen.has(d) || this.states[d]!.status !== "blocked") continue;
        seen.add(d);
        found.push(d);
        queue.push(d);
      }
    }
    found.sort((a, b) => topoPos[a]! - topoPos[b]!);
    for (const d of found) this.judgeBlocked(d);
  }

  /** Reclaim claims whose lease ran out, or whose holder `isDead` says is gone. */
  expire(now: number, isDead?: (ticket: string, claimedBy: string) => boolean) {
    this.begin(now);
    for (const i of [...this.claimed]) {
      const s = this.states[i]!;
      const ticket = this.id(i);
      const attempt = s.attempt;
      if (isDead?.(ticket, s.claimed_by ?? "")) {
        const reason = REASON.holderGone;
        this.endLive(i, "interrupted", { reason, settled_by: "expire" });
        this.reopen(i);
        this.log({ event: "expire", ticket, attempt, outcome: "interrupted", detail: reason });
      } else if (now >= this.leaseUntil[i]!) {
        const reason = REASON.leaseExpired;
        this.endLive(i, "failed", { reason, settled_by: "expire" });
        const detail = `${reason}; ${this.failAttempt(i, reason)}`;
        this.log({ event: "expire", ticket, attempt, outcome: "failed", detail });
      }
    }
    return this.done();
  }

  /** Ctrl-C: the live attempt ends `interrupted`; the ticket is re-readied, retries untouched. */
  interrupt(ticket: string, attempt: number, now: number): EventResult {
    const i = this.lookup(ticket);
    if (i === undefined) return this.unknown(ticket);
    const stale = this.staleness(i, attempt, undefined, "interrupt");
    if (stale !== undefined) return stale;
    this.begin(now);
    this.endLive(i, "interrupted", { reason: REASON.interrupted });
    this.reopen(i);
    this.log({ event: "interrupt", ticket, attempt });
    return this.done();
  }

  cancel(by: string, now: number): EventResult {
    if (this.run.cancelled)
      return { kind: "stale", why: { code: "cancelled", event: "cancel", ...this.run.cancelled } };
    // a finished run stays what it ended as: cancelling it would rewrite its outcome
    const c = this.statusCounts;
    if (c.pending + c.ready + c.claimed + c.suspended === 0)
      return { kind: "rejected", why: { code: "finished", state: this.runState(now) } };
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
}
