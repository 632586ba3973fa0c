/**
 * Every action input and runner variable, read once into one typed settings object.
 * Nothing here runs at import time; `readInputs` is called by the entry point only.
 */
import * as core from "@actions/core";
import { ENDPOINT_URL, ENV_NAME, MODEL_NAME } from "../core/constants.js";
import { Outcome } from "../core/model.js";

export const COMMANDS = ["auto", "advance", "settle", "context", "agent", "sweep"] as const;
export type CommandInput = (typeof COMMANDS)[number];

export interface SettleInputs {
  ticket?: string;
  attempt?: number;
  claim?: string;
  /** the executor protocol's outcome JSON: {status, result?, question?, reason?, usage?} */
  outcomeFile?: string;
  outcome?: Outcome;
  resultFile?: string;
  question?: string;
  reason?: string;
  /** `job.status` (or the agent step's outcome): success | failure | cancelled */
  jobStatus?: string;
}

export interface ActionSettings {
  command: CommandInput;
  /** ticket directory, relative to the workspace */
  tickets: string;
  workflow: string;
  token: string;
  maxParallel?: number;
  bound?: number;
  /** the run's branch, when it is not the one the workflow ran for */
  branch?: string;
  /**
   * context: a checkout of the run's branch (relative to the workspace, or absolute).
   * The context step then reads state.json and the input results from it, with no API
   * request; without it they are read through the API.
   */
  records?: string;
  /** archive the branch's run and start a fresh one (also the workflow_dispatch input `fresh`) */
  fresh?: boolean;
  /** the user's CI workflow (a file that accepts workflow_dispatch), dispatched on the run's branch when the run ends */
  ciWorkflow?: string;
  settle: SettleInputs;
  /** agent: the built-in agent's model, endpoint and the variable holding its key */
  agent?: { model?: string; endpoint?: string; keyEnv?: string };
  env: RunnerEnv;
}

export interface RunnerEnv {
  apiUrl: string;
  serverUrl: string;
  owner: string;
  repo: string;
  eventName: string;
  eventPath?: string;
  sha: string;
  ref: string;
  workspace: string;
  runnerTemp: string;
  runId?: string;
  /** tests only: no write spacing, millisecond back-offs */
  fastApi: boolean;
  /** tests only: how long a claim may go unseen before the outbox looks for its run */
  outboxLagMs?: number;
}

export type InputsResult =
  | { kind: "ok"; settings: ActionSettings }
  | { kind: "bad"; problems: string[] };

type Get = (name: string) => string;

