import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fastClientOptions, quietLog, type RateLimitEvent } from "../fake-github/clients.js";
import { FakeGitHub, type FakeRepo } from "../fake-github/server.js";

const Client = Octokit.plugin(retry, throttling);
const owner = "acme";
const name = "widgets";

let fake: FakeGitHub;
let repo: FakeRepo;
let limits: RateLimitEvent[];
let octokit: InstanceType<typeof Client>;

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit("main", { "README.md": "hello\n" }, { message: "init" });
  limits = [];
  octokit = new Client({
    baseUrl: fake.baseUrl,
    auth: "ghs_test",
    log: quietLog,
    ...fastClientOptions({ onLimit: (e) => limits.push(e) }),
  });
});

afterEach(async () => {
  await fake.stop();
  fake.assertNoViolations();
});

async function commitOnTop(parent: string, file: string) {
  const { data: base } = await octokit.git.getCommit({ owner, repo: name, commit_sha: parent });
  const { data: tree } = await octokit.git.createTree({
    owner,
    repo: name,
    base_tree: base.tree.sha,
    tree: [{ path: file, mode: "100644", type: "blob", content: file }],
  });
  const { data: commit } = await octokit.git.createCommit({
    owner,
    repo: name,
    message: file,
    tree: tree.sha,
    parents: [parent],
  });
  return commit.sha;
}

describe("5xx faults", () => {
  it("a 502 on the next matching request fires once, is counted, and the retry plugin survives it", async () => {
    const fault = fake.inject({ operation: "repos/get", status: 502 });
    const { data } = await octokit.repos.get({ owner, repo: name });
    expect(data.name).toBe("widgets");
    expect(fault.fired).toBe(1);
    expect(fault.remaining).toBe(0);
    expect(fake.countRequests({ operation: "repos/get" })).toBe(2);
    expect(fake.countRequests({ operation: "repos/get", status: 502 })).toBe(1);
    expect(fake.findRequests({ status: 502 })[0]?.fault).toBe("error");
  });

  it("matches by path (exact, template or RegExp) and method, and `after` lets requests through first", async () => {
    const byTemplate = fake.inject({
      path: "/repos/{owner}/{repo}/issues",
      method: "POST",
      status: 500,
      after: 1,
    });
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "t", log: quietLog });
    await plain.issues.create({ owner, repo: name, title: "first passes" });
    await expect(
      plain.issues.create({ owner, repo: name, title: "second fails" }),
    ).rejects.toMatchObject({
      status: 500,
    });
    expect(byTemplate.fired).toBe(1);
    const byRegex = fake.inject({ path: /\/issues$/, method: "GET", status: 503, times: 2 });
    await expect(plain.issues.listForRepo({ owner, repo: name })).rejects.toMatchObject({
      status: 503,
    });
    await expect(plain.issues.listForRepo({ owner, repo: name })).rejects.toMatchObject({
      status: 503,
    });
    const { data } = await plain.issues.listForRepo({ owner, repo: name });
    expect(data.map((i) => i.title)).toEqual(["first passes"]);
    expect(byRegex.fired).toBe(2);
  });
});

describe("answers lost after the work was done", () => {
  it("applied: true creates the comment, answers 502, and a retrying client creates it twice", async () => {
    const issue = repo.createIssue({ title: "tracking" });
    const fault = fake.inject({ operation: "issues/create-comment", status: 502, applied: true });
    await octokit.issues.createComment({
      owner,
      repo: name,
      issue_number: issue.number,
      body: "report",
    });
    expect(fault.fired).toBe(1);
    // the retry plugin sent it again: GitHub would now show two comments
    expect(repo.commentsOn(issue.number).map((c) => c.body)).toEqual(["report", "report"]);
  });

  it("applied: true on a dispatch records the run although the client saw 502", async () => {
    repo.addWorkflow("orch-task.yml");
    fake.inject({ operation: "actions/create-workflow-dispatch", status: 502, applied: true });
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "t", log: quietLog });
    await expect(
      plain.actions.createWorkflowDispatch({
        owner,
        repo: name,
        workflow_id: "orch-task.yml",
        ref: "main",
      }),
    ).rejects.toMatchObject({ status: 502 });
    expect(repo.runs).toHaveLength(1);
  });
});

