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

describe("the primary limit's answer, as GitHub documents it", () => {
  it("names the installation, links the docs, and answers 429 when asked", async () => {
    fake.addToken("ghs_small", { login: "github-actions[bot]", rateLimit: 1 });
    fake.primaryLimitStatus = 429;
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_small", log: quietLog });
    await plain.repos.get({ owner, repo: name });
    const error = await plain.repos.get({ owner, repo: name }).catch((e) => e);
    expect(error.status).toBe(429);
    expect(error.response.data.message).toMatch(
      /^API rate limit exceeded for installation ID \d+\.$/,
    );
    expect(error.response.headers["x-ratelimit-remaining"]).toBe("0");
    expect(Number(error.response.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
  });
});

const CREATE_COMMIT = `mutation ($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}`;

function commitInput(expectedHeadOid: string, file: string) {
  return {
    input: {
      branch: { repositoryNameWithOwner: `${owner}/${name}`, branchName: "main" },
      expectedHeadOid,
      message: { headline: file },
      fileChanges: { additions: [{ path: file, contents: Buffer.from(file).toString("base64") }] },
    },
  };
}

describe("GraphQL's own budget", () => {
  it("REST and GraphQL are counted apart; a spent GraphQL budget answers 200 RATE_LIMITED", async () => {
    fake.addToken("ghs_small", { login: "github-actions[bot]", rateLimit: 1, graphqlRateLimit: 2 });
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_small", log: quietLog });
    await plain.repos.get({ owner, repo: name });
    await expect(plain.repos.get({ owner, repo: name })).rejects.toMatchObject({ status: 403 });
    // REST is spent, GraphQL is not
    const first = await plain.request("POST /graphql", {
      query: "{ rateLimit { used limit remaining } }",
    });
    expect(first.data.data.rateLimit).toEqual({ used: 1, limit: 2, remaining: 1 });
    expect(first.headers["x-ratelimit-resource"]).toBe("graphql");
    expect(first.headers["x-ratelimit-limit"]).toBe("2");
    await plain.graphql("{ viewer: rateLimit { used } }");
    const spent = await plain.request("POST /graphql", { query: "{ rateLimit { used } }" });
    expect(spent.status).toBe(200);
    expect(spent.headers["x-ratelimit-remaining"]).toBe("0");
    expect(spent.headers["x-ratelimit-resource"]).toBe("graphql");
    expect(spent.data).toEqual({
      errors: [
        {
          type: "RATE_LIMITED",
          code: "graphql_rate_limit",
          message: expect.stringMatching(
            /^API rate limit already exceeded for installation ID \d+\.$/,
          ),
        },
      ],
    });
    const { data } = await plain.rateLimit.get();
    expect(data.resources.graphql).toMatchObject({ limit: 2, used: 2, remaining: 0 });
    expect(data.resources.core).toMatchObject({ limit: 1, used: 1, remaining: 0 });
  });

  it("the throttling plugin sees the spent GraphQL budget as a primary limit", async () => {
    fake.setRateLimit({ token: "ghs_test", used: 1000, resource: "graphql", resetInSeconds: 3600 });
    // a client that does not wait out the hour (3 retries would each wait 3,600 ms here)
    const once = new Client({
      baseUrl: fake.baseUrl,
      auth: "ghs_test",
      log: quietLog,
      ...fastClientOptions({ retries: 0, onLimit: (e) => limits.push(e) }),
    });
    const error = await once.graphql("{ rateLimit { used } }").catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(limits[0]).toMatchObject({ kind: "primary" });
    // REST still answers
    await octokit.repos.get({ owner, repo: name });
  });

  it("installation tokens get 1,000 points, user tokens 5,000", async () => {
    fake.addToken("ghp_user", { login: "alice", kind: "user" });
    const user = new Octokit({ baseUrl: fake.baseUrl, auth: "ghp_user", log: quietLog });
    const a = await octokit.graphql<{ rateLimit: { limit: number } }>("{ rateLimit { limit } }");
    const b = await user.graphql<{ rateLimit: { limit: number } }>("{ rateLimit { limit } }");
    expect([a.rateLimit.limit, b.rateLimit.limit]).toEqual([1000, 5000]);
  });
});

describe("secondary (content creation) limits", () => {
  it("count REST writes and GraphQL mutations together per token; reads are free", async () => {
    fake.secondaryLimits = { perMinute: 3, perHour: 100 };
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_test", log: quietLog });
    const issue = repo.createIssue({ title: "t" });
    await plain.issues.createComment({ owner, repo: name, issue_number: issue.number, body: "1" });
    await plain.graphql(CREATE_COMMIT, commitInput(repo.head()!, "a.txt"));
    for (let i = 0; i < 5; i++) await plain.repos.get({ owner, repo: name });
    await plain.graphql("{ rateLimit { used } }");
    await plain.issues.createComment({ owner, repo: name, issue_number: issue.number, body: "2" });
    const rest = await plain.issues
      .createComment({ owner, repo: name, issue_number: issue.number, body: "3" })
      .catch((e) => e);
    expect(rest.status).toBe(403);
    expect(rest.message).toMatch(/secondary rate limit/);
    expect(Number(rest.response.headers["retry-after"])).toBeGreaterThan(0);
    const mutation = (await plain
      .graphql(CREATE_COMMIT, commitInput(repo.head()!, "b.txt"))
      .catch((e) => e)) as { status: number; response: { data: { message: string } } };
    expect(mutation.status).toBe(403);
    expect(mutation.response.data.message).toMatch(/secondary rate limit/);
    expect(repo.readFile("b.txt")).toBeUndefined();
    expect(repo.commentsOn(issue.number)).toHaveLength(2);
    // another token has its own count
    const other = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_other", log: quietLog });
    await other.issues.createComment({ owner, repo: name, issue_number: issue.number, body: "4" });
  });

  it("the minute window frees up; the throttling plugin waits and retries", async () => {
    let t = Date.parse("2026-03-01T10:00:00Z");
    const clock = new FakeGitHub({ now: () => t, secondaryLimits: { perMinute: 1, perHour: 10 } });
    await clock.start();
    try {
      const r = clock.createRepo("acme/widgets");
      const issue = r.createIssue({ title: "t" });
      const seen: RateLimitEvent[] = [];
      const client = new Client({
        baseUrl: clock.baseUrl,
        auth: "ghs_test",
        log: quietLog,
        ...fastClientOptions({
          onLimit: (e) => {
            seen.push(e);
            t += e.retryAfter * 1000; // the client waits that long
          },
        }),
      });
      await client.issues.createComment({
        owner,
        repo: name,
        issue_number: issue.number,
        body: "1",
      });
      await client.issues.createComment({
        owner,
        repo: name,
        issue_number: issue.number,
        body: "2",
      });
      expect(seen).toEqual([expect.objectContaining({ kind: "secondary", retryAfter: 60 })]);
      expect(r.commentsOn(issue.number)).toHaveLength(2);
      expect(clock.findRequests({ status: 403 })[0]?.fault).toBe("secondary-rate-limit");
    } finally {
      await clock.stop();
    }
  });

  it("`secondaryLimits: true` is GitHub's 80 a minute", () => {
    expect(new FakeGitHub({ secondaryLimits: true }).secondaryLimits).toEqual({
      perMinute: 80,
      perHour: 500,
    });
    expect(new FakeGitHub().secondaryLimits).toBe(false);
  });
});

describe("usage counters", () => {
  it("counts REST reads and writes, GraphQL queries and mutations, and bytes, per token and overall", async () => {
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_test", log: quietLog });
    const other = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_other", log: quietLog });
    const before = fake.usage("ghs_test");
    await plain.repos.get({ owner, repo: name });
    await plain.issues.create({ owner, repo: name, title: "t" });
    await plain.graphql("{ rateLimit { used } }");
    await plain.graphql(CREATE_COMMIT, commitInput(repo.head()!, "a.txt"));
    await other.repos.get({ owner, repo: name });
    const mine = fake.usage("ghs_test");
    expect(mine.rest).toEqual({ reads: before.rest.reads + 1, writes: before.rest.writes + 1 });
    expect(mine.graphql).toEqual({ queries: 1, mutations: 1 });
    const sent = fake.findRequests((r) => r.token === "ghs_test").reduce((n, r) => n + r.bytes, 0);
    expect(mine.bytesIn).toBe(sent);
    expect(mine.bytesIn).toBeGreaterThan(100);
    expect(mine.bytesOut).toBeGreaterThan(mine.bytesIn);
    expect(fake.usage("ghs_other").rest).toEqual({ reads: 1, writes: 0 });
    const all = fake.usage();
    expect(all.rest.reads).toBe(mine.rest.reads + 1);
    expect(all.graphql.mutations).toBe(1);
    const record = fake.findRequests({ operation: "graphql/mutation:createCommitOnBranch" })[0]!;
    expect(record.bytes).toBe(Buffer.byteLength(JSON.stringify(record.body)));
    expect(record.graphql).toMatchObject({ kind: "mutation", rootField: "createCommitOnBranch" });
  });
});

describe("faults on GraphQL", () => {
  it("injectGraphQLError answers 200 with GitHub's error entry; applied lands the mutation", async () => {
    const head = repo.head()!;
    const fault = fake.injectGraphQLError({
      operation: "graphql/mutation:createCommitOnBranch",
      type: "INTERNAL",
      message: "Something went wrong while executing your query.",
      applied: true,
    });
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_test", log: quietLog });
    const error = (await plain
      .graphql(CREATE_COMMIT, commitInput(head, "a.txt"))
      .catch((e) => e)) as { errors: unknown[]; data: unknown };
    expect(error.errors).toEqual([
      expect.objectContaining({ type: "INTERNAL", path: ["createCommitOnBranch"] }),
    ]);
    expect(error.data).toEqual({ createCommitOnBranch: null });
    expect(fault.fired).toBe(1);
    expect(repo.readFile("a.txt")).toBe("a.txt");
    expect(fake.findRequests({ operation: "graphql/mutation" })[0]?.fault).toBe("graphql-error");
  });

  it("injectLatency and countRequests filter GraphQL operations like REST ones", async () => {
    const slow = fake.injectLatency({ operation: "graphql/query", ms: 20 });
    const started = Date.now();
    await octokit.graphql("{ rateLimit { used } }");
    expect(Date.now() - started).toBeGreaterThanOrEqual(18);
    expect(slow.fired).toBe(1);
    expect(fake.countRequests({ operation: "graphql/query", status: 200 })).toBe(1);
  });
});

describe("reference conflicts inside GitHub", () => {
  it("PATCH git/refs answers 422 'Reference cannot be updated' and changes nothing", async () => {
    const head = repo.head()!;
    const next = await commitOnTop(head, "a.txt");
    const fault = fake.refUpdateConflict({ branch: "main" });
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: next }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Reference cannot be updated"),
    });
    expect(repo.head()).toBe(head);
    await octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: next });
    expect(repo.head()).toBe(next);
    expect(fault.fired).toBe(1);
  });

  it("POST git/refs answers 422 'Reference update failed'", async () => {
    fake.refUpdateConflict({ branch: "claim/a" });
    const head = repo.head()!;
    await expect(
      octokit.git.createRef({ owner, repo: name, ref: "refs/heads/claim/a", sha: head }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Reference update failed"),
    });
    expect(repo.head("claim/a")).toBeUndefined();
    await octokit.git.createRef({ owner, repo: name, ref: "refs/heads/claim/a", sha: head });
    expect(repo.head("claim/a")).toBe(head);
  });

  it("raceFirst lands another job's commit before answering; applied lands the client's own", async () => {
    const head = repo.head()!;
    const ours = await commitOnTop(head, "ours.txt");
    fake.refUpdateConflict({ raceFirst: true, files: () => ({ "theirs.txt": "theirs" }) });
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: ours }),
    ).rejects.toMatchObject({ status: 422 });
    expect(repo.readFile("theirs.txt")).toBe("theirs");
    expect(repo.readFile("ours.txt")).toBeUndefined();
    // the stale update now meets a real conflict
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: ours }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("not a fast forward"),
    });

    const top = repo.head()!;
    const mine = await commitOnTop(top, "mine.txt");
    fake.refUpdateConflict({ applied: true, operation: "git/update-ref" });
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: mine }),
    ).rejects.toMatchObject({ status: 422 });
    expect(repo.head()).toBe(mine);
  });
});

