/**
 * SPEC §4: "Each event costs time in proportion to the tickets it touches, not to
 * the graph." Measured without a clock: by what an event reports changed, and by
 * counting how often the engine reads a ticket's spec during the event.
 */
import { describe, expect, it } from "vitest";
import { Frontier } from "../../src/core/engine.js";
import type { TicketSpec } from "../../src/core/model.js";
import { ticket, token } from "../core/engine.fixtures.js";

/** `width` independent tickets, plus a hub with three dependents and a grandchild. */
function wide(width: number, reads: { n: number }): TicketSpec[] {
  const specs: TicketSpec[] = [
    ticket("hub"),
    ticket("kid1", ["hub"]),
    ticket("kid2", ["hub"]),
    ticket("kid3", ["hub", "w0"]),
    ticket("grandkid", ["kid1"]),
  ];
  for (let i = 0; i < width; i++) specs.push(ticket(`w${i}`));
  return specs.map(
    (s, order) =>
      new Proxy(
        { ...s, order },
        {
          get(target, key, receiver) {
            reads.n++;
            return Reflect.get(target, key, receiver);
          },
        },
      ),
  );
}

function started(width: number, maxParallel?: number) {
  const reads = { n: 0 };
  const f = Frontier.create(wide(width, reads), { run: "wide", maxParallel }, undefined, 0);
  f.claimReady(0, "runner", token);
  f.drainChanges();
  reads.n = 0;
  return { f, reads };
}

describe("an event touches only its neighbours", () => {
  it("settling one ticket in a 50,000-ticket wide graph changes only it and its dependents", () => {
    const { f } = started(50_000);
    const done = f.settle({ ticket: "hub", attempt: 1, outcome: "complete" }, 1);
    expect(done).toEqual({ kind: "ok", changed: ["hub", "kid1", "kid2"] });
    expect(f.drainChanges().tickets).toEqual(["hub", "kid1", "kid2"]);
    const fail = f.settle({ ticket: "w0", attempt: 1, outcome: "failed" }, 2);
    expect(fail).toEqual({ kind: "ok", changed: ["w0", "kid3"] });
    expect(f.drainChanges().tickets).toEqual(["w0", "kid3"]);
  });

  it("settles and a retry read as many specs in a graph of 50,000 as in a graph of 100", () => {
    const cost = (width: number) => {
      const { f, reads } = started(width);
      f.settle({ ticket: "w0", attempt: 1, outcome: "complete" }, 1);
      f.settle({ ticket: "hub", attempt: 1, outcome: "failed" }, 1);
      f.retry("hub", "sam", 2);
      return reads.n;
    };
    const small = cost(100);
    expect(small).toBeGreaterThan(0);
    expect(cost(50_000)).toBe(small);
  });

  it("claiming with every slot taken, and sweeping two claims, do not grow with the graph", () => {
    const cost = (width: number) => {
      const { f, reads } = started(width, 2);
      f.claimReady(1, "runner", token);
      f.expire(2);
      f.settle({ ticket: "hub", attempt: 1, outcome: "complete" }, 3);
      f.claimReady(4, "runner", token);
      return reads.n;
    };
    const small = cost(100);
    const large = cost(50_000);
    // the next claim pops from a heap: it may grow with log N, never with N
    expect(large).toBeLessThan(small * 3);
  });

  it("a failure at the top of a 20,000-ticket chain blocks all of it in one event", () => {
    const specs = Array.from({ length: 20_000 }, (_, i) =>
      ticket(`c${i}`, i === 0 ? [] : [`c${i - 1}`], { order: i }),
    );
    const f = Frontier.create(specs, { run: "chain" }, undefined, 0);
    f.claimReady(0, "runner", token);
    const r = f.settle({ ticket: "c0", attempt: 1, outcome: "failed" }, 1);
    expect(r.kind === "ok" && r.changed.length).toBe(20_000);
    expect(f.blockerGroups()).toEqual([
      { root: "c0", root_status: "failed", tickets: specs.slice(1).map((s) => s.id) },
    ]);
    expect(f.state("c19999")?.blocked_by).toEqual({
      ticket: "c19998",
      kind: "dep-blocked",
      root: "c0",
    });
  });
});
