/**
 * From the runner's variables and the action's inputs to what every event needs: the
 * client, the repository, the run's branch and the links a report shows. The bot's
 * `handleComment` gets the same `ActionContext` and builds a `RunContext` for the
 * branch its comment is about.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import * as core from "@actions/core";
import type { RunFlags } from "../core/config.js";
import type { EventResult, Frontier } from "../core/engine.js";
import { readJson } from "../core/json.js";
import type { BranchStore, FileChanges } from "./branch.js";
import { DispatchSession } from "./dispatch.js";
import { UserError } from "./errors.js";
import type { Repo } from "./git.js";
import type { ActionSettings } from "./inputs.js";
import { createGitHub, type GitHub } from "./octokit.js";
import type { Outbox } from "./outbox.js";
import { Checkout } from "./source.js";
import type { QuestionRecord, ReportRecord } from "./state.js";

/** Everything an event needs to know about where it runs. Built once per process. */
export interface RunContext {
  gh: GitHub;
  repo: Repo;
  /** the branch the run lives on (its state, its dispatch ref) */
  branch: string;
  /** the ticket directory, relative to the repository root */
  dir: string;
  /** the checkout (GITHUB_WORKSPACE): the run's tickets when it is the run's base */
  checkout: Checkout;
  /**
   * the checkout is the head of the run's branch (a push or a manual run on it): what
   * the author changed since the run's base shows there
   */
  checkoutIsHead?: boolean;
  /**
   * the checkout is a job's, where agents run (context and settle steps): nothing that
   * decides is read there — the run's tickets come from its records at base (base.json)
   */
  jobCheckout?: boolean;
  /** the orch-task workflow file */
  workflow: string;
  /** the user's CI workflow, dispatched on the run's branch when the run ends */
  ciWorkflow?: string;
  /** action inputs that override frontier.yml */
  flags: RunFlags;
  /** the commit this job runs at: the base of a run that starts now */
  sha: string;
  /** who claims, for the record */
  claimedBy: string;
  /** the time now; the only clock an event reads */
  clock: () => number;
  /** uniform in [0, 1): the back-off's jitter; the only randomness of the timing */
  random: () => number;
  /** a fresh claim token per dispatch */
  claimToken: (ticket: string, attempt: number) => string;
  links: { workflowRun?: string; repository?: string; htmlReport?: string; blob?: string };
  log: (line: string) => void;
  /** a line shown only when the workflow's step debug logging is on */
  debug?: (line: string) => void;
  /** remembers per process whether the server takes return_run_details */
  session: DispatchSession;
  /**
   * Least back-off window after a lost race (default 250 ms). The window is at least
   * the time one try took, doubled per lost race, and the wait is drawn uniformly from
   * it ("full jitter"), so racing jobs spread out instead of colliding again.
   */
  backoffMs?: number;
  /** waits out a back-off */
  sleep: (ms: number) => Promise<void>;
  /** how long a committed claim may go unseen before the runs listing is searched (default 2 min) */
  outboxLagMs?: number;
  /** the branch's reads and commits; GraphQL unless its budget is spent */
  store?: BranchStore;
  /** told of every commit of state this event makes ("settle a#1 (commit 1a2b3c)") */
  onRecorded?: (what: string) => void;
}

/** What an event sees besides the engine: the bookkeeping it may change, files it may add. */
export interface RunView {
  /** ticket id → question issue; the bot marks an answered one closed */
  questions: Record<string, QuestionRecord>;
  /** where the report comment is */
  report: ReportRecord | undefined;
  /** the dispatch outbox of the live claims */
  outbox: Outbox;
  /** files to add to the event's commit (paths relative to the ticket directory) */
  files: Map<string, string | Uint8Array>;
  /**
   * The paths this event's changes touch that moved on the branch since the attempt's
   * start, each with the commit that moved it (read in this try: a lost race re-judges)
   */
  readonly moved: ReadonlyMap<string, string>;
  /** a ticket attempt's changes to integrate: its files go into this event's commit, which becomes the attempt's */
  integration?: Integration;
}

