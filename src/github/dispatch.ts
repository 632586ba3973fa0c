/**
 * Claim, then dispatch: once the claim commit has landed, start the orch-task
 * workflow for it through `workflow_dispatch`. The process whose commit recorded a claim
 * sends it once; only the outbox (outbox.ts) ever sends it again, after looking for it.
 */
import { readJson } from "../core/json.js";
import type { Repo } from "./git.js";
import {
  apiFailure,
  describeApiError,
  type GitHub,
  isRefusal,
  isReturnRunDetailsUnsupported,
  rateLimitOf,
} from "./octokit.js";

/** The inputs every orch-task run receives (all strings, as GitHub requires). */
export interface DispatchInputs {
  run: string;
  ticket: string;
  attempt: string;
  claim: string;
  /** the commit the run started from: its graph is read there */
  base: string;
  /** the commit that recorded the claim: the job checks it out (base and every change integrated before it) */
  ref?: string;
  /** the job's timeout in minutes, from the ticket's bound */
  timeout?: string;
}

/**
 * Inputs an orch-task workflow written for an older version does not declare: a dispatch
 * GitHub refuses for one of these ("Unexpected inputs provided") is sent again without
 * it, and this process does not send it again. Such a job checks out `base` as before.
 */
const OPTIONAL_INPUTS: ReadonlySet<string> = new Set(["ref", "timeout"]);

/** The inputs GitHub named as undeclared, when a dispatch was refused for them. */
function unexpectedInputs(error: unknown): string[] | undefined {
  const f = apiFailure(error);
  if (f?.status !== 422) return undefined;
  const m = /Unexpected inputs provided:\s*(\[[^\]]*\])/i.exec(f.message);
  const names = m ? readJson(m[1] as string) : undefined;
  return names?.ok && Array.isArray(names.value) ? names.value.map(String) : undefined;
}

export interface DispatchRequest {
  /** workflow file name or id, e.g. `orch-task.yml` */
  workflow: string;
  /** the run's branch */
  ref: string;
  inputs: DispatchInputs;
}

export type DispatchResult =
  | { kind: "dispatched"; runId?: number; runUrl?: string }
  /** GitHub refused (4xx): it will refuse again; the attempt fails with this message */
  | { kind: "refused"; message: string }
  /** no answer we can trust (5xx after retries, network): the claim stays; its lease reclaims it */
  | { kind: "unknown"; message: string };

/**
 * Per process: whether the server takes `return_run_details`. An older server (GHES ≤
 * 3.20) answers 400; after the first such answer it is not sent again.
 */
export class DispatchSession {
  returnRunDetails = true;
  /** optional inputs the workflow turned out not to declare: not sent again */
  readonly undeclared = new Set<string>();
  /** how long to look for a run by its claim token when the server gave no run id */
  findRunTries = 3;
  findRunDelayMs = 1000;
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms));
}

/** The run-name orch-task.yml sets: `frontier <ticket>#<attempt> <claim>`. */
const RUN_NAME = /^frontier (\S+)#(\d+) (\S+)$/;

/** Ticket, attempt and claim from an orch-task run's name, if it is one of ours. */
export function parseRunName(name: string | null | undefined) {
  const m = RUN_NAME.exec((name ?? "").trim());
  if (!m) return undefined;
  return { ticket: m[1] as string, attempt: Number(m[2]), claim: m[3] as string };
}

/** The run id in a workflow run's URL (`…/actions/runs/<id>`). */
export function runIdOf(url: string | undefined): number | undefined {
  const m = /\/actions\/runs\/(\d+)/.exec(url ?? "");
  return m ? Number(m[1]) : undefined;
}

const DISPATCH = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches" as const;

