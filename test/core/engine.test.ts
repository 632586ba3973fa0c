/**
 * SPEC §3–4, one `describe` per rule, in a world where no time passes: `now` is a number.
 */
import { describe, expect, it } from "vitest";
import { Frontier } from "../../src/core/engine.js";
import { SavedState } from "../../src/core/model.js";
import { remainderOf } from "../../src/report/remainder.js";
import { buildContext } from "../../src/tickets/context.js";
import {
  claimAll,
  claimedIds,
  duration,
  engine,
  inOrder,
  MIN,
  remainingPaths,
  runToEnd,
  said,
  settle,
  ticket,
  token,
} from "./engine.fixtures.js";

const chain = () => inOrder(ticket("a"), ticket("b", ["a"]), ticket("c", ["b"]));

describe("a ticket whose depends_on are all complete is ready; the others are pending", () => {
  it("starts roots ready and dependents pending", () => {
    const f = engine(chain());
    expect(f.state("a")?.status).toBe("ready");
    expect(f.state("b")?.status).toBe("pending");
    expect(f.state("c")?.status).toBe("pending");
  });

  it("promotes a dependent only when its last dependency completes", () => {
    const f = engine(inOrder(ticket("a"), ticket("b"), ticket("c", ["a", "b"])));
    claimAll(f);
    settle(f, "a", "complete");
    expect(f.state("c")?.status).toBe("pending");
    settle(f, "b", "complete");
    expect(f.state("c")?.status).toBe("ready");
  });
});

describe("complete and empty satisfy dependents; empty is never reported as done", () => {
  it("an empty ticket readies its dependents", () => {
    const f = engine(chain());
    claimAll(f);
    expect(settle(f, "a", "empty")).toMatchObject({ kind: "ok" });
    expect(f.state("a")?.status).toBe("empty");
    expect(f.state("b")?.status).toBe("ready");
  });

  it("empty is counted apart from complete", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")));
    claimAll(f);
    settle(f, "a", "empty");
    settle(f, "b", "complete");
    expect(f.counts()).toMatchObject({ empty: 1, complete: 1 });
    expect(f.runState(0)).toBe("complete");
  });

  it("neither complete nor empty is in the open remainder", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")));
    claimAll(f);
    settle(f, "a", "empty");
    settle(f, "b", "complete");
    expect(remainderOf(f, 0)).toEqual([]);
  });
});

describe("when a ticket fails, is limited, is cancelled or is blocked, its dependents are closed at once as blocked", () => {
  it("names the direct dependency, dep-failed and the root", () => {
    const f = engine(chain());
    claimAll(f);
    const r = settle(f, "a", "failed");
    expect(r).toEqual({ kind: "ok", changed: ["a", "b", "c"] });
    expect(f.state("b")).toMatchObject({
      status: "blocked",
      blocked_by: { ticket: "a", kind: "dep-failed", root: "a" },
    });
    expect(f.state("c")).toMatchObject({
      status: "blocked",
      blocked_by: { ticket: "b", kind: "dep-blocked", root: "a" },
    });
  });

  it("dep-limited when the dependency's own bound ran out", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "limited", 0, { reason: "5 tool calls spent" });
    expect(f.state("a")?.status).toBe("limited");
    expect(f.state("b")?.blocked_by).toEqual({ ticket: "a", kind: "dep-limited", root: "a" });
    expect(f.state("c")?.blocked_by).toEqual({ ticket: "b", kind: "dep-blocked", root: "a" });
  });

  it("dep-cancelled when a dependency was cancelled (a saved cancelled ticket)", () => {
    const specs = chain();
    const f0 = engine(specs);
    const snap = f0.snapshot();
    snap.tickets.a = { ...snap.tickets.a!, status: "cancelled", reason: "run cancelled by sam" };
    const f = Frontier.create(specs, { run: "test" }, snap, 0);
    expect(f.state("b")?.blocked_by).toEqual({ ticket: "a", kind: "dep-cancelled", root: "a" });
    expect(f.state("c")?.blocked_by).toEqual({ ticket: "b", kind: "dep-blocked", root: "a" });
  });

  it("one failure blocking twenty tickets is reported as one cause with twenty dependents", () => {
    const deps = Array.from({ length: 20 }, (_, k) =>
      ticket(`d${k}`, k % 2 === 0 ? ["root"] : [`d${k - 1}`]),
    );
    const f = engine(inOrder(ticket("root"), ...deps, ticket("other")));
    claimAll(f);
    settle(f, "root", "failed", 0, { reason: "tests red" });
    expect(f.blockerGroups()).toEqual([
      { root: "root", root_status: "failed", reason: "tests red", tickets: deps.map((d) => d.id) },
    ]);
  });

  it("a ticket already blocked keeps its first blocker", () => {
    const f = engine(inOrder(ticket("a"), ticket("b"), ticket("c", ["a", "b"])));
    claimAll(f);
    settle(f, "a", "failed");
    settle(f, "b", "failed");
    expect(f.state("c")?.blocked_by).toEqual({ ticket: "a", kind: "dep-failed", root: "a" });
  });

  it("groups blocked tickets by root in file order of the roots", () => {
    const f = engine(
      inOrder(
        ticket("x"),
        ticket("y"),
        ticket("x1", ["x"]),
        ticket("y1", ["y"]),
        ticket("y2", ["y1"]),
      ),
    );
    claimAll(f);
    settle(f, "y", "limited");
    settle(f, "x", "failed", 0, { reason: "boom" });
    expect(f.blockerGroups()).toEqual([
      { root: "x", root_status: "failed", reason: "boom", tickets: ["x1"] },
      { root: "y", root_status: "limited", tickets: ["y1", "y2"] },
    ]);
  });
});

describe("a failure blocks exactly its dependents; the rest of the graph rolls on", () => {
  it("siblings and unrelated branches keep running", () => {
    const f = engine(
      inOrder(
        ticket("a"),
        ticket("b"),
        ticket("a1", ["a"]),
        ticket("b1", ["b"]),
        ticket("ab", ["a", "b"]),
      ),
    );
    claimAll(f);
    settle(f, "a", "failed");
    expect(f.state("a1")?.status).toBe("blocked");
    expect(f.state("ab")?.status).toBe("blocked");
    settle(f, "b", "complete");
    expect(f.state("b1")?.status).toBe("ready");
    expect(claimedIds(claimAll(f))).toEqual(["b1"]);
    expect(f.runState(0)).toBe("running");
    settle(f, "b1", "complete");
    expect(f.runState(0)).toBe("failed");
  });

  it("nothing is re-ordered to dodge a failure: a blocked ticket is never claimed", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "failed");
    expect(claimAll(f)).toEqual([]);
    expect(f.readyIds()).toEqual([]);
  });
});

