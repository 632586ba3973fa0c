/**
 * `command: context` — the orch-task job's first step after checkout: the ticket's
 * context (its task, the results of its inputs, earlier questions and answers) written
 * to a file for the agent step, and the executor protocol's FRONTIER_* variables
 * exported, so an agent written for `frontier run` works unchanged on GitHub.
 *
 * The state and the input results are read from the head of the run's branch (the
 * checkout is at `base`, which predates them): from a second checkout of the branch
 * (`records` input: git, no API request) when the workflow makes one, else through
 * the API (one GraphQL query for state.json, one for every input result at once).
 *
 * One claim, one agent run: a claim the outbox sent more than once, or whose run starts
 * late enough that a resend may race it, is taken by this workflow run by
 * compare-and-swap before the agent runs. A run that finds it taken by another skips.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import * as core from "@actions/core";
import { parseDuration } from "../core/bound.js";
import { openRun } from "../core/event.js";
import { executorVariables } from "../core/executor.js";
import { readContext } from "../tickets/context-io.js";
import { advance } from "./advance.js";
import { graphqlStore } from "./branch.js";
import { UserError } from "./errors.js";
import { freshHint } from "./fresh-words.js";
import { OUTBOX_LAG_MS } from "./outbox.js";
import { type ActionContext, type RunContext, runBranch } from "./run-context.js";
import { joinRepoPath, parseState, shardDirPath, stateOfRead, statePath } from "./state.js";

export interface ContextStepResult {
  contextFile: string;
  outcomeFile: string;
  /** the claim is still the ticket's live attempt: run the agent */
  live: boolean;
  text: string;
}

