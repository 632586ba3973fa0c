/**
 * A GitHub Actions runner for the end-to-end tests: spawns the built bundle
 * (dist/index.js) exactly as a runner does — INPUT_* and GITHUB_* variables, an event
 * payload file checked against GitHub's webhook schemas, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files — against a fake GitHub on 127.0.0.1. Dispatched orch-task
 * runs are executed by spawning the bundle's context and settle steps with a scripted
 * outcome — or with the bundle's own agent step (`command: agent`) between them.
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  assertValidPayload,
  FakeGitHub,
  type FakeRepo,
  type FakeRun,
  makePushPayload,
  makeSchedulePayload,
  makeWorkflowDispatchPayload,
  makeWorkflowRunPayload,
} from "../fake-github/server.js";
import { checkoutCommit } from "../support/git-checkout.js";
import { readRunState } from "../support/run-state.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BUNDLE = join(ROOT, "dist", "index.js");
export const EXAMPLES = join(ROOT, "examples", "workflows");

export interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** variables the step exported through GITHUB_ENV */
  exported: Record<string, string>;
  /** when the process was spawned (ms since the epoch) and how long it ran */
  spawnedAt: number;
  ms: number;
}

/** GitHub's file-command format: `name=value` lines or `name<<DELIM` heredocs. */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delim] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i] as string);
      out[name as string] = value.join("\n");
    } else if (line.includes("=")) {
      const k = line.indexOf("=");
      out[line.slice(0, k)] = line.slice(k + 1);
    }
  }
  return out;
}

