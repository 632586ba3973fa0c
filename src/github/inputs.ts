/**
 * Every action input and runner variable, read once into one typed settings object.
 * Nothing here runs at import time; `readInputs` is called by the entry point only.
 */
import * as core from "@actions/core";
import { Outcome } from "../core/model.js";
import { KEYS, KINDS } from "../tickets/setting-keys.js";
import { UserError } from "./errors.js";

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

export type RunnerEnv = ReturnType<typeof runnerEnv>;

export type InputsResult =
  | { kind: "ok"; settings: ActionSettings }
  | { kind: "bad"; problems: string[] };

type Get = (name: string) => string;

/** An input's trimmed text (undefined when empty), and checks that word a bad one. */
function inputReader(get: Get, problems: string[]) {
  const text = (name: string): string | undefined => {
    const v = get(name).trim();
    return v === "" ? undefined : v;
  };
  /** `name`'s text when `ok` holds for it; else a problem saying what it is not */
  const checked = (name: string, ok: (v: string) => boolean, not: string): string | undefined => {
    const v = text(name);
    if (v === undefined || ok(v)) return v;
    problems.push(`input ${name}: "${v}" is not ${not}`);
    return undefined;
  };
  const int = (name: string, min: number): number | undefined => {
    const whole = `a whole number ≥ ${min} — write e.g. ${name}: ${Math.max(min, 4)}`;
    const v = checked(name, (v) => /^\d+$/.test(v) && Number(v) >= min, whole);
    return v === undefined ? undefined : Number(v);
  };
  return { text, int, checked };
}

export function readInputs(
  env: NodeJS.ProcessEnv = process.env,
  get: Get = (n) => core.getInput(n),
): InputsResult {
  const problems: string[] = [];
  const { text, int, checked } = inputReader(get, problems);
  const command = (checked(
    "command",
    (v) => (COMMANDS as readonly string[]).includes(v.toLowerCase()),
    `one of ${COMMANDS.join(", ")} — leave it out to route by event`,
  )?.toLowerCase() ?? "auto") as CommandInput;
  const outcome = checked(
    "outcome",
    (v) => Outcome.safeParse(v).success,
    `one of ${Outcome.options.join(", ")}`,
  ) as Outcome | undefined;
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
  const settle: SettleInputs = {
    ticket: text("ticket"),
    attempt: int("attempt", 1),
    claim: text("claim"),
    outcomeFile: text("outcome-file") ?? (env.FRONTIER_OUTCOME_FILE || undefined),
    outcome,
    resultFile: text("result-file"),
    question: text("question"),
    reason: text("reason"),
    jobStatus: text("job-status")?.toLowerCase(),
  };
  const agent: NonNullable<ActionSettings["agent"]> = {};
  // each holds what the frontier.yml setting it stands for holds: one rule, one message
  for (const [input, key, setting] of [
    ["model", "model", "model"],
    ["endpoint", "endpoint", "model_endpoint"],
    ["key-env", "keyEnv", "model_key_env"],
  ] as const) {
    const { kind, expect, example } = KEYS[setting]!;
    const write = example.replace(/^\w+:/, `${input}:`);
    const v = checked(input, (v) => KINDS[kind](v), `${expect} — write e.g. ${write}`);
    if (v !== undefined) agent[key] = v;
  }
  const settings: ActionSettings = {
    command,
    tickets: (text("tickets") ?? "tickets").replace(/^\.\/+/, "").replace(/\/+$/, "") || ".",
    workflow: text("workflow") ?? "orch-task.yml",
    token,
    settle,
    agent,
    env: runnerEnv(env, owner, repo),
    maxParallel: int("max-parallel", 1),
    bound: int("bound", 0),
    branch: text("branch"),
    records: text("records"),
    fresh:
      checked("fresh", (v) => /^(true|false)$/i.test(v), "true or false")?.toLowerCase() ===
        "true" || undefined,
    ciWorkflow: checked(
      "ci-workflow",
      (v) => /^[A-Za-z0-9._-]+\.ya?ml$/.test(v.replace(/^\.github\/workflows\//, "")),
      "a workflow file name — write e.g. ci-workflow: ci.yml (a workflow in .github/workflows that has on: workflow_dispatch)",
    )?.replace(/^\.github\/workflows\//, ""),
  };
  return problems.length > 0 ? { kind: "bad", problems } : { kind: "ok", settings };
}

function runnerEnv(env: NodeJS.ProcessEnv, owner?: string, repo?: string) {
  // the workflow file this job runs: GITHUB_WORKFLOW_REF is `owner/repo/PATH@ref`
  const workflowFile = /^[^/]+\/[^/]+\/(.+?)@/.exec(env.GITHUB_WORKFLOW_REF ?? "")?.[1];
  return {
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
    ...(/^\d+$/.test(env.GITHUB_RUN_ID ?? "") ? { runId: Number(env.GITHUB_RUN_ID) } : {}),
    ...(env.GITHUB_STEP_SUMMARY ? { stepSummary: env.GITHUB_STEP_SUMMARY } : {}),
    ...(workflowFile ? { workflowFile } : {}),
    // tests only: no write spacing and millisecond back-offs; how long a claim may go
    // unseen before the outbox looks for its run
    fastApi: env.FRONTIER_TEST_FAST_API === "1",
    ...(/^\d+$/.test(env.FRONTIER_TEST_OUTBOX_LAG_MS ?? "")
      ? { outboxLagMs: Number(env.FRONTIER_TEST_OUTBOX_LAG_MS) }
      : {}),
  };
}

/**
 * The ticket, attempt and claim of an orch-task run (and the commit it checked out): its
 * inputs, else those of the workflow_dispatch event that started it.
 */
export function dispatchedJob(
  settle: SettleInputs,
  payload: Record<string, unknown>,
  command: "settle" | "context",
): { ticket: string; attempt: number; claim?: string; ref?: string } {
  const given = (payload.inputs ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const ticket = settle.ticket ?? str(given.ticket);
  const attempt = Number(settle.attempt ?? str(given.attempt));
  if (!ticket || !Number.isSafeInteger(attempt) || attempt < 1) {
    throw new UserError(
      `command: ${command} needs the ticket and attempt of the orch-task run — run it in the workflow the frontier dispatches (its inputs are read from the workflow_dispatch event), or pass ticket, attempt and claim`,
    );
  }
  // a workflow that declares no `ref` (an earlier version's) checks out `base`
  const ref = str(given.ref) ?? str(given.base);
  return { ticket, attempt, claim: settle.claim ?? str(given.claim), ref };
}