describe("a suspended ticket is neither complete nor failed; an answer re-readies it", () => {
  it("parks on its question; dependents wait; it holds no cap and never goes stale", () => {
    const f = engine(chain(), { maxParallel: 1 });
    claimAll(f, 0);
    settle(f, "a", "suspended", 0, { question: "which database?" });
    expect(f.state("a")).toMatchObject({ status: "suspended", reason: "which database?" });
    expect(f.state("b")?.status).toBe("pending");
    expect(f.claimedIds()).toEqual([]);
    expect(f.expire(10 * 24 * 60 * MIN)).toEqual({ kind: "ok", changed: [] });
    expect(f.state("a")?.status).toBe("suspended");
    expect(f.runState(0)).toBe("suspended");
    expect(remainderOf(f, 0)[0]).toEqual({
      id: "a",
      status: "suspended",
      waiting_on: "question: which database?",
    });
  });

  it("an answer is recorded as a new immutable input and the next attempt follows", () => {
    const f = engine(chain());
    claimAll(f, 0);
    settle(f, "a", "suspended", 0, { question: "which database?" });
    f.drainChanges();
    expect(f.answer("a", "postgres", "sam", 7)).toEqual({ kind: "ok", changed: ["a"] });
    const changes = f.drainChanges();
    const answer = {
      n: 1,
      attempt: 1,
      question: "which database?",
      text: "postgres",
      by: "sam",
      at: new Date(7).toISOString(),
    };
    expect(changes.answers).toEqual([{ ticket: "a", record: answer }]);
    expect(f.state("a")).toMatchObject({ status: "ready", answers: [answer] });
    const [claim] = claimAll(f, 8);
    expect(claim).toMatchObject({ ticket: "a", attempt: 2 });
    expect(f.state("a")?.attempts[0]).toMatchObject({
      n: 1,
      outcome: "suspended",
      question: "which database?",
    });
  });

  it("an answer to a ticket that is not suspended is rejected with a helpful message", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "complete");
    expect(said(f.answer("a", "x", "sam", 1))).toEqual({
      kind: "rejected",
      message: expect.stringContaining("a is complete; nothing to answer"),
    });
    expect(said(f.answer("nope", "x", "sam", 1))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("unknown ticket"),
    });
  });

  it("an answer does not count as a retry", () => {
    const f = engine(inOrder(ticket("a")), { retries: 0 });
    claimAll(f);
    settle(f, "a", "suspended", 0, { question: "q?" });
    f.answer("a", "yes", "sam", 1);
    claimAll(f, 2);
    settle(f, "a", "suspended", 2, { question: "q2?" });
    f.answer("a", "no", "sam", 3);
    claimAll(f, 4);
    expect(f.state("a")).toMatchObject({ status: "claimed", attempt: 3 });
    expect(f.state("a")?.answers.map((a) => a.attempt)).toEqual([1, 2]);
  });
});

describe("attempts are immutable; a retry makes a new attempt and never overwrites an earlier one", () => {
  it("each attempt keeps its number, outcome, reason, who ran it, start and end and result", () => {
    const f = engine(inOrder(ticket("a")), { retries: 1 });
    claimAll(f, 1_000, "job-1");
    settle(f, "a", "failed", 2_000, {
      reason: "flaky",
      by: "job-1",
      usage: { tokens: 10 },
      runUrl: "u1",
    });
    const first = structuredClone(f.state("a")!.attempts[0]);
    claimAll(f, 3_000, "job-2");
    settle(f, "a", "complete", 4_000, {
      resultFile: ".frontier/a/attempt-2.md",
      resultBytes: 12,
      by: "job-2",
    });
    const attempts = f.state("a")!.attempts;
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toEqual(first);
    expect(attempts[0]).toEqual({
      n: 1,
      claim: "a#1",
      claimed_by: "job-1",
      started_at: new Date(1_000).toISOString(),
      ended_at: new Date(2_000).toISOString(),
      outcome: "failed",
      reason: "flaky",
      usage: { tokens: 10 },
      settled_by: "job-1",
      run_url: "u1",
    });
    expect(attempts[1]).toMatchObject({
      n: 2,
      outcome: "complete",
      result_file: ".frontier/a/attempt-2.md",
      result_bytes: 12,
    });
  });

  it("each ended attempt is emitted once for writing", () => {
    const f = engine(inOrder(ticket("a")), { retries: 1 });
    claimAll(f);
    settle(f, "a", "failed");
    expect(f.drainChanges().attempts.map((a) => a.record.n)).toEqual([1]);
    claimAll(f);
    settle(f, "a", "complete");
    expect(f.drainChanges().attempts.map((a) => a.record.n)).toEqual([2]);
    expect(f.drainChanges().attempts).toEqual([]);
  });

  it("the live attempt is in state() without an outcome", () => {
    const f = engine(inOrder(ticket("a")));
    claimAll(f, 5, "me");
    expect(f.state("a")?.attempts).toEqual([
      { n: 1, claim: "a#1", claimed_by: "me", started_at: new Date(5).toISOString() },
    ]);
  });

  it("state() hands out a copy: changing it changes nothing in the engine", () => {
    const f = engine(inOrder(ticket("a")));
    const s = f.state("a") as { status: string };
    s.status = "complete";
    expect(f.state("a")?.status).toBe("ready");
  });
});

describe("automatic retries: a failed attempt within `retries` readies the ticket again", () => {
  it("uses the ticket's retries over the run default", () => {
    const f = engine(inOrder(ticket("a", [], { retries: 2 }), ticket("b")), { retries: 0 });
    claimAll(f);
    settle(f, "a", "failed", 0, { reason: "r1" });
    expect(f.state("a")).toMatchObject({ status: "ready", reason: "r1" });
    settle(f, "b", "failed");
    expect(f.state("b")?.status).toBe("failed");
    claimAll(f);
    settle(f, "a", "failed");
    expect(f.state("a")?.status).toBe("ready");
    claimAll(f);
    settle(f, "a", "failed", 0, { reason: "r3" });
    expect(f.state("a")).toMatchObject({ status: "failed", attempt: 3, reason: "r3" });
  });

  it("dependents are not blocked while a retry is left", () => {
    const f = engine(chain(), { retries: 1 });
    claimAll(f);
    settle(f, "a", "failed");
    expect(f.state("b")?.status).toBe("pending");
    claimAll(f);
    settle(f, "a", "complete");
    expect(f.state("b")?.status).toBe("ready");
  });
});