export async function writeContext(ctx: ActionContext): Promise<ContextStepResult> {
  const s = ctx.settings.settle;
  const dispatchInputs = (ctx.payload.inputs ?? {}) as Record<string, unknown>;
  const ticket = s.ticket ?? str(dispatchInputs.ticket);
  const attempt = Number(s.attempt ?? str(dispatchInputs.attempt));
  const claim = s.claim ?? str(dispatchInputs.claim);
  if (!ticket || !Number.isSafeInteger(attempt) || attempt < 1) {
    throw new UserError(
      "command: context needs the ticket and attempt of the orch-task run — run it in the workflow the frontier dispatches (its inputs are read from the workflow_dispatch event), or pass ticket and attempt",
    );
  }
  const rc = ctx.runContext(runBranch(ctx));
  const { settings, specs } = await rc.checkout.tickets();
  const spec = specs.find((x) => x.id === ticket);
  if (!spec) {
    throw new UserError(
      `${rc.dir}: no ticket "${ticket}" in this checkout (${ctx.settings.env.sha.slice(0, 12)}). Jobs check out the commit the run started from (ref: \${{ inputs.base }}); a ticket added after the run started runs in a new run — ${freshHint(rc.branch)} to start one.`,
    );
  }
  const records = ctx.settings.records
    ? resolve(ctx.settings.env.workspace, ctx.settings.records)
    : undefined;
  const readAll = async (paths: string[]): Promise<Map<string, string>> => {
    const out = new Map<string, string>();
    if (paths.length === 0) return out;
    if (!records) {
      const answer = await graphqlStore(rc.gh, rc.repo, rc.branch).read(paths);
      for (const [k, v] of answer?.files ?? []) out.set(k, v.text);
      return out;
    }
    for (const path of paths) {
      try {
        out.set(path, await readFile(join(records, path), "utf8"));
      } catch {
        // absent: the context says so
      }
    }
    return out;
  };
  const state = await readState(rc, records);
  if (state === undefined) {
    throw new UserError(
      `${statePath(rc.dir)} is missing on branch ${rc.branch}: this run was not started by Ticket Frontier`,
    );
  }
  const now = ctx.clock();
  const opened = openRun({
    specs,
    settings,
    saved: { run: state.run, tickets: state.tickets },
    flags: { ...rc.flags },
    now,
  });
  if (opened.kind === "bad") throw new UserError(opened.message);
  const { frontier } = opened;
  const live = frontier.state(ticket);
  let isLive =
    live?.status === "claimed" &&
    live.attempt === attempt &&
    (claim === undefined || live.claim === claim);
  let takenBy: number | undefined;
  const entry = state.outbox?.[ticket];
  const runId = Number(ctx.settings.env.runId ?? "0");
  if (isLive && entry && claim !== undefined && entry.claim === claim) {
    const lag = rc.outboxLagMs ?? OUTBOX_LAG_MS;
    if (entry.taken_by !== undefined && entry.taken_by !== runId) {
      isLive = false;
      takenBy = entry.taken_by;
    } else if (
      entry.taken_by === undefined &&
      runId > 0 &&
      (entry.status === "resent" || entry.sends > 1 || now - Date.parse(entry.at) > lag / 2)
    ) {
      // It may have been sent twice: only the run that takes it first runs the agent.
      let took = false;
      await advance(
        rc,
        (f, _now, view) => {
          // each try decides anew: a try that lost its race took nothing
          took = false;
          takenBy = undefined;
          const e = view.outbox[ticket];
          const s = f.state(ticket);
          if (!e || e.claim !== claim || s?.status !== "claimed" || s.claim !== claim)
            return { kind: "stale", message: `${ticket}#${attempt} is no longer live` };
          if (e.taken_by !== undefined && e.taken_by !== runId) {
            takenBy = e.taken_by;
            return { kind: "stale", message: `taken by workflow run ${e.taken_by}` };
          }
          view.outbox[ticket] = { ...e, status: "sent", run_id: runId, taken_by: runId };
          took = true;
          return { kind: "ok", changed: [] };
        },
        `take ${ticket}#${attempt} for workflow run ${runId}`,
        { start: false },
      );
      isLive = took;
    }
  }

  // The input results this context quotes, fetched into a scratch directory laid out
  // like the ticket directory, so the local runner's context code reads them unchanged.
  const scratch = await mkdtemp(join(ctx.settings.env.runnerTemp, "frontier-context-"));
  try {
    await Promise.all(
      spec.inputs.map(async (id) => {
        const last = frontier
          .state(id)
          ?.attempts.filter((a) => a.outcome === "complete")
          .sort((a, b) => b.n - a.n)[0];
        if (!last?.result_file) return;
        const path = joinRepoPath(rc.dir, last.result_file);
        const text = (await readAll([path])).get(path);
        if (text === undefined) return;
        const file = join(scratch, last.result_file);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, text);
      }),
    );
    const text = await readContext(
      scratch,
      frontier,
      ticket,
      settings.goal ? { goal: settings.goal } : {},
    );
    const outDir = join(ctx.settings.env.runnerTemp, "ticket-frontier");
    await mkdir(outDir, { recursive: true });
    const contextFile = join(outDir, `context-${ticket}-${attempt}.md`);
    const outcomeFile = join(outDir, `outcome-${ticket}-${attempt}.json`);
    await writeFile(contextFile, text);

    core.setOutput("context-file", contextFile);
    core.setOutput("outcome-file", outcomeFile);
    core.setOutput("live", isLive ? "true" : "false");
    // the executor contract, as the local runner sets it (core/executor.ts)
    const vars = executorVariables({
      run: state.run.run,
      ticket,
      attempt,
      ticketFile: join(ctx.settings.env.workspace, rc.dir, spec.file),
      dir: join(ctx.settings.env.workspace, rc.dir),
      bound: spec.bound?.raw ?? settings.ticket_bound ?? "",
      ...deadlineOf(live?.claimed_at, spec.bound?.raw ?? settings.ticket_bound),
      runBound: frontier.runBoundLeft(),
      claim: claim ?? live?.claim ?? "",
      contextFile,
      outcomeFile,
    });
    for (const [k, v] of Object.entries(vars)) core.exportVariable(k, v);
    if (isLive) {
      core.info(`context of ${ticket}#${attempt} written to ${contextFile}`);
    } else {
      core.warning(
        takenBy !== undefined
          ? `${ticket}#${attempt} (claim ${claim}) was dispatched twice and workflow run ${takenBy} took it first: this run skips the agent step`
          : `${ticket}#${attempt} is not the ticket's live attempt any more (it is ${live?.status ?? "unknown"}, attempt ${live?.attempt ?? 0}): skip the agent step — a settle of it would change nothing`,
      );
    }
    return { contextFile, outcomeFile, live: isLive, text };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The run's state: from the records checkout (state.json and its shards), else one query. */
async function readState(rc: RunContext, records: string | undefined) {
  if (!records) {
    const read = await graphqlStore(rc.gh, rc.repo, rc.branch).read(
      [statePath(rc.dir)],
      [shardDirPath(rc.dir)],
    );
    return read ? stateOfRead(rc.dir, read) : undefined;
  }
  let text: string;
  try {
    text = await readFile(join(records, statePath(rc.dir)), "utf8");
  } catch {
    return undefined;
  }
  const shards = new Map<string, string>();
  const shardDir = join(records, shardDirPath(rc.dir));
  for (const name of await readdir(shardDir).catch(() => [] as string[])) {
    if (name.endsWith(".json")) shards.set(name, await readFile(join(shardDir, name), "utf8"));
  }
  const parsed = parseState(text, statePath(rc.dir), shards);
  if (parsed.kind === "bad") throw new UserError(parsed.message);
  return parsed.state;
}

/** When a duration bound, counted from the claim, runs out: its lease's end. */
function deadlineOf(claimedAt: string | undefined, bound: string | undefined) {
  const ms = bound === undefined ? undefined : parseDuration(bound);
  const at = claimedAt === undefined ? Number.NaN : Date.parse(claimedAt);
  return ms === undefined || ms <= 0 || Number.isNaN(at)
    ? {}
    : { deadline: new Date(at + ms).toISOString() };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}
