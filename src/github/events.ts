/**
 * The events the action turns into one engine event each: a job's outcome (settle), a
 * job that died (workflow_run), the lease sweep (schedule), and "nothing but advance"
 * (push, workflow_dispatch). Each is a `RunEvent` for `advance`.
 */
import { ticketBoundOf } from "../core/bound.js";
import { REASON } from "../core/constants.js";
import { DEFAULTS } from "../core/model.js";
import {
  type Interpreted,
  interpretOutcome,
  type JobReport,
  type OutcomeFileRead,
} from "../core/settle.js";
import { patchFile } from "../tickets/layout.js";
import {
  outcomeReason,
  readCapped,
  readOutcomeFile,
  settleChanges,
  settleInputOf,
} from "../tickets/outcome-file.js";
import { integrationFiles, type JobChanges } from "./changes.js";
import { parseRunName, runIdOf } from "./dispatch.js";
import type { SettleInputs } from "./inputs.js";
import { settleRefused } from "./outbox.js";
import type { RunEvent } from "./run-context.js";
import type { Loaded } from "./source.js";

/** Push / workflow_dispatch / a redelivered event: nothing to record; claim what is ready. */
export const advanceOnly: RunEvent = () => ({ kind: "ok", changed: [] });

/** Schedule: reclaim claims whose lease ran out (their attempts fail `lease-expired`). */
export const sweepEvent: RunEvent = (frontier, now) => frontier.expire(now);

/** A job's outcome, as the settle step (or a dead job's workflow_run) reports it. */
export interface JobOutcome extends Interpreted {
  ticket: string;
  attempt: number;
  claim?: string;
  by: string;
  runUrl?: string;
  /** the workflow run that reports it: a run that did not take a claim another took settles nothing */
  runId?: number;
  /** what the job changed in its checkout (the settle step collected it) */
  changes?: JobChanges;
  /** the run's max_result_bytes: a patch kept as evidence fits within it */
  maxResultBytes?: number;
}

/** A job's settle step, as it stands before the branch is read. */
export interface SettleJob
  extends Pick<JobOutcome, "ticket" | "attempt" | "claim" | "by" | "runUrl" | "runId"> {
  /** what the job changed in its checkout: each try reads their paths' ids with the state */
  changes: JobChanges;
  /** the step's inputs: its outcome file, or the outcome given by hand, and the job's status */
  inputs: SettleInputs;
  /** when the job started (its context step wrote it down), if it did */
  startedAt?: number;
}

/**
 * The job's event, once the first read gave the run's settings and tickets: its outcome
 * is read with the run's result cap, and a job that did not succeed after running out the
 * ticket's bound timed out.
 */
export async function jobEvent(
  job: SettleJob,
  run: Loaded,
  now: number,
): Promise<{ event: RunEvent; label: string }> {
  const { inputs, startedAt, ...rest } = job;
  const maxResultBytes = run.settings.max_result_bytes ?? DEFAULTS.maxResultBytes;
  const spec = run.specs.find((x) => x.id === job.ticket);
  const timeoutMs = ticketBoundOf(spec, run.settings.ticket_bound)?.timeoutMs;
  const timedOut =
    timeoutMs !== undefined &&
    inputs.jobStatus !== "success" &&
    startedAt !== undefined &&
    now - startedAt >= timeoutMs;
  const read = await readJobOutcome(inputs, maxResultBytes, timedOut);
  return {
    event: settleEvent({ ...rest, ...read, maxResultBytes }),
    label: `settle ${job.ticket}#${job.attempt} ${read.outcome}`,
  };
}

