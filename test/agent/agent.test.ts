/**
 * `frontier agent`, in process: the ticket's context to one chat-completions model (a fake
 * OpenAI-compatible server on 127.0.0.1), its outcome written as the executor protocol
 * says — and every refusal a failed attempt whose reason says what to change.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budgetOf, type CallDeps } from "../../src/agent/call.js";
import { DEFAULT_MODEL, GITHUB_MODELS, resolveConfig } from "../../src/agent/config.js";
import { OUTCOME_SCHEMA, readAnswer } from "../../src/agent/protocol.js";
import { type AgentRun, runAgent } from "../../src/agent/run.js";
import { buildContext } from "../../src/tickets/context.js";
import {
  answer,
  contextOf,
  FakeModels,
  rateLimited,
  scriptedModels,
} from "../fake-models/server.js";

const models = new FakeModels();
beforeAll(async () => {
  await models.start();
  models.addToken("ghs_job").addToken("ghs_no_models", { models: false }).addToken("sk-test");
  scriptedModels(models);
});
afterAll(() => models.stop());

const CONTEXT =
  "# Review the retry policy\n\nTicket `review` · run `t` · attempt 1\n\n## Task\n\nReview it.\n";

interface Ran extends AgentRun {
  written?: Record<string, unknown>;
  stdout: string;
  stderr: string;
  slept: number[];
}

/** One attempt as a runner starts it: context and outcome files, the ticket's variables. */
async function attempt(
  opts: {
    flags?: Parameters<typeof runAgent>[0];
    env?: Record<string, string>;
    settings?: string;
    ticket?: string;
    outcomeFile?: boolean;
    fastSleep?: boolean;
    context?: string;
  } = {},
): Promise<Ran> {
  const dir = mkdtempSync(join(tmpdir(), "frontier-agent-"));
  const contextFile = join(dir, "context.md");
  const outcomeFile = join(dir, "outcome.json");
  writeFileSync(contextFile, opts.context ?? CONTEXT);
  const env: Record<string, string> = {
    FRONTIER_CONTEXT_FILE: contextFile,
    FRONTIER_TEST_MODELS_URL: models.baseUrl,
    GITHUB_TOKEN: "ghs_job",
    ...(opts.outcomeFile === false ? {} : { FRONTIER_OUTCOME_FILE: outcomeFile }),
  };
  if (opts.settings !== undefined) {
    writeFileSync(join(dir, "frontier.yml"), opts.settings);
    env.FRONTIER_DIR = dir;
  }
  if (opts.ticket !== undefined) {
    writeFileSync(join(dir, "review.md"), opts.ticket);
    env.FRONTIER_TICKET_FILE = join(dir, "review.md");
  }
  Object.assign(env, opts.env);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d) => {
    out += d;
  });
  stderr.on("data", (d) => {
    err += d;
  });
  const slept: number[] = [];
  let shift = 0;
  const deps: CallDeps | undefined = opts.fastSleep
    ? {
        fetch: (...a) => fetch(...a),
        now: () => Date.now() + shift,
        sleep: async (ms) => {
          slept.push(ms);
          shift += ms;
        },
      }
    : undefined;
  const run = await runAgent(
    opts.flags ?? {},
    { env, stdout, stderr },
    { startedAt: Date.now(), ...(deps && { deps }) },
  );
  let written: Record<string, unknown> | undefined;
  try {
    written = JSON.parse(readFileSync(outcomeFile, "utf8"));
  } catch {
    written = undefined;
  }
  return { ...run, ...(written && { written }), stdout: out, stderr: err, slept };
}

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const ticket = (model: string, extra = "") => `---\nmodel: ${model}\n${extra}---\n# Review\n`;

