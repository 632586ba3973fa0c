/**
 * The built-in agent as a local executor: `frontier run --exec 'frontier agent'` against a
 * fake GitHub Models on 127.0.0.1 — each ticket names its case with `model:` — then the
 * question answered with `frontier answer` and the run resumed. Every attempt's outcome,
 * reason and usage is what the model (or its refusal) gave.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeModels, scriptedModels } from "../fake-models/server.js";
import { CLI, frontier, makeGraph, receipt, ticketOf } from "../local/harness.js";

const models = new FakeModels();
beforeAll(async () => {
  await models.start();
  models.addToken("ghs_user").addToken("ghs_no_models", { models: false });
  scriptedModels(models);
});
afterAll(() => models.stop());

describe("frontier run --exec 'frontier agent'", () => {
  it("complete, empty, a question answered and resumed, 403 without models: read, a 429 waited out, a malformed answer, a timeout — usage on each attempt", async () => {
    const agent = `node ${CLI} agent`;
    const g = makeGraph(
      {
        done: { model: "fake/complete" },
        nothing: { model: "fake/empty" },
        after: { model: "fake/complete", depends_on: ["done", "nothing"] },
        ask: { model: "fake/ask" },
        denied: { model: "fake/complete", executor: "no-models" },
        busy: { model: "fake/busy", bound: "20s" },
        garbled: { model: "fake/garbled" },
        // (room for a busy machine: the agent stops 2 s before its bound to write its outcome)
        slow: { model: "fake/slow", bound: "10s" },
        // what the runner tells every executor: when its bound runs out
        deadline: { executor: "echo-deadline", bound: "1m" },
      },
      {
        run: "agents",
        max_parallel: 8,
        // a ticket with a token that may not use GitHub Models
        executors: {
          "no-models": `GITHUB_TOKEN=ghs_no_models ${agent}`,
          "echo-deadline": `printf '%s' "$FRONTIER_DEADLINE"`,
        },
      },
    );
    const env = { FRONTIER_TEST_MODELS_URL: models.baseUrl, GITHUB_TOKEN: "ghs_user" };
    const first = await frontier(["run", g.dir, "--exec", agent], { env });
    expect(first.code, first.stderr).toBe(1);
    let r = receipt(g);
    expect(ticketOf(r, "done").attempts[0]).toMatchObject({
      outcome: "complete",
      result: "Done: done",
      usage: { tokens: 240, prompt_tokens: 200, completion_tokens: 40 },
    });
    expect(ticketOf(r, "nothing").status).toBe("empty");
    expect(ticketOf(r, "after").status).toBe("complete");
    // its inputs reached the model: done's result, and nothing as an explicit blank
    const afterContext = models
      .requestsFor("fake/complete")
      .map((q) => q.messages[1]!.content)
      .find((c) => c.startsWith("# after"));
    expect(afterContext).toMatch(/### done: done \(complete\)\n\nDone: done/);
    expect(afterContext).toMatch(/### nothing: nothing \(empty\)\n\n\(ran, returned nothing\)/);
    expect(ticketOf(r, "ask")).toMatchObject({
      status: "suspended",
      question: "Which region should the cache live in?",
    });
    expect(ticketOf(r, "denied").attempts[0]?.reason).toMatch(
      /^GitHub Models refused the token in \$GITHUB_TOKEN \(403: .*\): on GitHub the orch-task workflow needs `permissions: models: read`/,
    );
    expect(ticketOf(r, "busy").attempts[0]).toMatchObject({
      outcome: "complete",
      usage: { tokens: 175 },
    });
    expect(ticketOf(r, "garbled").attempts[0]).toMatchObject({
      outcome: "failed",
      reason: expect.stringMatching(/^the model's answer is not JSON/),
      usage: { tokens: 125 },
    });
    expect(ticketOf(r, "garbled").attempts[0]?.result).toBeUndefined();
    expect(ticketOf(r, "slow").attempts[0]?.reason).toMatch(
      /^timeout: no answer from https:\/\/models\.github\.ai\/inference \(model fake\/slow\) within the ticket's bound \(10s\)/,
    );

    const deadline = ticketOf(r, "deadline").attempts[0] as {
      result?: string;
      started_at?: string;
    };
    expect(Date.parse(deadline.result ?? "")).toBe(Date.parse(deadline.started_at ?? "") + 60_000);

    const answered = await frontier(["answer", g.dir, "ask", "eu-west-1"], { env });
    expect(answered.code, answered.stderr).toBe(0);
    // the answer is in the next attempt's context, and the model acts on it
    const resumed = await frontier(["run", g.dir, "--exec", agent], { env });
    expect(resumed.code).toBe(1);
    r = receipt(g);
    const ask = ticketOf(r, "ask");
    expect(ask.status).toBe("complete");
    expect(ask.attempts.at(-1)).toMatchObject({
      outcome: "complete",
      result: "Cache placed in eu-west-1.",
      usage: { tokens: 150 },
    });
  });
});
