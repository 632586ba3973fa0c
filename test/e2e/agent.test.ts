/**
 * The built-in agent through the action: every orch-task job runs the bundle's context
 * step, its `command: agent` step (GitHub Models — a fake one on 127.0.0.1 — with the
 * job's token) and its settle step, against the fake GitHub. Each ticket names its case
 * with `model:`; the question is answered with `/answer` on its issue and the ticket
 * resumes. Usage is recorded on every attempt.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { contextOf, FakeModels, scriptedModels } from "../fake-models/server.js";
import { Runner, type Scripted } from "./runner.js";
import { writeTickets } from "./tickets.js";

const models = new FakeModels();
beforeAll(async () => {
  await models.start();
  // the job's token (the step's token input) may use models; a token without models: read may not
  models.addToken("ghs_test_token").addToken("ghs_no_models", { models: false });
  scriptedModels(models);
});
afterAll(() => models.stop());

const runners: Runner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) {
    r.fake.assertNoViolations();
    await r.stop();
  }
});

function agentRunner(): Runner {
  const runner = new Runner();
  runner.env = { FRONTIER_TEST_MODELS_URL: models.baseUrl };
  runner.script = (ticket): Scripted => ({
    agent: ticket === "denied" ? { token: "ghs_no_models" } : {},
  });
  runners.push(runner);
  return runner;
}

describe("orch-task with command: agent", () => {
  it("complete (after a 429 waited out), empty, a question answered with /answer and resumed, 403 without models: read, a malformed answer, a timeout", async () => {
    const main = agentRunner();
    // the timeout gets a run of its own: no other ticket's event can reclaim its short lease
    const lone = agentRunner();
    const [sha, loneSha] = await Promise.all([
      main.start(
        writeTickets([
          { id: "nothing", extra: "model: fake/empty" },
          { id: "ask", extra: "model: fake/ask" },
          { id: "denied", extra: "model: fake/complete" },
          // a bound with room for a loaded machine: the job waits in the runner's queue too
          { id: "busy", extra: "model: fake/busy\nbound: 2m" },
          { id: "garbled", extra: "model: fake/garbled" },
        ]),
      ),
      lone.start(writeTickets([{ id: "slow", extra: "model: fake/slow\nbound: 8s" }])),
    ]);
    await Promise.all([main.push(sha), lone.push(loneSha)]);
    await Promise.all([main.fake.idle(), lone.fake.idle()]);

    const state = main.state();
    const first = (id: string) => state.tickets[id]?.attempts[0] as Record<string, unknown>;
    // a 429 with retry-after: waited out within the bound, then the model's result
    expect(state.tickets.busy?.status).toBe("complete");
    expect(first("busy")).toMatchObject({
      outcome: "complete",
      usage: { tokens: 175, prompt_tokens: 150, completion_tokens: 25 },
    });
    expect(models.requestsFor("fake/busy")).toHaveLength(2);
    expect(main.repo.readFile(`tickets/${first("busy").result_file}`)).toBe(
      "Done after the rate limit.",
    );
    expect(main.jobs.find((j) => j.ticket === "busy")?.agent?.outputs["agent-outcome"]).toBe(
      "complete",
    );
    expect(state.tickets.nothing?.status).toBe("empty");
    expect(first("nothing").usage).toEqual({ tokens: 98, prompt_tokens: 90, completion_tokens: 8 });
    expect(first("denied")).toMatchObject({
      outcome: "failed",
      reason: expect.stringMatching(
        /^GitHub Models refused the token in \$GITHUB_TOKEN \(403: .*\): on GitHub the orch-task workflow needs `permissions: models: read`/,
      ),
    });
    expect(first("garbled")).toMatchObject({
      outcome: "failed",
      reason: expect.stringMatching(/^the model's answer is not JSON/),
      usage: { tokens: 125 },
    });
    expect(first("garbled").result_file).toBeUndefined();
    // a failed attempt is a warning in the job's log, and the step itself succeeded
    const garbled = main.jobs.find((j) => j.ticket === "garbled")?.agent;
    expect(garbled?.stdout).toMatch(
      /::warning::frontier agent: fake\/garbled at https:\/\/models\.github\.ai\/inference → failed/,
    );

    // the agent's time runs from the claim, not from its own start: FRONTIER_DEADLINE
    const slow = lone.state().tickets.slow?.attempts[0] as Record<string, unknown>;
    expect(slow).toMatchObject({
      outcome: "failed",
      reason: expect.stringMatching(
        /^timeout: no answer from https:\/\/models\.github\.ai\/inference \(model fake\/slow\) within the ticket's bound \(8s\)/,
      ),
    });
    const exported = lone.jobs[0]?.context?.exported ?? {};
    expect(Date.parse(exported.FRONTIER_DEADLINE ?? "")).toBe(
      Date.parse(slow.started_at as string) + 8000,
    );
    expect(exported.FRONTIER_BOUND).toBe("8s");

    // the question: an issue, answered by a maintainer; the next attempt's context has it
    expect(state.tickets.ask?.status).toBe("suspended");
    const issueNumber = state.questions.ask?.issue_number as number;
    const issue = main.repo.issues.get(issueNumber);
    expect(issue?.body).toContain("Which region should the cache live in?");
    main.repo.setPermission("maya", "write");
    const comment = main.repo.addComment(issueNumber, "/answer eu-west-1", "maya");
    const { makeIssueCommentPayload } = await import("../fake-github/server.js");
    const step = await main.step({
      event: "issue_comment",
      payload: makeIssueCommentPayload({
        repo: main.repo,
        issue: issue as NonNullable<typeof issue>,
        comment,
      }),
      sha: main.repo.head("main") as string,
    });
    expect(step.code, step.stdout + step.stderr).toBe(0);
    await main.fake.idle();
    const ask = main.state().tickets.ask;
    expect(ask?.status).toBe("complete");
    expect(ask?.attempts[1]).toMatchObject({ outcome: "complete", usage: { tokens: 150 } });
    expect(main.repo.readFile(`tickets/${ask?.attempts[1]?.result_file}`)).toBe(
      "Cache placed in eu-west-1.",
    );
    const resumed = models.requestsFor("fake/ask").at(-1);
    expect(contextOf(resumed!)).toMatch(/Which region should the cache live in\?[\s\S]*eu-west-1/);
    // every request went with the job's token, as GitHub Models takes it — the denied
    // ticket's with the token it was given, which was refused
    expect(new Set(models.hits.map((h) => h.token))).toEqual(
      new Set(["ghs_test_token", "ghs_no_models"]),
    );
    expect(readFileSync(main.jobs[0]!.context!.outputs["context-file"]!, "utf8")).toMatch(/^# /);
  });
});