describe("frontier agent: one chat completion per attempt, its outcome in the outcome file", () => {
  it("complete: the model's result, its token counts as usage (tokens is the total), from GitHub Models with the job's token", async () => {
    const before = models.requests.length;
    const run = await attempt({ ticket: ticket("fake/complete") });
    expect(run.code).toBe(0);
    expect(run.written).toEqual({
      status: "complete",
      result: "Done: Review the retry policy",
      usage: { tokens: 240, prompt_tokens: 200, completion_tokens: 40 },
    });
    const sent = models.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.token).toBe("ghs_job");
    expect(contextOf(sent[0]!)).toBe(CONTEXT);
    expect(sent[0]!.messages[0]!.role).toBe("system");
    expect(sent[0]!.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "ticket_outcome", strict: true, schema: OUTCOME_SCHEMA },
    });
    expect(run.summary).toMatch(
      /fake\/complete at https:\/\/models\.github\.ai\/inference → complete, 240 tokens/,
    );
  });

  it("empty: ran and returned nothing — no result is made up", async () => {
    const run = await attempt({ ticket: ticket("fake/empty") });
    expect(run.written).toEqual({
      status: "empty",
      usage: { tokens: 98, prompt_tokens: 90, completion_tokens: 8 },
    });
  });

  it("suspended with the model's question; once answered (the answer in the context), complete", async () => {
    const asked = await attempt({ ticket: ticket("fake/ask") });
    expect(asked.written).toMatchObject({
      status: "suspended",
      question: "Which region should the cache live in?",
    });
    // the context of the next attempt, as both runners build it
    const context = buildContext({
      spec: {
        id: "review",
        title: "Review",
        file: "review.md",
        dependsOn: [],
        inputs: [],
        writeScope: [],
        priority: 0,
        body: "Review it.",
        order: 0,
      },
      run: "t",
      inputs: [],
      attempt: 2,
      answers: [
        {
          n: 1,
          attempt: 1,
          question: "Which region should the cache live in?",
          text: "eu-west-1",
          by: "maya",
          at: "2026-01-02T10:00:00.000Z",
        },
      ],
    });
    const answered = await attempt({ ticket: ticket("fake/ask"), context });
    expect(answered.written).toMatchObject({
      status: "complete",
      result: "Cache placed in eu-west-1.",
    });
  });

  it("failed with the model's own reason", async () => {
    models.model("fake/cannot", () =>
      answer({ status: "failed", reason: "the context has no retry policy to review" }),
    );
    const run = await attempt({ ticket: ticket("fake/cannot") });
    expect(run.written).toMatchObject({
      status: "failed",
      reason: "the model reported: the context has no retry policy to review",
    });
    expect(run.written?.usage).toEqual({ tokens: 150, prompt_tokens: 120, completion_tokens: 30 });
  });

  it("without an outcome file, the exit-code protocol: the result on stdout and 0, a question and 75, a reason on stderr and 1", async () => {
    const done = await attempt({ ticket: ticket("fake/complete"), outcomeFile: false });
    expect([done.code, done.stdout]).toEqual([0, "Done: Review the retry policy\n"]);
    const ask = await attempt({ ticket: ticket("fake/ask"), outcomeFile: false });
    expect([ask.code, ask.stdout]).toEqual([75, "Which region should the cache live in?\n"]);
    const bad = await attempt({ ticket: ticket("fake/garbled"), outcomeFile: false });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/not JSON/);
  });

  it("reads the context from stdin when there is no context file", async () => {
    const stdin = new PassThrough();
    stdin.end(CONTEXT);
    const out = new PassThrough();
    let text = "";
    out.on("data", (d) => {
      text += d;
    });
    const run = await runAgent(
      { model: "fake/complete" },
      {
        env: { FRONTIER_TEST_MODELS_URL: models.baseUrl, GITHUB_TOKEN: "ghs_job" },
        stdin,
        stdout: out,
        stderr: new PassThrough(),
      },
      { startedAt: Date.now() },
    );
    expect(run.code).toBe(0);
    expect(text).toBe("Done: Review the retry policy\n");
  });
});

