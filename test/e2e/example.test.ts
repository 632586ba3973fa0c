/**
 * tickets-example driven from a push to its terminal state, exactly as GitHub would run
 * it: every event is a spawn of dist/index.js; every orch-task run a context step and a
 * settle step.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, Runner, type StepResult } from "./runner.js";

const TICKETS = readdirSync(join(ROOT, "tickets-example")).filter(
  (f) => f.endsWith(".md") && !f.startsWith("_"),
).length;

describe("tickets-example on GitHub: from a push to its terminal state", () => {
  const runner = new Runner();
  let push: StepResult;

  beforeAll(async () => {
    const sha = await runner.start(join(ROOT, "tickets-example"));
    runner.script = (ticket, attempt) =>
      ticket === "research-incidents"
        ? { status: "empty" }
        : {
            status: "complete",
            result: `findings of ${ticket} (attempt ${attempt})`,
            usage: { tokens: 100 },
          };
    push = await runner.push(sha);
    await runner.fake.idle();
  }, 240_000);

  afterAll(async () => {
    await runner.stop();
  });

  it("the push step succeeds and dispatches the ready frontier within max_parallel", () => {
    expect(push.code, push.stdout + push.stderr).toBe(0);
    const dispatched = JSON.parse(push.outputs.dispatched ?? "[]") as string[];
    expect(dispatched.length).toBe(3);
    expect(push.outputs.state).toBe("running");
  });

  it("every ticket ran exactly once and the run is complete", () => {
    const state = runner.state();
    const statuses = Object.fromEntries(
      Object.entries(state.tickets).map(([id, t]) => [id, t.status]),
    );
    expect(Object.keys(statuses)).toHaveLength(TICKETS);
    expect(statuses["research-incidents"]).toBe("empty");
    for (const [id, s] of Object.entries(statuses))
      if (id !== "research-incidents") expect(s, id).toBe("complete");
    for (const [key, n] of runner.dispatchCounts()) expect(n, key).toBe(1);
    expect(runner.dispatchCounts().size).toBe(TICKETS);
    runner.fake.assertNoViolations();
  });

  it("ticket files carry their state and results are files under .frontier", () => {
    const plan = runner.repo.readFile("tickets/retry-plan.md", "main") ?? "";
    expect(plan).toMatch(/^status: complete$/m);
    // the author's text is kept byte for byte after the front matter
    const original = readFileSync(join(ROOT, "tickets-example", "retry-plan.md"), "utf8");
    expect(plan.endsWith(original.slice(original.indexOf("\n---", 3) + 4))).toBe(true);
    expect(runner.repo.readFile("tickets/.frontier/results/retry-plan@1.md", "main")).toBe(
      "findings of retry-plan (attempt 1)",
    );
    const log = (runner.repo.readFile("tickets/.frontier/worklog.jsonl", "main") ?? "")
      .trim()
      .split("\n");
    expect(log.filter((l) => JSON.parse(l).event === "settle")).toHaveLength(TICKETS);
  });

  it("the summary ticket was given the results of its inputs, and the empty one as an explicit blank", () => {
    const job = runner.jobs.find((j) => j.ticket === "summary");
    const context = job?.context?.outputs["context-file"];
    expect(context).toBeDefined();
    const text = readFileSync(context as string, "utf8");
    expect(text).toContain("findings of review-idempotency (attempt 1)");
    expect(text).toContain("research-incidents");
    expect(text).toContain("(ran, returned nothing)");
  });

  it("one sticky report comment, on a tracking issue, shows the terminal state", () => {
    const state = runner.state();
    expect(state.report).toBeDefined();
    const issue = runner.repo.issues.get(state.report?.issue_number ?? 0);
    expect(issue?.labels).toContain("frontier:run");
    const comments = runner.repo.commentsOn(state.report?.issue_number ?? 0);
    const reports = comments.filter((c) => c.body.includes("ticket-frontier:report"));
    expect(reports).toHaveLength(1);
    expect(reports[0]?.user).toBe("github-actions[bot]");
    expect(reports[0]?.body).toMatch(/complete/i);
    expect(reports[0]?.body).toContain("```mermaid");
    expect((reports[0]?.body.length ?? 0) < 65_536).toBe(true);
  });

  it("the last settle wrote the report to the job summary and the receipt and HTML report to files", () => {
    const last = runner.jobs.find((j) => j.ticket === "summary")?.settle;
    expect(last?.code).toBe(0);
    expect(last?.summary).toContain("ticket-frontier:report");
    expect(last?.outputs.state).toBe("complete");
    const receipt = JSON.parse(readFileSync(last?.outputs.receipt as string, "utf8"));
    expect(receipt.schema).toBe("ticket-frontier/receipt@1");
    expect(receipt.state).toBe("complete");
    expect(readFileSync(last?.outputs["report-html"] as string, "utf8")).toMatch(/<html/i);
  });
});
