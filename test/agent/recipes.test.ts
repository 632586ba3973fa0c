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
import { outcomeReason, readOutcomeFile } from "../../src/tickets/outcome-file.js";

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

  it("each says what its agent commits or pushes, which secret it needs, and how far it is checked", () => {
    expect(byName("codex.yml").text).toMatch(/commits and pushes nothing itself/);
    expect(byName("codex.yml").text).toMatch(/secret OPENAI_API_KEY/);
    expect(byName("claude-code.yml").text).toMatch(/pushes its commits itself/);
    expect(byName("claude-code.yml").text).toMatch(/secret ANTHROPIC_API_KEY/);
    for (const r of coding)
      expect(r.text, r.name).toMatch(/checked against\s[\s\S]*?action\.yml at the pinned commit/);
    // Claude Code gets file tools only: no shell, so no git
    expect(byName("claude-code.yml").text).toMatch(/--allowedTools Read,Edit,Write,Glob,Grep\n/);
  });

  it.each([
    ["codex.yml", "codex-action.action.yml"],
    ["claude-code.yml", "claude-code-base-action.action.yml"],
  ])(
    "%s: pinned by full commit to the action.yml kept in test/agent/fixtures; every input it passes and every output it reads is one that action.yml declares",
    (name, fixture) => {
      const text = readFileSync(join(import.meta.dirname, "fixtures", fixture), "utf8");
      const commit = /^# \S+ action\.yml at ([0-9a-f]{40})/.exec(text)?.[1];
      const action = parse(text) as {
        inputs: Record<string, unknown>;
        outputs: Record<string, unknown>;
      };
      const agent = byName(name).steps.find((s) => s.id === "agent")!;
      expect(agent.uses).toMatch(new RegExp(`^[\\w-]+/[\\w-]+@${commit}$`));
      // the version is named beside the commit
      expect(byName(name).text).toMatch(new RegExp(`@${commit} # \\S`));
      for (const input of Object.keys(agent.with ?? {}))
        expect(Object.keys(action.inputs), input).toContain(input);
      const read = [...byName(name).text.matchAll(/steps\.agent\.outputs\.([\w-]+)/g)].map(
        (m) => m[1],
      );
      expect(read.length).toBeGreaterThan(0);
      for (const output of read) expect(Object.keys(action.outputs), output).toContain(output);
    },
  );

  it("an agent that commits loses nothing and pushes nothing: the job's checkout keeps no credentials, and no recipe runs git", () => {
    const orch = parse(
      readFileSync(join(ROOT, "examples", "workflows", "orch-task.yml"), "utf8"),
    ) as { jobs: { task: { steps: Step[] } } };
    const checkouts = orch.jobs.task.steps.filter((s) => s.uses?.startsWith("actions/checkout"));
    expect(checkouts.length).toBeGreaterThan(0);
    for (const c of checkouts) expect(c.with?.["persist-credentials"]).toBe(false);
    for (const r of coding)
      for (const step of r.steps) expect(step.run ?? "").not.toMatch(/\bgit\b/);
  });

  it("the stand-in runs the executor `frontier init` writes", () => {
    expect(byName("stand-in.yml").steps[0]?.run).toBe(`${STARTER_AGENT_STEP}\n`);
  });
});

/**
 * Run a recipe step's script as GitHub's runner does (`bash --noprofile --norc -eo pipefail`),
 * in a scratch RUNNER_TEMP. Without `--norc`, a bash whose stdin is a socket (as spawnSync's
 * is) reads ~/.bashrc as if sshd had started it: on a machine whose bashrc is slow, that
 * alone took 0.65 s a step.
 */
function runStep(step: Step, env: Record<string, string>): { code: number | null; stderr: string } {
  const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.run ?? ""], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
  return { code: r.status, stderr: r.stderr };
}

