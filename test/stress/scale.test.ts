/**
 * A 100-ticket run, counted: the API requests it makes (per ticket, per operation) and
 * how long a settle takes to dispatch what it made ready. Printed for the report.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, Runner } from "../e2e/runner.js";
import { layeredGraph, writeTickets } from "../e2e/tickets.js";

const LAYERS = 10;
const WIDTH = 10;
const TICKETS = LAYERS * WIDTH;

describe("a 100-ticket run", () => {
  const runner = new Runner();
  const defs = layeredGraph(LAYERS, WIDTH);

  beforeAll(async () => {
    const sha = await runner.start(writeTickets(defs, "run: hundred\n"));
    // GITHUB_TOKEN's 1,000 requests an hour is the budget this measures against; the
    // fake enforces it, so a run that needed more would stall here.
    runner.fake.addToken("ghs_test_token", { login: "github-actions[bot]", rateLimit: 5000 });
    runner.gate.limit = 4;
    // the context step reads a git checkout of the branch (no API request: see
    // lifecycle.test.ts), so it is left out here to halve the spawns
    runner.withContext = false;
    const push = await runner.push(sha);
    expect(push.code).toBe(0);
    await runner.fake.idle();
  }, 600_000);

  afterAll(async () => {
    await runner.stop();
  });

  it("completes, every ticket dispatched exactly once", () => {
    const state = runner.state();
    expect(Object.values(state.tickets).filter((t) => t.status === "complete")).toHaveLength(
      TICKETS,
    );
    expect(runner.dispatchCounts().size).toBe(TICKETS);
    for (const [key, n] of runner.dispatchCounts()) expect(n, key).toBe(1);
    runner.fake.assertNoViolations();
  });

  it("makes a number of API requests per ticket that does not grow with the graph", () => {
    const total = runner.fake.requests.length;
    const byOp = new Map<string, number>();
    for (const r of runner.fake.requests)
      byOp.set(r.operation ?? r.path, (byOp.get(r.operation ?? r.path) ?? 0) + 1);
    const perTicket = total / TICKETS;
    const ops = [...byOp.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([op, n]) => `${op}: ${n} (${(n / TICKETS).toFixed(2)}/ticket)`);

    // settle → dispatch latency: from the spawn of the settle step that made a ticket
    // ready to that ticket's dispatch arriving at GitHub
    const byTicket = new Map(runner.jobs.map((j) => [j.ticket, j]));
    const latencies: number[] = [];
    for (const d of defs) {
      if (!d.deps) continue;
      const job = byTicket.get(d.id);
      const settles = d.deps.map((p) => byTicket.get(p)?.settle?.spawnedAt ?? 0);
      if (!job) continue;
      latencies.push(job.startedAt - Math.max(...settles));
    }
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    const settleMs = runner.jobs.map((j) => j.settle?.ms ?? 0).sort((a, b) => a - b);
    const report = [
      `[e2e] 100-ticket run: ${total} API requests, ${perTicket.toFixed(2)} per ticket; ${(byOp.get("graphql/mutation:createCommitOnBranch") ?? 0) - (TICKETS + 1)} commit tries lost to a concurrent settle (of ${TICKETS + 1} events)`,
      ...ops.map((o) => `  ${o}`),
      `  settle→dispatch latency (settle step spawn → dependent's dispatch at GitHub): median ${pct(0.5)} ms, p90 ${pct(0.9)} ms`,
      `  settle step wall time: median ${settleMs[Math.floor(settleMs.length / 2)]} ms`,
    ].join("\n");
    console.log(report);
    mkdirSync(join(ROOT, "test-output"), { recursive: true });
    writeFileSync(join(ROOT, "test-output", "github-requests.txt"), `${report}\n`);
    // Each try of an event (a first try, or a re-try after losing a race) is one GraphQL
    // query (head, state, worklog) and one commit: nothing is read or written per ticket
    // of the graph, and no ticket file is ever read through the API.
    const queries = byOp.get("graphql/query") ?? 0;
    const commits = byOp.get("graphql/mutation:createCommitOnBranch") ?? 0;
    expect(commits).toBeLessThanOrEqual(queries);
    for (const op of [
      "repos/get-content",
      "git/create-tree",
      "git/create-commit",
      "git/update-ref",
    ])
      expect(byOp.get(op) ?? 0, op).toBe(0);
    // Besides the tries: a dispatch per ticket, and the report comment now and then. How
    // many races are lost depends on timing (every job here settles the instant it is
    // dispatched), so it is reported, and the budget is measured at GitHub's pace by
    // `npm run bench`.
    const rest = total - queries - commits;
    // the report comment is refreshed at most every 30 seconds of the run's wall time (a
    // read and an update each), so how many refreshes there are follows the machine's
    // pace, not the graph: bounded by the run's duration
    const refreshes =
      (byOp.get("issues/get-comment") ?? 0) + (byOp.get("issues/update-comment") ?? 0);
    const starts = runner.jobs.map((j) => j.startedAt);
    const runMs = Math.max(...starts) - Math.min(...starts);
    expect(refreshes).toBeLessThanOrEqual(2 * (Math.ceil(runMs / 30_000) + 2));
    // where the report goes (the branch's pull request, else the run's issue, and the comment
    // there) is looked up by each event that ran before the first report was recorded: how
    // many raced there follows the machine's pace too, not the graph
    const lookups = ["pulls/list", "issues/list-for-repo", "issues/list-comments"];
    const looked = lookups.reduce((n, op) => n + (byOp.get(op) ?? 0), 0);
    expect(looked).toBeLessThanOrEqual(3 * 8);
    expect((rest - refreshes - looked) / TICKETS).toBeLessThanOrEqual(1.05);
    expect(queries - commits).toBeLessThanOrEqual(3);
  });
});