describe("retrying a failed ticket returns the tickets it had blocked to pending", () => {
  it("reopens the ticket and unblocks its transitive dependents", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "failed");
    const r = f.retry("a", "sam", 1);
    expect(r).toEqual({ kind: "ok", changed: ["a", "b", "c"] });
    expect(f.state("a")?.status).toBe("ready");
    expect(f.state("b")).toEqual(expect.objectContaining({ status: "pending" }));
    expect(f.state("b")?.blocked_by).toBeUndefined();
    expect(f.state("c")?.status).toBe("pending");
    const [c] = claimAll(f, 2);
    expect(c).toMatchObject({ ticket: "a", attempt: 2 });
    expect(f.state("a")?.attempts[0]).toMatchObject({ n: 1, outcome: "failed" });
  });

  it("a dependent with a second failed root stays blocked, now by the other root", () => {
    const f = engine(
      inOrder(ticket("a"), ticket("b"), ticket("c", ["a", "b"]), ticket("d", ["c"])),
    );
    claimAll(f);
    settle(f, "a", "failed");
    settle(f, "b", "failed");
    expect(f.state("d")?.blocked_by).toEqual({ ticket: "c", kind: "dep-blocked", root: "a" });
    f.retry("a", "sam", 1);
    expect(f.state("c")).toMatchObject({
      status: "blocked",
      blocked_by: { ticket: "b", kind: "dep-failed", root: "b" },
    });
    expect(f.state("d")).toMatchObject({
      status: "blocked",
      blocked_by: { ticket: "c", kind: "dep-blocked", root: "b" },
    });
    expect(f.blockerGroups()).toEqual([{ root: "b", root_status: "failed", tickets: ["c", "d"] }]);
  });

  it("the failure budget starts again after a manual retry", () => {
    const f = engine(inOrder(ticket("a", [], { retries: 1 })));
    claimAll(f);
    settle(f, "a", "failed");
    claimAll(f);
    settle(f, "a", "failed");
    expect(f.state("a")?.status).toBe("failed");
    f.retry("a", "sam", 1);
    claimAll(f);
    settle(f, "a", "failed");
    expect(f.state("a")?.status).toBe("ready");
  });

  it("a limited ticket can be retried too", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "limited");
    expect(f.retry("a", "sam", 1)).toMatchObject({ kind: "ok" });
    expect(f.state("b")?.status).toBe("pending");
  });

  it("a ticket behind a closed dependency (a hand-edited state) is rejected, naming what to retry", () => {
    const specs = inOrder(ticket("a"), ticket("b", ["a"]));
    const snap = engine(specs).snapshot();
    snap.tickets.a = { ...snap.tickets.a!, status: "limited" };
    snap.tickets.b = { ...snap.tickets.b!, status: "failed" };
    const f = Frontier.create(specs, { run: "test" }, snap, 0);
    expect(said(f.retry("b", "sam", 1))).toEqual({
      kind: "rejected",
      message: "b depends on a, which is limited; retry a first",
    });
  });

  it("a blocked ticket is rejected, naming its root", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "failed");
    expect(said(f.retry("c", "sam", 1))).toEqual({
      kind: "rejected",
      message: "c is blocked by root a; retry a",
    });
  });

  it("complete, empty, running and pending tickets are rejected with a clear message", () => {
    const f = engine(inOrder(ticket("a"), ticket("e"), ticket("r"), ticket("p", ["r"])));
    claimAll(f);
    settle(f, "a", "complete");
    settle(f, "e", "empty");
    expect(said(f.retry("a", "s", 1))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("a is complete"),
    });
    expect(said(f.retry("e", "s", 1))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("e is empty"),
    });
    expect(said(f.retry("r", "s", 1))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("r is running attempt 1"),
    });
    expect(said(f.retry("p", "s", 1))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("p is pending"),
    });
    expect(said(f.retry("zz", "s", 1))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining('unknown ticket "zz"'),
    });
  });
});

describe("a claim whose lease has expired is reclaimed: failed (reason: lease-expired), and retries apply", () => {
  it("reclaims at the lease, not before", () => {
    const f = engine(chain());
    claimAll(f, 0);
    expect(f.expire(60 * MIN - 1)).toEqual({ kind: "ok", changed: [] });
    expect(f.expire(60 * MIN)).toEqual({ kind: "ok", changed: ["a", "b", "c"] });
    expect(f.state("a")).toMatchObject({ status: "failed", reason: "lease-expired" });
    expect(f.state("a")?.attempts[0]).toMatchObject({ outcome: "failed", reason: "lease-expired" });
    expect(f.state("b")?.blocked_by).toEqual({ ticket: "a", kind: "dep-failed", root: "a" });
  });

  it("the lease is the ticket's bound, else the run's ticket bound, else leaseMs", () => {
    const f = engine(
      inOrder(ticket("own", [], { bound: duration(5 * MIN) }), ticket("dflt"), ticket("other")),
      { ticketBound: duration(10 * MIN) },
    );
    const claims = claimAll(f, 0);
    expect(claims.map((c) => [c.ticket, c.leaseUntil])).toEqual([
      ["dflt", new Date(10 * MIN).toISOString()],
      ["other", new Date(10 * MIN).toISOString()],
      ["own", new Date(5 * MIN).toISOString()],
    ]);
    const g = engine(inOrder(ticket("x")), { leaseMs: 3 * MIN });
    expect(claimAll(g, 0)[0]?.leaseUntil).toBe(new Date(3 * MIN).toISOString());
  });

  it("retries apply to a lease expiry", () => {
    const f = engine(inOrder(ticket("a")), { retries: 1 });
    claimAll(f, 0);
    f.expire(60 * MIN);
    expect(f.state("a")).toMatchObject({ status: "ready", reason: "lease-expired" });
  });

  it("a claim held by a local process that no longer exists is reclaimed at once, not counted as a failure", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")), { retries: 0 });
    claimAll(f, 0, "pid:41");
    const dead = (_t: string, by: string) => by === "pid:41";
    expect(f.expire(1, dead)).toEqual({ kind: "ok", changed: ["a", "b"] });
    expect(f.state("a")).toMatchObject({ status: "ready" });
    expect(f.state("a")?.attempts[0]).toMatchObject({
      outcome: "interrupted",
      reason: "claim holder gone",
    });
    claimAll(f, 2, "pid:42");
    settle(f, "a", "complete", 3);
    expect(f.state("a")).toMatchObject({ status: "complete", attempt: 2 });
  });

  it("Ctrl-C interrupts the live attempt and re-readies it, retries untouched", () => {
    const f = engine(inOrder(ticket("a")), { retries: 0 });
    claimAll(f, 0);
    expect(f.interrupt("a", 1, 1)).toEqual({ kind: "ok", changed: ["a"] });
    expect(f.state("a")?.status).toBe("ready");
    expect(f.interrupt("a", 1, 2)).toMatchObject({ kind: "stale" });
    claimAll(f, 3);
    settle(f, "a", "failed");
    expect(f.state("a")?.status).toBe("failed");
  });
});