describe("which model, where, with which key", () => {
  const base = { settings: {}, env: { GITHUB_TOKEN: "t", OPENAI_API_KEY: "k", MY_KEY: "m" } };

  it("GitHub Models by default, with GITHUB_TOKEN and the default model", () => {
    const r = resolveConfig({ ...base, flags: {} });
    expect(r).toMatchObject({
      kind: "ok",
      config: { endpoint: GITHUB_MODELS, model: DEFAULT_MODEL, keyEnv: "GITHUB_TOKEN", key: "t" },
    });
  });

  it("the ticket's model first, then --model, then frontier.yml", () => {
    const settings = { model: "from/yml" };
    expect(resolveConfig({ ...base, settings, flags: {} })).toMatchObject({
      config: { model: "from/yml", modelFrom: "frontier.yml" },
    });
    expect(resolveConfig({ ...base, settings, flags: { model: "from/flag" } })).toMatchObject({
      config: { model: "from/flag", modelFrom: "--model" },
    });
    expect(
      resolveConfig({
        ...base,
        settings,
        flags: { model: "from/flag" },
        ticketModel: "from/ticket",
      }),
    ).toMatchObject({ config: { model: "from/ticket", modelFrom: "the ticket" } });
  });

  it("GitHub Models' organization endpoint is GitHub Models too: its key is GITHUB_TOKEN", () => {
    expect(
      resolveConfig({
        ...base,
        flags: { endpoint: "https://models.github.ai/orgs/acme/inference" },
      }),
    ).toMatchObject({
      config: {
        url: "https://models.github.ai/orgs/acme/inference/chat/completions",
        githubModels: true,
        keyEnv: "GITHUB_TOKEN",
        model: DEFAULT_MODEL,
      },
    });
  });

  it("another endpoint: its key from OPENAI_API_KEY, or the variable --key-env names; it needs a model named", () => {
    expect(
      resolveConfig({ ...base, flags: { endpoint: "https://api.example.com/v1/", model: "m" } }),
    ).toMatchObject({
      config: {
        endpoint: "https://api.example.com/v1",
        url: "https://api.example.com/v1/chat/completions",
        keyEnv: "OPENAI_API_KEY",
        key: "k",
        githubModels: false,
      },
    });
    expect(
      resolveConfig({
        ...base,
        flags: { model: "m" },
        settings: { model_endpoint: "https://api.example.com/v1", model_key_env: "MY_KEY" },
      }),
    ).toMatchObject({ config: { keyEnv: "MY_KEY", key: "m" } });
    const none = resolveConfig({ ...base, flags: { endpoint: "https://api.example.com/v1" } });
    expect(none).toMatchObject({ kind: "bad" });
    expect((none as { reason: string }).reason).toMatch(/no model named.*--model/);
  });

  it("a key that is not set fails the attempt before any request, saying how to set it", async () => {
    const before = models.hits.length;
    const run = await attempt({ env: { GITHUB_TOKEN: "" } });
    expect(run.written?.status).toBe("failed");
    expect(run.written?.reason).toMatch(/\$GITHUB_TOKEN is empty.*models: read.*gh auth token/);
    const other = await attempt({
      flags: { endpoint: models.baseUrl, model: "fake/complete", keyEnv: "NOPE_KEY" },
    });
    expect(other.written?.reason).toMatch(/\$NOPE_KEY is empty/);
    expect(models.hits.length).toBe(before);
  });

  it("frontier.yml's model keys are read from the ticket directory, and a broken frontier.yml fails with file:line", async () => {
    const run = await attempt({ settings: "run: t\nmodel: fake/empty\n" });
    expect(run.written?.status).toBe("empty");
    const broken = await attempt({ settings: "run: t\nmodel_endpoint: ftp://nowhere\n" });
    expect(broken.written?.status).toBe("failed");
    expect(broken.written?.reason).toMatch(
      /frontier\.yml:2: model_endpoint must be the http\(s\) base URL.*model_endpoint: https:/,
    );
  });
});