export function readInputs(
  env: NodeJS.ProcessEnv = process.env,
  get: Get = (n) => core.getInput(n),
): InputsResult {
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const v = get(name).trim();
    return v === "" ? undefined : v;
  };
  const int = (name: string, min: number): number | undefined => {
    const v = text(name);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min) {
      problems.push(
        `input ${name}: "${v}" is not a whole number ≥ ${min} — write e.g. ${name}: ${Math.max(min, 4)}`,
      );
      return undefined;
    }
    return Number(v);
  };

  const commandText = (text("command") ?? "auto").toLowerCase();
  let command: CommandInput = "auto";
  if ((COMMANDS as readonly string[]).includes(commandText)) command = commandText as CommandInput;
  else
    problems.push(
      `input command: "${commandText}" is not one of ${COMMANDS.join(", ")} — leave it out to route by event`,
    );

  const outcomeText = text("outcome");
  let outcome: Outcome | undefined;
  if (outcomeText !== undefined) {
    const parsed = Outcome.safeParse(outcomeText);
    if (parsed.success) outcome = parsed.data;
    else
      problems.push(`input outcome: "${outcomeText}" is not one of ${Outcome.options.join(", ")}`);
  }

  const token = text("token") ?? env.GITHUB_TOKEN ?? "";
  if (token === "")
    problems.push(
      "input token is empty — leave it out to use github.token, or pass a token with contents, actions and issues write",
    );

  const repository = env.GITHUB_REPOSITORY ?? "";
  const [owner, repo] = repository.split("/");
  if (!owner || !repo)
    problems.push(
      `GITHUB_REPOSITORY is "${repository}", not owner/name — run this inside GitHub Actions`,
    );

  const settle: SettleInputs = {};
  const setIf = <K extends keyof SettleInputs>(key: K, value: SettleInputs[K] | undefined) => {
    if (value !== undefined) settle[key] = value;
  };
  setIf("ticket", text("ticket"));
  setIf("attempt", int("attempt", 1));
  setIf("claim", text("claim"));
  setIf("outcomeFile", text("outcome-file") ?? (env.FRONTIER_OUTCOME_FILE || undefined));
  setIf("outcome", outcome);
  setIf("resultFile", text("result-file"));
  setIf("question", text("question"));
  setIf("reason", text("reason"));
  setIf("jobStatus", text("job-status")?.toLowerCase());

  const agent: NonNullable<ActionSettings["agent"]> = {};
  for (const [input, key, shape, what, example] of [
    ["model", "model", MODEL_NAME, "a model's name (no spaces)", "openai/gpt-4.1-mini"],
    [
      "endpoint",
      "endpoint",
      ENDPOINT_URL,
      "the http(s) base URL of an OpenAI-compatible API",
      "https://models.github.ai/inference",
    ],
    ["key-env", "keyEnv", ENV_NAME, "the name of an environment variable", "OPENAI_API_KEY"],
  ] as const) {
    const v = text(input);
    if (v === undefined) continue;
    if (shape.test(v)) agent[key] = v;
    else problems.push(`input ${input}: "${v}" is not ${what} — write e.g. ${input}: ${example}`);
  }

  const settings: ActionSettings = {
    command,
    tickets: (text("tickets") ?? "tickets").replace(/^\.\/+/, "").replace(/\/+$/, "") || ".",
    workflow: text("workflow") ?? "orch-task.yml",
    token,
    settle,
    agent,
    env: {
      apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
      serverUrl: env.GITHUB_SERVER_URL ?? "https://github.com",
      owner: owner ?? "",
      repo: repo ?? "",
      eventName: env.GITHUB_EVENT_NAME ?? "",
      ...(env.GITHUB_EVENT_PATH ? { eventPath: env.GITHUB_EVENT_PATH } : {}),
      sha: env.GITHUB_SHA ?? "",
      ref: env.GITHUB_REF ?? "",
      workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
      runnerTemp: env.RUNNER_TEMP ?? env.TMPDIR ?? "/tmp",
      ...(env.GITHUB_RUN_ID ? { runId: env.GITHUB_RUN_ID } : {}),
      fastApi: env.FRONTIER_TEST_FAST_API === "1",
      ...(/^\d+$/.test(env.FRONTIER_TEST_OUTBOX_LAG_MS ?? "")
        ? { outboxLagMs: Number(env.FRONTIER_TEST_OUTBOX_LAG_MS) }
        : {}),
    },
  };
  const maxParallel = int("max-parallel", 1);
  if (maxParallel !== undefined) settings.maxParallel = maxParallel;
  const bound = int("bound", 0);
  if (bound !== undefined) settings.bound = bound;
  const branch = text("branch");
  if (branch !== undefined) settings.branch = branch;
  const records = text("records");
  if (records !== undefined) settings.records = records;
  const fresh = text("fresh")?.toLowerCase();
  if (fresh === "true") settings.fresh = true;
  else if (fresh !== undefined && fresh !== "false")
    problems.push(`input fresh: "${fresh}" is not true or false`);
  const ci = text("ci-workflow");
  if (ci !== undefined) {
    if (/^[A-Za-z0-9._-]+\.ya?ml$/.test(ci.replace(/^\.github\/workflows\//, "")))
      settings.ciWorkflow = ci.replace(/^\.github\/workflows\//, "");
    else
      problems.push(
        `input ci-workflow: "${ci}" is not a workflow file name — write e.g. ci-workflow: ci.yml (a workflow in .github/workflows that has on: workflow_dispatch)`,
      );
  }

  return problems.length > 0 ? { kind: "bad", problems } : { kind: "ok", settings };
}
