/**
 * The events the action turns into one engine event each: a job's outcome (settle), a
 * job that died (workflow_run), the lease sweep (schedule), and "nothing but advance"
 * (push, workflow_dispatch). Each is a `RunEvent` for `advance`.
 */
import { readFile } from "node:fs/promises";
import type { EventResult, SettleInput } from "../core/engine.js";
import { DEFAULTS, type Outcome, type Usage } from "../core/model.js";
import { resultFile } from "../tickets/load.js";
import { readOutcomeFile } from "../tickets/outcome-file.js";
import { parseRunName } from "./dispatch.js";
import type { SettleInputs } from "./inputs.js";
import type { RunEvent } from "./run-context.js";

/** Push / workflow_dispatch / a redelivered event: nothing to record; claim what is ready. */
export const advanceOnly: RunEvent = () => ({ kind: "ok", changed: [] });

/** Schedule: reclaim claims whose lease ran out (their attempts fail `lease-expired`). */
export const sweepEvent: RunEvent = (frontier, now) => frontier.expire(now);

/** A job's outcome, as the settle step (or a dead job's workflow_run) reports it. */
export interface JobOutcome {
  ticket: string;
  attempt: number;
  claim?: string;
  outcome: Outcome;
  result?: string;
  question?: string;
  reason?: string;
  usage?: Usage;
  by: string;
  runUrl?: string;
  /** the workflow run that reports it: a run that did not take a claim another took settles nothing */
  runId?: number;
}

/** Where an attempt's result is stored, relative to the ticket directory. Never overwritten. */
export const resultPath = resultFile;

/**
 * Record a job's outcome. A result over the size cap fails the attempt with a reason
 * that says so: never a silent truncation.
 */
export function settleEvent(
  job: JobOutcome,
  maxResultBytes: number = DEFAULTS.maxResultBytes,
): RunEvent {
  return (frontier, now, view) => {
    const entry = view.outbox[job.ticket];
    if (
      job.runId !== undefined &&
      entry !== undefined &&
      (job.claim === undefined || entry.claim === job.claim) &&
      entry.taken_by !== undefined &&
      entry.taken_by !== job.runId
    ) {
      return {
        kind: "stale",
        message: `${job.ticket}#${job.attempt} was taken by workflow run ${entry.taken_by}; workflow run ${job.runId} (a second dispatch of the same claim) changes nothing`,
      };
    }
    const input: SettleInput = {
      ticket: job.ticket,
      attempt: job.attempt,
      outcome: job.outcome,
      by: job.by,
    };
    if (job.claim !== undefined) input.claim = job.claim;
    if (job.runUrl !== undefined) input.runUrl = job.runUrl;
    if (job.usage !== undefined) input.usage = job.usage;
    if (job.question !== undefined) input.question = job.question;
    if (job.reason !== undefined) input.reason = job.reason;
    let resultText: string | undefined;
    if (job.result !== undefined && job.result.trim() !== "") {
      const bytes = Buffer.byteLength(job.result, "utf8");
      if (bytes > maxResultBytes) {
        input.outcome = "failed";
        input.reason = `the result is ${bytes} bytes, over max_result_bytes (${maxResultBytes}): write large output to a file in the repository and return its path, or raise max_result_bytes in frontier.yml`;
      } else {
        resultText = job.result;
        input.resultFile = resultPath(job.ticket, job.attempt);
        input.resultBytes = bytes;
      }
    }
    // `complete` with no result, or a blank one, is `empty`: nothing is passed off as done
    if (input.outcome === "complete" && resultText === undefined) input.outcome = "empty";
    const result = frontier.settle(input, now);
    if (result.kind === "ok" && resultText !== undefined && input.resultFile)
      view.writeFile(input.resultFile, resultText);
    return result;
  };
}

/** Several events as one (each sees the engine as the previous left it). */
export function allOf(...events: RunEvent[]): RunEvent {
  return (frontier, now, view) => {
    const changed: string[] = [];
    let last: EventResult = { kind: "ok", changed };
    for (const e of events) {
      last = e(frontier, now, view);
      if (last.kind === "ok") changed.push(...last.changed);
    }
    return changed.length > 0 ? { kind: "ok", changed } : last;
  };
}

export type OutcomeRead = {
  kind: "ok";
  job: Omit<JobOutcome, "ticket" | "attempt" | "claim" | "by">;
};

/**
 * The outcome of the job, from (first match): the outcome file (the local executor's
 * JSON protocol), the explicit `outcome` input with `result-file`/`question`/`reason`,
 * else the job's status. A job that succeeded but reported no outcome FAILS: counting
 * it complete would hand its dependents a result nobody produced, and the reason tells
 * the author which file to write.
 */
