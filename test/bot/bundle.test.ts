/**
 * The bot as GitHub runs it: every event, the `issue_comment` ones included, is a spawn
 * of dist/index.js with the runner's variables and a webhook payload checked against
 * GitHub's schemas; every orch-task run is a context step and a settle step.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPLY_MARKER } from "../../src/github/replies.js";
import { Runner } from "../e2e/runner.js";
import { makeIssueCommentPayload } from "../fake-github/server.js";

describe("the bundled action answers a question from an issue comment", () => {
  const runner = new Runner();
  const dir = mkdtempSync(join(tmpdir(), "frontier-bot-bundle-"));
  let questionIssue = 0;

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "frontier.yml"), "run: bundle-demo\n");
    writeFileSync(join(dir, "plan.md"), "---\ntitle: Plan\n---\n\nPlan it.\n");
    writeFileSync(join(dir, "build.md"), "---\ndepends_on: [plan]\n---\n\nBuild it.\n");
    const sha = await runner.start(dir);
    runner.repo.setPermission("maint", "maintain");
    runner.fake.addUser("stranger");
    runner.script = (ticket, attempt) =>
      ticket === "plan" && attempt === 1
        ? { status: "suspended", question: "Which region?" }
        : { status: "complete", result: `${ticket} done` };
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
    const issue = [...runner.repo.issues.values()].find((i) =>
      i.labels.includes("frontier:question"),
    );
    questionIssue = issue?.number ?? 0;
  }, 240_000);

  afterAll(async () => {
    await runner.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function commentStep(body: string, user: string) {
    const issue = runner.repo.issues.get(questionIssue)!;
    const comment = runner.repo.addComment(questionIssue, body, user);
    const head = runner.repo.head("main")!;
    const step = await runner.step({
      event: "issue_comment",
      payload: makeIssueCommentPayload({ repo: runner.repo, issue, comment }),
      sha: head,
    });
    await runner.fake.idle();
    return { step, comment };
  }

  it("a stranger's /answer is refused politely and nothing changes", async () => {
    expect(questionIssue).toBeGreaterThan(0);
    const head = runner.repo.head("main");
    const { step, comment } = await commentStep("/answer eu-west-1", "stranger");
    expect(step.code, step.stdout + step.stderr).toBe(0);
    expect(runner.repo.head("main")).toBe(head);
    expect(runner.state().tickets.plan?.status).toBe("suspended");
    const reply = runner.repo
      .commentsOn(questionIssue)
      .find((c) => c.body.startsWith(REPLY_MARKER))!;
    expect(reply.body).toContain(
      "only people with write access to acme/widgets can steer this run",
    );
    expect(runner.repo.comments.get(comment.id)!.reactions.map((r) => r.content)).toEqual([
      "eyes",
      "confused",
    ]);
  });

  it("a maintainer's /answer records the answer, runs the ticket and its dependent, closes the issue", async () => {
    const { step, comment } = await commentStep(
      "/answer eu-west-1\nKeep the data in the EU.",
      "maint",
    );
    expect(step.code, step.stdout + step.stderr).toBe(0);
    const state = runner.state();
    expect(state.tickets.plan?.status).toBe("complete");
    expect(state.tickets.build?.status).toBe("complete");
    const answer = JSON.parse(
      runner.repo.readFile("tickets/.frontier/answers/plan@1.json", "main")!,
    );
    expect(answer.text).toBe("eu-west-1\nKeep the data in the EU.");
    expect(runner.repo.issues.get(questionIssue)!.state).toBe("closed");
    expect(runner.repo.comments.get(comment.id)!.reactions.map((r) => r.content)).toEqual([
      "eyes",
      "+1",
    ]);
    // The second attempt's agent was given the question and the answer in its context.
    const second = runner.jobs.find((j) => j.ticket === "plan" && j.attempt === 2);
    const contextFile = second?.context?.exported.FRONTIER_CONTEXT_FILE;
    expect(contextFile).toBeDefined();
    const context = readFileSync(contextFile!, "utf8");
    expect(context).toContain("Which region?");
    expect(context).toContain("Keep the data in the EU.");
    runner.fake.assertNoViolations();
  });
});
