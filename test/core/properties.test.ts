/**
 * Property-based tests over random DAGs (up to 40 tickets), random caps and random
 * sequences of events. Every step checks the rules of SPEC §3–4 against the whole
 * graph; the engine itself never rescans it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type EngineConfig, Frontier, type SettleInput } from "../../src/core/engine.js";
import {
  type Outcome,
  SATISFIED,
  SavedState,
  type Status,
  type TicketSpec,
} from "../../src/core/model.js";
import { compileScope, scopesOverlap } from "../../src/core/scope.js";
import { refusalWords } from "../../src/report/refusals.js";
import { remainderOf } from "../../src/report/remainder.js";
import { runs } from "../support/runs.js";
import { remainingPaths, ticket } from "./engine.fixtures.js";

const SCOPES = [[], [], ["src"], ["src/a.ts"], ["src/**/*.md"], ["docs/**"], ["docs/x.md", "lib"]];
const BAD: ReadonlySet<Status> = new Set(["failed", "limited", "cancelled", "blocked"]);
const OWN_BAD: ReadonlySet<Status> = new Set(["failed", "limited", "cancelled"]);
const OUTCOMES: Outcome[] = ["complete", "empty", "failed", "suspended", "limited"];

const ticketArb = fc.record({
  deps: fc.uniqueArray(fc.nat(), { maxLength: 4 }),
  priority: fc.integer({ min: 0, max: 2 }),
  agent: fc.option(fc.constantFrom("x", "y"), { nil: undefined }),
  scope: fc.nat({ max: SCOPES.length - 1 }),
  retries: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  lease: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
});

/** A random DAG: ticket i depends only on tickets before it; file order is shuffled. */
const graphArb = fc.array(ticketArb, { minLength: 1, maxLength: 40 }).chain((drafts) =>
  fc
    .shuffledSubarray(
      drafts.map((_, i) => i),
      { minLength: drafts.length, maxLength: drafts.length },
    )
    .map((perm) =>
      drafts.map((d, i): TicketSpec => {
        const deps = i === 0 ? [] : [...new Set(d.deps.map((x) => x % i))].map((j) => `t${j}`);
        return ticket(`t${i}`, deps, {
          priority: d.priority,
          agent: d.agent,
          writeScope: SCOPES[d.scope]!,
          retries: d.retries,
          bound:
            d.lease === undefined
              ? undefined
              : { raw: `${d.lease}ms`, timeoutMs: d.lease, leaseMs: d.lease },
          order: perm[i]!,
        });
      }),
    ),
);

const configArb = fc.record({
  maxParallel: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  retries: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
  dispatches: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
});

const actionArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant("claim" as const), by: fc.constantFrom("w1", "w2") }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("settle" as const),
      pick: fc.nat(),
      outcome: fc.constantFrom(...OUTCOMES, "complete", "complete"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("replay" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("stale" as const),
      pick: fc.nat(),
      delta: fc.integer({ min: -2, max: 2 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("answer" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("retry" as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("expire" as const),
      tick: fc.integer({ min: 0, max: 60 }),
      killW2: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("interrupt" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "cancel" as const }) },
);

type Action = typeof actionArb extends fc.Arbitrary<infer A> ? A : never;

class World {
  readonly f: Frontier;
  readonly byId = new Map<string, TicketSpec>();
  readonly dependents = new Map<string, string[]>();
  readonly ended = new Map<string, string>();
  readonly settled: SettleInput[] = [];
  now = 0;

  constructor(
    readonly specs: TicketSpec[],
    readonly config: EngineConfig,
  ) {
    this.f = Frontier.create(specs, config, undefined, 0);
    for (const s of specs) {
      this.byId.set(s.id, s);
      this.dependents.set(s.id, []);
    }
    for (const s of specs) for (const d of s.dependsOn) this.dependents.get(d)!.push(s.id);
  }

  status(id: string): Status {
    return this.f.state(id)!.status;
  }

  closure(id: string): Set<string> {
    const out = new Set<string>();
    const queue = [id];
    while (queue.length > 0) {
      for (const d of this.dependents.get(queue.pop()!)!) {
        if (!out.has(d)) {
          out.add(d);
          queue.push(d);
        }
      }
    }
    return out;
  }

  statuses(): Map<string, Status> {
    return new Map(this.specs.map((s) => [s.id, this.status(s.id)]));
  }

  /** A changed-nothing event: same snapshot, nothing to write. */
  expectNoChange(run: () => ReturnType<Frontier["settle"]>): void {
    this.f.drainChanges();
    const before = this.f.snapshot();
    const r = run();
    expect(r.kind).not.toBe("ok");
    expect(this.f.snapshot()).toEqual(before);
    expect(this.f.drainChanges()).toEqual({
      tickets: [],
      attempts: [],
      answers: [],
      log: [],
      run: false,
    });
  }

  apply(a: Action): void {
    const f = this.f;
    switch (a.kind) {
      case "claim": {
        const before = this.statuses();
        const claims = f.claimReady(this.now, a.by, (t, n) => `${t}#${n}`);
        for (const c of claims) {
          // no dependent ever starts before all of its dependencies are complete
          for (const d of this.byId.get(c.ticket)!.dependsOn)
            expect(SATISFIED.has(this.status(d))).toBe(true);
          expect(before.get(c.ticket)).toBe("ready");
          expect(c.attempt).toBe(f.state(c.ticket)!.attempts.length);
        }
        // claims come out in dispatch order: priority, remaining critical path, file order
        const remaining = remainingPaths(f);
        const key = (id: string) => {
          const spec = this.byId.get(id)!;
          return [-spec.priority, -(remaining(id) ?? 0), spec.order];
        };
        for (let k = 1; k < claims.length; k++) {
          const [x, y] = [key(claims[k - 1]!.ticket), key(claims[k]!.ticket)];
          const cmp = x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
          expect(cmp).toBeLessThan(0);
        }
        // only max_parallel, an overlapping write_scope, the same agent and the run bound hold a ready ticket back
        const live = f.claimedIds().map((id) => this.byId.get(id)!);
        const full =
          this.config.maxParallel !== undefined && live.length >= this.config.maxParallel;
        const spent = f.spentBound(this.now) !== undefined || f.runRecord().cancelled !== undefined;
        for (const id of f.readyIds()) {
          const spec = this.byId.get(id)!;
          const conflict = live.some(
            (o) =>
              (spec.agent !== undefined && o.agent === spec.agent) ||
              scopesOverlap(compileScope(spec.writeScope), compileScope(o.writeScope)),
          );
          expect(full || spent || conflict).toBe(true);
        }
        break;
      }
      case "settle": {
        const live = f.claimedIds();
        if (live.length === 0) return;
        const id = live[a.pick % live.length]!;
        const input: SettleInput = {
          ticket: id,
          attempt: f.state(id)!.attempt,
          outcome: a.outcome,
          reason: "r",
        };
        if (a.outcome === "suspended") input.question = `q-${id}`;
        const before = this.statuses();
        const downstream = this.closure(id);
        const r = f.settle(input, this.now);
        expect(r.kind).toBe("ok");
        this.settled.push(input);
        const after = this.statuses();
        if (OWN_BAD.has(after.get(id)!)) {
          // a failure blocks exactly its transitive dependents and names the right root
          for (const [t, s] of after) {
            if (t === id) continue;
            if (downstream.has(t)) {
              expect(s).toBe("blocked");
              if (before.get(t) !== "blocked") expect(f.state(t)!.blocked_by?.root).toBe(id);
            } else {
              expect(s).toBe(before.get(t));
            }
          }
        }
        break;
      }
      case "replay": {
        if (this.settled.length === 0) return;
        const input = this.settled[a.pick % this.settled.length]!;
        this.expectNoChange(() => f.settle(input, this.now));
        break;
      }
      case "stale": {
        const id = this.specs[a.pick % this.specs.length]!.id;
        const s = f.state(id)!;
        if (s.status === "claimed" && a.delta === 0) return;
        const attempt = s.attempt + a.delta;
        this.expectNoChange(() => f.settle({ ticket: id, attempt, outcome: "complete" }, this.now));
        break;
      }
      case "answer": {
        const suspended = this.specs.filter((s) => this.status(s.id) === "suspended");
        if (suspended.length === 0) return;
        const id = suspended[a.pick % suspended.length]!.id;
        expect(f.answer(id, "yes", "sam", this.now).kind).toBe("ok");
        expect(this.status(id)).toBe("ready");
        break;
      }
      case "retry": {
        const id = this.specs[a.pick % this.specs.length]!.id;
        const was = this.status(id);
        const r = f.retry(id, "sam", this.now);
        const allowed = OWN_BAD.has(was) && f.runRecord().cancelled === undefined;
        expect(r.kind).toBe(allowed ? "ok" : "rejected");
        if (r.kind === "rejected")
          expect(refusalWords(r.why)).toMatch(new RegExp(`^(${id} |the run was cancelled)`));
        break;
      }
      case "expire": {
        this.now += a.tick;
        f.expire(this.now, (_t, by) => a.killW2 && by === "w2");
        break;
      }
      case "interrupt": {
        const live = f.claimedIds();
        if (live.length === 0) return;
        const id = live[a.pick % live.length]!;
        expect(f.interrupt(id, f.state(id)!.attempt, this.now).kind).toBe("ok");
        break;
      }
      case "cancel": {
        const wasCancelled = f.runRecord().cancelled !== undefined;
        const r = f.cancel("sam", this.now);
        expect(r.kind).toBe(wasCancelled ? "stale" : "ok");
        const open = this.specs.filter((t) =>
          ["pending", "ready", "claimed", "suspended"].includes(this.status(t.id)),
        );
        expect(open).toEqual([]);
        expect(f.claimReady(this.now, "w1", (t, n) => `${t}#${n}`)).toEqual([]);
        break;
      }
    }
  }

  /** The rules that hold after every event. */
  checkInvariants(): void {
    const f = this.f;
    const tally: Partial<Record<Status, number>> = {};
    const claimed: TicketSpec[] = [];
    for (const spec of this.specs) {
      const s = f.state(spec.id)!;
      tally[s.status] = (tally[s.status] ?? 0) + 1;
      const depStatus = spec.dependsOn.map((d) => this.status(d));
      switch (s.status) {
        case "claimed":
        case "suspended":
        case "complete":
        case "empty":
          expect(depStatus.every((d) => SATISFIED.has(d))).toBe(true);
          break;
        case "ready":
          expect(depStatus.every((d) => SATISFIED.has(d))).toBe(true);
          break;
        case "pending":
          expect(depStatus.some((d) => !SATISFIED.has(d))).toBe(true);
          expect(depStatus.some((d) => BAD.has(d))).toBe(false);
          break;
        case "blocked": {
          const b = s.blocked_by!;
          expect(spec.dependsOn).toContain(b.ticket);
          const direct = f.state(b.ticket)!;
          expect(BAD.has(direct.status)).toBe(true);
          expect(b.kind).toBe(`dep-${direct.status}`);
          expect(b.root).toBe(direct.status === "blocked" ? direct.blocked_by!.root : b.ticket);
          expect(OWN_BAD.has(this.status(b.root))).toBe(true);
          break;
        }
        default:
          break;
      }
      if (s.status === "claimed") claimed.push(spec);
      // attempts are immutable
      for (const rec of s.attempts) {
        if (rec.outcome === undefined) continue;
        const key = `${spec.id}/${rec.n}`;
        const json = JSON.stringify(rec);
        expect(this.ended.get(key) ?? json).toBe(json);
        this.ended.set(key, json);
      }
      expect(s.attempts.map((x) => x.n)).toEqual(s.attempts.map((_, k) => k + 1));
    }
    const counts = f.counts();
    for (const [status, n] of Object.entries(counts)) expect(tally[status as Status] ?? 0).toBe(n);
    // no cap is ever exceeded
    if (this.config.maxParallel !== undefined)
      expect(claimed.length).toBeLessThanOrEqual(this.config.maxParallel);
    const bound = this.config.bound?.dispatches;
    if (bound !== undefined) expect(f.runRecord().dispatched).toBeLessThanOrEqual(bound);
    for (let x = 0; x < claimed.length; x++) {
      for (let y = x + 1; y < claimed.length; y++) {
        const a = claimed[x]!;
        const b = claimed[y]!;
        if (a.agent !== undefined) expect(a.agent).not.toBe(b.agent);
        expect(scopesOverlap(compileScope(a.writeScope), compileScope(b.writeScope))).toBe(false);
      }
    }
  }

  /** Run on with the given outcomes until nothing more can happen. */
  finish(outcomes: Outcome[]): void {
    let k = 0;
    for (let guard = 0; guard < 2_000; guard++) {
      this.f.claimReady(this.now, "w1", (t, n) => `${t}#${n}`);
      const live = this.f.claimedIds();
      if (live.length === 0) return;
      for (const id of live) {
        const outcome = outcomes[k++ % outcomes.length] ?? "complete";
        const input: SettleInput = { ticket: id, attempt: this.f.state(id)!.attempt, outcome };
        if (outcome === "suspended") input.question = `q-${id}`;
        this.f.settle(input, this.now);
      }
      this.checkInvariants();
    }
    throw new Error("the run did not come to rest");
  }
}

const scenarioArb = fc.record({
  specs: graphArb,
  config: configArb,
  actions: fc.array(actionArb, { maxLength: 80 }),
  tail: fc.array(fc.constantFrom(...OUTCOMES, "complete", "complete", "complete"), {
    minLength: 1,
    maxLength: 10,
  }),
});

function worldOf(
  specs: TicketSpec[],
  c: { maxParallel?: number; retries?: number; dispatches?: number },
): World {
  const config: EngineConfig = { run: "prop", leaseMs: 30 };
  if (c.maxParallel !== undefined) config.maxParallel = c.maxParallel;
  if (c.retries !== undefined) config.retries = c.retries;
  if (c.dispatches !== undefined) config.bound = { dispatches: c.dispatches };
  return new World(specs, config);
}

describe("properties over random graphs and random event sequences", () => {
  it("every rule holds after every event, and the run comes to rest with a reason for every open ticket", () => {
    fc.assert(
      fc.property(scenarioArb, ({ specs, config, actions, tail }) => {
        const w = worldOf(specs, config);
        w.checkInvariants();
        for (const a of actions) {
          w.apply(a);
          w.checkInvariants();
        }
        w.finish(tail);
        const f = w.f;
        expect(f.runState(w.now)).not.toBe("running");
        const remainder = remainderOf(f, w.now);
        const open = specs.filter((s) => !SATISFIED.has(w.status(s.id))).map((s) => s.id);
        expect(remainder.map((r) => r.id).sort()).toEqual(open.sort());
        for (const r of remainder) {
          expect(r.waiting_on.trim()).not.toBe("");
          expect([
            "failed",
            "blocked",
            "limited",
            "cancelled",
            "suspended",
            "pending",
            "ready",
          ]).toContain(r.status);
          // what is still ready or pending at rest is held by the bound or a question
          if (r.status === "ready") expect(r.waiting_on).toMatch(/^run bound spent: /);
        }
        expect(() => SavedState.parse(f.snapshot())).not.toThrow();
      }),
      { numRuns: runs(300) },
    );
  });

  it("a snapshot resumes to the same state, and resuming changes nothing", () => {
    fc.assert(
      fc.property(scenarioArb, ({ specs, config, actions }) => {
        const w = worldOf(specs, config);
        for (const a of actions) w.apply(a);
        const snap = w.f.snapshot();
        const g = Frontier.create(specs, w.config, snap, w.now);
        expect(g.snapshot()).toEqual(snap);
        expect(g.counts()).toEqual(w.f.counts());
        expect(g.readyIds()).toEqual(w.f.readyIds());
        expect(g.drainChanges().tickets).toEqual([]);
      }),
      { numRuns: runs(150) },
    );
  });

  it("with no caps, everything whose dependencies are satisfied is claimed on the next call", () => {
    fc.assert(
      fc.property(graphArb, (specs) => {
        const plain = specs.map((s) => ({ ...s, agent: undefined, writeScope: [] }));
        const f = Frontier.create(plain, { run: "prop" }, undefined, 0);
        const claims = f.claimReady(0, "w", (t, n) => `${t}#${n}`);
        const roots = plain.filter((s) => s.dependsOn.length === 0).map((s) => s.id);
        expect(claims.map((c) => c.ticket).sort()).toEqual(roots.sort());
      }),
      { numRuns: runs(100) },
    );
  });
});
