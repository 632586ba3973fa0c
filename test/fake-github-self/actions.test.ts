import { getOctokit } from "@actions/github";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { quietLog } from "../fake-github/clients.js";
import { FakeGitHub, type FakeRepo, type FakeRun } from "../fake-github/server.js";

const owner = "acme";
const name = "widgets";
const ORCH_TASK = `name: orch-task
run-name: "frontier \${{ inputs.ticket }}#\${{ inputs.attempt }} \${{ inputs.claim }}"
on:
  workflow_dispatch:
    inputs:
      run: { required: true }
      ticket: { required: true }
      attempt: { required: true }
      claim: { required: true }
      base: { required: false, default: "" }
jobs:
  task: { runs-on: ubuntu-latest, steps: [{ run: "true" }] }
`;

let fake: FakeGitHub;
let repo: FakeRepo;
let octokit: Octokit;

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit("main", {
    ".github/workflows/orch-task.yml": ORCH_TASK,
    ".github/workflows/push-only.yml": "name: push-only\non: push\njobs: {}\n",
  });
  octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_x", log: quietLog });
});

afterEach(async () => {
  await fake.stop();
  fake.assertNoViolations();
});

const inputs = (ticket: string, attempt = "1") => ({
  run: "r1",
  ticket,
  attempt,
  claim: `c-${ticket}-${attempt}`,
});

describe("workflow dispatch", () => {
  it("with return_run_details: 200 and the run's id and urls; the run carries inputs and the run-name", async () => {
    const res = await octokit.actions.createWorkflowDispatch({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      ref: "main",
      inputs: inputs("a"),
      return_run_details: true,
    });
    expect(res.status).toBe(200);
    const details = res.data as unknown as {
      workflow_run_id: number;
      run_url: string;
      html_url: string;
    };
    const run = fake.run(details.workflow_run_id);
    expect(run).toMatchObject({
      event: "workflow_dispatch",
      ref: "main",
      headSha: repo.head(),
      status: "queued",
      inputs: { run: "r1", ticket: "a", attempt: "1", claim: "c-a-1", base: "" },
      displayTitle: "frontier a#1 c-a-1",
    });
    expect(details.run_url).toBe(`${fake.baseUrl}/repos/acme/widgets/actions/runs/${run.id}`);
    const { data } = await octokit.actions.getWorkflowRun({ owner, repo: name, run_id: run.id });
    expect(data).toMatchObject({
      display_title: "frontier a#1 c-a-1",
      name: "orch-task",
      status: "queued",
    });
  });

  it("without return_run_details: 204 and no body", async () => {
    const res = await octokit.actions.createWorkflowDispatch({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      ref: "main",
      inputs: inputs("b"),
    });
    expect(res.status).toBe(204);
    expect(repo.runs).toHaveLength(1);
  });

  it("an old GHES answers 400 to return_run_details; retrying without it and finding the run by run-name works", async () => {
    const ghes = new FakeGitHub({ returnRunDetails: "refused" });
    await ghes.start();
    const r = ghes.createRepo("acme/widgets");
    r.commit("main", { ".github/workflows/orch-task.yml": ORCH_TASK });
    const client = new Octokit({ baseUrl: ghes.baseUrl, auth: "t", log: quietLog });
    const args = {
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      ref: "main",
      inputs: inputs("c"),
    };
    await expect(
      client.actions.createWorkflowDispatch({ ...args, return_run_details: true }),
    ).rejects.toMatchObject({
      status: 400,
    });
    await client.actions.createWorkflowDispatch(args);
    const { data } = await client.actions.listWorkflowRuns({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      event: "workflow_dispatch",
      branch: "main",
      per_page: 50,
    });
    expect(data.workflow_runs.find((w) => w.display_title?.includes("c-c-1"))).toBeDefined();
    await ghes.stop();
    ghes.assertNoViolations();
  });

  it("refuses what GitHub refuses: no dispatch trigger, unknown ref, unexpected or missing inputs, unknown workflow", async () => {
    const call = (workflow_id: string, ref: string, ins: Record<string, string>) =>
      octokit.actions
        .createWorkflowDispatch({ owner, repo: name, workflow_id, ref, inputs: ins })
        .catch((e) => e);
    expect(await call("push-only.yml", "main", {})).toMatchObject({
      status: 422,
      message: expect.stringContaining("Workflow does not have 'workflow_dispatch' trigger"),
    });
    expect(await call("orch-task.yml", "nope", inputs("a"))).toMatchObject({
      status: 422,
      message: expect.stringContaining("No ref found for: nope"),
    });
    expect(await call("orch-task.yml", "main", { ...inputs("a"), extra: "x" })).toMatchObject({
      status: 422,
      message: expect.stringContaining('Unexpected inputs provided: ["extra"]'),
    });
    expect(await call("orch-task.yml", "main", { run: "r" })).toMatchObject({
      status: 422,
      message: expect.stringContaining("Required input 'ticket' not provided"),
    });
    expect(await call("missing.yml", "main", {})).toMatchObject({ status: 404 });
    const typed = await octokit.actions
      .createWorkflowDispatch({
        owner,
        repo: name,
        workflow_id: "orch-task.yml",
        ref: "main",
        inputs: { ...inputs("a"), attempt: 1 as unknown as string },
      })
      .catch((e) => e);
    expect(typed).toMatchObject({
      status: 422,
      message: expect.stringContaining("Provided value for input 'attempt' is not a string"),
    });
    expect(repo.runs).toHaveLength(0);
  });

  it("a registered workflow with a run-name function needs no file", async () => {
    repo.addWorkflow("registered.yml", {
      runName: (i) => `frontier ${i.ticket}#${i.attempt} ${i.claim}`,
    });
    await octokit.actions.createWorkflowDispatch({
      owner,
      repo: name,
      workflow_id: "registered.yml",
      ref: "main",
      inputs: inputs("z", "2"),
    });
    expect(repo.runs[0]?.displayTitle).toBe("frontier z#2 c-z-2");
  });
});

