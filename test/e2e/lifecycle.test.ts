/**
 * The events around a job's life: a job that dies before its settle step (settled from
 * workflow_run), a job that dies without any event (reclaimed by the schedule sweep
 * after its lease), redelivered events, a suspended ticket's question issue.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { makeWorkflowRunPayload } from "../fake-github/server.js";
import { Runner } from "./runner.js";
import { writeTickets } from "./tickets.js";

let runner: Runner | undefined;
afterEach(async () => {
  runner?.fake.assertNoViolations();
  await runner?.stop();
  runner = undefined;
  for (const r of sharedRunners) r.fake.assertNoViolations();
});

/**
 * A run that more than one test starts from: made by the first test that asks for it (in
 * file order; alone under -t too) and stopped after the file. A test that shares it adds
 * only steps that change nothing the next sharer checks, or runs last.
 */
const sharedRunners: Runner[] = [];
afterAll(async () => {
  for (const r of sharedRunners.splice(0)) await r.stop();
});
function shared(setup: (r: Runner) => Promise<void>): () => Promise<Runner> {
  let made: Promise<Runner> | undefined;
  return () => {
    made ??= (async () => {
      const r = new Runner();
      sharedRunners.push(r);
      await setup(r);
      return r;
    })();
    return made;
  };
}

/** One ticket, pushed, its job complete. */
const endedWell = shared(async (r) => {
  const sha = await r.start(writeTickets([{ id: "a" }]));
  r.script = () => ({ status: "complete", result: "done" });
  await r.push(sha);
  await r.fake.idle();
});

/** a then b: a completes with "A's result", b's job dies silently after its context step. */
const aDoneBDead = shared(async (r) => {
  const sha = await r.start(writeTickets([{ id: "a" }, { id: "b", deps: ["a"] }]));
  r.script = (t) =>
    t === "b" ? { die: true, silent: true } : { status: "complete", result: "A's result" };
  await r.push(sha);
  await r.fake.idle();
});

/** ask then later: ask's first attempt asks a question, every other attempt completes. */
const asked = shared(async (r) => {
  const sha = await r.start(writeTickets([{ id: "ask" }, { id: "later", deps: ["ask"] }]));
  r.script = (t, attempt) =>
    t === "ask" && attempt === 1
      ? { status: "suspended", question: "Which region should the cache live in?" }
      : { status: "complete", result: `${t} done` };
  const push = await r.push(sha);
  expect(push.code).toBe(0);
  await r.fake.idle();
});

describe("a job that dies before its settle step", () => {
  it("is settled as failed from its workflow_run, its dependents blocked; a redelivery changes nothing", async () => {
    runner = new Runner();
    const sha = await runner.start(writeTickets([{ id: "a" }, { id: "b", deps: ["a"] }]));
    runner.script = () => ({ die: true, conclusion: "cancelled" });
    await runner.push(sha);
    await runner.fake.idle();
    const job = runner.jobs.find((j) => j.ticket === "a");
    expect(job).toBeDefined();
    expect(runner.state().tickets.a?.status).toBe("claimed");

    const run = runner.fake.run(job?.run.id as number);
    const first = await runner.workflowRun(run);
    expect(first.code, first.stdout).toBe(0);
    const state = runner.state();
    expect(state.tickets.a?.status).toBe("failed");
    expect(state.tickets.a?.attempts[0]?.reason).toMatch(/ended cancelled before its settle step/);
    expect(state.tickets.b?.status).toBe("blocked");
    expect(first.outputs.state).toBe("failed");

    const head = runner.repo.head("main");
    const again = await runner.workflowRun(run);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/changed nothing/);
    expect(runner.repo.head("main")).toBe(head);
  });

  it("a workflow_run of a job that ended well does nothing, without a single request", async () => {
    const runner = await endedWell();
    const run = runner.fake.allRuns().find((r) => r.inputs.ticket === "a");
    expect(run?.conclusion).toBe("success");
    runner.fake.clearRequests();
    const step = await runner.workflowRun(run as NonNullable<typeof run>);
    expect(step.code).toBe(0);
    expect(step.stdout).toMatch(/nothing to do/);
    expect(runner.fake.requests).toHaveLength(0);
    expect(makeWorkflowRunPayload).toBeDefined();
  });
});

