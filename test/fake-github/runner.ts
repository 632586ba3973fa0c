/**
 * What a GitHub runner gives a JavaScript action, pointed at the fake: INPUT_* and
 * GITHUB_* variables, an event file, and the GITHUB_OUTPUT / GITHUB_STEP_SUMMARY /
 * GITHUB_ENV / GITHUB_STATE files (created, because @actions/core 3 throws when
 * GITHUB_OUTPUT names a missing file). Plus a way to spawn a bundle with it.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { FakeGitHub, FakeRepo, FakeRun } from "./server.js";
import { makeWorkflowDispatchPayload, validateEventPayload } from "./webhooks.js";

export interface ActionEnvOptions {
  fake: FakeGitHub;
  repo: FakeRepo;
  eventName: string;
  /** the event payload; checked against @octokit/webhooks-schemas unless validatePayload: false */
  payload: object;
  validatePayload?: boolean;
  /** action inputs by their action.yml names ("max-parallel"), as INPUT_MAX-PARALLEL */
  inputs?: Record<string, string>;
  /** branch name or full ref; default the default branch */
  ref?: string;
  /** GITHUB_SHA; default the head of `ref` */
  sha?: string;
  runId?: number;
  runNumber?: number;
  runAttempt?: number;
  /** GITHUB_WORKFLOW (the workflow's name); default "frontier" */
  workflow?: string;
  /** the workflow file, for GITHUB_WORKFLOW_REF; default ".github/workflows/frontier.yml" */
  workflowFile?: string;
  job?: string;
  actor?: string;
  /** GITHUB_WORKSPACE; default a fresh temp dir */
  workspace?: string;
  /** where the event/output/summary files go; default a fresh temp dir */
  dir?: string;
}

export interface ActionEnv {
  env: Record<string, string>;
  dir: string;
  eventPath: string;
  outputPath: string;
  summaryPath: string;
  /** the step's outputs as @actions/core wrote them */
  readOutputs(): Record<string, string>;
  /** the job summary markdown */
  readSummary(): string;
  cleanup(): void;
}