describe("a settle for an attempt that is not the ticket's live attempt changes nothing and says so", () => {
  it("a repeated settle is stale and leaves the snapshot and the changes untouched", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "complete", 1);
    f.drainChanges();
    const before = f.snapshot();
    const r = f.settle({ ticket: "a", attempt: 1, outcome: "failed" }, 2);
    expect(said(r)).toEqual({
      kind: "stale",
      message: "settle of a attempt 1 changed nothing: a is complete (attempt 1)",
    });
    expect(f.snapshot()).toEqual(before);
    expect(f.drainChanges()).toEqual({
      tickets: [],
      attempts: [],
      answers: [],
      log: [],
      run: false,
    });
  });

  it("an earlier attempt's settle is stale while a later attempt runs", () => {
    const f = engine(inOrder(ticket("a")), { retries: 1 });
    claimAll(f);
    settle(f, "a", "failed");
    claimAll(f);
    const before = f.snapshot();
    const r = f.settle({ ticket: "a", attempt: 1, outcome: "complete" }, 2);
    expect(said(r)).toEqual({
      kind: "stale",
      message: "settle of a attempt 1 changed nothing: a is running attempt 2",
    });
    expect(f.snapshot()).toEqual(before);
  });

  it("a settle with another claim token is stale", () => {
    const f = engine(inOrder(ticket("a")));
    claimAll(f);
    const before = f.snapshot();
    const r = f.settle({ ticket: "a", attempt: 1, outcome: "complete", claim: "forged" }, 2);
    expect(said(r)).toMatchObject({
      kind: "stale",
      message: expect.stringContaining("claim forged is not the live claim of a attempt 1"),
    });
    expect(f.snapshot()).toEqual(before);
    expect(
      f.settle({ ticket: "a", attempt: 1, outcome: "complete", claim: token("a", 1) }, 3),
    ).toMatchObject({ kind: "ok" });
  });

  it("a settle for an unknown ticket is rejected", () => {
    const f = engine(inOrder(ticket("a")));
    expect(f.settle({ ticket: "b", attempt: 1, outcome: "complete" }, 0)).toMatchObject({
      kind: "rejected",
    });
  });

  it("a redelivered event never dispatches twice", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "complete", 1);
    expect(claimedIds(claimAll(f, 1))).toEqual(["b"]);
    f.settle({ ticket: "a", attempt: 1, outcome: "complete" }, 2);
    expect(claimAll(f, 2)).toEqual([]);
  });
});

describe("the run bound is spent by dispatches; each dispatch is handed what remains", () => {
  it("stops at the dispatch count and says limited with tickets still open", () => {
    const f = engine(inOrder(ticket("a"), ticket("b"), ticket("c")), { bound: { dispatches: 2 } });
    const claims = claimAll(f);
    expect(claims.map((c) => [c.ticket, c.runBound.dispatchesLeft])).toEqual([
      ["a", 1],
      ["b", 0],
    ]);
    settle(f, "a", "complete");
    settle(f, "b", "complete");
    expect(claimAll(f)).toEqual([]);
    expect(f.state("c")?.status).toBe("ready");
    expect(f.runState(0)).toBe("limited");
    expect(remainderOf(f, 0)).toEqual([
      { id: "c", status: "ready", waiting_on: "run bound spent: 2 of 2 dispatches made" },
    ]);
    expect(f.runRecord().dispatched).toBe(2);
  });

  it("retries spend the bound too", () => {
    const f = engine(inOrder(ticket("a", [], { retries: 5 })), { bound: { dispatches: 2 } });
    claimAll(f);
    settle(f, "a", "failed");
    claimAll(f);
    settle(f, "a", "failed");
    expect(claimAll(f)).toEqual([]);
    expect(f.runState(0)).toBe("limited");
  });

  it("stops at the deadline and hands the deadline down", () => {
    const deadline = new Date(100).toISOString();
    const f = engine(inOrder(ticket("a"), ticket("b", ["a"])), { bound: { deadline } });
    const [c] = claimAll(f, 50);
    expect(c?.runBound).toEqual({ deadline });
    settle(f, "a", "complete", 100);
    expect(claimAll(f, 100)).toEqual([]);
    expect(f.runState(99)).toBe("running");
    expect(f.runState(100)).toBe("limited");
  });

  it("a ticket that ran out of its own bound makes the run limited", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")));
    claimAll(f);
    settle(f, "a", "limited");
    settle(f, "b", "complete");
    expect(f.runState(0)).toBe("limited");
    expect(remainderOf(f, 0)).toEqual([
      { id: "a", status: "limited", waiting_on: "its bound ran out" },
    ]);
  });
});

describe("cancel: every open ticket is cancelled; nothing more is dispatched", () => {
  it("cancels pending, ready, claimed and suspended tickets; blocked and closed ones stay", () => {
    const f = engine(
      inOrder(
        ticket("done"),
        ticket("bad"),
        ticket("blk", ["bad"]),
        ticket("run"),
        ticket("ask"),
        ticket("wait", ["run"]),
        ticket("rdy", ["done"]),
      ),
      { maxParallel: 4 },
    );
    claimAll(f, 0);
    settle(f, "done", "complete");
    settle(f, "bad", "failed");
    settle(f, "ask", "suspended", 0, { question: "?" });
    f.drainChanges();
    const r = f.cancel("sam", 5);
    expect(r).toMatchObject({ kind: "ok" });
    const status = Object.fromEntries(f.specs().map((s) => [s.id, f.state(s.id)?.status]));
    expect(status).toEqual({
      done: "complete",
      bad: "failed",
      blk: "blocked",
      run: "cancelled",
      ask: "cancelled",
      wait: "cancelled",
      rdy: "cancelled",
    });
    expect(f.state("run")?.attempts[0]).toMatchObject({
      outcome: "cancelled",
      reason: "run cancelled by sam",
    });
    const changes = f.drainChanges();
    expect(changes.run).toBe(true);
    expect(changes.attempts.map((a) => a.ticket)).toEqual(["run"]);
    expect(f.runRecord().cancelled).toEqual({ by: "sam", at: new Date(5).toISOString() });
    expect(f.claimedIds()).toEqual([]);
    expect(claimAll(f, 6)).toEqual([]);
    expect(f.runState(6)).toBe("cancelled");
    expect(remainderOf(f, 6).find((e) => e.id === "run")).toEqual({
      id: "run",
      status: "cancelled",
      waiting_on: "cancelled by sam",
    });
  });

  it("a second cancel is stale; the run's tickets cannot be retried", () => {
    const f = engine(inOrder(ticket("a")));
    f.cancel("sam", 1);
    expect(said(f.cancel("kim", 2))).toMatchObject({
      kind: "stale",
      message: expect.stringContaining("already cancelled by sam"),
    });
    expect(said(f.retry("a", "kim", 3))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("cancelled by sam"),
    });
  });

  it("a finished run refuses: a complete run stays complete", () => {
    const f = engine(inOrder(ticket("a")));
    claimAll(f);
    settle(f, "a", "complete");
    f.drainChanges();
    expect(said(f.cancel("sam", 2))).toMatchObject({
      kind: "rejected",
      message: expect.stringContaining("has finished (complete)"),
    });
    expect(f.runState(2)).toBe("complete");
    expect(f.runRecord().cancelled).toBeUndefined();
    expect(f.drainChanges().run).toBe(false);
  });

  it("a settle arriving after the cancel is stale", () => {
    const f = engine(inOrder(ticket("a")));
    claimAll(f);
    f.cancel("sam", 1);
    expect(said(settle(f, "a", "complete", 2))).toMatchObject({
      kind: "stale",
      message: expect.stringContaining("a is cancelled"),
    });
  });
});