describe("runs", () => {
  it("lists runs with event, branch, status and created filters, newest first, per workflow and per repo", async () => {
    let clock = Date.parse("2026-03-01T10:00:00Z");
    fake.now = () => clock;
    for (const t of ["a", "b", "c"]) {
      await octokit.actions.createWorkflowDispatch({
        owner,
        repo: name,
        workflow_id: "orch-task.yml",
        ref: "main",
        inputs: inputs(t),
      });
      clock += 60_000;
    }
    fake.createRun(repo, { workflow: "push-only.yml", event: "push" });
    const [a] = repo.runs;
    fake.setRunStatus(a!.id, "completed", "failure");

    const all = await octokit.actions.listWorkflowRunsForRepo({ owner, repo: name });
    expect(all.data.total_count).toBe(4);
    const dispatched = await octokit.actions.listWorkflowRunsForRepo({
      owner,
      repo: name,
      event: "workflow_dispatch",
    });
    expect(dispatched.data.workflow_runs.map((r) => r.display_title)).toEqual([
      "frontier c#1 c-c-1",
      "frontier b#1 c-b-1",
      "frontier a#1 c-a-1",
    ]);
    const recent = await octokit.actions.listWorkflowRuns({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      created: ">=2026-03-01T10:01:00Z",
    });
    expect(recent.data.workflow_runs.map((r) => r.display_title)).toEqual([
      "frontier c#1 c-c-1",
      "frontier b#1 c-b-1",
    ]);
    const failed = await octokit.actions.listWorkflowRunsForRepo({
      owner,
      repo: name,
      status: "failure",
    });
    expect(failed.data.workflow_runs.map((r) => r.id)).toEqual([a!.id]);
    const page = await octokit.actions.listWorkflowRunsForRepo({
      owner,
      repo: name,
      per_page: 1,
      branch: "main",
    });
    expect(page.data.workflow_runs).toHaveLength(1);
    expect(page.headers.link).toContain('rel="next"');
  });

  it("cancel marks a run cancelled, aborts its signal, and refuses a completed run with 409", async () => {
    const res = await octokit.actions.createWorkflowDispatch({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      ref: "main",
      inputs: inputs("a"),
      return_run_details: true,
    });
    const id = (res.data as unknown as { workflow_run_id: number }).workflow_run_id;
    const cancelled = await octokit.actions.cancelWorkflowRun({ owner, repo: name, run_id: id });
    expect(cancelled.status).toBe(202);
    expect(fake.run(id)).toMatchObject({ status: "completed", conclusion: "cancelled" });
    expect(fake.run(id).signal.aborted).toBe(true);
    await expect(
      octokit.actions.cancelWorkflowRun({ owner, repo: name, run_id: id }),
    ).rejects.toMatchObject({
      status: 409,
    });
  });
});