describe("refusals are failed attempts whose reason says what to change", () => {
  it("403 from GitHub Models without models: read names the permission", async () => {
    const run = await attempt({
      ticket: ticket("fake/complete"),
      env: { GITHUB_TOKEN: "ghs_no_models" },
    });
    expect(run.code).toBe(0);
    expect(run.written).toEqual({
      status: "failed",
      reason: expect.stringMatching(
        /^GitHub Models refused the token in \$GITHUB_TOKEN \(403: The 'models' permission is required.*\): on GitHub the orch-task workflow needs `permissions: models: read`/,
      ),
    });
  });

  it("401 from another endpoint names the variable that holds the bad key", async () => {
    const run = await attempt({
      flags: { endpoint: models.baseUrl, model: "fake/complete" },
      env: { OPENAI_API_KEY: "sk-wrong" },
    });
    expect(run.written?.reason).toMatch(
      /refused the key in \$OPENAI_API_KEY \(401: Bad credentials\): set \$OPENAI_API_KEY to a valid API key/,
    );
    expect(JSON.stringify(run.written)).not.toContain("sk-wrong");
  });

  it("a key the endpoint echoes back is never written into the reason", async () => {
    models.addToken("sk-live-0123456789abcdef");
    models.model("fake/echo", (req) => ({
      kind: "error",
      status: 400,
      body: { error: { message: `key ${req.token} may not use this model` } },
    }));
    const run = await attempt({
      flags: { endpoint: models.baseUrl, model: "fake/echo" },
      env: { OPENAI_API_KEY: "sk-live-0123456789abcdef" },
    });
    expect(run.written?.reason).toMatch(/\(400: key \*\*\* may not use this model\)/);
    expect(JSON.stringify(run.written)).not.toContain("sk-live-0123456789abcdef");
  });

  it("an echoed key is in no outcome in part either: an excerpt cut inside it, a result that repeats it", async () => {
    const key = "sk-live-0123456789abcdef";
    models.addToken(key);
    // the cut at 300 characters falls inside the key: an excerpt would keep its first half
    const pad = "x".repeat(280);
    models.model("fake/echo-long", (req) => ({
      kind: "error",
      status: 400,
      body: { error: { message: `${pad} ${req.token} may not use this model` } },
    }));
    models.model("fake/echo-answer", (req) => answer(`${"y".repeat(62)} ${req.token}`));
    for (const model of ["fake/echo-long", "fake/echo-answer"]) {
      const run = await attempt({
        flags: { endpoint: models.baseUrl, model },
        env: { OPENAI_API_KEY: key },
      });
      expect(run.written?.status, model).toBe("failed");
      expect(JSON.stringify(run.written), model).not.toContain(key.slice(0, 12));
    }
    models.model("fake/echo-result", (req) =>
      answer({ status: "complete", result: `Key ${req.token}.` }),
    );
    const run = await attempt({
      flags: { endpoint: models.baseUrl, model: "fake/echo-result" },
      env: { OPENAI_API_KEY: key },
    });
    expect(run.written).toMatchObject({ status: "complete", result: "Key ***." });
    // a question is posted where reviewers read it: the key is no more in it than in a result
    models.model("fake/echo-question", (req) =>
      answer({ status: "suspended", question: `Is ${req.token} the right key?` }),
    );
    const asked = await attempt({
      flags: { endpoint: models.baseUrl, model: "fake/echo-question" },
      env: { OPENAI_API_KEY: key },
    });
    expect(asked.written).toMatchObject({ status: "suspended", question: "Is *** the right key?" });
  });

  it("an answer larger than any completion is not read on, and fails saying so", async () => {
    models.model("fake/flood", () => ({ kind: "answer", content: "x".repeat(9 * 1024 * 1024) }));
    const run = await attempt({ ticket: ticket("fake/flood") });
    expect(run.written?.reason).toMatch(/answered 200 with more than 8 MiB/);
  });

  it("404 names the model, where its name came from, and how GitHub Models names models", async () => {
    const run = await attempt({ ticket: ticket("openai/gpt-9") });
    expect(run.written?.reason).toMatch(
      /model "openai\/gpt-9" \(from the ticket\) was not found .*Unknown model.*publisher\/name/,
    );
  });

  it("429 with retry-after: waits as asked within the ticket's bound, then completes", async () => {
    const run = await attempt({
      ticket: ticket("fake/busy", "bound: 10m\n"),
      env: { FRONTIER_BOUND: "10m" },
      fastSleep: true,
    });
    expect(run.slept).toEqual([1000]);
    expect(run.written).toMatchObject({ status: "complete", result: "Done after the rate limit." });
    expect(run.written?.usage).toEqual({ tokens: 175, prompt_tokens: 150, completion_tokens: 25 });
  });

  it("429 whose wait is past the ticket's bound fails at once, naming the limit and the bound", async () => {
    models.model("fake/daily", () => rateLimited(24367, "UserByModelByDay"));
    const run = await attempt({
      ticket: ticket("fake/daily"),
      env: { FRONTIER_BOUND: "10m" },
      fastSleep: true,
    });
    expect(run.slept).toEqual([]);
    expect(run.written?.reason).toMatch(
      /^rate limited by GitHub Models for model fake\/daily \(limit: UserByModelByDay\): it asks to wait 6h46m7s, and the ticket's bound \(10m\) leaves 9m5\ds — retry the ticket later/,
    );
  });

  it("a malformed answer fails, never becomes a result: not JSON, not an outcome, a question missing", async () => {
    const garbled = await attempt({ ticket: ticket("fake/garbled") });
    expect(garbled.written).toEqual({
      status: "failed",
      reason: expect.stringMatching(/^the model's answer is not JSON \(it began "Sure! Here is/),
      usage: { tokens: 125, prompt_tokens: 110, completion_tokens: 15 },
    });
    expect(readAnswer('{"status": "done", "result": "x"}')).toEqual({
      status: "failed",
      reason: expect.stringMatching(/status "done", not one of complete, empty, failed, suspended/),
    });
    expect(readAnswer('{"status": "suspended", "question": "  "}').status).toBe("failed");
    expect(readAnswer('{"status": "complete", "result": 42}').status).toBe("failed");
    expect(readAnswer("[1]").status).toBe("failed");
    // a complete without words is left to the runners' rule: empty, never done
    expect(readAnswer('{"status": "complete", "result": null}')).toEqual({ status: "complete" });
  });

  it("an answer cut off at the output limit, or refused by the model, fails saying so", async () => {
    models.model("fake/long", () => ({
      kind: "answer",
      content: '{"status": "compl',
      finish: "length",
    }));
    models.model("fake/refuses", () => ({
      kind: "answer",
      content: null,
      refusal: "I can't help with that.",
    }));
    expect((await attempt({ ticket: ticket("fake/long") })).written?.reason).toMatch(
      /cut off.*finish_reason: length/,
    );
    expect((await attempt({ ticket: ticket("fake/refuses") })).written?.reason).toMatch(
      /the model refused the task: "I can't help with that\."/,
    );
  });

  it("a model that refuses the JSON schema format is asked again with the shape in its instructions only", async () => {
    models.model(
      "fake/no-schema",
      () =>
        answer(
          '```json\n{"status": "complete", "result": "fenced but fine", "question": null, "reason": null}\n```',
        ),
      { jsonSchema: false },
    );
    const run = await attempt({ ticket: ticket("fake/no-schema") });
    expect(run.written).toMatchObject({ status: "complete", result: "fenced but fine" });
    const sent = models.requestsFor("fake/no-schema");
    expect(sent.map((r) => r.response_format?.type ?? "none")).toEqual(["json_schema", "none"]);
    expect(sent[1]!.messages[0]!.content).toMatch(
      /"status": "complete" \| "empty" \| "failed" \| "suspended"/,
    );
  });

  it("a timeout: no answer within the ticket's bound fails before the runner's kill, saying what to raise", async () => {
    const started = Date.now();
    const run = await attempt({ ticket: ticket("fake/slow"), env: { FRONTIER_BOUND: "1s" } });
    const took = Date.now() - started;
    expect(run.written?.reason).toMatch(
      /^timeout: no answer from https:\/\/models\.github\.ai\/inference \(model fake\/slow\) within the ticket's bound \(1s\) — raise the bound/,
    );
    // it gave up on its own bound, not the ten minutes an unbounded call has
    expect(took).toBeLessThan(10_000);
    // and it gives up a fifth of a short bound early (at most 5 s), so the outcome is written
    // before the runner's kill: the deadline itself, not a time measured on a busy machine
    expect(budgetOf(1000, "1s", 0).deadline).toBe(800);
    expect(budgetOf(60_000, "1m", 0).deadline).toBe(55_000);
  });

  it("the bound counts from the claim ($FRONTIER_DEADLINE), not from the agent's own start", async () => {
    const started = Date.now();
    // a 10m bound claimed long ago: 6 s of it left, less its margin (5 s) to write the outcome
    const run = await attempt({
      ticket: ticket("fake/slow"),
      env: { FRONTIER_BOUND: "10m", FRONTIER_DEADLINE: new Date(started + 6000).toISOString() },
    });
    const took = Date.now() - started;
    expect(run.written?.reason).toMatch(/^timeout: .* within the ticket's bound \(10m\)/);
    expect(took).toBeGreaterThanOrEqual(900);
    // before the claim's deadline, when the runner kills it
    expect(took).toBeLessThan(6000);
    expect(budgetOf(600_000, "10m", 0, new Date(6000).toISOString()).deadline).toBe(1000);
  });

  it("an endpoint that cannot be reached fails naming it; a 5xx is tried again within the bound", async () => {
    const port = await freePort();
    const closed = await attempt({
      flags: { endpoint: `http://127.0.0.1:${port}/v1`, model: "m" },
      env: { OPENAI_API_KEY: "k" },
    });
    expect(closed.written?.reason).toBe(
      `could not reach http://127.0.0.1:${port}/v1 (ECONNREFUSED: connection refused): check the endpoint's URL (--endpoint, or model_endpoint in frontier.yml) and that this machine can reach it`,
    );
    models.model("fake/flaky", (_r, n) =>
      n === 1
        ? { kind: "error", status: 502, body: { error: { message: "Bad gateway" } } }
        : answer({ status: "complete", result: "second time lucky" }),
    );
    const flaky = await attempt({ ticket: ticket("fake/flaky"), fastSleep: true });
    expect(flaky.slept).toEqual([1000]);
    expect(flaky.written?.status).toBe("complete");
  });
});