describe("a lagging runs listing", () => {
  it("a dispatched run is found by id at once but listed only after runsListingLagMs", async () => {
    let t = Date.parse("2026-03-01T10:00:00Z");
    const lagging = new FakeGitHub({ now: () => t, runsListingLagMs: 5000 });
    await lagging.start();
    try {
      const r = lagging.createRepo("acme/widgets");
      r.commit("main", { "README.md": "x" });
      const wf = r.addWorkflow("orch-task.yml");
      const client = new Octokit({ baseUrl: lagging.baseUrl, auth: "t", log: quietLog });
      const { data } = await client.actions.createWorkflowDispatch({
        owner,
        repo: name,
        workflow_id: "orch-task.yml",
        ref: "main",
        return_run_details: true,
      });
      const id = (data as { workflow_run_id: number }).workflow_run_id;
      const byId = await client.actions.getWorkflowRun({ owner, repo: name, run_id: id });
      expect(byId.data.id).toBe(id);
      const listed = async () => {
        const all = await client.actions.listWorkflowRunsForRepo({ owner, repo: name });
        const forWf = await client.actions.listWorkflowRuns({
          owner,
          repo: name,
          workflow_id: wf.id,
        });
        return [all.data.total_count, forWf.data.workflow_runs.length];
      };
      expect(await listed()).toEqual([0, 0]);
      t += 4999;
      expect(await listed()).toEqual([0, 0]);
      t += 1;
      expect(await listed()).toEqual([1, 1]);
      await lagging.idle();
    } finally {
      await lagging.stop();
    }
  });
});