describe("onDispatch: a fake runner", () => {
  it("runs each dispatched job after the dispatch is answered; hooks may dispatch more; idle() waits for all", async () => {
    const seen: string[] = [];
    const gh = getOctokit("ghs_runner", { baseUrl: fake.baseUrl, log: quietLog });
    fake.onDispatch(async (run: FakeRun) => {
      seen.push(`${run.inputs.ticket} ${run.status}`);
      if (run.inputs.ticket === "a") {
        await gh.rest.actions.createWorkflowDispatch({
          owner,
          repo: name,
          workflow_id: "orch-task.yml",
          ref: "main",
          inputs: inputs("b"),
        });
      }
      if (run.inputs.ticket === "b") fake.setRunStatus(run.id, "completed", "failure");
    });
    await gh.rest.actions.createWorkflowDispatch({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      ref: "main",
      inputs: inputs("a"),
    });
    await fake.idle();
    expect(seen).toEqual(["a in_progress", "b in_progress"]);
    expect(repo.runs.map((r) => `${r.inputs.ticket} ${r.status} ${r.conclusion}`)).toEqual([
      "a completed success",
      "b completed failure",
    ]);
  });

  it("a hook that throws completes its run as failure and records the error", async () => {
    fake.onDispatch(() => {
      throw new Error("runner broke");
    });
    await octokit.actions.createWorkflowDispatch({
      owner,
      repo: name,
      workflow_id: "orch-task.yml",
      ref: "main",
      inputs: inputs("a"),
    });
    await fake.idle();
    expect(repo.runs[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(fake.hookErrors).toHaveLength(1);
  });
});

describe("request log", () => {
  it("records method, path, operation and status for counting requests per test", async () => {
    await octokit.repos.get({ owner, repo: name });
    await octokit.git.getRef({ owner, repo: name, ref: "heads/main" });
    await octokit.git.getRef({ owner, repo: name, ref: "heads/nope" }).catch(() => {});
    expect(fake.requests.map((r) => `${r.method} ${r.operation} ${r.status}`)).toEqual([
      "GET repos/get 200",
      "GET git/get-ref 200",
      "GET git/get-ref 404",
    ]);
    expect(fake.countRequests({ path: "/repos/{owner}/{repo}/git/ref/{ref}" })).toBe(2);
    expect(fake.countRequests((r) => r.status >= 400)).toBe(1);
    fake.clearRequests();
    expect(fake.countRequests()).toBe(0);
  });
});

describe("jobs of a run", () => {
  it("GET runs/{id}/jobs lists one job mirroring the run's status and conclusion", async () => {
    const run = fake.createRun(repo, { workflow: "orch-task.yml", event: "workflow_dispatch" });
    run.jobName = "task";
    const before = await octokit.actions.listJobsForWorkflowRun({
      owner,
      repo: name,
      run_id: run.id,
    });
    expect(before.data.jobs.map((j) => `${j.name} ${j.status} ${j.conclusion}`)).toEqual([
      "task queued null",
    ]);
    fake.setRunStatus(run.id, "completed", "failure");
    const after = await octokit.actions.listJobsForWorkflowRun({
      owner,
      repo: name,
      run_id: run.id,
    });
    expect(after.data.jobs[0]).toMatchObject({
      status: "completed",
      conclusion: "failure",
      run_id: run.id,
    });
  });
});

describe("runner capacity", () => {
  it("with runners: 2, at most two hooks run at once and the rest wait queued", async () => {
    fake.runners = 2;
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    fake.onDispatch(async () => {
      running++;
      most = Math.max(most, running);
      await gate;
      running--;
    });
    await Promise.all(
      ["a", "b", "c", "d", "e"].map((t) =>
        octokit.actions.createWorkflowDispatch({
          owner,
          repo: name,
          workflow_id: "orch-task.yml",
          ref: "main",
          inputs: inputs(t),
        }),
      ),
    );
    await vi.waitFor(() => expect(running).toBe(2), { timeout: 10_000 });
    expect(repo.runs.map((r) => r.status).sort()).toEqual([
      "in_progress",
      "in_progress",
      "queued",
      "queued",
      "queued",
    ]);
    release();
    await fake.idle();
    expect(most).toBe(2);
    expect(repo.runs.every((r) => r.status === "completed" && r.conclusion === "success")).toBe(
      true,
    );
  });

  it("a run cancelled while it waits for a runner never starts", async () => {
    fake.runners = 1;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const started: string[] = [];
    fake.onDispatch(async (run) => {
      started.push(run.inputs.ticket!);
      await gate;
    });
    const ids: number[] = [];
    for (const t of ["a", "b"]) {
      const res = await octokit.actions.createWorkflowDispatch({
        owner,
        repo: name,
        workflow_id: "orch-task.yml",
        ref: "main",
        inputs: inputs(t),
        return_run_details: true,
      });
      ids.push((res.data as unknown as { workflow_run_id: number }).workflow_run_id);
    }
    await vi.waitFor(() => expect(started).toEqual(["a"]), { timeout: 10_000 });
    await octokit.actions.cancelWorkflowRun({ owner, repo: name, run_id: ids[1]! });
    release();
    await fake.idle();
    expect(started).toEqual(["a"]);
    expect(fake.run(ids[1]!).conclusion).toBe("cancelled");
  });
});
