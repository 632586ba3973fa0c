/**
 * What GitHub really does, through the built bundle: conflict answers the fake used to
 * forget, answers lost after a write landed, a lagging runs listing, leases nobody
 * reclaims, spent budgets, protected branches and branches cut from a run's branch.
 * Each case here was once a lost outcome, a stuck run or a ticket run twice.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Runner } from "../e2e/runner.js";
import { type TicketDef, writeTickets } from "../e2e/tickets.js";
import {
  makeIssueCommentPayload,
  makePushPayload,
  makeSchedulePayload,
  type RequestRecord,
} from "../fake-github/server.js";

let runner: Runner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});

const CHAIN: TicketDef[] = [{ id: "a" }, { id: "b", deps: ["a"] }, { id: "c", deps: ["b"] }];

async function started(
  defs: TicketDef[],
  settings = "run: faults\n",
): Promise<{ r: Runner; sha: string }> {
  runner = new Runner();
  const sha = await runner.start(writeTickets(defs, settings));
  return { r: runner, sha };
}

function allComplete(r: Runner, ids: string[]): void {
  const state = r.state();
  for (const id of ids) expect(state.tickets[id]?.status, id).toBe("complete");
}

describe("every conflict answer is a conflict", () => {
  it('422 "Reference cannot be updated" on a settle\'s commit: re-read, re-applied, the run completes', async () => {
    const { r, sha } = await started(CHAIN);
    r.withContext = false;
    // GitHub's answers to a ref write that lost a race inside GitHub, on either API
    r.fake.refUpdateConflict({ times: 3, after: 1 });
    r.fake.injectGraphQLError({
      operation: "graphql/mutation:createCommitOnBranch",
      type: "UNPROCESSABLE",
      message: "Reference cannot be updated",
      times: 3,
      after: 1,
    });
    const push = await r.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await r.fake.idle();
    expect(r.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
    allComplete(r, ["a", "b", "c"]);
  });
});

describe("leases everywhere", () => {
  it("a claim whose job never started is reclaimed by the next event of its run, and retried", async () => {
    const { r, sha } = await started([{ id: "a", extra: "bound: 2s\nretries: 1" }, { id: "slow" }]);
    r.withContext = false;
    let first = true;
    r.script = async (t) => {
      if (t === "a" && first) {
        first = false;
        return { die: true, silent: true }; // the job vanished: no settle, no workflow_run
      }
      if (t === "slow") await new Promise((res) => setTimeout(res, 3500));
      return { status: "complete", result: `result of ${t}` };
    };
    await r.push(sha);
    await r.fake.idle();
    const state = r.state();
    // slow's settle, 3.5 s later, reclaimed a (lease 2 s) and dispatched its retry
    expect(state.tickets.a?.attempts[0]).toMatchObject({
      outcome: "failed",
      reason: "lease-expired",
    });
    expect(state.tickets.a?.status).toBe("complete");
    expect(state.tickets.slow?.status).toBe("complete");
  });

  it("the scheduled sweep reclaims a stale claim of a run on a feature branch", async () => {
    runner = new Runner();
    const r = runner;
    const sha = await r.start(
      writeTickets([{ id: "a", extra: "bound: 1s\nretries: 1" }], "run: feature-run\n"),
    );
    r.repo.createBranch("feature", sha);
    r.withContext = false;
    let first = true;
    r.script = () => {
      if (first) {
        first = false;
        return { die: true, silent: true };
      }
      return { status: "complete", result: "done" };
    };
    const push = await r.step({
      event: "push",
      payload: makePushPayload({ repo: r.repo, after: sha, ref: "refs/heads/feature" }),
      sha,
      ref: "refs/heads/feature",
    });
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await r.fake.idle();
    await new Promise((res) => setTimeout(res, 1500));
    const sweep = await r.schedule(); // runs on the default branch
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    await r.fake.idle();
    const text = r.repo.readFile("tickets/.frontier/state.json", "feature");
    expect(text).toBeDefined();
    expect(r.fake.allRuns().filter((x) => x.inputs.ticket === "a")).toHaveLength(2);
    expect(r.repo.readFile("tickets/.frontier/results/a@2.md", "feature")).toBe("done");
  });
});

describe("a graph that does not hold together says why where people look", () => {
  it("an invalid push fills the job summary and comments on the pull request, with file:line", async () => {
    runner = new Runner();
    const r = runner;
    const dir = writeTickets([{ id: "a", deps: ["ghost"] }, { id: "b" }]);
    const sha = await r.start(dir);
    r.repo.createBranch("feature", sha);
    const pr = r.repo.openPull({ head: "feature", title: "tickets" });
    const push = await r.step({
      event: "push",
      payload: makePushPayload({ repo: r.repo, after: sha, ref: "refs/heads/feature" }),
      sha,
      ref: "refs/heads/feature",
    });
    expect(push.code).not.toBe(0);
    expect(push.summary).toMatch(/nothing was started/i);
    expect(push.summary).toMatch(/a\.md:\d+/);
    expect(push.summary).toMatch(/ghost/);
    const comments = r.repo.commentsOn(pr.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toMatch(/a\.md:\d+/);
    expect(comments[0]?.body).toMatch(/ghost/);
    expect(r.fake.allRuns()).toHaveLength(0);
  });
});

describe("requests per event do not grow with the graph", () => {
  it("/status on the pull request of a 300-ticket run reads no ticket file", async () => {
    const defs: TicketDef[] = Array.from({ length: 300 }, (_, i) =>
      i === 0
        ? { id: "t000" }
        : { id: `t${String(i).padStart(3, "0")}`, deps: [`t${String(i - 1).padStart(3, "0")}`] },
    );
    runner = new Runner();
    const r = runner;
    const sha = await r.start(writeTickets(defs, "run: big\n"));
    r.repo.createBranch("feature", sha);
    const pr = r.repo.openPull({ head: "feature", title: "tickets" });
    r.repo.setPermission("maint", "maintain");
    r.withContext = false;
    r.script = () => ({ die: true, silent: true });
    const push = await r.step({
      event: "push",
      payload: makePushPayload({ repo: r.repo, after: sha, ref: "refs/heads/feature" }),
      sha,
      ref: "refs/heads/feature",
    });
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await r.fake.idle();
    const comment = r.repo.addComment(pr.number, "/status", "maint");
    const before = r.fake.requests.length;
    const mainHead = r.repo.head("main") as string;
    const step = await r.step({
      event: "issue_comment",
      payload: makeIssueCommentPayload({ repo: r.repo, issue: pr, comment }),
      sha: mainHead,
    });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    const made: RequestRecord[] = r.fake.requests.slice(before);
    expect(made.filter((q) => q.operation === "repos/get-content")).toHaveLength(0);
    expect(made.length).toBeLessThanOrEqual(10);
  });
});

describe("per-event cost does not grow with history", () => {
  it("the worklog lives outside state.json in sealed chunks, and a late settle rewrites only the state shards it touched", async () => {
    const defs: TicketDef[] = Array.from({ length: 16 }, (_, i) =>
      i === 0
        ? { id: "t00" }
        : { id: `t${String(i).padStart(2, "0")}`, deps: [`t${String(i - 1).padStart(2, "0")}`] },
    );
    const { r, sha } = await started(defs);
    r.withContext = false;
    const push = await r.push(sha);
    expect(push.code).toBe(0);
    await r.fake.idle();
    allComplete(
      r,
      defs.map((d) => d.id),
    );
    const text = r.repo.readFile("tickets/.frontier/state.json", "main") ?? "";
    expect(text).not.toContain('"worklog"');
    // the worklog's history is sealed in chunks, written once each, never rewritten
    const chunks = r.repo.listFiles("main", "tickets/.frontier/worklog");
    expect(chunks.length).toBeGreaterThan(0);
    const commits = r.repo.log("main").map((c) => c.sha);
    for (const chunk of chunks) {
      const versions = new Set(
        commits.map((c) => r.repo.readFile(chunk, c)).filter((t) => t !== undefined),
      );
      expect(versions.size, chunk).toBe(1);
    }
    // the last settle sent a fraction of the whole state, not all of it
    const settles = r.fake.requests.filter(
      (q) => q.operation === "graphql/mutation:createCommitOnBranch",
    );
    const last = settles.at(-1) as RequestRecord & { bytes?: number };
    const shards = r.repo.listFiles("main", "tickets/.frontier/state");
    const whole = shards.reduce((n, p) => n + (r.repo.readFile(p, "main") ?? "").length, 0);
    expect(shards.length).toBeGreaterThan(1);
    expect(last.bytes ?? 0).toBeLessThan(whole * 1.34 * 0.75 + 12_000);
  });
});

describe("one claim, one agent run", () => {
  it("a first run that starts at once and runs long, with the runs listing lagging past the outbox's wait: the agent runs once, even without the claim's concurrency group", async () => {
    const { r } = await started([{ id: "a" }]);
    // an orch-task workflow written before the claim's concurrency group: nothing keeps
    // two dispatches of one claim apart but the take at the context step
    const workflow = r.repo.readFile(".github/workflows/orch-task.yml") ?? "";
    const head = r.repo.commit("main", {
      ".github/workflows/orch-task.yml": workflow.replace(/^concurrency:\n(?: {2}.*\n)+/m, ""),
    });
    expect(r.repo.readFile(".github/workflows/orch-task.yml")).not.toContain(
      "inputs.claim }}\n  cancel",
    );
    // the jobs see the outbox's wait as long (a first run starts well within it) ...
    r.env = { FRONTIER_TEST_OUTBOX_LAG_MS: "600000" };
    r.fake.runsListingLagMs = 600_000; // ... and the listing never shows the first run
    const agentRuns: number[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((res) => {
      release = res;
    });
    r.script = (t, _a, job) => {
      if (job.context?.outputs.live === "true") agentRuns.push(job.run.id);
      return { status: "complete", result: `result of ${t}` };
    };
    // the first run's agent is still working when the next event finds the claim overdue
    let contextDone: () => void = () => {};
    const firstContext = new Promise<void>((res) => {
      contextDone = res;
    });
    r.beforeSettle = async () => {
      contextDone();
      await held;
    };
    const push = await r.push(head);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await firstContext;
    // ... while the sweep sees it as past its wait, and no run carries it in the listing
    const sweep = await r.step({
      event: "schedule",
      payload: makeSchedulePayload({ repo: r.repo, workflow: "frontier.yml" }),
      sha: r.repo.head("main") as string,
      env: { FRONTIER_TEST_OUTBOX_LAG_MS: "1" },
    });
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    await new Promise((res) => setTimeout(res, 300));
    release();
    await r.fake.idle();
    expect(agentRuns).toHaveLength(1);
    allComplete(r, ["a"]);
  }, 60_000);

  it("a dispatch whose answer was lost, with a runs listing that lags: the agent runs once", async () => {
    const { r, sha } = await started([{ id: "a" }, { id: "b", deps: ["a"] }]);
    r.fake.runsListingLagMs = 4000;
    r.inputs = {};
    // GitHub starts a's run but the answer is lost
    r.fake.inject({
      operation: "actions/create-workflow-dispatch",
      status: 502,
      applied: true,
      times: 1,
    });
    const agentRuns: string[] = [];
    r.script = (t, a, job) => {
      if (job.context?.outputs.live === "true") agentRuns.push(`${t}#${a}`);
      return { status: "complete", result: `result of ${t} attempt ${a}` };
    };
    const push = await r.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await r.fake.idle();
    expect(agentRuns.filter((x) => x === "a#1")).toHaveLength(1);
    allComplete(r, ["a", "b"]);
  });
});

describe("one claim, one agent run, even when it was sent twice", () => {
  it("a claim sent again by the outbox while its first run was still queued: whichever run takes it first runs the agent, the other skips", async () => {
    const { r, sha } = await started([{ id: "a" }]);
    r.env = { FRONTIER_TEST_OUTBOX_LAG_MS: "600" };
    r.fake.runsListingLagMs = 60_000; // the listing never shows the first run in time
    r.fake.inject({
      operation: "actions/create-workflow-dispatch",
      status: 502,
      applied: true,
      times: 1,
    });
    let firstHeld = true;
    let release: () => void = () => {};
    const held = new Promise<void>((res) => {
      release = res;
    });
    r.beforeContext = async () => {
      if (firstHeld) {
        firstHeld = false;
        await held; // the first run waits for a runner
      }
    };
    const agentRuns: number[] = [];
    r.script = (t, _a, job) => {
      if (job.context?.outputs.live === "true") agentRuns.push(job.run.id);
      return { status: "complete", result: `result of ${t}` };
    };
    const push = await r.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await new Promise((res) => setTimeout(res, 900));
    // the sweep: a's claim is unseen past the lag and no run carries it in the listing
    const sweep = await r.schedule();
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    expect(r.fake.allRuns().filter((x) => x.inputs.ticket === "a")).toHaveLength(2);
    await new Promise((res) => setTimeout(res, 300));
    release();
    await r.fake.idle();
    expect(agentRuns).toHaveLength(1);
    const skipped = r.jobs.find((j) => j.context?.outputs.live === "false");
    // the second waited for the first (the claim's concurrency group), then found it settled
    expect(`${skipped?.context?.stdout}`).toMatch(/took it first|not the ticket's live attempt/);
    allComplete(r, ["a"]);
  });
});

describe("a run belongs to its branch", () => {
  it("a branch cut from a branch with a finished run starts its own run on push, of its new tickets", async () => {
    const { r, sha } = await started([{ id: "a" }]);
    r.withContext = false;
    await r.push(sha);
    await r.fake.idle();
    allComplete(r, ["a"]);
    // cut a branch from main (state and all) and add a ticket there
    const mainHead = r.repo.head("main") as string;
    r.repo.createBranch("next", mainHead);
    const pushed = r.repo.commit("next", {
      "tickets/new.md": "---\ndepends_on: [a]\n---\n\n# New\n\nDo the new thing.\n",
    });
    const push = await r.step({
      event: "push",
      payload: makePushPayload({ repo: r.repo, after: pushed, ref: "refs/heads/next" }),
      sha: pushed,
      ref: "refs/heads/next",
    });
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await r.fake.idle();
    const text = r.repo.readFile("tickets/.frontier/state.json", "next") ?? "";
    expect(JSON.parse(text).branch).toBe("next");
    expect(r.fake.allRuns().filter((x) => x.inputs.ticket === "new")).toHaveLength(1);
    // the finished run is the new branch's history: a is not run again, its records stay
    expect(r.fake.allRuns().filter((x) => x.inputs.ticket === "a")).toHaveLength(1);
    expect(r.repo.readFile("tickets/.frontier/results/a@1.md", "next")).toBeDefined();
  });
});

describe("a spent budget and a protected branch are said plainly", () => {
  it("REST's hourly budget spent at a settle: the outcome is recorded, the step says which budget and when it resets, the next event dispatches", async () => {
    const { r, sha } = await started(CHAIN);
    r.withContext = false;
    r.beforeSettle = async (job) => {
      if (job.ticket === "a")
        r.fake.setRateLimit({ used: 1_000_000, resetInSeconds: 1800, resource: "core" });
    };
    await r.push(sha);
    await r.fake.idle();
    const settle = r.jobs.find((j) => j.ticket === "a")?.settle;
    const out = `${settle?.stdout}${settle?.stderr}`;
    expect(out).not.toMatch(/unexpected error/);
    expect(out).toMatch(
      /REST rate limit for this token is spent \(resets \d\d:\d\d UTC, in 30 min\)/,
    );
    // the outcome went through the other budget (GraphQL); b is claimed, not yet sent
    expect(r.state().tickets.a?.status).toBe("complete");
    expect(r.state().tickets.b?.status).toBe("claimed");
    expect(r.fake.allRuns().filter((x) => x.inputs.ticket === "b")).toHaveLength(0);
    // the budget comes back: the next event (the sweep) sends b, and the run completes
    r.fake.setRateLimit({ used: 0, resource: "core" });
    r.beforeSettle = undefined;
    const sweep = await r.schedule();
    expect(sweep.code, sweep.stdout + sweep.stderr).toBe(0);
    await r.fake.idle();
    allComplete(r, ["a", "b", "c"]);
  });

  it("a branch the token may not push to: one clear error that says what to change", async () => {
    const { r, sha } = await started(CHAIN);
    r.withContext = false;
    r.fake.injectGraphQLError({
      operation: "graphql/mutation:createCommitOnBranch",
      type: "FORBIDDEN",
      message: "Repository rule violations found\n\nChanges must be made through a pull request.",
      times: 5,
    });
    r.fake.inject({
      operation: "git/update-ref",
      status: 422,
      message: "Protected branch update failed for refs/heads/main.",
      times: 5,
    });
    const push = await r.push(sha);
    expect(push.code).not.toBe(0);
    const out = push.stdout + push.stderr;
    expect(out).not.toMatch(/unexpected error/);
    expect(out).toMatch(/may not push to branch main/);
    expect(out).toMatch(/branch/);
    expect(r.fake.allRuns()).toHaveLength(0);
  });
});