export function makeActionEnv(o: ActionEnvOptions): ActionEnv {
  if (o.validatePayload !== false) {
    const check = validateEventPayload(o.eventName, o.payload);
    if (!check.valid) {
      throw new Error(
        `makeActionEnv: the ${o.eventName} payload does not match ${check.schema}:\n  ${check.errors.join("\n  ")}`,
      );
    }
  }
  const dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "fake-runner-"));
  fs.mkdirSync(dir, { recursive: true });
  const workspace = o.workspace ?? path.join(dir, "workspace");
  fs.mkdirSync(workspace, { recursive: true });
  const tempDir = path.join(dir, "runner-temp");
  fs.mkdirSync(tempDir, { recursive: true });
  const file = (name: string, content = "") => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };
  const eventPath = file("event.json", JSON.stringify(o.payload, null, 2));
  const outputPath = file("github_output");
  const summaryPath = file("step_summary.md");
  const envPath = file("github_env");
  const statePath = file("github_state");
  const pathPath = file("github_path");

  const refInput = o.ref ?? o.repo.defaultBranch;
  const ref = refInput.startsWith("refs/") ? refInput : `refs/heads/${refInput}`;
  const refName = ref.replace(/^refs\/(heads|tags)\//, "");
  const sha = o.sha ?? o.repo.resolve(ref) ?? "0".repeat(40);
  const workflowFile = o.workflowFile ?? ".github/workflows/frontier.yml";
  const runId = o.runId ?? 1;
  const env: Record<string, string> = {
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_API_URL: o.fake.baseUrl,
    GITHUB_GRAPHQL_URL: `${o.fake.baseUrl}/graphql`,
    GITHUB_SERVER_URL: o.fake.options.serverUrl,
    GITHUB_REPOSITORY: o.repo.fullName,
    GITHUB_REPOSITORY_OWNER: o.repo.owner,
    GITHUB_REPOSITORY_ID: String(o.repo.id),
    GITHUB_EVENT_NAME: o.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: sha,
    GITHUB_REF: ref,
    GITHUB_REF_NAME: refName,
    GITHUB_REF_TYPE: ref.startsWith("refs/tags/") ? "tag" : "branch",
    GITHUB_WORKFLOW: o.workflow ?? "frontier",
    GITHUB_WORKFLOW_REF: `${o.repo.fullName}/${workflowFile}@${ref}`,
    GITHUB_WORKFLOW_SHA: sha,
    GITHUB_RUN_ID: String(runId),
    GITHUB_RUN_NUMBER: String(o.runNumber ?? 1),
    GITHUB_RUN_ATTEMPT: String(o.runAttempt ?? 1),
    GITHUB_JOB: o.job ?? "frontier",
    GITHUB_ACTION: "__run",
    GITHUB_ACTOR: o.actor ?? o.repo.owner,
    GITHUB_TRIGGERING_ACTOR: o.actor ?? o.repo.owner,
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_ENV: envPath,
    GITHUB_STATE: statePath,
    GITHUB_PATH: pathPath,
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    RUNNER_NAME: "fake-runner",
    RUNNER_TEMP: tempDir,
    RUNNER_TOOL_CACHE: path.join(tempDir, "tool-cache"),
  };
  for (const [name, value] of Object.entries(o.inputs ?? {})) {
    env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] = value;
  }
  return {
    env,
    dir,
    eventPath,
    outputPath,
    summaryPath,
    readOutputs: () => parseFileCommands(fs.readFileSync(outputPath, "utf8")),
    readSummary: () => fs.readFileSync(summaryPath, "utf8"),
    cleanup: () => {
      if (!o.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The environment of the job a dispatched run starts: a workflow_dispatch event with
 * the run's inputs, GITHUB_RUN_ID = the run's id, GITHUB_SHA = the sha it was dispatched at.
 */
export function actionEnvForRun(
  fake: FakeGitHub,
  run: FakeRun,
  options: Omit<Partial<ActionEnvOptions>, "fake" | "repo" | "eventName" | "payload"> = {},
): ActionEnv {
  return makeActionEnv({
    fake,
    repo: run.repo,
    eventName: "workflow_dispatch",
    payload: makeWorkflowDispatchPayload({
      repo: run.repo,
      ref: run.ref,
      workflow: run.workflow.path,
      inputs: run.inputs,
      sender: run.actor,
    }),
    ref: run.ref,
    sha: run.headSha,
    runId: run.id,
    runNumber: run.runNumber,
    runAttempt: run.runAttempt,
    workflow: run.workflow.name,
    workflowFile: run.workflow.path,
    actor: run.actor,
    ...options,
  });
}

/** Parse a GITHUB_OUTPUT / GITHUB_ENV / GITHUB_STATE file (`k=v` lines and `k<<DELIM` blocks). */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, key, delim] = heredoc;
      const value: string[] = [];
      i++;
      while (i < lines.length && lines[i] !== delim) value.push(lines[i++]!);
      out[key!] = value.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

export interface SpawnResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

/**
 * Run a JavaScript action (e.g. dist/index.js) with node, as a runner does. The parent's
 * GITHUB_*, INPUT_*, RUNNER_* and ACTIONS_* variables are not inherited, so tests behave
 * the same on a laptop and inside GitHub Actions.
 */
export function spawnAction(
  entry: string,
  actionEnv: ActionEnv,
  options: { timeoutMs?: number; extraEnv?: Record<string, string> } = {},
): Promise<SpawnResult> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(GITHUB_|INPUT_|RUNNER_|ACTIONS_)/.test(k)) continue;
    base[k] = v;
  }
  return new Promise((resolve, reject) => {
    // Relative to the test's cwd, not the workspace the action runs in.
    const child = spawn(process.execPath, [path.resolve(entry)], {
      env: { ...base, ...actionEnv.env, ...(options.extraEnv ?? {}) },
      cwd: actionEnv.env.GITHUB_WORKSPACE,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `spawnAction: ${entry} did not finish in ${options.timeoutMs ?? 60_000} ms\n${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, outputs: actionEnv.readOutputs() });
    });
  });
}