describe("only max_parallel, an overlapping write_scope, the same agent and the run bound hold a ready ticket back", () => {
  it("max_parallel counts claimed tickets; held-back tickets stay ready and go on the next call", () => {
    const f = engine(inOrder(ticket("a"), ticket("b"), ticket("c")), { maxParallel: 2 });
    expect(claimedIds(claimAll(f))).toEqual(["a", "b"]);
    expect(f.state("c")?.status).toBe("ready");
    expect(claimAll(f)).toEqual([]);
    settle(f, "a", "complete");
    expect(claimedIds(claimAll(f))).toEqual(["c"]);
  });

  it("a suspended ticket holds no slot", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")), { maxParallel: 1 });
    claimAll(f);
    settle(f, "a", "suspended", 0, { question: "?" });
    expect(claimedIds(claimAll(f))).toEqual(["b"]);
  });

  it("an overlapping write_scope holds a ticket back; a disjoint one does not", () => {
    const f = engine(
      inOrder(
        ticket("a", [], { writeScope: ["src"] }),
        ticket("b", [], { writeScope: ["./src/core/engine.ts"] }),
        ticket("c", [], { writeScope: ["docs/**"] }),
        ticket("d", [], { writeScope: ["src/**/*.ts"] }),
        ticket("e"),
      ),
    );
    expect(claimedIds(claimAll(f))).toEqual(["a", "c", "e"]);
    settle(f, "a", "complete");
    expect(claimedIds(claimAll(f))).toEqual(["b"]);
    settle(f, "b", "complete");
    expect(claimedIds(claimAll(f))).toEqual(["d"]);
  });

  it("two tickets naming the same agent never run at the same time", () => {
    const f = engine(
      inOrder(
        ticket("a", [], { agent: "reviewer" }),
        ticket("b", [], { agent: "reviewer" }),
        ticket("c", [], { agent: "writer" }),
      ),
    );
    expect(claimedIds(claimAll(f))).toEqual(["a", "c"]);
    settle(f, "a", "failed");
    expect(claimedIds(claimAll(f))).toEqual(["b"]);
  });

  it("ready tickets are dispatched at once, never held back to batch", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "complete");
    expect(claimedIds(claimAll(f))).toEqual(["b"]);
  });
});

describe("when caps hold tickets back: higher priority, then longer remaining critical path, then file order", () => {
  it("orders by priority first", () => {
    const f = engine(
      inOrder(
        ticket("low"),
        ticket("high", [], { priority: 5 }),
        ticket("mid", [], { priority: 1 }),
      ),
      { maxParallel: 1 },
    );
    expect(f.readyIds()).toEqual(["high", "mid", "low"]);
    expect(claimedIds(claimAll(f))).toEqual(["high"]);
  });

  it("then by the longer remaining critical path", () => {
    const f = engine(
      inOrder(
        ticket("short"),
        ticket("long"),
        ticket("long1", ["long"]),
        ticket("heavy", [], { bound: duration(3 * 60 * MIN) }),
      ),
      { maxParallel: 1 },
    );
    // heavy: 3h; long: 1h + 1h; short: 1h
    expect(f.readyIds()).toEqual(["heavy", "long", "short"]);
    expect(remainingPaths(f)("long")).toBe(120 * MIN);
  });

  it("then by file order", () => {
    const f = engine(inOrder(ticket("z"), ticket("y"), ticket("x")), { maxParallel: 2 });
    expect(claimedIds(claimAll(f))).toEqual(["z", "y"]);
  });
});

describe("waves and the critical path", () => {
  it("waves are Kahn levels: 1 + the highest wave of its dependencies", () => {
    const f = engine(
      inOrder(
        ticket("a"),
        ticket("b"),
        ticket("c", ["a"]),
        ticket("d", ["c", "b"]),
        ticket("e", ["b"]),
      ),
    );
    expect(f.waves()).toEqual([["a", "b"], ["c", "e"], ["d"]]);
  });

  it("the critical path is the longest weighted path, source to sink", () => {
    const f = engine(
      inOrder(
        ticket("a", [], { bound: duration(MIN) }),
        ticket("b", [], { bound: duration(MIN) }),
        ticket("c", ["a"], { bound: duration(MIN) }),
        ticket("d", ["b"], { bound: duration(10 * MIN) }),
        ticket("e", ["c", "d"], { bound: duration(MIN) }),
      ),
    );
    expect(f.criticalPath()).toEqual(["b", "d", "e"]);
  });

  it("an empty graph has no waves and no path, and is complete", () => {
    const f = engine([]);
    expect(f.waves()).toEqual([]);
    expect(f.criticalPath()).toEqual([]);
    expect(f.runState(0)).toBe("complete");
  });
});

describe("run state: not started, running while anything is ready or claimed; else the first match of cancelled, failed, limited, suspended, complete", () => {
  it("running while a ticket is claimed, even with the bound spent", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")), { bound: { dispatches: 1 } });
    claimAll(f);
    expect(f.runState(0)).toBe("running");
    settle(f, "a", "complete");
    expect(f.runState(0)).toBe("limited");
  });

  it("failed before limited before suspended: a failed run still lists its question and spent bound", () => {
    const f = engine(inOrder(ticket("l"), ticket("s"), ticket("x")));
    claimAll(f);
    settle(f, "l", "limited");
    settle(f, "s", "suspended", 0, { question: "which?" });
    settle(f, "x", "failed");
    expect(f.runState(0)).toBe("failed");
    expect(remainderOf(f, 0).map((r) => r.status)).toEqual(["limited", "suspended", "failed"]);
    f.retry("x", "sam", 0);
    claimAll(f);
    settle(f, "x", "complete");
    expect(f.runState(0)).toBe("limited");
    f.retry("l", "sam", 0);
    claimAll(f);
    settle(f, "l", "complete");
    expect(f.runState(0)).toBe("suspended");
  });

  it("not started before the first dispatch; running once one is claimed", () => {
    const f = engine(chain());
    expect(f.runState(0)).toBe("not started");
    claimAll(f);
    expect(f.runState(0)).toBe("running");
  });

  it("cancelled wins over everything once nothing runs", () => {
    const f = engine(inOrder(ticket("l"), ticket("x"), ticket("y")), { bound: { dispatches: 2 } });
    claimAll(f);
    settle(f, "l", "limited");
    f.cancel("sam", 1);
    expect(f.runState(1)).toBe("cancelled");
  });

  it("a pending ticket waiting on a suspended one leaves the run suspended", () => {
    const f = engine(chain());
    claimAll(f);
    settle(f, "a", "suspended", 0, { question: "why?" });
    expect(f.runState(0)).toBe("suspended");
  });

  it("blocked alone is failed; all done is complete", () => {
    const f = engine(chain());
    runToEnd(f, () => "complete");
    expect(f.runState(0)).toBe("complete");
  });
});

