/**
 * The action's entry: inputs → one event → the same core → outputs.
 *
 *   push, workflow_dispatch       start or advance the run on the branch
 *   command: settle               record the orch-task job's outcome, dispatch what became ready
 *   command: context              write the ticket's context for the job's agent step
 *   command: agent                the built-in agent: the context to one model, its outcome written
 *   workflow_run (completed)      settle an orch-task job that died before its settle step
 *   schedule                      reclaim claims whose lease ran out, then advance
 *   issue_comment                 the bot (/answer, /retry, /cancel, /status)
 *   anything else                 a clear message, exit 0
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import * as core from "@actions/core";
import { errnoCode, errorText } from "./core/errors.js";
import { type AdvanceOutcome, advance } from "./github/advance.js";
import { collectJobChanges, uploadChanges } from "./github/changes.js";
import { handleComment } from "./github/commands.js";
import { jobStartedAt, writeContext } from "./github/context-step.js";
import { UserError } from "./github/errors.js";
import {
  advanceOnly,
  deadJobEvent,
  readWorkflowRun,
  type SettleJob,
  sweepEvent,
} from "./github/events.js";
import { dispatchedJob, readInputs } from "./github/inputs.js";
import { reportInvalidGraph } from "./github/invalid.js";
import { budgetWords, rateLimitOf } from "./github/octokit.js";
import {
  type ActionContext,
  createActionContext,
  type RunContext,
  readPayload,
  runBranch,
} from "./github/run-context.js";
import { FULL_READ_MAX } from "./github/status-index.js";
import { findLiveBranches } from "./github/sweep.js";
import { refusalWords } from "./report/refusals.js";
import { plural } from "./report/states.js";
import { replaceAtomically } from "./tickets/store.js";

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // what this step recorded before it stopped (for a budget that ran out part way)
  const recorded: string[] = [];
  try {
    const inputs = readInputs(env);
    if (inputs.kind === "bad") {
      core.setFailed(inputs.problems.join("\n"));
      return;
    }
    const settings = inputs.settings;
    const payload = await readPayload(settings.env.eventPath);
    const ctx = createActionContext(settings, payload, (line) => core.info(line));
    ctx.onRecorded = (what) => recorded.push(what);
    try {
      await route(ctx);
    } catch (error) {
      if (error instanceof UserError && error.code === "invalid-graph") {
        // nothing was started: say why where people look, not only in the raw log
        await reportInvalidGraph(ctx, error).catch((e) =>
          core.warning(`could not post the problems to the pull request: ${errorText(e)}`),
        );
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof UserError) {
      core.setFailed([error.message, ...error.details].join("\n"));
      return;
    }
    const limit = rateLimitOf(error);
    if (limit) {
      const kept =
        recorded.length > 0
          ? ` Recorded before it stopped: ${recorded.join("; ")}.`
          : " Nothing of this event was recorded: a job's outcome is lost with its runner, and its claim's lease reclaims it (retries apply).";
      core.setFailed(
        `${budgetWords(limit, Date.now())}.${kept} The run resumes on the next event or the scheduled sweep; nothing needs re-running by hand. A GitHub App token has a larger budget (see the README's request budget).`,
      );
      return;
    }
    if (error instanceof Error && error.stack) core.debug(error.stack);
    core.setFailed(`Ticket Frontier stopped on an unexpected error: ${errorText(error)}`);
  }
}

async function route(ctx: ActionContext): Promise<void> {
  const { settings } = ctx;
  const event = settings.env.eventName;
  const command =
    settings.command === "auto" ? (BY_EVENT.get(event) ?? "nothing") : settings.command;
  switch (command) {
    case "advance": {
      const fresh = wantsFresh(ctx);
      const rc = ctx.runContext(runBranch(ctx));
      // a push or a manual run checks out the head of the branch it ran for
      if (!ctx.settings.branch) rc.checkoutIsHead = true;
      const label = `${fresh ? "fresh run" : "advance"} (${event || "manual"})`;
      await finish(ctx, await advance(rc, advanceOnly, label, { fresh }));
      return showWarnings(rc);
    }
    case "sweep":
      return sweep(ctx);
    case "settle":
      return settle(ctx);
    case "context":
      return writeContext(ctx);
    case "agent":
      return (await import("./agent/step.js")).agentStep(
        settings.agent ?? {},
        settings.token,
        process.env,
      );
    case "workflow_run":
      return workflowRun(ctx);
    case "comment":
      await handleComment(ctx);
      return;
    case "nothing":
      core.info(
        `Ticket Frontier does nothing on "${event || "(no event)"}" events: it runs on push, workflow_dispatch, workflow_run, schedule and issue_comment, or with command: context / agent / settle in the orch-task workflow.`,
      );
  }
}

/**
 * The author's warnings in the checkout's tickets (a misspelled field, a repeated
 * dependency) as annotations on their file and line: a push is where they are read.
 */