describe("secondary rate limits", () => {
  it("answers 403 with retry-after and GitHub's message; the throttling plugin waits and retries", async () => {
    const fault = fake.injectSecondaryRateLimit({ operation: "issues/create", retryAfter: 7 });
    const { data } = await octokit.issues.create({ owner, repo: name, title: "after the limit" });
    expect(data.title).toBe("after the limit");
    expect(fault.fired).toBe(1);
    expect(limits).toEqual([expect.objectContaining({ kind: "secondary", retryAfter: 7 })]);
  });

  it("answers 429 when asked", async () => {
    fake.injectSecondaryRateLimit({ operation: "issues/create", status: 429, retryAfter: 2 });
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "t", log: quietLog });
    const error = await plain.issues.create({ owner, repo: name, title: "x" }).catch((e) => e);
    expect(error.status).toBe(429);
    expect(error.response.headers["retry-after"]).toBe("2");
    expect(error.message).toMatch(/secondary rate limit/);
  });

  it("the primary limit: 403 with x-ratelimit-remaining 0 once the hour's budget is used", async () => {
    fake.addToken("ghs_small", { login: "github-actions[bot]", rateLimit: 2 });
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_small", log: quietLog });
    const first = await plain.repos.get({ owner, repo: name });
    expect(first.headers["x-ratelimit-limit"]).toBe("2");
    expect(first.headers["x-ratelimit-remaining"]).toBe("1");
    expect(first.headers["x-ratelimit-used"]).toBe("1");
    expect(first.headers["x-ratelimit-resource"]).toBe("core");
    await plain.repos.get({ owner, repo: name });
    const error = await plain.repos.get({ owner, repo: name }).catch((e) => e);
    expect(error.status).toBe(403);
    expect(error.response.headers["x-ratelimit-remaining"]).toBe("0");
    const { data } = await plain.rateLimit.get();
    expect(data.resources.core).toMatchObject({ limit: 2, remaining: 0, used: 2 });
  });
});

describe("ref update faults", () => {
  it("forceNonFastForward refuses the next update with 422 even when it is a fast-forward", async () => {
    const head = repo.head()!;
    const next = await commitOnTop(head, "a.txt");
    const fault = fake.forceNonFastForward({ branch: "main" });
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: next, force: false }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Update is not a fast forward"),
    });
    expect(repo.head()).toBe(head);
    await octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: next, force: false });
    expect(repo.head()).toBe(next);
    expect(fault.fired).toBe(1);
  });

  it("race mode lands a concurrent commit first, so a stale update meets a real conflict; re-applying wins", async () => {
    const head = repo.head()!;
    const fault = fake.raceNextRefUpdate({
      branch: "main",
      files: () => ({ "other-job.txt": "theirs" }),
    });
    const stale = await commitOnTop(head, "ours.txt");
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: stale, force: false }),
    ).rejects.toMatchObject({ status: 422 });
    expect(fault.fired).toBe(1);
    // re-read and re-apply, as the action must
    const { data: ref } = await octokit.git.getRef({ owner, repo: name, ref: "heads/main" });
    const again = await commitOnTop(ref.object.sha, "ours.txt");
    await octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: again, force: false });
    expect(repo.readFile("other-job.txt")).toBe("theirs");
    expect(repo.readFile("ours.txt")).toBe("ours.txt");
  });
});

describe("refused dispatches and latency", () => {
  it("refuseDispatch answers 422 with GitHub's message and records no run", async () => {
    repo.addWorkflow("orch-task.yml");
    const fault = fake.refuseDispatch({ workflow: "orch-task.yml" });
    await expect(
      octokit.actions.createWorkflowDispatch({
        owner,
        repo: name,
        workflow_id: "orch-task.yml",
        ref: "main",
      }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Workflow does not have 'workflow_dispatch' trigger"),
    });
    expect(fault.fired).toBe(1);
    expect(repo.runs).toHaveLength(0);
  });

  it("injectLatency delays matching requests and still answers them", async () => {
    const fault = fake.injectLatency({ operation: "repos/get", ms: 30, times: 2 });
    await octokit.repos.get({ owner, repo: name });
    await octokit.repos.get({ owner, repo: name });
    await octokit.repos.get({ owner, repo: name });
    expect(fault.fired).toBe(2);
    expect(fake.countRequests({ operation: "repos/get", status: 200 })).toBe(3);
  });
});
