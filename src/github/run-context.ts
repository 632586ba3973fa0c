/**
 * From the runner's variables and the action's inputs to what every event needs: the
 * client, the repository, the run's branch and the links a report shows. The bot's
 * `handleIssueComment` gets the same `ActionContext` and builds a `RunContext` for the
 * branch its comment is about.
 */
import { readFile } from "node:fs/promises";
import { type RunContext, randomClaimToken } from "./advance.js";
import { DispatchSession } from "./dispatch.js";
import { UserError } from "./errors.js";
import type { Repo } from "./git.js";
import type { ActionSettings } from "./inputs.js";
import { createGitHub, type GitHub } from "./octokit.js";
import { Checkout } from "./source.js";

export interface ActionContext {
  settings: ActionSettings;
  gh: GitHub;
  repo: Repo;
  /** the event payload (GITHUB_EVENT_PATH), `{}` when there is none */
  payload: Record<string, unknown>;
  log: (line: string) => void;
  clock: () => number;
  /** one per process: remembers whether the server takes return_run_details */
  session: DispatchSession;
  /** the RunContext of the run on `branch` */
  runContext(branch: string): RunContext;
  /** the link to this workflow run, when on a runner */
  workflowRunUrl?: string;
  /** told of every commit of state this process makes */
  onRecorded?: (what: string) => void;
}

export async function readPayload(path: string | undefined): Promise<Record<string, unknown>> {
  if (!path) return {};
  try {
    const json = JSON.parse(await readFile(path, "utf8")) as unknown;
    return typeof json === "object" && json !== null ? (json as Record<string, unknown>) : {};
  } catch {
    return {};
  }
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
  if (env.fastApi) {
    session.findRunDelayMs = 20;
  }
  const repoUrl = `${env.serverUrl}/${env.owner}/${env.repo}`;
  const workflowRunUrl = env.runId ? `${repoUrl}/actions/runs/${env.runId}` : undefined;
  const self: ActionContext = {
    settings,
    gh: client,
    repo,
    payload,
    log,
    clock,
    session,
    ...(workflowRunUrl ? { workflowRunUrl } : {}),
    runContext(branch: string): RunContext {
      const ctx: RunContext = {
        gh: client,
        repo,
        branch,
        dir: settings.tickets,
        checkout,
        workflow: settings.workflow,
        flags: {
          ...(settings.maxParallel !== undefined ? { maxParallel: settings.maxParallel } : {}),
          ...(settings.bound !== undefined ? { bound: settings.bound } : {}),
        },
        sha: env.sha,
        claimedBy: `github:${settings.workflow}@${branch}`,
        clock,
        claimToken: () => randomClaimToken(),
        links: {
          repository: repoUrl,
          blob: `${repoUrl}/blob/${encodeURIComponent(branch)}/${settings.tickets === "." ? "" : `${settings.tickets}/`}`,
          ...(workflowRunUrl
            ? { workflowRun: workflowRunUrl, htmlReport: `${workflowRunUrl}#artifacts` }
            : {}),
        },
        log,
        session,
        onRecorded: (what) => self.onRecorded?.(what),
      };
      if (env.fastApi) ctx.backoffMs = 20;
      if (env.outboxLagMs !== undefined) ctx.outboxLagMs = env.outboxLagMs;
      return ctx;
    },
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