describe("the open remainder is every ticket not complete or empty, each with what holds it", () => {
  it("says it in words", () => {
    const f = engine(
      inOrder(
        ticket("a"),
        ticket("b", ["a"]),
        ticket("c", ["b"]),
        ticket("q"),
        ticket("r"),
        ticket("p1", ["r", "q"]),
        ticket("s"),
        ticket("t"),
        ticket("done"),
      ),
      { maxParallel: 5 },
    );
    claimAll(f, 0, "job-7");
    settle(f, "a", "failed", 0, { reason: "exit 1" });
    settle(f, "q", "suspended", 0, { question: "which port?" });
    settle(f, "t", "complete");
    expect(remainderOf(f, 0)).toEqual([
      { id: "a", status: "failed", waiting_on: "failed: exit 1" },
      { id: "b", status: "blocked", waiting_on: "a failed" },
      { id: "c", status: "blocked", waiting_on: "a failed (via b)" },
      { id: "q", status: "suspended", waiting_on: "question: which port?" },
      { id: "r", status: "claimed", waiting_on: "running attempt 1 (job-7)" },
      { id: "p1", status: "pending", waiting_on: "waiting on r, q" },
      { id: "s", status: "claimed", waiting_on: "running attempt 1 (job-7)" },
      { id: "done", status: "ready", waiting_on: "ready" },
    ]);
  });
});

describe("the remainder names the root's own ending for a blocked ticket", () => {
  it("a limited root and a cancelled root", () => {
    const specs = inOrder(
      ticket("lim"),
      ticket("lim1", ["lim"]),
      ticket("can"),
      ticket("can1", ["can"]),
      ticket("can2", ["can1"]),
    );
    const f = engine(specs);
    const snap = f.snapshot();
    snap.tickets.can = {
      ...snap.tickets.can!,
      status: "cancelled",
      reason: "run cancelled by kim",
    };
    const g = Frontier.create(specs, { run: "test" }, snap, 0);
    claimAll(g);
    settle(g, "lim", "limited");
    expect(remainderOf(g, 0).map((r) => [r.id, r.waiting_on])).toEqual([
      ["lim", "its bound ran out"],
      ["lim1", "lim limited"],
      ["can", "run cancelled by kim"],
      ["can1", "can cancelled"],
      ["can2", "can cancelled (via can1)"],
    ]);
  });
});

describe("create: resume from a saved state, normalised in one pass", () => {
  it("a snapshot round-trips through SavedState and resumes where it stopped", () => {
    const specs = chain();
    const f = engine(specs, { retries: 1 });
    claimAll(f, 1);
    settle(f, "a", "failed", 2);
    claimAll(f, 3);
    const snap = f.snapshot();
    expect(SavedState.parse(snap)).toEqual(snap);
    const g = Frontier.create(specs, { run: "test", retries: 1 }, snap, 4);
    expect(g.snapshot()).toEqual(snap);
    expect(g.drainChanges()).toEqual({
      tickets: [],
      attempts: [],
      answers: [],
      log: [],
      run: false,
    });
    expect(g.claimedIds()).toEqual(["a"]);
    settle(g, "a", "failed", 5);
    expect(g.state("a")?.status).toBe("failed");
  });

  it("a ticket missing from the saved state starts fresh", () => {
    const f = engine(inOrder(ticket("a")));
    const snap = f.snapshot();
    const g = Frontier.create(inOrder(ticket("a"), ticket("new", ["a"])), { run: "test" }, snap, 1);
    expect(g.state("new")).toMatchObject({
      status: "pending",
      attempt: 0,
      attempts: [],
      answers: [],
    });
    expect(g.drainChanges().tickets).toEqual(["new"]);
  });

  it("promotes, demotes and blocks what the saved statuses got wrong", () => {
    const specs = inOrder(
      ticket("a"),
      ticket("b", ["a"]),
      ticket("c"),
      ticket("d", ["c"]),
      ticket("e", ["d"]),
    );
    const f = engine(specs);
    const snap = f.snapshot();
    snap.tickets.a!.status = "complete";
    snap.tickets.b!.status = "pending";
    snap.tickets.c!.status = "failed";
    snap.tickets.d!.status = "ready";
    const g = Frontier.create(specs, { run: "test" }, snap, 1);
    expect(g.state("b")?.status).toBe("ready");
    expect(g.state("d")?.blocked_by).toEqual({ ticket: "c", kind: "dep-failed", root: "c" });
    expect(g.state("e")?.blocked_by).toEqual({ ticket: "d", kind: "dep-blocked", root: "c" });
    expect(g.drainChanges().tickets.sort()).toEqual(["b", "d", "e"]);
  });

  it("applies an outcome already written for the live attempt (a crash before the front matter)", () => {
    const specs = chain();
    const f = engine(specs);
    claimAll(f, 1);
    const snap = f.snapshot();
    const live = snap.tickets.a!.attempts[0]!;
    snap.tickets.a!.attempts[0] = {
      ...live,
      outcome: "complete",
      ended_at: new Date(2).toISOString(),
    };
    const g = Frontier.create(specs, { run: "test" }, snap, 3);
    expect(g.state("a")).toMatchObject({ status: "complete" });
    expect(g.state("a")?.claim).toBeUndefined();
    expect(g.state("b")?.status).toBe("ready");
    const changes = g.drainChanges();
    expect(changes.attempts).toEqual([]);
    expect(changes.tickets).toContain("a");
  });

  it("starts a run record when there is none; the flags of this invocation win over the saved bound", () => {
    const f = Frontier.create(
      chain(),
      { run: "nightly", base: "abc123", bound: { dispatches: 3 } },
      undefined,
      10,
    );
    expect(f.runRecord()).toEqual({
      schema: "ticket-frontier/run@1",
      run: "nightly",
      base: "abc123",
      started_at: new Date(10).toISOString(),
      dispatched: 0,
      bound: { dispatches: 3 },
    });
    const changes = f.drainChanges();
    expect(changes.run).toBe(true);
    expect(changes.log[0]).toMatchObject({ event: "start" });
    const deadline = new Date(99).toISOString();
    const snap = { ...f.snapshot(), run: { ...f.runRecord(), bound: { dispatches: 3, deadline } } };
    const g = Frontier.create(chain(), { run: "nightly", bound: { dispatches: 9 } }, snap, 11);
    expect(g.runRecord().bound).toEqual({ dispatches: 9, deadline });
    expect(g.runRecord().started_at).toBe(new Date(10).toISOString());
  });

  it("the retry budget survives a restart", () => {
    const specs = inOrder(ticket("a", [], { retries: 1 }));
    const f = engine(specs);
    claimAll(f);
    settle(f, "a", "failed");
    claimAll(f);
    settle(f, "a", "failed");
    f.retry("a", "sam", 1);
    // restart: the third attempt is the first failure since the manual retry
    const g = Frontier.create(specs, { run: "test" }, f.snapshot(), 2);
    claimAll(g, 2);
    settle(g, "a", "failed", 3);
    expect(g.state("a")?.status).toBe("ready");
    claimAll(g, 4);
    settle(g, "a", "failed", 5);
    expect(g.state("a")?.status).toBe("failed");
  });
});

