/**
 * The coding-agent recipes (examples/agents/*.yml): each is the orch-task job's agent,
 * in steps that take the place of its `agent` step. Each is checked as a workflow author
 * would want: it runs only for a live claim, its agent step may fail without losing the
 * settle, the agent's output reaches a script only through env:, it asks for the outcome
 * in the built-in agent's schema — and its outcome script, run here with bash and jq as a
 * runner has them, writes an outcome file the settle step reads as the agent meant it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { OUTCOME_SCHEMA } from "../../src/agent/protocol.js";
import { STARTER_AGENT_STEP } from "../../src/cli/starter.js";
import { interpretOutcome } from "../../src/core/settle.js";
import { readOutcomeFile } from "../../src/tickets/outcome-file.js";

const ROOT = join(import.meta.dirname, "..", "..");
const DIR = join(ROOT, "examples", "agents");

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  "continue-on-error"?: boolean;
}

const recipes = readdirSync(DIR)
  .filter((n) => n.endsWith(".yml"))
  .map((name) => ({
    name,
    text: readFileSync(join(DIR, name), "utf8"),
    steps: (parse(readFileSync(join(DIR, name), "utf8")) as { steps: Step[] }).steps,
  }));
const coding = recipes.filter((r) => r.name !== "stand-in.yml");
const byName = (name: string) => recipes.find((r) => r.name === name)!;

const hasTools = ["bash", "jq"].every(
  (tool) => spawnSync(tool, ["--version"], { stdio: "ignore" }).status === 0,
);

describe("every recipe is an agent step the orch-task job can take", () => {
  it("finds the recipes", () => {
    expect(recipes.map((r) => r.name).sort()).toEqual([
      "claude-code.yml",
      "codex.yml",
      "stand-in.yml",
    ]);
  });

  it.each(recipes.map((r) => [r.name, r] as const))(
    "%s: every step runs only for a live claim; the agent step is `agent` and may fail without losing the settle",
    (_name, recipe) => {
      for (const step of recipe.steps)
        expect(step.if, step.id).toMatch(/^steps\.context\.outputs\.live == 'true'/);
      const agent = recipe.steps.find((s) => s.id === "agent");
      expect(agent?.["continue-on-error"]).toBe(true);
      // the settle step's job-status reads steps.agent.outcome: no other step may be "agent"
      expect(recipe.steps.filter((s) => s.id === "agent")).toHaveLength(1);
    },
  );

  it.each(coding.map((r) => [r.name, r] as const))(
    "%s: the agent's output reaches the outcome script through env only, and the script writes $FRONTIER_OUTCOME_FILE",
    (_name, recipe) => {
      const outcome = recipe.steps.find((s) => s.id === "agent-outcome");
      expect(outcome?.if).toMatch(/steps\.agent\.outcome == 'success'/);
      expect(Object.values(outcome?.env ?? {}).join(" ")).toMatch(/\$\{\{ steps\.agent\.outputs\./);
      expect(outcome?.run).toContain('> "$FRONTIER_OUTCOME_FILE"');
      for (const step of recipe.steps) expect(step.run ?? "", step.id).not.toContain("${{");
      // the secret is passed to the action as its input, never into a script
      expect(JSON.stringify(recipe.steps.filter((s) => s.run))).not.toMatch(/secrets\./);
    },
  );

  it("the coding agents are asked for the outcome in the built-in agent's own schema", () => {
    const codex = byName("codex.yml").steps.find((s) => s.id === "agent")!;
    expect(JSON.parse(codex.with?.["output-schema"] ?? "")).toEqual(OUTCOME_SCHEMA);
    const claude = byName("claude-code.yml").steps.find((s) => s.id === "agent")!;
    const schema = /--json-schema '([^']+)'/.exec(claude.with?.claude_args ?? "")?.[1];
    expect(JSON.parse(schema ?? "")).toEqual(OUTCOME_SCHEMA);
  });

  it("each says what its agent commits or pushes, which secret it needs, and that it is untested on GitHub", () => {
    expect(byName("codex.yml").text).toMatch(/commits and pushes nothing itself/);
    expect(byName("codex.yml").text).toMatch(/secret OPENAI_API_KEY/);
    expect(byName("claude-code.yml").text).toMatch(/pushes its commits itself/);
    expect(byName("claude-code.yml").text).toMatch(/secret ANTHROPIC_API_KEY/);
    for (const r of coding) expect(r.text, r.name).toMatch(/Untested on GitHub/);
    // Claude Code gets file tools only: no shell, so no git
    expect(byName("claude-code.yml").text).toMatch(/--allowedTools Read,Edit,Write,Glob,Grep\n/);
  });

  it("the stand-in runs the executor `frontier init` writes", () => {
    expect(byName("stand-in.yml").steps[0]?.run).toBe(`${STARTER_AGENT_STEP}\n`);
  });
});

/** Run a recipe step's script as a runner would (bash -e), in a scratch RUNNER_TEMP. */
function runStep(step: Step, env: Record<string, string>): { code: number | null; stderr: string } {
  const r = spawnSync("bash", ["-e", "-c", step.run ?? ""], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
  return { code: r.status, stderr: r.stderr };
}

async function settled(file: string) {
  return interpretOutcome({ file: await readOutcomeFile(file, 1 << 20), maxResultBytes: 1 << 20 });
}

describe.skipIf(!hasTools)("the recipes' scripts, run with bash and jq", () => {
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-recipe-"));
    const context = join(dir, "context.md");
    writeFileSync(context, "# Fix the retry bug\n\n## Task\n\nFix it.\n");
    return { dir, context, outcome: join(dir, "outcome.json") };
  };

  it.each(coding.map((r) => [r.name, r] as const))(
    "%s: the prompt says how to report, then gives the ticket's context",
    (_name, recipe) => {
      const s = scratch();
      const step = recipe.steps.find((x) => x.id === "agent-prompt")!;
      expect(runStep(step, { FRONTIER_CONTEXT_FILE: s.context, RUNNER_TEMP: s.dir }).code).toBe(0);
      const prompt = readFileSync(join(s.dir, "agent-prompt.md"), "utf8");
      expect(prompt).toMatch(/^Do the task of the ticket below[\s\S]*do not commit or push/);
      expect(prompt.endsWith("# Fix the retry bug\n\n## Task\n\nFix it.\n")).toBe(true);
    },
  );

  const outputs: Record<string, (json: string) => Record<string, string>> = {
    "codex.yml": (json) => ({ FINAL_MESSAGE: json }),
    "claude-code.yml": (json) => ({ STRUCTURED_OUTPUT: json, EXECUTION_FILE: "/nonexistent" }),
  };

  it.each(coding.map((r) => [r.name, r] as const))(
    "%s: the agent's outcome is written as it gave it, its nulls dropped; anything else is a failed outcome, never a result",
    async (name, recipe) => {
      const step = recipe.steps.find((x) => x.id === "agent-outcome")!;
      const cases: Array<[string, Record<string, unknown>]> = [
        [
          JSON.stringify({
            status: "complete",
            result: "Fixed the off-by-one in retry.ts",
            question: null,
            reason: null,
          }),
          { outcome: "complete", result: "Fixed the off-by-one in retry.ts" },
        ],
        [
          JSON.stringify({
            status: "suspended",
            result: null,
            question: "Keep the old API?",
            reason: null,
          }),
          { outcome: "suspended", question: "Keep the old API?" },
        ],
        [
          "I changed three files and I think it works.",
          { outcome: "failed", reason: expect.stringMatching(/ended without an outcome/) },
        ],
        ["", { outcome: "failed", reason: expect.stringMatching(/ended without an outcome/) }],
      ];
      for (const [message, expected] of cases) {
        const s = scratch();
        const ran = runStep(step, { ...outputs[name]!(message), FRONTIER_OUTCOME_FILE: s.outcome });
        expect(ran.code, ran.stderr).toBe(0);
        expect(await settled(s.outcome), message).toEqual(expected);
      }
    },
  );

  it("claude-code.yml: the run's tokens and cost from its execution log become the outcome's usage", async () => {
    const s = scratch();
    const log = join(s.dir, "claude-execution-output.json");
    writeFileSync(
      log,
      JSON.stringify([
        { type: "system", subtype: "init" },
        {
          type: "result",
          subtype: "success",
          usage: { input_tokens: 1200, output_tokens: 300 },
          total_cost_usd: 0.042,
        },
      ]),
    );
    const step = byName("claude-code.yml").steps.find((x) => x.id === "agent-outcome")!;
    const ran = runStep(step, {
      STRUCTURED_OUTPUT: JSON.stringify({
        status: "empty",
        result: null,
        question: null,
        reason: null,
      }),
      EXECUTION_FILE: log,
      FRONTIER_OUTCOME_FILE: s.outcome,
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(await settled(s.outcome)).toEqual({
      outcome: "empty",
      usage: { tokens: 1500, cost_usd: 0.042 },
    });
  });
});
