/**
 * What a local run leaves for later (src/local/deferred.ts): only what the next load
 * derives on its own — tickets that became pending, ready or blocked, and a run record
 * whose dispatch count alone changed. Everything a kill could need is written at once.
 */
import { describe, expect, it } from "vitest";
import type { Changes } from "../../src/core/engine.js";
import type { RunRecord, Status } from "../../src/core/model.js";
import { DeferredWrites } from "../../src/local/deferred.js";

function view(statuses: Record<string, Status>, run: RunRecord) {
  return {
    state: (id: string) => (statuses[id] === undefined ? undefined : { status: statuses[id]! }),
    runRecord: () => run,
  };
}

function changes(tickets: string[], run = false): Changes {
  return { tickets, attempts: [], answers: [], log: [], run };
}

const record = (dispatched: number, extra: Partial<RunRecord> = {}): RunRecord => ({
  schema: "ticket-frontier/run@1",
  run: "r",
  dispatched,
  ...extra,
});

describe("deferred writes", () => {
  it("writes claimed and closed tickets at once; ready, pending and blocked ones wait", () => {
    const d = new DeferredWrites();
    const statuses: Record<string, Status> = {
      a: "claimed",
      b: "ready",
      c: "complete",
      d: "pending",
      e: "blocked",
      f: "failed",
      g: "suspended",
    };
    const now = d.take(changes(Object.keys(statuses)), view(statuses, record(1)));
    expect(now.tickets).toEqual(["a", "c", "f", "g"]);
    expect(d.owed).toBe(3);
    expect(d.flush().tickets.sort()).toEqual(["b", "d", "e"]);
    expect(d.owed).toBe(0);
  });

  it("a waiting ticket written later (claimed) is no longer owed at the end", () => {
    const d = new DeferredWrites();
    const statuses: Record<string, Status> = { a: "ready", b: "ready" };
    d.take(changes(["a", "b"]), view(statuses, record(0)));
    statuses.a = "claimed";
    expect(d.take(changes(["a"]), view(statuses, record(1))).tickets).toEqual(["a"]);
    expect(d.flush().tickets).toEqual(["b"]);
  });

  it("keeps attempts, answers and worklog lines in the batch they belong to", () => {
    const d = new DeferredWrites();
    const c: Changes = {
      tickets: ["a"],
      attempts: [{ ticket: "a", record: { n: 1, claim: "x", claimed_by: "me", started_at: "t" } }],
      answers: [],
      log: [{ at: "t", event: "promote", ticket: "a" }],
      run: false,
    };
    const now = d.take(c, view({ a: "ready" }, record(1)));
    expect(now.attempts).toBe(c.attempts);
    expect(now.log).toBe(c.log);
    expect(now.tickets).toEqual([]);
  });

  it("writes the run record first and whenever more than its dispatch count changes", () => {
    const d = new DeferredWrites();
    const v = (run: RunRecord) => view({}, run);
    expect(d.take(changes([], true), v(record(3))).run).toBe(true);
    expect(d.take(changes([], true), v(record(4))).run).toBe(false);
    expect(d.take(changes([], true), v(record(5))).run).toBe(false);
    // a cancel (or any other field) is written at once
    expect(d.take(changes([], true), v(record(5, { cancelled: { by: "me", at: "t" } }))).run).toBe(
      true,
    );
    expect(d.flush().run).toBe(false);
    expect(d.take(changes([], true), v(record(6, { cancelled: { by: "me", at: "t" } }))).run).toBe(
      false,
    );
    expect(d.flush().run).toBe(true);
    expect(d.flush().run).toBe(false);
  });
});

describe("a dispatch count owed while a ticket file cannot be written", () => {
  it("is handed out at once by takeRun, once, and no longer owed at the end", () => {
    const d = new DeferredWrites();
    d.take(changes([], true), view({}, record(1)));
    // only the count changed: it waits
    expect(d.take(changes([], true), view({}, record(2))).run).toBe(false);
    expect(d.takeRun()).toEqual(changes([], true));
    expect(d.takeRun()).toBeUndefined();
    expect(d.flush().run).toBe(false);
  });
});