describe("create without a clock stamps nothing (read-only uses: plan, status)", () => {
  it("leaves started_at, updated_at and the worklog alone", () => {
    const f = Frontier.create(chain(), { run: "test" });
    expect(f.runRecord().started_at).toBeUndefined();
    expect(f.state("a")?.updated_at).toBeUndefined();
    const changes = f.drainChanges();
    expect(changes.log).toEqual([]);
    expect(changes.tickets).toEqual(["a", "b", "c"]);
  });
});

describe("a crash between the attempt file and the front matter is repaired on the next start", () => {
  it("a failed outcome already recorded closes the ticket and blocks its dependents", () => {
    const specs = chain();
    const f = engine(specs);
    claimAll(f, 1);
    const snap = f.snapshot();
    snap.tickets.a!.attempts[0] = {
      ...snap.tickets.a!.attempts[0]!,
      outcome: "failed",
      reason: "exit 2",
    };
    const g = Frontier.create(specs, { run: "test" }, snap, 3);
    expect(g.state("a")).toMatchObject({ status: "failed", reason: "exit 2" });
    expect(g.state("c")?.blocked_by).toEqual({ ticket: "b", kind: "dep-blocked", root: "a" });
    expect(g.claimedIds()).toEqual([]);
    expect(g.drainChanges().log.map((l) => l.event)).toEqual(["settle", "block", "block"]);
  });

  it("a live attempt known only from the front matter is rebuilt and can be settled", () => {
    const specs = chain();
    const f = engine(specs);
    claimAll(f, 1, "job-9");
    const snap = f.snapshot();
    snap.tickets.a!.attempts = [];
    const g = Frontier.create(specs, { run: "test" }, snap, 2);
    expect(g.state("a")?.attempts).toEqual([
      { n: 1, claim: "a#1", claimed_by: "job-9", started_at: new Date(1).toISOString() },
    ]);
    expect(settle(g, "a", "complete", 3, { claim: "a#1" })).toMatchObject({ kind: "ok" });
  });
});

describe("each dispatch is handed its ticket's bound", () => {
  it("its own bound, else the run's ticket bound", () => {
    const own = duration(5 * MIN);
    const dflt = duration(9 * MIN);
    const f = engine(inOrder(ticket("a", [], { bound: own }), ticket("b")), { ticketBound: dflt });
    expect(claimAll(f).map((c) => [c.ticket, c.bound])).toEqual([
      ["b", dflt],
      ["a", own],
    ]);
  });
});

describe("drainChanges returns what the shell must write, once", () => {
  it("lists changed tickets once, ended attempts, worklog lines and the run", () => {
    const f = engine(chain());
    f.drainChanges();
    claimAll(f, 1);
    settle(f, "a", "complete", 2);
    const c = f.drainChanges();
    expect(c.tickets).toEqual(["a", "b"]);
    expect(c.attempts).toHaveLength(1);
    expect(c.log.map((l) => [l.event, l.ticket])).toEqual([
      ["claim", "a"],
      ["settle", "a"],
      ["promote", "b"],
    ]);
    expect(c.run).toBe(true);
    expect(f.drainChanges()).toEqual({
      tickets: [],
      attempts: [],
      answers: [],
      log: [],
      run: false,
    });
  });
});

describe("a settled ticket whose file still holds its claim loads as its settle left it", () => {
  // What a local run leaves on disk until the run ends: the ticket file as the claim
  // wrote it, and the attempt records (the ended attempt's among them).
  function reloaded(f: Frontier, atClaim: SavedState, now: number): Frontier {
    const after = f.snapshot();
    const saved: SavedState = { run: after.run, tickets: {} };
    for (const [id, state] of Object.entries(atClaim.tickets)) {
      saved.tickets[id] = { ...state, attempts: after.tickets[id]!.attempts };
    }
    return Frontier.create(f.specs(), { run: "test" }, saved, now);
  }

  const cases: Array<{
    name: string;
    retries?: number;
    before?: Array<[Parameters<typeof settle>[2], Parameters<typeof settle>[4]]>;
    outcome: Parameters<typeof settle>[2];
    extra?: Parameters<typeof settle>[4];
  }> = [
    {
      name: "complete with a result",
      outcome: "complete",
      extra: { resultFile: "r.md", resultBytes: 3 },
    },
    { name: "empty", outcome: "empty" },
    { name: "failed, no retries left", outcome: "failed", extra: { reason: "exit 2" } },
    { name: "failed, a retry left", retries: 1, outcome: "failed", extra: { reason: "exit 2" } },
    {
      name: "failed on its retry",
      retries: 1,
      before: [["failed", { reason: "exit 1" }]],
      outcome: "failed",
      extra: { reason: "exit 2" },
    },
    { name: "limited", outcome: "limited", extra: { reason: "out of budget" } },
    {
      name: "limited without a reason after a failure with one",
      retries: 1,
      before: [["failed", { reason: "exit 1" }]],
      outcome: "limited",
    },
    { name: "suspended with a question", outcome: "suspended", extra: { question: "which?" } },
    { name: "suspended with a reason only", outcome: "suspended", extra: { reason: "why" } },
    { name: "suspended with neither", outcome: "suspended" },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const specs = inOrder(
        ticket("a", [], c.retries === undefined ? {} : { retries: c.retries }),
        ticket("b", ["a"]),
        ticket("c", ["b"]),
      );
      const f = engine(specs);
      let t = 1;
      for (const [outcome, extra] of c.before ?? []) {
        claimAll(f, t++);
        settle(f, "a", outcome, t++, extra);
      }
      claimAll(f, t++);
      expect(f.state("a")?.status).toBe("claimed");
      const atClaim = f.snapshot();
      settle(f, "a", c.outcome, t++, c.extra);
      const g = reloaded(f, atClaim, t + 100);
      expect(g.state("a")).toEqual(f.state("a"));
      for (const id of ["b", "c"]) {
        expect(g.state(id)?.status).toBe(f.state(id)?.status);
        expect(g.state(id)?.blocked_by).toEqual(f.state(id)?.blocked_by);
      }
      expect(g.claimedIds()).toEqual([]);
      expect(g.readyIds()).toEqual(f.readyIds());
    });
  }
});

