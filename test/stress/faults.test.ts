/**
 * Every fault the fake GitHub can inject, survived with nothing lost: each run ends
 * complete, every ticket's result recorded, every attempt dispatched exactly once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Runner } from "../e2e/runner.js";
import { type TicketDef, writeTickets } from "../e2e/tickets.js";

const GRAPH: TicketDef[] = [
  { id: "a" },
  { id: "b" },
  { id: "c", deps: ["a"] },
  { id: "d", deps: ["a", "b"] },
  { id: "e", deps: ["c", "d"] },
];

let runner: Runner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});

/** The outbox's lag in these runs: a claim unseen this long is looked for and sent again. */
const LAG_MS = 1500;

async function runWith(setup: (r: Runner) => void, settings = "run: faults\n"): Promise<Runner> {
  runner = new Runner();
  const sha = await runner.start(writeTickets(GRAPH, settings));
  runner.withContext = false;
  runner.env = { FRONTIER_TEST_OUTBOX_LAG_MS: String(LAG_MS) };
  setup(runner);
  const push = await runner.push(sha);
  expect(push.code, push.stdout + push.stderr).toBe(0);
  await runner.fake.idle();
  // a dispatch whose answer was unclear is left to the outbox: the scheduled sweep
  // looks for its run once the listing has caught up, and sends it only if none exists
  for (
    let i = 0;
    i < 3 && Object.values(runner.state().tickets).some((t) => t.status !== "complete");
    i++
  ) {
    await new Promise((res) => setTimeout(res, LAG_MS + 200));
    const sweep = await runner.schedule();
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    await runner.fake.idle();
  }
  expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
  return runner;
}

function expectNothingLost(r: Runner, attempts: Record<string, number> = {}, faulted = true): void {
  const state = r.state();
  for (const { id } of GRAPH) {
    expect(state.tickets[id]?.status, id).toBe("complete");
    const n = attempts[id] ?? 1;
    expect(r.repo.readFile(`tickets/.frontier/results/${id}@${n}.md`, "main")).toBe(
      `result of ${id} attempt ${n}`,
    );
  }
  for (const [key, n] of r.dispatchCounts()) expect(n, `${key} dispatched once`).toBe(1);
  if (faulted) expect(r.fake.requests.filter((q) => q.fault).length).toBeGreaterThan(0);
}

