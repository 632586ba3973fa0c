/**
 * The action's entry: inputs → one event → the same core → outputs.
 *
 *   push, workflow_dispatch       start or advance the run on the branch
 *   command: settle               record the orch-task job's outcome, dispatch what became ready
 *   command: context              write the ticket's context for the job's agent step
 *   workflow_run (completed)      settle an orch-task job that died before its settle step
 *   schedule                      reclaim claims whose lease ran out, then advance
 *   issue_comment                 the bot (/answer, /retry, /cancel, /status)
 *   anything else                 a clear message, exit 0
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import * as core from "@actions/core";
import { DEFAULTS } from "./core/model.js";
import { type AdvanceOutcome, advance, loadSpecs } from "./github/advance.js";
import { handleIssueComment } from "./github/commands.js";
import { writeContext } from "./github/context-step.js";
import { UserError } from "./github/errors.js";
import {
  advanceOnly,
  allOf,
  deadJobEvent,
  readJobOutcome,
  readWorkflowRun,
  settleEvent,
  sweepEvent,
} from "./github/events.js";
import { readInputs } from "./github/inputs.js";
import {
  type ActionContext,
  createActionContext,
  readPayload,
  runBranch,
} from "./github/run-context.js";
import { renderHtml } from "./report/html.js";

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const inputs = readInputs(env);
    if (inputs.kind === "bad") {
      core.setFailed(inputs.problems.join("\n"));
      return;
    }
    const settings = inputs.settings;
    const payload = await readPayload(settings.env.eventPath);
    const ctx = createActionContext(settings, payload, (line) => core.info(line));
    await route(ctx);
  } catch (error) {
    if (error instanceof UserError) {
      core.setFailed([error.message, ...error.details].join("\n"));
      return;
    }
    const e = error as Error;
    if (e?.stack) core.debug(e.stack);
    core.setFailed(
      `Ticket Frontier stopped on an unexpected error: ${e?.message ?? String(error)}`,
    );
  }
}

async function route(ctx: ActionContext): Promise<void> {
  const { settings } = ctx;
  const event = settings.env.eventName;
  const command = settings.command === "auto" ? byEvent(event) : settings.command;
  switch (command) {
    case "advance":
      return finish(
        ctx,
        await advance(
          ctx.runContext(runBranch(ctx)),
          advanceOnly,
          `advance (${event || "manual"})`,
        ),
      );
    case "sweep":
      return finish(
        ctx,
        await advance(ctx.runContext(runBranch(ctx)), allOf(sweepEvent), "sweep stale claims", {
          start: false,
        }),
      );
    case "settle":
      return settle(ctx);
    case "context":
      await writeContext(ctx);
      return;
    case "workflow_run":
      return workflowRun(ctx);
    case "comment":
      return handleIssueComment(ctx);
    case "nothing":
      core.info(
        `Ticket Frontier does nothing on "${event || "(no event)"}" events: it runs on push, workflow_dispatch, workflow_run, schedule and issue_comment, or with command: settle / context in the orch-task workflow.`,
      );
      return;
  }
}

type Route = "advance" | "sweep" | "settle" | "context" | "workflow_run" | "comment" | "nothing";

function byEvent(event: string): Route {
  switch (event) {
    case "push":
    case "workflow_dispatch":
      return "advance";
    case "schedule":
      return "sweep";
    case "workflow_run":
      return "workflow_run";
    case "issue_comment":
      return "comment";
    default:
      return "nothing";
  }
}

async function settle(ctx: ActionContext): Promise<void> {
  const s = ctx.settings.settle;
  const dispatchInputs = (ctx.payload.inputs ?? {}) as Record<string, unknown>;
  const ticket = s.ticket ?? str(dispatchInputs.ticket);
  const attemptText = s.attempt ?? str(dispatchInputs.attempt);
  const claim = s.claim ?? str(dispatchInputs.claim);
  const attempt = Number(attemptText);
  if (!ticket || !Number.isSafeInteger(attempt) || attempt < 1) {
    throw new UserError(
      "command: settle needs the ticket and attempt of the orch-task run — run it in the workflow the frontier dispatches (its inputs are read from the workflow_dispatch event), or pass ticket, attempt and claim",
    );
  }
  const rc = ctx.runContext(runBranch(ctx));
  const { settings: runSettings } = await loadSpecs(rc);
  const maxResultBytes = runSettings.max_result_bytes ?? DEFAULTS.maxResultBytes;
  const job = await readJobOutcome(s, maxResultBytes);
  const outcome = await advance(
    rc,
    settleEvent(
      {
        ticket,
        attempt,
        ...(claim ? { claim } : {}),
        ...job,
        by: ctx.workflowRunUrl ? `orch-task ${ctx.workflowRunUrl}` : "orch-task",
        ...(ctx.workflowRunUrl ? { runUrl: ctx.workflowRunUrl } : {}),
      },
      maxResultBytes,
    ),
    `settle ${ticket}#${attempt} ${job.outcome}`,
    { start: false },
  );
  return finish(ctx, outcome);
}

async function workflowRun(ctx: ActionContext): Promise<void> {
  const read = readWorkflowRun(ctx.payload);
  if (read.kind === "ignore") {
    core.info(`${read.message}; nothing to do.`);
    return;
  }
  const rc = ctx.runContext(ctx.settings.branch ?? read.job.branch);
  const outcome = await advance(
    rc,
    deadJobEvent(read.job),
    `settle ${read.job.ticket}#${read.job.attempt}: run ended ${read.job.conclusion}`,
    { start: false },
  );
  return finish(ctx, outcome);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Outputs, the job summary, the receipt and the HTML report of an event. */
export async function finish(ctx: ActionContext, outcome: AdvanceOutcome): Promise<void> {
  if (outcome.result.kind !== "ok") core.info(outcome.result.message);
  const outDir = join(ctx.settings.env.runnerTemp, "ticket-frontier");
  await mkdir(outDir, { recursive: true });
  const receiptFile = join(outDir, "receipt.json");
  const htmlFile = join(outDir, "report.html");
  await writeFile(receiptFile, `${JSON.stringify(outcome.receipt, null, 2)}\n`);
  await writeFile(htmlFile, renderHtml(outcome.receipt));
  core.setOutput("state", outcome.receipt.state);
  core.setOutput("dispatched", JSON.stringify(outcome.dispatched.map((d) => d.ticket)));
  core.setOutput("receipt", receiptFile);
  core.setOutput("report-html", htmlFile);
  core.info(
    `run ${outcome.receipt.run}: ${outcome.receipt.state}; dispatched ${outcome.dispatched.length}${
      outcome.dispatched.length
        ? ` (${outcome.dispatched.map((d) => `${d.ticket}#${d.attempt}`).join(", ")})`
        : ""
    }${outcome.commit ? `; state ${outcome.commit.slice(0, 12)}` : "; nothing changed"}`,
  );
  if (process.env.GITHUB_STEP_SUMMARY) {
    await core.summary.addRaw(outcome.markdown).write({ overwrite: true });
  }
}

void main();
