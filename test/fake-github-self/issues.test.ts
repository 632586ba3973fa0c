import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { quietLog } from "../fake-github/clients.js";
import { FakeGitHub, type FakeRepo } from "../fake-github/server.js";

let fake: FakeGitHub;
let repo: FakeRepo;
let bot: Octokit;
const owner = "acme";
const name = "widgets";

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit("main", { "README.md": "hi" });
  bot = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_bot", log: quietLog });
});

afterEach(async () => {
  await fake.stop();
  fake.assertNoViolations();
});

describe("issues", () => {
  it("creates, gets, updates (close, labels) and lists with filters; the author is the token's login", async () => {
    const { data: q } = await bot.issues.create({
      owner,
      repo: name,
      title: "Question: ticket a",
      body: "How?",
      labels: ["frontier:question"],
    });
    expect(q.user?.login).toBe("github-actions[bot]");
    expect(q.labels.map((l) => (typeof l === "string" ? l : l.name))).toEqual([
      "frontier:question",
    ]);
    repo.createIssue({ title: "by a human", user: "alice" });

    const labelled = await bot.issues.listForRepo({
      owner,
      repo: name,
      labels: "frontier:question",
      state: "open",
    });
    expect(labelled.data.map((i) => i.number)).toEqual([q.number]);
    const byCreator = await bot.issues.listForRepo({ owner, repo: name, creator: "alice" });
    expect(byCreator.data.map((i) => i.title)).toEqual(["by a human"]);

    await bot.issues.update({ owner, repo: name, issue_number: q.number, state: "closed" });
    const open = await bot.issues.listForRepo({ owner, repo: name, labels: "frontier:question" });
    expect(open.data).toEqual([]);
    const all = await bot.issues.listForRepo({
      owner,
      repo: name,
      labels: "frontier:question",
      state: "all",
    });
    expect(all.data[0]).toMatchObject({ state: "closed", state_reason: "completed" });
    expect(repo.issues.get(q.number)?.closedAt).not.toBeNull();
    await expect(bot.issues.get({ owner, repo: name, issue_number: 999 })).rejects.toMatchObject({
      status: 404,
    });
  });

  it("paginates with Link headers that octokit.paginate follows", async () => {
    for (let i = 0; i < 7; i++) repo.createIssue({ title: `t${i}` });
    const all = await bot.paginate(bot.issues.listForRepo, { owner, repo: name, per_page: 3 });
    expect(all).toHaveLength(7);
    expect(fake.countRequests({ operation: "issues/list-for-repo" })).toBe(3);
  });
});

describe("comments and reactions", () => {
  it("creates, lists, gets, updates and deletes comments, with user.login from the token", async () => {
    const issue = repo.createIssue({ title: "tracking" });
    const { data: c } = await bot.issues.createComment({
      owner,
      repo: name,
      issue_number: issue.number,
      body: "<!-- frontier:report run=1 -->\nreport",
    });
    expect(c.user?.login).toBe("github-actions[bot]");
    repo.addComment(issue.number, "/status", "alice");
    const { data: list } = await bot.issues.listComments({
      owner,
      repo: name,
      issue_number: issue.number,
    });
    expect(list.map((x) => x.user?.login)).toEqual(["github-actions[bot]", "alice"]);
    await bot.issues.updateComment({ owner, repo: name, comment_id: c.id, body: "updated" });
    const { data: got } = await bot.issues.getComment({ owner, repo: name, comment_id: c.id });
    expect(got.body).toBe("updated");
    await bot.issues.deleteComment({ owner, repo: name, comment_id: c.id });
    expect(repo.commentsOn(issue.number).map((x) => x.body)).toEqual(["/status"]);
  });

  it("a second token acts as a different user", async () => {
    fake.addToken("ghp_alice", { login: "alice", kind: "user" });
    const alice = new Octokit({ baseUrl: fake.baseUrl, auth: "ghp_alice", log: quietLog });
    const issue = repo.createIssue({ title: "x" });
    const { data } = await alice.issues.createComment({
      owner,
      repo: name,
      issue_number: issue.number,
      body: "hi",
    });
    expect(data.user?.login).toBe("alice");
    const { data: me } = await alice.users.getAuthenticated();
    expect(me.login).toBe("alice");
  });

  it("refuses a comment over 65,536 characters with 422", async () => {
    const issue = repo.createIssue({ title: "x" });
    await expect(
      bot.issues.createComment({
        owner,
        repo: name,
        issue_number: issue.number,
        body: "x".repeat(65537),
      }),
    ).rejects.toMatchObject({ status: 422, message: expect.stringContaining("Body is too long") });
    await bot.issues.createComment({
      owner,
      repo: name,
      issue_number: issue.number,
      body: "x".repeat(65536),
    });
  });

  it("reactions on comments: 201 when new, 200 when the same user repeats, listed and counted", async () => {
    const issue = repo.createIssue({ title: "x" });
    const c = repo.addComment(issue.number, "/retry a", "alice");
    const first = await bot.reactions.createForIssueComment({
      owner,
      repo: name,
      comment_id: c.id,
      content: "eyes",
    });
    expect(first.status).toBe(201);
    const again = await bot.reactions.createForIssueComment({
      owner,
      repo: name,
      comment_id: c.id,
      content: "eyes",
    });
    expect(again.status).toBe(200);
    await bot.reactions.createForIssueComment({
      owner,
      repo: name,
      comment_id: c.id,
      content: "+1",
    });
    const { data } = await bot.reactions.listForIssueComment({
      owner,
      repo: name,
      comment_id: c.id,
    });
    expect(data.map((r) => `${r.user?.login} ${r.content}`)).toEqual([
      "github-actions[bot] eyes",
      "github-actions[bot] +1",
    ]);
    const { data: got } = await bot.issues.getComment({ owner, repo: name, comment_id: c.id });
    expect(got.reactions).toMatchObject({ total_count: 2, eyes: 1, "+1": 1 });
  });
});