describe("a claim whose lease has expired", () => {
  it("is reclaimed by the schedule sweep: the attempt fails lease-expired and the retry runs; a live lease is left alone", async () => {
    runner = new Runner();
    const sha = await runner.start(
      writeTickets([
        { id: "slow", extra: "bound: 4s\nretries: 1" },
        { id: "steady", extra: "bound: 2h" },
        { id: "after", deps: ["slow"] },
      ]),
    );
    runner.script = (t, attempt) =>
      t === "steady" || (t === "slow" && attempt === 1)
        ? { die: true, silent: true }
        : { status: "complete", result: "ok" };
    await runner.push(sha);
    await runner.fake.idle();
    expect(runner.state().tickets.slow?.status).toBe("claimed");

    // wait out slow's 4 s lease from its claim (a shorter one can run out while the push
    // still records its report comment)
    const slow = runner.state().tickets.slow as { claimed_at?: string } | undefined;
    const claimedAt = Date.parse(slow?.claimed_at ?? "");
    expect(claimedAt).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, Math.max(0, claimedAt + 4500 - Date.now())));
    const sweep = await runner.schedule();
    expect(sweep.code, sweep.stdout).toBe(0);
    expect(JSON.parse(sweep.outputs.dispatched ?? "[]")).toEqual(["slow"]);
    await runner.fake.idle();
    const state = runner.state();
    expect(state.tickets.slow?.attempts[0]).toMatchObject({
      n: 1,
      outcome: "failed",
      reason: "lease-expired",
    });
    expect(state.tickets.slow?.status).toBe("complete");
    expect(state.tickets.after?.status).toBe("complete");
    expect(state.tickets.steady?.status).toBe("claimed");
    for (const [key, n] of runner.dispatchCounts()) expect(n, key).toBe(1);
  });
});

describe("a redelivered event", () => {
  it("a misspelled field is a warning on its file and line in the push's log: the ticket runs as written", async () => {
    runner = new Runner();
    const sha = await runner.start(
      writeTickets([{ id: "a" }, { id: "b", extra: "title: B\ndependson: [a]" }]),
    );
    runner.script = () => ({ die: true, silent: true });
    const push = await runner.push(sha);
    expect(push.code).toBe(0);
    // as written, b depends on nothing: both start, and the warning says why
    expect(JSON.parse(push.outputs.dispatched ?? "[]").sort()).toEqual(["a", "b"]);
    const warnings = push.stdout.split("\n").filter((l) => l.startsWith("::warning"));
    expect(warnings).toEqual([
      '::warning title=Ticket Frontier,file=tickets/b.md,line=3::unknown field "dependson" (did you mean depends_on?) — rename it to depends_on (as written it is ignored)',
    ]);
  });

  it("a push delivered twice dispatches nothing the second time", async () => {
    runner = new Runner();
    const sha = await runner.start(writeTickets([{ id: "a" }, { id: "b" }]));
    runner.script = () => ({ die: true, silent: true });
    const first = await runner.push(sha);
    await runner.fake.idle();
    expect(JSON.parse(first.outputs.dispatched ?? "[]").sort()).toEqual(["a", "b"]);
    const head = runner.repo.head("main");
    const second = await runner.push(sha);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.outputs.dispatched ?? "[]")).toEqual([]);
    expect(runner.repo.head("main")).toBe(head);
    expect(runner.fake.allRuns()).toHaveLength(2);
  });

  it("a settle step run twice records once and dispatches the dependent once", async () => {
    const runner = await aDoneBDead();
    const a = runner.jobs.find((j) => j.ticket === "a");
    expect(a?.settle?.code).toBe(0);
    // the same settle step again (a re-run of the job's last step)
    const run = a?.run as NonNullable<typeof a>["run"];
    const again = await runner.step({
      event: "workflow_dispatch",
      payload: (await import("../fake-github/server.js")).makeWorkflowDispatchPayload({
        repo: runner.repo,
        workflow: "orch-task.yml",
        ref: run.ref,
        inputs: run.inputs,
      }),
      sha: run.inputs.base as string,
      runId: run.id,
      inputs: { command: "settle", outcome: "complete", "job-status": "success" },
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.outputs.dispatched ?? "[]")).toEqual([]);
    await runner.fake.idle();
    expect(runner.dispatchCounts().get("b#1")).toBe(1);
    expect(runner.state().tickets.a?.attempts).toHaveLength(1);
  });
});

describe("a suspended ticket", () => {
  it("opens one question issue with the question, a hidden marker and how to answer; its dependents wait", async () => {
    // before the answer below
    const runner = await asked();
    const state = runner.state();
    expect(state.tickets.ask?.status).toBe("suspended");
    expect(state.tickets.later?.status).toBe("pending");
    const issueNumber = state.questions.ask?.issue_number as number;
    const issue = runner.repo.issues.get(issueNumber);
    expect(issue?.labels).toContain("frontier:question");
    expect(issue?.body).toContain("Which region should the cache live in?");
    expect(issue?.body).toMatch(
      /<!-- ticket-frontier:question run=e2e ticket=ask attempt=1 branch=main -->/,
    );
    expect(issue?.body).toContain("/answer");
    const questionIssues = [...runner.repo.issues.values()].filter((i) =>
      i.labels.includes("frontier:question"),
    );
    expect(questionIssues).toHaveLength(1);
    const settle = runner.jobs.find((j) => j.ticket === "ask")?.settle;
    expect(settle?.outputs.state).toBe("suspended");
  });
});