/** A ticket attempt's changes, integrated in the commit that records its outcome. */
export interface Integration {
  ticket: string;
  attempt: number;
  claim: string;
  title: string;
  files: FileChanges;
  /** the integrated content at a path: a ticket file's, which the engine's fields go into */
  content(path: string): Uint8Array | undefined;
  /** changed paths, for the commit's message */
  paths: number;
}

export type RunEvent = (frontier: Frontier, now: number, view: RunView) => EventResult;

/** One per process; `onRecorded` hears every commit of state the process makes. */
export interface ActionContext extends Pick<RunContext, "gh" | "repo" | "clock" | "onRecorded"> {
  settings: ActionSettings;
  /** the event payload (GITHUB_EVENT_PATH), `{}` when there is none */
  payload: Record<string, unknown>;
  /** the RunContext of the run on `branch` (one DispatchSession and checkout per process) */
  runContext(branch: string): RunContext;
}

export async function readPayload(path: string | undefined): Promise<Record<string, unknown>> {
  const json = readJson(path ? await readFile(path, "utf8").catch(() => "") : "");
  return json.ok && typeof json.value === "object" && json.value !== null
    ? (json.value as Record<string, unknown>)
    : {};
}

export function createActionContext(
  settings: ActionSettings,
  payload: Record<string, unknown>,
  log: (line: string) => void,
  clock: () => number = Date.now,
  gh?: GitHub,
): ActionContext {
  const env = settings.env;
  const client =
    gh ?? createGitHub({ token: settings.token, baseUrl: env.apiUrl, fast: env.fastApi, log });
  const repo = { owner: env.owner, repo: env.repo };
  const session = new DispatchSession();
  // one checkout per process: its tickets are loaded and digested once
  const checkout = new Checkout(env.workspace, settings.tickets);
  if (env.fastApi) session.findRunDelayMs = 20;
  const repoUrl = `${env.serverUrl}/${env.owner}/${env.repo}`;
  const workflowRunUrl = env.runId ? `${repoUrl}/actions/runs/${env.runId}` : undefined;
  const self: ActionContext = {
    settings,
    gh: client,
    repo,
    payload,
    clock,
    runContext: (branch) => ({
      gh: client,
      repo,
      branch,
      dir: settings.tickets,
      checkout,
      workflow: settings.workflow,
      ciWorkflow: settings.ciWorkflow,
      flags: { maxParallel: settings.maxParallel, bound: settings.bound },
      sha: env.sha,
      claimedBy: `github:${settings.workflow}@${branch}`,
      clock,
      random: Math.random,
      sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
      claimToken: () => `c${randomBytes(6).toString("hex")}`,
      links: {
        repository: repoUrl,
        blob: `${repoUrl}/blob/${encodeURIComponent(branch)}/${settings.tickets === "." ? "" : `${settings.tickets}/`}`,
        workflowRun: workflowRunUrl,
        htmlReport: workflowRunUrl && `${workflowRunUrl}#artifacts`,
      },
      log,
      debug: (line) => core.debug(line),
      session,
      onRecorded: (what) => self.onRecorded?.(what),
      ...(env.fastApi ? { backoffMs: 20 } : {}),
      outboxLagMs: env.outboxLagMs,
    }),
  };
  return self;
}

/** The branch the run lives on: the input, else the workflow_run's branch, else GITHUB_REF. */
export function runBranch(ctx: ActionContext): string {
  if (ctx.settings.branch) return ctx.settings.branch;
  const wr = (ctx.payload.workflow_run as { head_branch?: unknown } | undefined)?.head_branch;
  if (ctx.settings.env.eventName === "workflow_run" && typeof wr === "string" && wr !== "")
    return wr;
  const ref = ctx.settings.env.ref;
  if (ref.startsWith("refs/heads/")) return ref.slice("refs/heads/".length);
  throw new UserError(
    `GITHUB_REF is "${ref}", not a branch: a run lives on a branch — trigger the workflow on a branch push, or set the branch input`,
  );
}