describe("labels", () => {
  it("creates (422 if it exists), lists and adds labels to an issue", async () => {
    await bot.issues.createLabel({ owner, repo: name, name: "frontier:question", color: "d876e3" });
    await expect(
      bot.issues.createLabel({ owner, repo: name, name: "frontier:question" }),
    ).rejects.toMatchObject({
      status: 422,
    });
    const issue = repo.createIssue({ title: "x" });
    const { data } = await bot.issues.addLabels({
      owner,
      repo: name,
      issue_number: issue.number,
      labels: ["frontier:question", "new"],
    });
    expect(data.map((l) => l.name)).toEqual(["frontier:question", "new"]);
    const { data: all } = await bot.issues.listLabelsForRepo({ owner, repo: name });
    expect(all.map((l) => l.name).sort()).toEqual(["frontier:question", "new"]);
  });
});

describe("collaborator permission", () => {
  it("reports role_name exactly and the legacy permission (maintain->write, triage->read)", async () => {
    const cases: [string, string, string][] = [];
    for (const role of ["admin", "maintain", "write", "triage", "read", "none"] as const) {
      repo.setPermission(`u-${role}`, role);
      const { data } = await bot.repos.getCollaboratorPermissionLevel({
        owner,
        repo: name,
        username: `u-${role}`,
      });
      cases.push([role, data.role_name, data.permission]);
    }
    expect(cases).toEqual([
      ["admin", "admin", "admin"],
      ["maintain", "maintain", "write"],
      ["write", "write", "write"],
      ["triage", "triage", "read"],
      ["read", "read", "read"],
      ["none", "none", "none"],
    ]);
  });

  it("a known user without a grant reads a public repo and nothing of a private one; an unknown login is 404", async () => {
    repo.addComment(repo.createIssue({ title: "x" }).number, "/retry a", "mallory");
    const { data } = await bot.repos.getCollaboratorPermissionLevel({
      owner,
      repo: name,
      username: "mallory",
    });
    expect(data.permission).toBe("read");
    const secret = fake.createRepo("acme/secret", { private: true });
    secret.commit("main", { a: "a" });
    const { data: none } = await bot.repos.getCollaboratorPermissionLevel({
      owner,
      repo: "secret",
      username: "mallory",
    });
    expect(none.permission).toBe("none");
    await expect(
      bot.repos.getCollaboratorPermissionLevel({ owner, repo: name, username: "ghost-404" }),
    ).rejects.toMatchObject({ status: 404 });
    // the owner is admin
    const { data: own } = await bot.repos.getCollaboratorPermissionLevel({
      owner,
      repo: name,
      username: "acme",
    });
    expect(own.role_name).toBe("admin");
  });
});

describe("pulls and the token's identity", () => {
  it("lists open PRs by head=owner:branch and gets one; PRs share issue numbers", async () => {
    repo.createBranch("feature");
    const pr = repo.openPull({ head: "feature", title: "Feature" });
    repo.openPull({ head: "other" });
    const { data } = await bot.pulls.list({
      owner,
      repo: name,
      head: "acme:feature",
      state: "open",
    });
    expect(data.map((p) => p.number)).toEqual([pr.number]);
    expect(data[0]?.head.sha).toBe(repo.head("feature"));
    const { data: one } = await bot.pulls.get({ owner, repo: name, pull_number: pr.number });
    expect(one.head.ref).toBe("feature");
    const { data: asIssue } = await bot.issues.get({ owner, repo: name, issue_number: pr.number });
    expect(asIssue.pull_request).toBeDefined();
  });

  it("GET /user answers 403 'Resource not accessible by integration' to an installation token", async () => {
    await expect(bot.users.getAuthenticated()).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining("Resource not accessible by integration"),
    });
  });
});

describe("issue search", () => {
  it("finds issues by repo, is:, label:, author: and words in the title or body", async () => {
    await bot.issues.create({
      owner,
      repo: name,
      title: "Question: ticket a",
      labels: ["frontier:question"],
    });
    await bot.issues.create({
      owner,
      repo: name,
      title: "Frontier run r1",
      body: "<!-- frontier:report -->",
    });
    repo.createIssue({ title: "Question: ticket a (by hand)", user: "alice" });
    const { data } = await bot.search.issuesAndPullRequests({
      q: `repo:${owner}/${name} is:issue is:open label:"frontier:question" author:github-actions[bot] "ticket a"`,
    });
    expect(data.items.map((i) => i.title)).toEqual(["Question: ticket a"]);
    const marker = await bot.search.issuesAndPullRequests({
      q: `repo:${owner}/${name} frontier:report in:body`,
    });
    expect(marker.data.total_count).toBe(1);
  });
});