async function settled(file: string) {
  const read = await readOutcomeFile(file, 1 << 20);
  return interpretOutcome({ file: read, maxResultBytes: 1 << 20 }, outcomeReason);
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

/**
 * The local recipes (examples/agents/*.sh), each run as `frontier run` runs an executor,
 * against a stand-in of its CLI on PATH that prints what that CLI's documentation says it
 * prints — for a success with usage, its errors, and a crash — and records how it was
 * called. The outcome file each recipe writes is read by the runners' own interpreter.
 */
const CONTEXT =
  "# Fix the retry bug\n\nTicket `retry` · run `r` · attempt 1\n\n## Task\n\nFix it.\n";
const OUTCOME = {
  status: "complete",
  result: "Fixed the off-by-one in retry.ts",
  question: null,
  reason: null,
};

/** What each CLI prints, by case: [stdout, exit code]. */
const PRINTS: Record<string, Record<string, [string, number]>> = {
  // Claude Code 2.x, `claude -p --output-format json` (with --json-schema: structured_output)
  claude: {
    success: [
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 41230,
        duration_api_ms: 38110,
        num_turns: 7,
        result: "Fixed the off-by-one in retry.ts.",
        session_id: "5f0c2a1e-7d7b-4f7e-9a43-2b1f7c9e0d11",
        total_cost_usd: 0.0421,
        usage: {
          input_tokens: 1200,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 4000,
          output_tokens: 300,
          server_tool_use: { web_search_requests: 0 },
          service_tier: "standard",
        },
        structured_output: OUTCOME,
      }),
      0,
    ],
    turns: [
      JSON.stringify({
        type: "result",
        subtype: "error_max_turns",
        is_error: true,
        duration_ms: 90000,
        num_turns: 41,
        session_id: "5f0c2a1e",
        total_cost_usd: 0.31,
        usage: { input_tokens: 9000, output_tokens: 1000 },
      }),
      1,
    ],
    refused: [
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: true,
        duration_ms: 200,
        num_turns: 1,
        result: "Invalid API key · Please run /login",
        session_id: "5f0c2a1e",
        total_cost_usd: 0,
        usage: { input_tokens: 0, output_tokens: 0 },
      }),
      1,
    ],
  },
  // Codex CLI, `codex exec --json`: one event a line
  codex: {
    success: [
      [
        { type: "thread.started", thread_id: "0199a213-81c0-7800-8aa1-bbab2a035a53" },
        { type: "turn.started" },
        {
          type: "item.completed",
          item: { id: "item_0", type: "reasoning", text: "**Looking at retry.ts**" },
        },
        {
          type: "item.completed",
          item: {
            id: "item_1",
            type: "command_execution",
            command: "bash -lc 'sed -n 1,40p src/retry.ts'",
            aggregated_output: "…",
            exit_code: 0,
            status: "completed",
          },
        },
        {
          type: "item.completed",
          item: { id: "item_2", type: "agent_message", text: JSON.stringify(OUTCOME) },
        },
        {
          type: "turn.completed",
          usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122 },
        },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n"),
      0,
    ],
    failed: [
      [
        { type: "thread.started", thread_id: "0199a213" },
        { type: "turn.started" },
        {
          type: "error",
          message: "stream error: unexpected status 401 Unauthorized; retrying 1/5",
        },
        {
          type: "turn.failed",
          error: { message: "unexpected status 401 Unauthorized: Incorrect API key provided" },
        },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n"),
      1,
    ],
    prose: [
      [
        { type: "thread.started", thread_id: "0199a213" },
        { type: "turn.started" },
        // the thread's total so far: the last one counts, not their sum
        {
          type: "turn.completed",
          usage: { input_tokens: 200, cached_input_tokens: 0, output_tokens: 5 },
        },
        { type: "turn.started" },
        {
          type: "item.completed",
          item: { id: "item_0", type: "agent_message", text: "I fixed it, I think." },
        },
        {
          type: "turn.completed",
          usage: { input_tokens: 500, cached_input_tokens: 0, output_tokens: 20 },
        },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n"),
      0,
    ],
  },
  // Gemini CLI, `gemini -p --output-format json`
  gemini: {
    success: [
      JSON.stringify({
        response: `\`\`\`json\n${JSON.stringify(OUTCOME)}\n\`\`\``,
        stats: {
          models: {
            "gemini-2.5-pro": {
              api: { totalRequests: 2, totalErrors: 0, totalLatencyMs: 5053 },
              tokens: {
                prompt: 24939,
                candidates: 20,
                total: 25113,
                cached: 21263,
                thoughts: 154,
                tool: 0,
              },
            },
            "gemini-2.5-flash": {
              api: { totalRequests: 1, totalErrors: 0, totalLatencyMs: 800 },
              tokens: { prompt: 300, candidates: 10, total: 310, cached: 0, thoughts: 0, tool: 0 },
            },
          },
          tools: { totalCalls: 1, totalSuccess: 1, totalFail: 0, totalDurationMs: 1881 },
          files: { totalLinesAdded: 1, totalLinesRemoved: 1 },
        },
      }),
      0,
    ],
    failed: [
      JSON.stringify({
        error: {
          type: "ApiError",
          message: "Quota exceeded for quota metric 'Generate Content API requests per minute'",
          code: 429,
        },
      }),
      1,
    ],
    turns: [JSON.stringify({ response: "", stats: { models: {} } }), 53],
  },
};

/** A stand-in for `name` on PATH: records argv and stdin, prints PRINTS[name][$STANDIN_CASE]. */
function standIns(): { bin: string; log: string } {
  const bin = mkdtempSync(join(tmpdir(), "frontier-standin-"));
  const log = join(bin, "log");
  for (const [name, cases] of Object.entries(PRINTS)) {
    writeFileSync(join(bin, `${name}.json`), JSON.stringify(cases));
    writeFileSync(
      join(bin, name),
      `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
const schemaAt = args.indexOf("--output-schema");
fs.writeFileSync(${JSON.stringify(log)}, JSON.stringify({ args, stdin: fs.readFileSync(0, "utf8"),
  schemaFile: schemaAt >= 0 ? fs.readFileSync(args[schemaAt + 1], "utf8") : null }));
if (process.env.STANDIN_CASE === "crash") { process.stderr.write("Segmentation fault (core dumped)\\n"); process.exit(139); }
const [out, code] = JSON.parse(fs.readFileSync(${JSON.stringify(join(bin, `${name}.json`))}, "utf8"))[process.env.STANDIN_CASE];
process.stdout.write(out + "\\n");
process.exit(code);
`,
      { mode: 0o755 },
    );
  }
  return { bin, log };
}

describe.skipIf(!hasTools)(
  "the local recipes, run against stand-ins that print what each CLI's docs say",
  () => {
    const { bin, log } = standIns();
    const recipe = async (script: string, scenario: string) => {
      const s = mkdtempSync(join(tmpdir(), "frontier-recipe-"));
      writeFileSync(join(s, "context.md"), CONTEXT);
      const r = spawnSync("bash", [join(DIR, script)], {
        cwd: s,
        env: {
          PATH: `${bin}:${process.env.PATH ?? ""}`,
          STANDIN_CASE: scenario,
          FRONTIER_CONTEXT_FILE: join(s, "context.md"),
          FRONTIER_OUTCOME_FILE: join(s, "outcome.json"),
        },
        encoding: "utf8",
      });
      expect(r.status, r.stderr).toBe(0);
      return {
        outcome: await settled(join(s, "outcome.json")),
        called: JSON.parse(readFileSync(log, "utf8")) as {
          args: string[];
          stdin: string;
          schemaFile: string | null;
        },
      };
    };

    it("claude-code.sh: the structured output with tokens and cost; turns run out, a refused key and a crash are failed outcomes", async () => {
      const ok = await recipe("claude-code.sh", "success");
      expect(ok.outcome).toEqual({
        outcome: "complete",
        result: "Fixed the off-by-one in retry.ts",
        usage: { tokens: 1500, cost_usd: 0.0421 },
      });
      const { args, stdin } = ok.called;
      expect(args[0]).toBe("-p");
      expect(args.slice(2, 4)).toEqual(["--output-format", "json"]);
      expect(JSON.parse(args[args.indexOf("--json-schema") + 1] ?? "")).toEqual(OUTCOME_SCHEMA);
      expect(args[args.indexOf("--allowedTools") + 1]).toBe("Read,Edit,Write,Glob,Grep");
      expect(stdin).toBe(CONTEXT);
      expect((await recipe("claude-code.sh", "turns")).outcome).toEqual({
        outcome: "failed",
        reason:
          "claude code ran out of turns (error_max_turns): raise CLAUDE_MAX_TURNS, or split the ticket",
        usage: { tokens: 10000, cost_usd: 0.31 },
      });
      expect((await recipe("claude-code.sh", "refused")).outcome).toMatchObject({
        outcome: "failed",
        reason: "claude code failed (success): Invalid API key · Please run /login",
      });
      expect((await recipe("claude-code.sh", "crash")).outcome).toEqual({
        outcome: "failed",
        reason: expect.stringMatching(
          /^claude code gave no result \(exit 139\): Segmentation fault/,
        ),
      });
    });

    it("codex.sh: the last agent message with the turns' tokens; a failed turn, a message that is no outcome and a crash are failed outcomes", async () => {
      const ok = await recipe("codex.sh", "success");
      expect(ok.outcome).toEqual({
        outcome: "complete",
        result: "Fixed the off-by-one in retry.ts",
        usage: { tokens: 24885 },
      });
      const { args, stdin, schemaFile } = ok.called;
      expect(args.slice(0, 2)).toEqual(["exec", "--json"]);
      expect(args).toContain("workspace-write");
      expect(args.at(-1)).toBe("-");
      expect(JSON.parse(schemaFile ?? "")).toEqual(OUTCOME_SCHEMA);
      expect(stdin).toMatch(/^Do the task of the ticket below[\s\S]*do not commit or push/);
      expect(stdin.endsWith(CONTEXT)).toBe(true);
      expect((await recipe("codex.sh", "failed")).outcome).toEqual({
        outcome: "failed",
        reason: "codex failed: unexpected status 401 Unauthorized: Incorrect API key provided",
      });
      expect((await recipe("codex.sh", "prose")).outcome).toEqual({
        outcome: "failed",
        reason: "codex ended without an outcome: its last message is not the outcome JSON",
        usage: { tokens: 520 },
      });
      expect((await recipe("codex.sh", "crash")).outcome).toMatchObject({
        outcome: "failed",
        reason: expect.stringMatching(/^codex gave no events \(exit 139\): Segmentation fault/),
      });
    });

    it("gemini.sh: the response's outcome (fenced or not) with every model's tokens; an API error, the turn limit and a crash are failed outcomes", async () => {
      const ok = await recipe("gemini.sh", "success");
      expect(ok.outcome).toEqual({
        outcome: "complete",
        result: "Fixed the off-by-one in retry.ts",
        usage: { tokens: 25423 },
      });
      const { args, stdin } = ok.called;
      expect(args[0]).toBe("-p");
      expect(args[1]).toContain('{"status": "complete" | "empty" | "failed" | "suspended"');
      expect(args.slice(2, 4)).toEqual(["--output-format", "json"]);
      expect(args.slice(4)).toEqual(["--approval-mode", "auto_edit"]);
      expect(stdin).toBe(CONTEXT);
      expect((await recipe("gemini.sh", "failed")).outcome).toEqual({
        outcome: "failed",
        reason: expect.stringMatching(/^gemini failed \(exit 1\): ApiError: Quota exceeded/),
      });
      expect((await recipe("gemini.sh", "turns")).outcome).toEqual({
        outcome: "failed",
        reason: "gemini ran out of turns (exit 53)",
      });
      expect((await recipe("gemini.sh", "crash")).outcome).toMatchObject({
        outcome: "failed",
        reason: expect.stringMatching(/^gemini gave no result \(exit 139\): Segmentation fault/),
      });
    });

    it("outcome.schema.json, beside the scripts, is the built-in agent's own schema", () => {
      expect(JSON.parse(readFileSync(join(DIR, "outcome.schema.json"), "utf8"))).toEqual(
        OUTCOME_SCHEMA,
      );
    });
  },
);
