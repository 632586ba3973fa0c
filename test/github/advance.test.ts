import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { interpretOutcome } from "../../src/core/settle.js";
import { advance } from "../../src/github/advance.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import { refusalWords } from "../../src/report/refusals.js";
import { outcomeReason } from "../../src/tickets/outcome-file.js";
import { makeWorld, runContext, stateOf, ticket, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.cleanup();
  world = undefined;
});

describe("claim, then dispatch", () => {
  it("a push starts the run: the ready frontier is claimed in one commit, then dispatched", async () => {
    world = await makeWorld(
      Object.fromEntries([ticket("a"), ticket("b"), ticket("c", ["a", "b"])]),
    );
    const ctx = runContext(world);
    const out = await advance(ctx, advanceOnly, "advance (push)");
    expect(out.dispatched.map((d) => d.ticket).sort()).toEqual(["a", "b"]);
    const runs = world.fake.allRuns();
    expect(runs.map((r) => r.displayTitle).sort()).toEqual(
      out.dispatched.map((d) => `frontier ${d.ticket}#1 ${d.claim}`).sort(),
    );
    const state = stateOf(world) as {
      tickets: Record<string, { status: string }>;
      base: string;
      run: { base: string };
    };
    expect(state.tickets.a?.status).toBe("claimed");
    expect(state.tickets.c?.status ?? "pending").toBe("pending");
    expect(state.run.base).toBe(world.sha);
    // the dispatch came after the claim commit, with the run's inputs
    const dispatch = world.fake.findRequests({ operation: "actions/create-workflow-dispatch" })[0];
    expect(dispatch?.body).toMatchObject({ ref: "main", return_run_details: true });
    const firstDispatch = dispatch?.seq ?? 0;
    const commit =
      world.fake.findRequests({ operation: "graphql/mutation:createCommitOnBranch" })[0]?.seq ??
      Infinity;
    expect(commit).toBeLessThan(firstDispatch);
  });

  it("settling a ticket records it and dispatches what became ready in the same step", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    const a = start.dispatched[0]!;
    const out = await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim: a.claim,
        outcome: "complete",
        result: "A done",
        by: "job",
      }),
      "settle a",
    );
    expect(out.result.kind).toBe("ok");
    expect(out.dispatched.map((d) => d.ticket)).toEqual(["b"]);
    expect(world.repo.readFile("tickets/.frontier/results/a@1.md")).toBe("A done");
    expect(world.repo.readFile("tickets/a.md")).toMatch(/status: complete/);
    const log = world.repo.readFile("tickets/.frontier/worklog.jsonl") ?? "";
    expect(log.split("\n").filter(Boolean).length).toBeGreaterThan(2);
  });

  it("a redelivered settle changes nothing and dispatches nothing", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    const a = start.dispatched[0]!;
    const settle = settleEvent({
      ticket: "a",
      attempt: 1,
      claim: a.claim,
      outcome: "complete",
      result: "x",
      by: "job",
    });
    await advance(ctx, settle, "settle a");
    const head = world.repo.head("main");
    const again = await advance(ctx, settle, "settle a again");
    expect(again.result.kind).toBe("stale");
    expect(again.dispatched).toEqual([]);
    expect(world.repo.head("main")).toBe(head);
    expect(world.fake.allRuns()).toHaveLength(2);
  });

  it("a settle or sweep on a branch without a run starts nothing and says so", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const ctx = runContext(world);
    const head = world.repo.head("main");
    const out = await advance(
      ctx,
      settleEvent({ ticket: "a", attempt: 1, outcome: "complete", by: "job" }),
      "settle a",
      { start: false },
    );
    expect(out.result.kind).toBe("rejected");
    expect(out.result.kind === "rejected" && refusalWords(out.result.why)).toMatch(
      /no run on branch main/,
    );
    expect(out.dispatched).toEqual([]);
    expect(world.repo.head("main")).toBe(head);
    // reads only: no commit, no dispatch, no comment
    expect(
      world.fake.countRequests((r) => r.method !== "GET" && r.operation !== "graphql/query"),
    ).toBe(0);
  });

  it("two events starting the run at once: one report comment, one tracking issue, each ticket dispatched once", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b"), ticket("c", ["a"])]));
    const [one, two] = await Promise.all([
      advance(runContext(world), advanceOnly, "push"),
      advance(runContext(world), advanceOnly, "push again"),
    ]);
    expect([...one.dispatched, ...two.dispatched].map((d) => d.ticket).sort()).toEqual(["a", "b"]);
    const open = [...world.repo.issues.values()].filter(
      (i) => i.labels.includes("frontier:run") && i.state === "open",
    );
    expect(open).toHaveLength(1);
    const reports = [...world.repo.comments.values()].filter((c) =>
      c.body.includes("ticket-frontier:report"),
    );
    expect(reports).toHaveLength(1);
    const state = stateOf(world) as { report: { comment_id: number } };
    expect(state.report.comment_id).toBe(reports[0]?.id);
  });

  it("a ticket pushed while the run is going waits for the next run, and the log says so", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const lines: string[] = [];
    await advance(runContext(world), advanceOnly, "start");
    const [name, text] = ticket("late");
    writeFileSync(join(world.workspace, "tickets", name), text);
    const out = await advance(
      runContext(world, { sha: "f".repeat(40), log: (l) => lines.push(l) }),
      advanceOnly,
      "push",
    );
    expect(out.dispatched).toEqual([]);
    expect(lines.join("\n")).toMatch(/late was added after the run started .* runs in a new run/);
    expect(Object.keys((stateOf(world) as { tickets: object }).tickets)).toEqual(["a"]);
  });

  it("a job that reports complete with no result, or a blank one, is recorded empty: nothing is passed off as done", async () => {
    world = await makeWorld(
      Object.fromEntries([ticket("a"), ticket("b"), ticket("c", ["a", "b"])]),
    );
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    const claim = (t: string) => start.dispatched.find((d) => d.ticket === t)?.claim;
    // the settle step interprets what the job reported (the one rule both runners share)
    const reported = (value: { status: "complete"; result?: string }) =>
      interpretOutcome(
        { file: { kind: "ok", value }, job: {}, maxResultBytes: 1000 },
        outcomeReason,
      );
    await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim: claim("a"),
        ...reported({ status: "complete" }),
        by: "job",
      }),
      "settle a",
    );
    await advance(
      ctx,
      settleEvent({
        ticket: "b",
        attempt: 1,
        claim: claim("b"),
        ...reported({ status: "complete", result: "  \n" }),
        by: "job",
      }),
      "settle b",
    );
    const state = stateOf(world) as { tickets: Record<string, { status: string }> };
    expect(state.tickets.a?.status).toBe("empty");
    expect(state.tickets.b?.status).toBe("empty");
    // empty still satisfies the dependent
    expect(state.tickets.c?.status).toBe("claimed");
  });
});
