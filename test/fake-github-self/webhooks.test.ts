import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FakeGitHub,
  type FakeRepo,
  makeIssueCommentPayload,
  makePushPayload,
  makeSchedulePayload,
  makeWorkflowDispatchPayload,
  makeWorkflowRunPayload,
  validateEventPayload,
} from "../fake-github/server.js";

let fake: FakeGitHub;
let repo: FakeRepo;

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit("main", { "tickets/a.md": "# A" }, { message: "first" });
  repo.commit("main", { "tickets/b.md": "# B" }, { message: "second" });
});

afterEach(async () => {
  await fake.stop();
});

describe("event payload builders produce payloads that match @octokit/webhooks-schemas", () => {
  it("push: from a FakeRepo, with before/after and the pushed commits", () => {
    const payload = makePushPayload({ repo });
    expect(validateEventPayload("push", payload)).toMatchObject({
      valid: true,
      schema: "push$event",
    });
    const log = repo.log();
    expect(payload).toMatchObject({
      ref: "refs/heads/main",
      after: log[0]!.sha,
      before: log[1]!.sha,
      repository: { full_name: "acme/widgets", default_branch: "main" },
    });
    expect((payload.commits as { message: string }[]).map((c) => c.message)).toEqual(["second"]);
    expect((payload.head_commit as { id: string }).id).toBe(log[0]!.sha);
  });

  it("workflow_dispatch", () => {
    const payload = makeWorkflowDispatchPayload({
      repo,
      workflow: "frontier.yml",
      inputs: { ticket: "a" },
      sender: "alice",
    });
    expect(validateEventPayload("workflow_dispatch", payload).errors).toEqual([]);
    expect(payload).toMatchObject({
      ref: "refs/heads/main",
      workflow: ".github/workflows/frontier.yml",
      inputs: { ticket: "a" },
      sender: { login: "alice" },
    });
  });

  it("issue_comment on an issue and on a PR (issue.pull_request tells them apart)", () => {
    const issue = repo.createIssue({ title: "Question: a", labels: ["frontier:question"] });
    const comment = repo.addComment(issue.number, "/answer yes", "alice");
    const onIssue = makeIssueCommentPayload({ repo, issue, comment });
    expect(validateEventPayload("issue_comment", onIssue).errors).toEqual([]);
    expect(onIssue).toMatchObject({
      action: "created",
      comment: { id: comment.id, body: "/answer yes", user: { login: "alice" } },
      issue: { number: issue.number, labels: [{ name: "frontier:question" }] },
    });
    expect((onIssue.issue as Record<string, unknown>).pull_request).toBeUndefined();

    const pr = repo.openPull({ head: "feature" });
    const onPr = makeIssueCommentPayload({
      repo,
      issue: pr,
      comment: { body: "/status", user: "bob" },
    });
    expect(validateEventPayload("issue_comment", onPr).errors).toEqual([]);
    expect((onPr.issue as Record<string, unknown>).pull_request).toBeDefined();
  });

  it("workflow_run completed, for a run the fake recorded", () => {
    const run = fake.createRun(repo, { workflow: "orch-task.yml", event: "workflow_dispatch" });
    fake.setRunStatus(run.id, "completed", "failure");
    const payload = makeWorkflowRunPayload({ run });
    expect(validateEventPayload("workflow_run", payload).errors).toEqual([]);
    expect(payload).toMatchObject({
      action: "completed",
      workflow_run: {
        id: run.id,
        conclusion: "failure",
        head_sha: repo.head(),
        path: ".github/workflows/orch-task.yml",
      },
    });
  });

  it("schedule has no schema in @octokit/webhooks-schemas; only its cron string is checked", () => {
    const payload = makeSchedulePayload({ repo, workflow: "frontier.yml" });
    expect(validateEventPayload("schedule", payload)).toMatchObject({
      valid: true,
      schema: expect.stringMatching(/^none/),
    });
    expect(validateEventPayload("schedule", {}).valid).toBe(false);
  });
});

describe("validateEventPayload catches broken payloads", () => {
  it("a push payload without `after` or with a stray field fails", () => {
    const payload = makePushPayload({ repo });
    const { after: _after, ...missing } = payload;
    expect(validateEventPayload("push", missing)).toMatchObject({
      valid: false,
      errors: [expect.stringContaining("must have required property 'after'")],
    });
    expect(validateEventPayload("push", { ...payload, surprise: 1 }).valid).toBe(false);
  });

  it("an unknown event name is reported, not passed", () => {
    expect(validateEventPayload("no_such_event", {}).valid).toBe(false);
  });
});
