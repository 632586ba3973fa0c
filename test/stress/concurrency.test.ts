/**
 * Many jobs settling at the same moment: every settle is a separate process racing for
 * the branch. Compare-and-swap commits lose nothing and dispatch nothing twice, and each
 * job's changes (disjoint scopes) land once, in the commit of its own ticket.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner, type StepResult } from "../e2e/runner.js";
import { writeTickets } from "../e2e/tickets.js";
import { readWorklog } from "../support/run-state.js";

const N = 20;

describe("20 orch-task jobs settling at the same moment", () => {
  const runner = new Runner();
  let push: StepResult;

  beforeAll(async () => {
    const ids = Array.from({ length: N }, (_, i) => `job${String(i + 1).padStart(2, "0")}`);
    const dir = writeTickets([
      ...ids.map((id) => ({ id, extra: `write_scope: [src/${id}/**]` })),
      { id: "final", deps: ids },
    ]);
    const sha = await runner.start(dir);
    // each agent writes one file in its scope
    runner.script = (t, a, job) => {
      if (t !== "final") {
        mkdirSync(join(job.workspace, "src", t), { recursive: true });
        writeFileSync(join(job.workspace, "src", t, "index.ts"), `export const id = "${t}";\n`);
      }
      return { status: "complete", result: `result of ${t} attempt ${a}` };
    };
    runner.withContext = false;
    runner.gate.limit = N + 1;
    // hold every settle step until all 20 jobs are ready to settle, then let them go at once
    let waiting: Array<() => void> = [];
    runner.beforeSettle = async (job) => {
      if (job.ticket === "final") return;
      await new Promise<void>((release) => {
        waiting.push(release);
        if (waiting.length === N) {
          for (const r of waiting) r();
          waiting = [];
        }
      });
    };
    push = await runner.push(sha);
    await runner.fake.idle();
  }, 300_000);

  afterAll(async () => {
    await runner.stop();
  });

  it("every result is recorded", () => {
    expect(push.code).toBe(0);
    expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
    const state = runner.state();
    for (let i = 1; i <= N; i++) {
      const id = `job${String(i).padStart(2, "0")}`;
      expect(state.tickets[id]?.status, id).toBe("complete");
      expect(runner.repo.readFile(`tickets/.frontier/results/${id}@1.md`, "main")).toBe(
        `result of ${id} attempt 1`,
      );
    }
    expect(state.tickets.final?.status).toBe("complete");
    // every change landed, once, in its ticket's own commit
    for (const id of Object.keys(state.tickets).filter((t) => t !== "final")) {
      expect(runner.repo.readFile(`src/${id}/index.ts`, "main"), id).toBe(
        `export const id = "${id}";\n`,
      );
      const commits = runner.repo
        .log("main")
        .filter((c) => c.message.includes(`\nFrontier-Ticket: ${id}\n`));
      expect(commits, id).toHaveLength(1);
    }
    const settles = readWorklog(runner.repo, "tickets").filter((e) => e.event === "settle");
    expect(settles).toHaveLength(N + 1);
    runner.fake.assertNoViolations();
  });

  it("nothing is dispatched twice: the ticket that waited on all 20 ran exactly once", () => {
    const counts = runner.dispatchCounts();
    expect(counts.size).toBe(N + 1);
    for (const [key, n] of counts) expect(n, key).toBe(1);
    expect(runner.jobs.filter((j) => j.ticket === "final")).toHaveLength(1);
  });

  it("the races were real: settles lost compare-and-swap races and re-applied on the new head", () => {
    const settleSteps = runner.jobs
      .map((j) => j.settle)
      .filter((s): s is StepResult => s !== undefined);
    expect(settleSteps.every((s) => s.code === 0)).toBe(true);
    const retried = settleSteps.filter((s) => /recorded after \d+ tries/.test(s.stdout));
    // more commits were tried than landed: the others met a moved head (STALE_DATA)
    const tried = runner.fake.findRequests({
      operation: "graphql/mutation:createCommitOnBranch",
    }).length;
    const landed = runner.repo
      .log("main")
      .filter(
        (c) => c.message.startsWith("frontier ") || /^Frontier-Ticket: /m.test(c.message),
      ).length;
    expect(tried).toBeGreaterThan(landed);
    expect(retried.length).toBeGreaterThan(0);
    const maxTries = Math.max(
      ...settleSteps.map((s) => Number(/recorded after (\d+) tries/.exec(s.stdout)?.[1] ?? 1)),
    );
    console.log(
      `[e2e] 20 concurrent settles: ${tried - landed} commits met a moved head, ${retried.length} settles re-applied, at most ${maxTries} tries`,
    );
  });
});