async function showWarnings(rc: RunContext): Promise<void> {
  const loaded = await rc.checkout.tickets().catch(() => undefined);
  for (const p of loaded?.warnings ?? []) {
    const file = join(rc.dir, p.file);
    core.warning(`${p.message} — ${p.fix}`, { title: "Ticket Frontier", file, startLine: p.line });
  }
}

/** What the action does on an event when no command is given. */
const BY_EVENT = new Map<string, "advance" | "sweep" | "workflow_run" | "comment">([
  ["push", "advance"],
  ["workflow_dispatch", "advance"],
  ["schedule", "sweep"],
  ["workflow_run", "workflow_run"],
  ["issue_comment", "comment"],
]);

async function settle(ctx: ActionContext): Promise<void> {
  const { ticket, attempt, claim, ref } = dispatchedJob(ctx.settings.settle, ctx.payload, "settle");
  const rc = ctx.runContext(runBranch(ctx));
  // the agent ran in this checkout: the run's tickets, settings and caps come from its records
  rc.jobCheckout = true;
  const runUrl = rc.links.workflowRun;
  const job: SettleJob = {
    ticket,
    attempt,
    claim,
    by: runUrl ? `orch-task ${runUrl}` : "orch-task",
    runUrl,
    runId: ctx.settings.env.runId,
    changes: await jobChanges(ctx, rc.dir, ref),
    inputs: ctx.settings.settle,
    startedAt: await jobStartedAt(ctx, ticket, attempt),
  };
  // the job's event is made from the run's records once the first read gives them
  const label = `settle ${ticket}#${attempt}`;
  const outcome = await advance(rc, advanceOnly, label, { start: false, touches: [ticket], job });
  // an attempt already over (its lease ran out while the job waited in GitHub's queue, say):
  // its changes are recorded nowhere, so the step's log keeps them
  if (outcome.result.kind === "stale" && job.changes.paths.length > 0) {
    const n = plural(job.changes.paths.length, "path");
    core.warning(`${label} changed ${n}, none integrated: ${refusalWords(outcome.result.why)}`);
    // the agent's text: no line of it is a workflow command, and a log is no place for megabytes
    const off = randomUUID();
    const patch = job.changes.patch?.subarray(0, 1 << 20);
    if (patch)
      core.info(`its patch (at most 1 MiB):\n::stop-commands::${off}\n${patch}\n::${off}::`);
  }
  return finish(ctx, outcome);
}

/**
 * What the job changed in its checkout, against the commit it checked out (`ref`), with
 * the blobs a Git Data commit needs already uploaded. Changes that could not be collected
 * (the agent removed or remade `.git`) are refused: the attempt is never done without them.
 */
async function jobChanges(ctx: ActionContext, dir: string, ref: string | undefined) {
  const { workspace } = ctx.settings.env;
  const records = ctx.settings.records;
  // the records checkout, as a path inside the workspace (it may be given absolute)
  const inside = records ? relative(workspace, resolve(workspace, records)) : undefined;
  const exclude = inside && !inside.startsWith("..") && !isAbsolute(inside) ? [inside] : [];
  const changes = await collectJobChanges(workspace, dir, { start: ref, exclude });
  if (changes.paths.length === 0) {
    if (changes.refused) core.warning(changes.refused);
    return changes;
  }
  core.info(
    `the job changed ${plural(changes.paths.length, "path")} (${changes.bytes} bytes) since ${changes.start.slice(0, 12)}${changes.refused ? `; ${changes.refused}` : ""}`,
  );
  const sent = await uploadChanges(ctx.gh, ctx.repo, changes);
  if (sent > 0) core.info(`uploaded ${sent} bytes of blobs for the Git Data API`);
  return changes;
}

async function workflowRun(ctx: ActionContext): Promise<void> {
  const read = readWorkflowRun(ctx.payload);
  if (read.kind === "ignore") {
    core.info(`${read.message}; nothing to do.`);
    return;
  }
  const rc = ctx.runContext(ctx.settings.branch ?? read.job.branch);
  const label = `settle ${read.job.ticket}#${read.job.attempt}: run ended ${read.job.conclusion}`;
  return finish(
    ctx,
    await advance(rc, deadJobEvent(read.job), label, { start: false, touches: [read.job.ticket] }),
  );
}