/** Lets at most `n` steps run at once (2 shared cores). */
class Gate {
  private waiting: Array<() => void> = [];
  private running = 0;
  constructor(public limit: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

export type Scripted =
  | {
      status: "complete" | "empty" | "failed" | "suspended" | "limited";
      result?: string;
      question?: string;
      reason?: string;
      usage?: Record<string, number>;
    }
  /** the job dies: no settle step, the run ends with this conclusion (default failure) */
  | { die: true; conclusion?: "failure" | "cancelled" | "timed_out"; silent?: boolean }
  /**
   * the agent step is the built-in agent (`command: agent`, with these inputs), run with
   * the variables the context step exported; its outcome file is what the settle reads
   */
  | { agent: Record<string, string> }
  /** the agent step was killed (the job's timeout): no outcome file, the settle step sees a failed job */
  | { killed: true };

export interface JobRecord {
  run: FakeRun;
  ticket: string;
  attempt: number;
  claim: string;
  /** the job's checkout: a git work tree of the dispatch's `ref`, where its agent may edit files */
  workspace: string;
  settle?: StepResult;
  context?: StepResult;
  agent?: StepResult;
  startedAt: number;
}

export class Runner {
  readonly fake: FakeGitHub;
  repo!: FakeRepo;
  /** checkouts by commit */
  private checkouts = new Map<string, string>();
  readonly scratch = mkdtempSync(join(tmpdir(), "frontier-e2e-"));
  readonly jobs: JobRecord[] = [];
  readonly steps: StepResult[] = [];
  gate = new Gate(4);
  /** what each dispatched orch-task run does; default: complete with a result */
  script: (ticket: string, attempt: number, job: JobRecord) => Scripted | Promise<Scripted> = (
    t,
    a,
  ) => ({
    status: "complete",
    result: `result of ${t} attempt ${a}`,
  });
  /** before the context step of a job runs (e.g. a runner that is slow to pick the job up) */
  beforeContext?: (job: JobRecord) => Promise<void>;
  /** before the settle step of a job runs (e.g. a barrier) */
  beforeSettle?: (job: JobRecord) => Promise<void>;
  /** run the context step in every job (costs a spawn; default true) */
  withContext = true;
  /** give the context step a checkout of the run's branch (the `records` input), as orch-task.yml does */
  withRecords = true;
  /** leave the ticket directory's .frontier/ out of job checkouts but base.json (the rest a job reads comes from elsewhere) */
  lightCheckouts = false;
  /** extra INPUT_* for every step */
  inputs: Record<string, string> = {};
  /** extra environment variables for every step */
  env: Record<string, string> = {};
  /** the bundle each step spawns (another build's, to compare in the same bench run) */
  bundle = BUNDLE;
  private unhook?: () => void;

  constructor(options: { returnRunDetails?: "supported" | "refused" } = {}) {
    this.fake = new FakeGitHub({ returnRunDetails: options.returnRunDetails ?? "supported" });
  }

  async start(ticketsDir: string): Promise<string> {
    if (!existsSync(this.bundle)) throw new Error(`${this.bundle} is missing: run npm run package`);
    await this.fake.start();
    this.repo = this.fake.createRepo("acme/widgets");
    this.repo.commit(
      "main",
      {
        "README.md": "# widgets\n",
        ".github/workflows/orch-task.yml": readFileSync(join(EXAMPLES, "orch-task.yml"), "utf8"),
        ".github/workflows/frontier.yml": readFileSync(join(EXAMPLES, "frontier.yml"), "utf8"),
      },
      { message: "init" },
    );
    const sha = this.repo.seed(ticketsDir, { into: "tickets", message: "add tickets" });
    this.unhook = this.fake.onDispatch((run) => this.execute(run));
    return sha;
  }

  async stop(): Promise<void> {
    await this.fake.idle();
    this.unhook?.();
    await this.fake.stop();
    // a checkout per job and per commit: removed side by side, not one after another
    const names = existsSync(this.scratch) ? readdirSync(this.scratch) : [];
    await Promise.all(
      names.map((n) => rm(join(this.scratch, n), { recursive: true, force: true })),
    );
    rmSync(this.scratch, { recursive: true, force: true });
  }

  /** A checkout of `sha` on disk (GITHUB_WORKSPACE), shared by steps at the same commit; `sparse`: only under it. */
  checkout(sha: string, sparse?: string): string {
    const key = `${sha}:${sparse ?? ""}`;
    let dir = this.checkouts.get(key);
    if (dir) return dir;
    dir = join(this.scratch, `checkout-${sha.slice(0, 12)}${sparse ? "-sparse" : ""}`);
    for (const file of this.repo.listFiles(sha, sparse)) {
      const target = join(dir, file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, this.repo.readBytes(file, sha) as Buffer);
    }
    this.checkouts.set(key, dir);
    return dir;
  }

  private gitCheckouts = new Map<string, Promise<string>>();

  /** A git work tree of `sha` to copy each job's checkout from (made once per commit). */
  private gitCheckout(sha: string): Promise<string> {
    let made = this.gitCheckouts.get(sha);
    if (!made) {
      made = checkoutCommit(
        this.repo,
        sha,
        join(this.scratch, `git-${sha.slice(0, 12)}`),
        this.lightCheckouts
          ? (p) => !p.startsWith("tickets/.frontier/") || p === "tickets/.frontier/base.json"
          : undefined,
      );
      this.gitCheckouts.set(sha, made);
    }
    return made;
  }

  /** Spawn the bundle as one step of a job. */
  async step(options: {
    event: string;
    payload: Record<string, unknown>;
    inputs?: Record<string, string>;
    sha: string;
    ref?: string;
    runId?: number;
    env?: Record<string, string>;
    /** GITHUB_WORKSPACE (default: a shared checkout of `sha`) */
    workspace?: string;
    /** RUNNER_TEMP: one per job on GitHub, shared by its steps (default: the step's own) */
    runnerTemp?: string;
  }): Promise<StepResult> {
    assertValidPayload(options.event, options.payload);
    return this.gate.run(async () => {
      const dir = mkdtempSync(join(this.scratch, "step-"));
      const eventPath = join(dir, "event.json");
      const outputPath = join(dir, "output");
      const summaryPath = join(dir, "summary");
      const envPath = join(dir, "env");
      const temp = options.runnerTemp ?? join(dir, "temp");
      mkdirSync(temp, { recursive: true });
      writeFileSync(eventPath, JSON.stringify(options.payload));
      for (const f of [outputPath, summaryPath, envPath]) writeFileSync(f, "");
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? dir,
        GITHUB_ACTIONS: "true",
        CI: "true",
        GITHUB_API_URL: this.fake.baseUrl,
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "acme/widgets",
        GITHUB_REPOSITORY_OWNER: "acme",
        GITHUB_EVENT_NAME: options.event,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_SHA: options.sha,
        GITHUB_REF: options.ref ?? "refs/heads/main",
        // the workflow the step runs in: orch-task for a dispatch, else the frontier workflow
        GITHUB_WORKFLOW_REF: `acme/widgets/.github/workflows/${options.event === "workflow_dispatch" ? "orch-task.yml" : "frontier.yml"}@${options.ref ?? "refs/heads/main"}`,
        GITHUB_WORKSPACE: options.workspace ?? this.checkout(options.sha),
        GITHUB_RUN_ID: String(options.runId ?? 1),
        GITHUB_OUTPUT: outputPath,
        GITHUB_STEP_SUMMARY: summaryPath,
        GITHUB_ENV: envPath,
        RUNNER_TEMP: temp,
        FRONTIER_TEST_FAST_API: "1",
        INPUT_TOKEN: "ghs_test_token",
        INPUT_TICKETS: "tickets",
        INPUT_WORKFLOW: "orch-task.yml",
        ...Object.fromEntries(
          Object.entries({ ...this.inputs, ...(options.inputs ?? {}) }).map(([k, v]) => [
            `INPUT_${k.toUpperCase()}`,
            v,
          ]),
        ),
        ...this.env,
        ...(options.env ?? {}),
      };
      const started = Date.now();
      const child = spawn(process.execPath, [this.bundle], { env, cwd: env.GITHUB_WORKSPACE });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await new Promise<number>((resolve) =>
        child.on("close", (c) => resolve(c ?? -1)),
      );
      const result: StepResult = {
        code,
        stdout,
        stderr,
        outputs: parseFileCommands(readFileSync(outputPath, "utf8")),
        summary: readFileSync(summaryPath, "utf8"),
        exported: parseFileCommands(readFileSync(envPath, "utf8")),
        spawnedAt: started,
        ms: Date.now() - started,
      };
      this.steps.push(result);
      return result;
    });
  }

  push(sha: string): Promise<StepResult> {
    return this.step({
      event: "push",
      payload: makePushPayload({ repo: this.repo, after: sha }),
      sha,
    });
  }

  schedule(): Promise<StepResult> {
    const sha = this.repo.head("main") as string;
    return this.step({
      event: "schedule",
      payload: makeSchedulePayload({ repo: this.repo, workflow: "frontier.yml" }),
      sha,
    });
  }

  workflowRun(run: FakeRun): Promise<StepResult> {
    const sha = this.repo.head("main") as string;
    return this.step({
      event: "workflow_run",
      payload: makeWorkflowRunPayload({ run }),
      sha: run.headSha,
      env: { GITHUB_SHA: sha },
    });
  }

  /** One orch-task job, as examples/workflows/orch-task.yml runs it. */
  private async execute(run: FakeRun): Promise<void> {
    if (!run.workflow.path.endsWith("orch-task.yml")) return;
    const base = run.inputs.base as string;
    const ref = (run.inputs.ref as string | undefined) || base;
    // actions/checkout of ref: a git work tree the agent may change (each job its own copy)
    const workspace = mkdtempSync(join(this.scratch, `job-${run.id}-`));
    // copied without blocking: the fake GitHub in this process answers every other job meanwhile
    await cp(await this.gitCheckout(ref), workspace, { recursive: true, verbatimSymlinks: true });
    const job: JobRecord = {
      run,
      ticket: run.inputs.ticket as string,
      attempt: Number(run.inputs.attempt),
      claim: run.inputs.claim as string,
      workspace,
      startedAt: Date.now(),
    };
    this.jobs.push(job);
    const payload = makeWorkflowDispatchPayload({
      repo: this.repo,
      workflow: "orch-task.yml",
      ref: run.ref,
      inputs: run.inputs,
    });
    const common = {
      event: "workflow_dispatch",
      payload,
      sha: run.headSha,
      ref: `refs/heads/${run.ref}`,
      runId: run.id,
      workspace,
      // the job's temporary directory, as every step of a job on GitHub shares it
      runnerTemp: mkdtempSync(join(this.scratch, "job-temp-")),
    };
    let outcomeFile = join(this.scratch, `outcome-${run.id}.json`);
    let live = true;
    if (this.withContext) {
      await this.beforeContext?.(job);
      // the workflow's second checkout: the run's branch, sparse to the records
      const inputs: Record<string, string> = { command: "context" };
      if (this.withRecords)
        inputs.records = this.checkout(this.repo.head(run.ref) as string, "tickets/.frontier");
      job.context = await this.step({ ...common, inputs });
      if (job.context.code !== 0)
        throw new Error(
          `context step of ${job.ticket}#${job.attempt} failed:\n${job.context.stdout}${job.context.stderr}`,
        );
      outcomeFile = job.context.outputs["outcome-file"] ?? outcomeFile;
      live = job.context.outputs.live === "true";
    }
    const scripted = await this.script(job.ticket, job.attempt, job);
    if ("die" in scripted) {
      this.fake.setRunStatus(run.id, "completed", scripted.conclusion ?? "failure");
      return;
    }
    if (!live) return;
    if ("agent" in scripted) {
      job.agent = await this.step({
        ...common,
        inputs: { command: "agent", ...scripted.agent },
        env: job.context?.exported ?? {},
      });
      if (job.agent.code !== 0) {
        this.fake.setRunStatus(run.id, "completed", "failure");
        throw new Error(
          `agent step of ${job.ticket}#${job.attempt} failed:\n${job.agent.stdout}${job.agent.stderr}`,
        );
      }
    } else if (!("killed" in scripted)) writeFileSync(outcomeFile, JSON.stringify(scripted));
    await this.beforeSettle?.(job);
    job.settle = await this.step({
      ...common,
      inputs: {
        command: "settle",
        "outcome-file": outcomeFile,
        "job-status": "killed" in scripted ? "failure" : "success",
      },
    });
    if (job.settle.code !== 0) {
      this.fake.setRunStatus(run.id, "completed", "failure");
      throw new Error(
        `settle step of ${job.ticket}#${job.attempt} failed:\n${job.settle.stdout}${job.settle.stderr}`,
      );
    }
  }

  /** Dispatches per ticket, from the fake's runs. */
  dispatchCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.fake.allRuns()) {
      if (!r.workflow.path.endsWith("orch-task.yml")) continue;
      const key = `${r.inputs.ticket}#${r.inputs.attempt}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  state(): {
    run: { run: string; dispatched: number };
    tickets: Record<
      string,
      { status: string; attempt: number; attempts: Array<Record<string, unknown>> }
    >;
    report?: { issue_number: number; comment_id: number; login: string };
    questions: Record<string, { issue_number: number }>;
  } {
    const state = readRunState(this.repo, "tickets", "main");
    if (!state) throw new Error("no state.json on main");
    return state as unknown as ReturnType<Runner["state"]>;
  }
}

export function copyTickets(from: string): string {
  const dir = mkdtempSync(join(tmpdir(), "frontier-tickets-"));
  cpSync(from, dir, { recursive: true });
  return dir;
}
