import { describe, expect, it } from "vitest";
import { readInputs } from "../../src/github/inputs.js";

const ENV = {
  GITHUB_REPOSITORY: "acme/widgets",
  GITHUB_EVENT_NAME: "push",
  GITHUB_REF: "refs/heads/main",
  GITHUB_SHA: "a".repeat(40),
};
const inputs = (values: Record<string, string>) => (name: string) => values[name] ?? "";

describe("inputs are read once into one typed settings object", () => {
  it("defaults: route by event, tickets/, orch-task.yml", () => {
    const r = readInputs(ENV, inputs({ token: "t" }));
    expect(r.kind).toBe("ok");
    if (r.kind !== "ok") return;
    expect(r.settings).toMatchObject({
      command: "auto",
      tickets: "tickets",
      workflow: "orch-task.yml",
      token: "t",
    });
    expect(r.settings.env).toMatchObject({ owner: "acme", repo: "widgets", eventName: "push" });
    expect(r.settings.maxParallel).toBeUndefined();
  });

  it("numbers, the settle inputs and the outcome file exported by the context step", () => {
    const r = readInputs(
      { ...ENV, FRONTIER_OUTCOME_FILE: "/tmp/out.json" },
      inputs({
        token: "t",
        "max-parallel": "4",
        bound: "10",
        command: "settle",
        ticket: "plan",
        attempt: "2",
        claim: "c1",
        "job-status": "Success",
      }),
    );
    expect(r.kind).toBe("ok");
    if (r.kind !== "ok") return;
    expect(r.settings.maxParallel).toBe(4);
    expect(r.settings.bound).toBe(10);
    expect(r.settings.settle).toEqual({
      ticket: "plan",
      attempt: 2,
      claim: "c1",
      jobStatus: "success",
      outcomeFile: "/tmp/out.json",
    });
  });

  it("every bad input is reported at once, each saying how to fix it", () => {
    const r = readInputs(
      { GITHUB_EVENT_NAME: "push" },
      inputs({ command: "launch", "max-parallel": "many", outcome: "done" }),
    );
    expect(r.kind).toBe("bad");
    if (r.kind !== "bad") return;
    expect(r.problems).toHaveLength(5);
    expect(r.problems.join("\n")).toMatch(
      /command: "launch" is not one of auto, advance, settle, context, agent, sweep/,
    );
    expect(r.problems.join("\n")).toMatch(/max-parallel: "many" is not a whole number/);
    expect(r.problems.join("\n")).toMatch(/outcome: "done" is not one of complete/);
    expect(r.problems.join("\n")).toMatch(/token is empty/);
    expect(r.problems.join("\n")).toMatch(/GITHUB_REPOSITORY/);
  });

  it("agent: the model, the endpoint and the key's variable, each checked", () => {
    const ok = readInputs(
      ENV,
      inputs({
        token: "t",
        command: "agent",
        model: "openai/gpt-4.1",
        endpoint: "https://api.openai.com/v1",
        "key-env": "OPENAI_API_KEY",
      }),
    );
    expect(ok.kind === "ok" && ok.settings.agent).toEqual({
      model: "openai/gpt-4.1",
      endpoint: "https://api.openai.com/v1",
      keyEnv: "OPENAI_API_KEY",
    });
    const bad = readInputs(
      ENV,
      inputs({ token: "t", command: "agent", endpoint: "api.openai.com", "key-env": "my key" }),
    );
    expect(bad.kind === "bad" && bad.problems).toEqual([
      'input endpoint: "api.openai.com" is not the http(s) base URL of an OpenAI-compatible API, without ? or # — write e.g. endpoint: https://models.github.ai/inference',
      'input key-env: "my key" is not the name of an environment variable — write e.g. key-env: OPENAI_API_KEY',
    ]);
  });
});