describe("the context step", () => {
  it("reads the run's records from the branch checkout without a single API request, or through the API when the workflow makes no checkout", async () => {
    const runner = await aDoneBDead();
    const b = runner.jobs.find((j) => j.ticket === "b");
    const run = b?.run as NonNullable<typeof b>["run"];
    const payload = (await import("../fake-github/server.js")).makeWorkflowDispatchPayload({
      repo: runner.repo,
      workflow: "orch-task.yml",
      ref: run.ref,
      inputs: run.inputs,
    });
    const common = {
      event: "workflow_dispatch",
      payload,
      sha: run.inputs.base as string,
      runId: run.id,
    };

    runner.fake.clearRequests();
    const offline = await runner.step({
      ...common,
      inputs: {
        command: "context",
        records: runner.checkout(runner.repo.head("main") as string, "tickets/.frontier"),
      },
    });
    expect(offline.code, offline.stdout).toBe(0);
    expect(runner.fake.requests).toHaveLength(0);
    expect(offline.outputs.live).toBe("true");
    const text = (await import("node:fs")).readFileSync(
      offline.outputs["context-file"] as string,
      "utf8",
    );
    expect(text).toContain("A's result");
    expect(offline.exported).toMatchObject({
      FRONTIER_TICKET: "b",
      FRONTIER_ATTEMPT: "1",
      FRONTIER_RUN: "e2e",
    });

    runner.fake.clearRequests();
    const online = await runner.step({ ...common, inputs: { command: "context" } });
    expect(online.code).toBe(0);
    // without the records checkout: one query for the state, one for the input's result
    expect(runner.fake.requests.map((r) => r.operation)).toEqual([
      "graphql/query",
      "graphql/query",
    ]);
    expect(
      (await import("node:fs")).readFileSync(online.outputs["context-file"] as string, "utf8"),
    ).toBe(text);
  });

  it("says when the claim is no longer live, so the agent step is skipped", async () => {
    const runner = await endedWell();
    const a = runner.jobs.find((j) => j.ticket === "a");
    const run = a?.run as NonNullable<typeof a>["run"];
    const late = await runner.step({
      event: "workflow_dispatch",
      payload: (await import("../fake-github/server.js")).makeWorkflowDispatchPayload({
        repo: runner.repo,
        workflow: "orch-task.yml",
        ref: run.ref,
        inputs: run.inputs,
      }),
      sha: run.inputs.base as string,
      runId: run.id,
      inputs: { command: "context" },
    });
    expect(late.code).toBe(0);
    expect(late.outputs.live).toBe("false");
    expect(late.stdout).toMatch(/not the ticket's live attempt/);
  });
});

describe("issue_comment reaches the bot through the bundle", () => {
  it("a maintainer's /answer on the question issue re-runs the ticket with the answer, and its dependents complete", async () => {
    const runner = await asked();
    const issueNumber = runner.state().questions.ask?.issue_number as number;
    const issue = runner.repo.issues.get(issueNumber);
    expect(issue).toBeDefined();

    runner.repo.setPermission("maya", "write");
    const comment = runner.repo.addComment(
      issueNumber,
      "/answer eu-west-1, the others are read-only",
      "maya",
    );
    const { makeIssueCommentPayload } = await import("../fake-github/server.js");
    const step = await runner.step({
      event: "issue_comment",
      payload: makeIssueCommentPayload({
        repo: runner.repo,
        issue: issue as NonNullable<typeof issue>,
        comment,
      }),
      sha: runner.repo.head("main") as string,
    });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    await runner.fake.idle();
    const state = runner.state();
    expect(state.tickets.ask?.status).toBe("complete");
    expect(state.tickets.later?.status).toBe("complete");
    const context = runner.jobs.find((j) => j.ticket === "ask" && j.attempt === 2)?.context
      ?.outputs["context-file"];
    const text = (await import("node:fs")).readFileSync(context as string, "utf8");
    expect(text).toContain("Which region should the cache live in?");
    expect(text).toContain("eu-west-1, the others are read-only");
    expect(runner.repo.issues.get(issueNumber)?.state).toBe("closed");
  });
});