describe("a usage bound: the run stops claiming once its agents have used what it allows", () => {
  it("nothing more is claimed once a total is reached; live attempts finish; the run ends limited naming the total", () => {
    const f = engine(inOrder(ticket("a"), ticket("b"), ticket("c", ["a"]), ticket("d", ["b"])), {
      bound: { usage: { tokens: 1000 } },
      maxParallel: 2,
    });
    const first = claimAll(f);
    expect(first.map((c) => [c.ticket, c.runBound.usage])).toEqual([
      ["a", { tokens: 1000 }],
      ["b", { tokens: 1000 }],
    ]);
    settle(f, "a", "complete", 1, { usage: { tokens: 600 }, resultFile: "r", resultBytes: 1 });
    // c is handed what remains
    const next = claimAll(f, 1);
    expect(next.map((c) => [c.ticket, c.runBound.usage])).toEqual([["c", { tokens: 400 }]]);
    settle(f, "b", "complete", 2, { usage: { tokens: 500 }, resultFile: "r", resultBytes: 1 });
    // 1100 of 1000: d is ready but not claimed; c, already live, goes on
    expect(claimAll(f, 2)).toEqual([]);
    expect(f.state("c")?.status).toBe("claimed");
    expect(f.runState(2)).toBe("running");
    settle(f, "c", "complete", 3, { usage: { tokens: 50 }, resultFile: "r", resultBytes: 1 });
    expect(f.runState(3)).toBe("limited");
    expect(f.spentBound(3)).toEqual({ kind: "usage", key: "tokens", limit: 1000, total: 1150 });
    expect(remainderOf(f, 3)).toEqual([
      { id: "d", status: "ready", waiting_on: "run bound spent: 1,150 of 1,000 tokens used" },
    ]);
    expect(f.runBoundLeft().usage).toEqual({ tokens: 0 });
  });

  it("counts every attempt, failed ones and those of a resumed run included", () => {
    const f = engine(inOrder(ticket("a"), ticket("b")), {
      bound: { usage: { cost_usd: 1 } },
      retries: 1,
    });
    claimAll(f);
    settle(f, "a", "failed", 0, { usage: { cost_usd: 0.6 } });
    settle(f, "b", "empty", 0, { usage: { cost_usd: 0.3 } });
    // 0.6 + 0.3 of 1 spent
    expect(f.runBoundLeft().usage?.cost_usd).toBeCloseTo(0.1);
    const resumed = Frontier.create(
      f.specs(),
      { run: "test", bound: { usage: { cost_usd: 0.85 } } },
      f.snapshot(),
      1,
    );
    // a's automatic retry waits: 0.9 of 0.85 is spent
    expect(resumed.state("a")?.status).toBe("ready");
    expect(resumed.claimReady(1, "runner", token)).toEqual([]);
    expect(resumed.runState(1)).toBe("limited");
  });
});

describe("review feedback: a retry with a note is a new immutable input of the next attempt", () => {
  it("a complete ticket retried with feedback runs again; its old attempt is kept; dependents that ran are listed, not re-run", () => {
    const f = engine(inOrder(ticket("api"), ticket("ui", ["api"]), ticket("docs", ["api"])), {
      maxParallel: 2,
    });
    claimAll(f);
    settle(f, "api", "complete", 0, { resultFile: "r1", resultBytes: 1 });
    claimAll(f); // ui and docs
    settle(f, "ui", "complete", 0, { resultFile: "r2", resultBytes: 1 });
    // without a note, a complete ticket is not retried
    const refused = f.retry("api", "rev", 1);
    expect(refused.kind).toBe("rejected");
    expect(said(refused)).toMatchObject({
      message: expect.stringMatching(/retry it with feedback/),
    });
    const r = f.retry("api", "rev", 2, "use the v2 endpoint");
    expect(r.kind).toBe("ok");
    const s = f.state("api")!;
    expect(s.status).toBe("ready");
    expect(s.attempts.map((a) => [a.n, a.outcome])).toEqual([[1, "complete"]]);
    expect(s.answers).toEqual([
      {
        n: 1,
        attempt: 1,
        kind: "feedback",
        question: "",
        text: "use the v2 endpoint",
        by: "rev",
        at: new Date(2).toISOString(),
      },
    ]);
    // ui ran on the old result, docs is running on it: neither is re-run
    expect(f.ranDependents("api")).toEqual(["ui", "docs"]);
    expect(f.state("ui")?.status).toBe("complete");
    const again = claimAll(f, 3);
    expect(again.map((c) => [c.ticket, c.attempt])).toEqual([["api", 2]]);
  });

  it("a dependent that had not started waits for the new result", () => {
    const f = engine(inOrder(ticket("a"), ticket("b", ["a"])), { maxParallel: 1 });
    claimAll(f);
    settle(f, "a", "complete", 0, { resultFile: "r", resultBytes: 1 });
    expect(f.state("b")?.status).toBe("ready");
    f.retry("a", "rev", 1, "tighter wording");
    expect(f.state("b")?.status).toBe("pending");
    expect(claimAll(f, 1).map((c) => c.ticket)).toEqual(["a"]);
    settle(f, "a", "complete", 2, { resultFile: "r2", resultBytes: 1 });
    expect(f.state("b")?.status).toBe("ready");
  });

  it("the feedback reaches the next attempt's context as the reviewer's request", () => {
    const text = buildContext({
      spec: ticket("api"),
      run: "r",
      inputs: [],
      answers: [
        {
          n: 1,
          attempt: 1,
          kind: "feedback",
          question: "",
          text: "rename the endpoint",
          by: "alice",
          at: "2026-12-01T00:00:00.000Z",
        },
      ],
      attempt: 2,
    });
    expect(text).toContain("## Review feedback");
    expect(text).toContain(
      "the reviewer asked (alice, 2026-12-01T00:00:00.000Z):\n\nrename the endpoint",
    );
    expect(text).not.toContain("Earlier questions and answers");
  });
});