describe("injected faults are survived with nothing lost", () => {
  it("5xx answers (500, 502, 503) on reads, commits, ref updates and dispatches", async () => {
    const r = await runWith((x) => {
      x.fake.inject({ status: 502, operation: "repos/get-branch", times: 2, after: 1 });
      x.fake.inject({ status: 500, operation: "git/get-tree", times: 2, after: 2 });
      x.fake.inject({ status: 503, operation: "git/create-tree", times: 1, after: 1 });
      x.fake.inject({ status: 500, operation: "git/create-commit", times: 1, after: 2 });
      x.fake.inject({ status: 502, operation: "git/update-ref", times: 2, after: 1 });
      x.fake.inject({
        status: 503,
        operation: "actions/create-workflow-dispatch",
        times: 1,
        after: 1,
      });
      x.fake.inject({ status: 500, operation: "issues/update-comment", times: 1 });
      x.fake.inject({ status: 502, operation: "graphql/query", times: 2, after: 1 });
      x.fake.inject({
        status: 500,
        operation: "graphql/mutation:createCommitOnBranch",
        times: 1,
        after: 2,
      });
      x.fake.inject({
        status: 502,
        operation: "graphql/mutation:createCommitOnBranch",
        times: 1,
        after: 4,
        applied: true,
      });
    });
    expectNothingLost(r);
  });

  it("a 5xx from a dispatch that did start is never sent again: the run is found by its claim", async () => {
    const r = await runWith((x) => {
      // GitHub started the run but the answer was lost: re-sending would run it twice
      x.fake.inject({
        status: 502,
        operation: "actions/create-workflow-dispatch",
        times: 2,
        applied: true,
      });
    });
    expectNothingLost(r);
    expect(r.fake.findRequests({ operation: "actions/create-workflow-dispatch" })).toHaveLength(
      GRAPH.length,
    );
  });

  it("a 5xx from a comment or issue that was made is never sent again: one report, one tracking issue", async () => {
    const r = await runWith((x) => {
      x.fake.inject({ status: 502, operation: "issues/create", times: 2, applied: true });
      x.fake.inject({ status: 502, operation: "issues/create-comment", times: 2, applied: true });
    });
    expectNothingLost(r);
    const tracking = [...r.repo.issues.values()].filter((i) => i.labels.includes("frontier:run"));
    expect(tracking).toHaveLength(1);
    const reports = r.repo
      .commentsOn(tracking[0]!.number)
      .filter((c) => (c.body ?? "").includes("ticket-frontier:report"));
    expect(reports).toHaveLength(1);
  });

  it("secondary rate limits (403 and 429 with retry-after) are waited out", async () => {
    const r = await runWith((x) => {
      x.fake.injectSecondaryRateLimit({
        status: 403,
        retryAfter: 1,
        operation: "git/create-commit",
        times: 2,
      });
      x.fake.injectSecondaryRateLimit({
        status: 429,
        retryAfter: 1,
        operation: "actions/create-workflow-dispatch",
        times: 2,
      });
      x.fake.injectSecondaryRateLimit({
        status: 403,
        retryAfter: 2,
        operation: "issues/create-comment",
        times: 1,
      });
    });
    expectNothingLost(r);
  });

  it("every conflict answer (expected-head mismatch, not a fast forward, Reference cannot be updated): re-read and re-applied", async () => {
    const r = await runWith((x) => {
      x.fake.injectGraphQLError({
        operation: "graphql/mutation:createCommitOnBranch",
        type: "STALE_DATA",
        times: 2,
      });
      x.fake.injectGraphQLError({
        operation: "graphql/mutation:createCommitOnBranch",
        type: "UNPROCESSABLE",
        message: "Update is not a fast forward",
        times: 1,
        after: 2,
      });
      x.fake.injectGraphQLError({
        operation: "graphql/mutation:createCommitOnBranch",
        type: "UNPROCESSABLE",
        message: "Reference cannot be updated",
        times: 1,
        after: 3,
      });
    });
    expectNothingLost(r);
  });

  it("a refused dispatch fails the attempt with GitHub's own message; the retry runs", async () => {
    const r = await runWith((x) => {
      x.fake.refuseDispatch({ times: 1, message: "Required input 'base' not provided" });
    }, "run: faults\nretries: 1\n");
    const state = r.state();
    const refused = Object.entries(state.tickets).find(([, t]) =>
      t.attempts.some((a) => a.outcome === "failed"),
    );
    expect(refused).toBeDefined();
    const [id, ticket] = refused as [string, (typeof state.tickets)[string]];
    expect(ticket.attempts[0]?.reason).toContain("Required input 'base' not provided");
    expectNothingLost(r, { [id]: 2 });
  });

  it("latency on every request", async () => {
    const r = await runWith((x) => {
      x.fake.injectLatency({ ms: 40 });
    });
    expectNothingLost(r, {}, false);
  });
});

describe("a server without return_run_details (GHES ≤ 3.20)", () => {
  it("the dispatch is retried once without it and the run is found by its claim token in run-name", async () => {
    runner = new Runner({ returnRunDetails: "refused" });
    const sha = await runner.start(writeTickets(GRAPH));
    runner.withContext = false;
    const push = await runner.push(sha);
    expect(push.code).toBe(0);
    await runner.fake.idle();
    expectNoLoss(runner);
    // one refusal per process that dispatched, never a second one in the same process
    const refusals = runner.fake.findRequests({
      operation: "actions/create-workflow-dispatch",
      status: 400,
    });
    const accepted = runner.fake.findRequests({
      operation: "actions/create-workflow-dispatch",
      status: 204,
    });
    expect(accepted).toHaveLength(GRAPH.length);
    expect(refusals.length).toBeLessThanOrEqual(accepted.length);
    expect(push.stdout).toMatch(
      /dispatched a#1 → https:\/\/github\.com\/acme\/widgets\/actions\/runs\/\d+/,
    );
  });
});

function expectNoLoss(r: Runner): void {
  const state = r.state();
  for (const { id } of GRAPH) expect(state.tickets[id]?.status, id).toBe("complete");
  for (const [key, n] of r.dispatchCounts()) expect(n, key).toBe(1);
}