export async function dispatchClaim(
  gh: GitHub,
  repo: Repo,
  session: DispatchSession,
  request: DispatchRequest,
  now: number,
): Promise<DispatchResult> {
  /** an optional input the workflow does not declare: dropped (a 422 started nothing) */
  const dropUndeclared = (error: unknown): boolean => {
    const names = unexpectedInputs(error);
    if (!names || names.length === 0 || !names.every((n) => OPTIONAL_INPUTS.has(n))) return false;
    if (names.every((n) => session.undeclared.has(n))) return false;
    for (const n of names) session.undeclared.add(n);
    return true;
  };
  /** the workflow run whose run-name carries the request's claim, dispatched since `now` */
  const byClaim = async (): Promise<DispatchResult | undefined> => {
    const claim = request.inputs.claim;
    const wanted = [{ claim, workflow: request.workflow, since: now }];
    for (let i = 0; i < session.findRunTries; i++) {
      if (i > 0) await session.sleep(session.findRunDelayMs * i);
      try {
        const found = (await findClaimRuns(gh, repo, wanted)).get(claim);
        if (found) return { kind: "dispatched", runId: found.id, runUrl: found.url };
      } catch {
        return undefined;
      }
    }
    return undefined;
  };
  const send = async (): Promise<DispatchResult | "unsupported"> => {
    const details = session.returnRunDetails;
    let answer: { data?: unknown };
    try {
      answer = await gh.request(DISPATCH, {
        ...repo,
        workflow_id: request.workflow,
        ref: request.ref,
        inputs: Object.fromEntries(
          Object.entries(request.inputs).filter(
            ([k, v]) => v !== undefined && !session.undeclared.has(k),
          ),
        ) as Record<string, string>,
        // Never re-sent by the retry plugin: a 5xx may come from a dispatch that did start,
        // and sending it again would run the ticket twice. An unclear answer is settled by
        // looking for the run by its claim token first (below).
        request: { retries: 0 },
        ...(details ? { return_run_details: true } : {}),
      });
    } catch (error) {
      if (dropUndeclared(error)) return "unsupported";
      if (!details || !isReturnRunDetailsUnsupported(error)) return failed(error);
      session.returnRunDetails = false;
      return "unsupported";
    }
    if (!details) return (await byClaim()) ?? { kind: "dispatched" };
    const data = (answer.data ?? {}) as { workflow_run_id?: number; html_url?: string };
    const out: DispatchResult = { kind: "dispatched" };
    if (typeof data.workflow_run_id === "number") out.runId = data.workflow_run_id;
    if (typeof data.html_url === "string") out.runUrl = data.html_url;
    return out;
  };

  let result = await send();
  for (let i = 0; i < 3 && result === "unsupported"; i++) result = await send();
  if (result === "unsupported") return { kind: "unknown", message: "no answer" };
  // No clear answer (5xx, network): did the run start anyway? A run the listing shows
  // settles it. One it does not show yet may still exist (the listing lags), so nothing
  // is sent again here: the claim stays in the outbox, and a later event sends it only
  // when, long after, no run carries its token.
  return (result.kind === "unknown" && (await byClaim())) || result;
}

function failed(error: unknown): DispatchResult {
  // A spent budget is no refusal of the dispatch: nothing was started, and the claim is
  // sent again once the budget is back (the caller records it as unsent).
  if (rateLimitOf(error)) throw error;
  if (isRefusal(error)) return { kind: "refused", message: apiFailure(error)!.message };
  return { kind: "unknown", message: describeApiError(error) };
}

export interface FindRunsOptions {
  /** pages of 100 to look through at most (default 10) */
  pages?: number;
  /** how long before `since` a run may have been created (default a minute: clock skew) */
  slackMs?: number;
  /** only runs not yet completed */
  openOnly?: boolean;
  /** a listing that fails ends the search with what was found so far; without it, it throws */
  onError?: (error: unknown) => void;
}

/**
 * The runs that carry each claim's token: one listing per workflow however many claims, of
 * its runs created since the earliest of them (ms), newest first, up to ten pages of 100.
 */
export async function findClaimRuns(
  gh: GitHub,
  repo: Repo,
  claims: ReadonlyArray<{ claim: string; workflow: string; since: number }>,
  options: (workflow: string) => FindRunsOptions = () => ({}),
): Promise<Map<string, { id: number; url: string }>> {
  const found = new Map<string, { id: number; url: string }>();
  for (const workflow of new Set(claims.map((c) => c.workflow))) {
    const mine = claims.filter((c) => c.workflow === workflow);
    const want = new Set(mine.map((c) => c.claim));
    const since = Math.min(...mine.map((c) => c.since));
    const { pages = 10, slackMs = 60_000, openOnly = false, onError } = options(workflow);
    const created = `>=${new Date(since - slackMs).toISOString().replace(/\.\d+Z$/, "Z")}`;
    for (let page = 1; page <= pages && want.size > 0; page++) {
      let answer: Awaited<ReturnType<typeof gh.rest.actions.listWorkflowRuns>>;
      try {
        answer = await gh.rest.actions.listWorkflowRuns({
          ...repo,
          workflow_id: workflow,
          event: "workflow_dispatch",
          created,
          per_page: 100,
          page,
        });
      } catch (error) {
        if (onError === undefined) throw error;
        onError(error);
        break;
      }
      for (const r of answer.data.workflow_runs) {
        if (openOnly && r.status === "completed") continue;
        const claim = parseRunName(r.display_title ?? r.name)?.claim;
        // the newest run of a claim is the one kept
        if (claim !== undefined && want.delete(claim))
          found.set(claim, { id: r.id, url: r.html_url });
      }
      if (answer.data.workflow_runs.length < 100) break;
    }
  }
  return found;
}

/**
 * Dispatch a workflow of the user's (their CI) on `ref`, with no inputs: what runs CI on
 * a run's branch, whose commits — made with the job's token — start none. Answers
 * GitHub's refusal in words, or undefined when it was dispatched.
 */
export async function dispatchWorkflow(
  gh: GitHub,
  repo: Repo,
  workflow: string,
  ref: string,
): Promise<string | undefined> {
  try {
    await gh.request(DISPATCH, { ...repo, workflow_id: workflow, ref, request: { retries: 0 } });
    return undefined;
  } catch (error) {
    if (rateLimitOf(error)) throw error;
    return describeApiError(error);
  }
}