export async function readJobOutcome(
  inputs: SettleInputs,
  maxResultBytes: number,
): Promise<OutcomeRead["job"]> {
  if (inputs.outcomeFile) {
    const file = await readOutcomeFile(inputs.outcomeFile, maxResultBytes, inputs.outcomeFile);
    if (file.kind === "bad") return { outcome: "failed", reason: file.reason };
    if (file.kind === "ok") {
      const o = file.value;
      const job: OutcomeRead["job"] = { outcome: o.status };
      if (o.result !== undefined) job.result = o.result;
      if (o.question !== undefined) job.question = o.question;
      if (o.reason !== undefined) job.reason = o.reason;
      if (o.usage !== undefined) job.usage = o.usage;
      if (job.outcome === "suspended" && !job.question?.trim()) job.question = job.result ?? "";
      return job;
    }
  }
  if (inputs.outcome) {
    const job: OutcomeRead["job"] = { outcome: inputs.outcome };
    if (inputs.resultFile) {
      try {
        const st = await readFile(inputs.resultFile);
        if (st.byteLength > maxResultBytes) {
          return {
            outcome: "failed",
            reason: `the result file ${inputs.resultFile} is ${st.byteLength} bytes, over max_result_bytes (${maxResultBytes}): keep large output in the repository and return its path, or raise max_result_bytes in frontier.yml`,
          };
        }
        job.result = st.toString("utf8");
      } catch {
        return {
          outcome: "failed",
          reason: `input result-file: ${inputs.resultFile} could not be read — write the result there before the settle step, or leave result-file out`,
        };
      }
    }
    if (inputs.question !== undefined) job.question = inputs.question;
    if (inputs.reason !== undefined) job.reason = inputs.reason;
    return job;
  }
  switch (inputs.jobStatus) {
    case "success":
      return {
        outcome: "failed",
        reason:
          'the job succeeded but reported no outcome: write {"status": …} to $FRONTIER_OUTCOME_FILE, or pass outcome to the settle step',
      };
    case "cancelled":
      return { outcome: "failed", reason: "the job was cancelled before it reported an outcome" };
    case "failure":
      return {
        outcome: "failed",
        reason: "the job failed before it reported an outcome (see its log)",
      };
    case "skipped":
      return {
        outcome: "failed",
        reason:
          "the agent step was skipped (did the context step fail?) and nothing reported an outcome",
      };
    default:
      return {
        outcome: "failed",
        reason: `the settle step got no outcome-file, no outcome and no job-status${inputs.jobStatus ? ` it knows ("${inputs.jobStatus}")` : ""}: pass job-status: \${{ job.status }}`,
      };
  }
}

/** A completed orch-task run, from a workflow_run payload. */
export interface DeadJob {
  ticket: string;
  attempt: number;
  claim: string;
  branch: string;
  conclusion: string;
  url: string;
}

export type WorkflowRunRead =
  | { kind: "dead"; job: DeadJob }
  /** not ours, still running, or it ended well (its settle step ran): nothing to do */
  | { kind: "ignore"; message: string };

export function readWorkflowRun(payload: unknown): WorkflowRunRead {
  const run = (payload as { workflow_run?: Record<string, unknown> })?.workflow_run;
  if (!run) return { kind: "ignore", message: "the workflow_run event has no workflow_run" };
  const name = (run.display_title as string | undefined) ?? (run.name as string | undefined);
  const parsed = parseRunName(name);
  if (!parsed)
    return {
      kind: "ignore",
      message: `workflow run "${name}" is not an orch-task run of Ticket Frontier`,
    };
  if (run.status !== "completed")
    return { kind: "ignore", message: `orch-task run "${name}" is ${run.status}` };
  const conclusion = String(run.conclusion ?? "unknown");
  if (conclusion === "success" || conclusion === "skipped") {
    return {
      kind: "ignore",
      message: `orch-task run "${name}" ended ${conclusion}: its settle step recorded it`,
    };
  }
  return {
    kind: "dead",
    job: {
      ...parsed,
      branch: String(run.head_branch ?? ""),
      conclusion,
      url: String(run.html_url ?? ""),
    },
  };
}

/** The failed settle of a job that ended before its settle step; stale if it settled after all. */
export function deadJobEvent(job: DeadJob): RunEvent {
  return settleEvent({
    ticket: job.ticket,
    attempt: job.attempt,
    claim: job.claim,
    outcome: "failed",
    reason: `the orch-task run ended ${job.conclusion} before its settle step recorded an outcome${job.url ? ` (${job.url})` : ""}`,
    by: "workflow_run",
    ...(job.url ? { runUrl: job.url } : {}),
    ...(runIdOf(job.url) !== undefined ? { runId: runIdOf(job.url) as number } : {}),
  });
}

function runIdOf(url: string): number | undefined {
  const m = /\/actions\/runs\/(\d+)/.exec(url);
  return m ? Number(m[1]) : undefined;
}