/**
 * Every live run, on whatever branch it lives (one query per 100 branches), each swept:
 * expired claims reclaimed, the outbox drained, what became ready dispatched. The
 * branch the workflow ran on is swept too when an input names it.
 */
async function sweep(ctx: ActionContext): Promise<void> {
  const branches = ctx.settings.branch
    ? [ctx.settings.branch]
    : await findLiveBranches(ctx.gh, ctx.repo, ctx.settings.tickets);
  core.info(
    branches.length === 0
      ? "sweep: no live run on any branch"
      : `sweep: live runs on ${branches.join(", ")}`,
  );
  let last: AdvanceOutcome | undefined;
  const failures: string[] = [];
  for (const branch of branches) {
    try {
      last = await advance(ctx.runContext(branch), sweepEvent, "sweep stale claims", {
        start: false,
        readBase: true,
      });
      if (last.result.kind !== "ok") core.info(`${branch}: ${refusalWords(last.result.why)}`);
    } catch (error) {
      if (rateLimitOf(error)) throw error;
      failures.push(`${branch}: ${errorText(error)}`);
    }
  }
  if (last && branches.length === 1) await finish(ctx, last);
  if (failures.length > 0)
    throw new UserError(`the sweep could not advance ${plural(failures.length, "run")}`, failures);
}

/** A fresh run: the action's `fresh` input, or a manual run's workflow_dispatch input `fresh`. */
function wantsFresh(ctx: ActionContext): boolean {
  if (ctx.settings.fresh) return true;
  if (ctx.settings.env.eventName !== "workflow_dispatch") return false;
  const v = (ctx.payload.inputs as Record<string, unknown> | undefined)?.fresh;
  return v === true || v === "true";
}

/**
 * Outputs, the job summary, the receipt and the HTML report of an event. One that read
 * only the status index and the tickets it touched (a large run's settle) writes no
 * receipt or HTML report: the report comment and the event that ends the run carry the whole.
 */
async function finish(ctx: ActionContext, outcome: AdvanceOutcome): Promise<void> {
  if (outcome.result.kind !== "ok") core.info(refusalWords(outcome.result.why));
  const none = { receipt: "", html: "" };
  // where they go, a job's agent can write too (a directory or a FIFO in their place)
  const files = outcome.complete
    ? await writeReports(ctx, outcome).catch((error: unknown) => {
        const why = errnoCode(error) ?? errorText(error);
        core.warning(
          `the receipt and HTML report were not written (${why}); the run's state is recorded`,
        );
        return none;
      })
    : none;
  core.setOutput("state", outcome.receipt.state);
  core.setOutput("dispatched", JSON.stringify(outcome.dispatched.map((d) => d.ticket)));
  core.setOutput("receipt", files.receipt);
  core.setOutput("report-html", files.html);
  for (const line of outcome.deferred) core.warning(`left for the next event: ${line}`);
  // what the event did, in one line of the step's log
  const line = `run ${outcome.receipt.run}: ${outcome.receipt.state}; dispatched ${outcome.dispatched.length}${
    outcome.dispatched.length
      ? ` (${outcome.dispatched.map((d) => `${d.ticket}#${d.attempt}`).join(", ")})`
      : ""
  }${outcome.commit ? `; state ${outcome.commit.slice(0, 12)}` : "; nothing changed"}`;
  core.info(line);
  const summary = outcome.complete
    ? outcome.markdown
    : `${line}\n\nThis event read only the tickets it touched; the run's report comment shows every ticket.\n`;
  if (ctx.settings.env.stepSummary && summary !== undefined)
    await core.summary.addRaw(summary).write({ overwrite: true });
}

/** The receipt, and the HTML report when it is due, as files. */
async function writeReports(ctx: ActionContext, outcome: AdvanceOutcome) {
  const outDir = join(ctx.settings.env.runnerTemp, "ticket-frontier");
  await mkdir(outDir, { recursive: true });
  const receipt = join(outDir, "receipt.json");
  replaceAtomically(receipt, `${JSON.stringify(outcome.receipt, null, 2)}\n`);
  // Laying out a large graph costs more CPU than the rest of an event: a large run's
  // HTML report is written when the run ends; the runs that read their whole state on
  // every event get it on each
  if (outcome.receipt.tickets.length > FULL_READ_MAX && outcome.receipt.state === "running")
    return { receipt, html: "" };
  const html = join(outDir, "report.html");
  const { renderHtml } = await import("./report/html.js");
  replaceAtomically(html, renderHtml(outcome.receipt));
  return { receipt, html };
}

void main();