/** Record a job's outcome, as interpreted (readJobOutcome): its result is written once. */
export function settleEvent(job: JobOutcome, died = false): RunEvent {
  return (frontier, now, view) => {
    const refused = settleRefused(view.outbox[job.ticket], job, died);
    if (refused !== undefined) return { kind: "stale", why: { code: "said", text: refused } };
    // the outcome was interpreted once (core/settle.ts); its changes are judged here, on
    // every try, against what moved on the branch in the read this try commits on
    const { changes, outcome, result, question, reason, usage } = job;
    const spec = frontier.spec(job.ticket);
    const plan = settleChanges(
      { outcome, result, question, reason, usage },
      changes ? { ...changes, moved: view.moved } : undefined,
      spec,
      { patch: changes?.patch, cap: job.maxResultBytes, file: patchFile(job.ticket, job.attempt) },
    );

    const { input, write } = settleInputOf(plan, { ...job, changes: plan.record });
    const settled = frontier.settle(input, now);
    if (settled.kind !== "ok") return settled;
    if (write) view.files.set(write.file, write.text);
    if (plan.keep && plan.record?.patch_file) view.files.set(plan.record.patch_file, plan.keep);
    if (plan.changes === "integrate" && changes) {
      const blobAt = new Map(changes.paths.map((c) => [c.path, c.blob ?? ""]));
      view.integration = {
        ticket: job.ticket,
        attempt: job.attempt,
        claim:
          job.claim ??
          frontier.state(job.ticket)?.attempts.find((a) => a.n === job.attempt)?.claim ??
          "",
        title: spec?.title ?? job.ticket,
        files: integrationFiles(changes),
        content: (path) => changes.contents.get(blobAt.get(path) ?? ""),
        paths: changes.paths.length,
      };
    }
    return settled;
  };
}

/**
 * The outcome of the job, interpreted by the one rule both runners share
 * (core/settle.ts) from what the settle step saw: the outcome file (the executor
 * protocol's JSON), else the explicit `outcome` input with `result-file`/`question`/
 * `reason`, else the job's status. A job that succeeded but reported no outcome FAILS:
 * counting it complete would hand its dependents a result nobody produced.
 */
export async function readJobOutcome(
  inputs: SettleInputs,
  maxResultBytes: number,
  /** the agent ran out its bound */
  timedOut = false,
): Promise<Interpreted> {
  const file: OutcomeFileRead = inputs.outcomeFile
    ? await readOutcomeFile(inputs.outcomeFile, maxResultBytes, inputs.outcomeFile)
    : { kind: "none" };
  const { outcome, question, reason, jobStatus: status, resultFile } = inputs;
  // the `result-file` input's text, at most the cap (a bigger one is only measured), never
  // through a symbolic link the agent made (to /proc/self/environ: this step's token)
  const result = outcome && resultFile ? await readCapped(resultFile, maxResultBytes) : undefined;
  const job: JobReport = { outcome, question, reason, status, result };
  return interpretOutcome({ file, job, maxResultBytes, timedOut }, outcomeReason);
}

/** A completed orch-task run, from a workflow_run payload: its run-name's ticket, attempt and claim. */
type DeadJob = NonNullable<ReturnType<typeof parseRunName>> & {
  branch: string;
  conclusion: string;
  url: string;
};

export type WorkflowRunRead =
  | { kind: "dead"; job: DeadJob }
  /** not ours, still running, or it ended well (its settle step ran): nothing to do */
  | { kind: "ignore"; message: string };

export function readWorkflowRun(payload: unknown): WorkflowRunRead {
  const ignore = (message: string) => ({ kind: "ignore", message }) as const;
  const run = (payload as { workflow_run?: Record<string, unknown> })?.workflow_run;
  if (!run) return ignore("the workflow_run event has no workflow_run");
  const name = (run.display_title as string | undefined) ?? (run.name as string | undefined);
  const parsed = parseRunName(name);
  if (!parsed) return ignore(`workflow run "${name}" is not an orch-task run of Ticket Frontier`);
  if (run.status !== "completed") return ignore(`orch-task run "${name}" is ${run.status}`);
  const conclusion = String(run.conclusion ?? "unknown");
  if (conclusion === "success" || conclusion === "skipped")
    return ignore(`orch-task run "${name}" ended ${conclusion}: its settle step recorded it`);
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
  return settleEvent(
    {
      ...job,
      outcome: "failed",
      // a job that ran into its timeout (the ticket's bound) is a timed-out attempt
      reason:
        job.conclusion === "timed_out"
          ? REASON.timeout
          : `the orch-task run ended ${job.conclusion} before its settle step recorded an outcome${job.url ? ` (${job.url})` : ""}`,
      by: "workflow_run",
      runUrl: job.url || undefined,
      runId: runIdOf(job.url),
    },
    true,
  );
}
