/**
 * `command: context` — the orch-task job's first step after checkout: the ticket's
 * context (its task, the results of its inputs, earlier questions and answers) written
 * to a file for the agent step, and the executor contract's FRONTIER_* variables
 * exported (core/executor.ts), so an agent written for `frontier run` works unchanged on
 * GitHub.
 *
 * The run's records (state, input results, base.json) are read at the head of the run's
 * branch, so a claim cancelled since the job was dispatched is seen: from a checkout of it
 * (`records` input: git, no API request) when the workflow makes one, else through the
 * API (one GraphQL query for the state, one for every input result at once). The task is
 * the ticket as at the run's base, never as `ref` has it (edited since, or by an agent).
 *
 * One claim, one agent run: whether this run may run the agent is the outbox's rule
 * (outbox.ts `admit`); when it says so, the claim is taken by compare-and-swap first.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { parse as parseYaml } from "yaml";
import { ticketBoundOf } from "../core/bound.js";
import { executorVariables } from "../core/executor.js";
import { readContext } from "../tickets/context-io.js";
import { advance } from "./advance.js";
import { type BlobText, type BranchRead, graphqlStore } from "./branch.js";
import { openBranchRun } from "./decide.js";
import { UserError } from "./errors.js";
import { freshHint } from "./fresh-words.js";
import { admit, take } from "./outbox.js";
import { type ActionContext, type RunContext, runBranch } from "./run-context.js";
import { sourceFromSnapshot } from "./source.js";
import { joinRepoPath, shardDirPath, snapshotPath, stateOfRead, statePath } from "./state.js";

export interface ContextStepResult {
  contextFile: string;
  outcomeFile: string;
  /** the claim is still the ticket's live attempt: run the agent */
  live: boolean;
  text: string;
}

/** Where the context step notes when the job's agent started (the settle step times the bound from it). */
const jobStartFile = (runnerTemp: string, ticket: string, attempt: number) =>
  join(runnerTemp, "ticket-frontier", `started-${ticket}-${attempt}`);

/** When the context step of this job ran (ms), if it did. */
export async function readJobStart(
  runnerTemp: string,
  ticket: string,
  attempt: number,
): Promise<number | undefined> {
  try {
    const ms = Number((await readFile(jobStartFile(runnerTemp, ticket, attempt), "utf8")).trim());
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a workflow file runs the dispatches of one claim one after the other: its
 * `concurrency` group (the workflow's, or every job's) names `inputs.claim`, without
 * cancelling the run in progress.
 */
export function serializesClaims(workflowText: string | undefined): boolean {
  if (workflowText === undefined) return false;
  let doc: unknown;
  try {
    doc = parseYaml(workflowText);
  } catch {
    return false;
  }
  const byClaim = (c: unknown): boolean => {
    const group = typeof c === "string" ? c : (c as { group?: unknown } | null)?.group;
    const cancels = (c as { "cancel-in-progress"?: unknown } | null)?.["cancel-in-progress"];
    return typeof group === "string" && /inputs\.claim\b/.test(group) && cancels !== true;
  };
  const d = doc as { concurrency?: unknown; jobs?: Record<string, { concurrency?: unknown }> };
  if (byClaim(d?.concurrency)) return true;
  const jobs = Object.values(d?.jobs ?? {});
  return jobs.length > 0 && jobs.every((j) => byClaim(j?.concurrency));
}

/** The text of the workflow this job runs (GITHUB_WORKFLOW_REF), from the checkout. */
async function ownWorkflow(workspace: string): Promise<string | undefined> {
  const ref = process.env.GITHUB_WORKFLOW_REF ?? "";
  const m = /^[^/]+\/[^/]+\/(.+?)@/.exec(ref);
  if (!m) return undefined;
  return readFile(join(workspace, m[1] as string), "utf8").catch(() => undefined);
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
  const { workspace, runnerTemp } = ctx.settings.env;
  const rc = ctx.runContext(runBranch(ctx));
  // the checkout (at `ref`) carries earlier agents' changes: the task is the run's, at base
  rc.jobCheckout = true;
  // the records on disk, in a checkout of the run's branch; else through the API
  const records = ctx.settings.records ? resolve(workspace, ctx.settings.records) : undefined;
  const { state, snapshot } = await readRecords(rc, records);
  if (state === undefined) {
    throw new UserError(
      `${statePath(rc.dir)} is missing on branch ${rc.branch}: this run was not started by Ticket Frontier`,
    );
  }
  // (a run without one, started by an older version, is told how to start afresh)
  const source = await sourceFromSnapshot(snapshot ?? "", rc.dir, workspace);
  const { settings } = source;
  const spec = source.specs.find((x) => x.id === ticket);
  if (!spec) {
    throw new UserError(
      `${rc.dir}: no ticket "${ticket}" in the run's tickets (at its base ${state.run.base?.slice(0, 12) ?? "unknown"}): a ticket added after the run started runs in a new run — ${freshHint(rc.branch)} to start one.`,
    );
  }
  const now = ctx.clock();
  const frontier = openBranchRun(rc, source, state, now);
  const live = frontier.state(ticket);
  let isLive = frontier.isLive(ticket, { attempt, claim });
  let takenBy: number | undefined;
  const runId = Number(ctx.settings.env.runId ?? "0");
  const entry = state.outbox?.[ticket];
  if (isLive && claim !== undefined && entry?.claim === claim) {
    const admission = admit(entry, runId, serializesClaims(await ownWorkflow(workspace)));
    if (admission.kind === "skip") {
      isLive = false;
      takenBy = admission.takenBy;
    } else if (admission.kind === "take") {
      let took = false;
      await advance(
        rc,
        (f, _now, view) => {
          // each try decides anew: a try that lost its race took nothing
          took = false;
          takenBy = undefined;
          if (!f.isLive(ticket, { claim }))
            return { kind: "stale", message: `${ticket}#${attempt} is no longer live` };
          const taken = take(view.outbox, ticket, claim, runId);
          if (taken.kind === "gone")
            return { kind: "stale", message: `${ticket}#${attempt} is no longer live` };
          if (taken.kind === "taken-by") {
            takenBy = taken.runId;
            return { kind: "stale", message: `taken by workflow run ${taken.runId}` };
          }
          took = true;
          return { kind: "ok", changed: [] };
        },
        `take ${ticket}#${attempt} for workflow run ${runId}`,
        { start: false },
      );
      isLive = took;
    }
  }

  // the input results this context quotes: from the records on disk, else one query for all
  const wanted = spec.inputs
    .map(
      (id) =>
        frontier
          .state(id)
          ?.attempts.filter((a) => a.outcome === "complete")
          .sort((a, b) => b.n - a.n)[0]?.result_file,
    )
    .filter((f): f is string => f !== undefined);
  const fetched = records
    ? undefined
    : wanted.length === 0
      ? new Map<string, string>()
      : await readThroughApi(
          rc,
          wanted.map((f) => joinRepoPath(rc.dir, f)),
        );
  const text = await readContext(
    async (file) => {
      const path = joinRepoPath(rc.dir, file);
      if (fetched) return fetched.get(path);
      return readFile(join(records as string, path), "utf8").catch(() => undefined);
    },
    frontier,
    ticket,
    settings.goal ? { goal: settings.goal } : {},
  );
  const outDir = join(runnerTemp, "ticket-frontier");
  await mkdir(outDir, { recursive: true });
  const contextFile = join(outDir, `context-${ticket}-${attempt}.md`);
  const outcomeFile = join(outDir, `outcome-${ticket}-${attempt}.json`);
  await writeFile(contextFile, text);
  await writeFile(jobStartFile(runnerTemp, ticket, attempt), String(ctx.clock()));
  // the ticket as at the run's base: the checkout's file unless it was changed or deleted since
  let ticketFile = join(workspace, rc.dir, spec.file);
  const asAtBase = source.read(spec.file);
  if ((await readFile(ticketFile, "utf8").catch(() => undefined)) !== asAtBase) {
    ticketFile = join(outDir, `ticket-${ticket}-${attempt}.md`);
    await writeFile(ticketFile, asAtBase);
  }

  core.setOutput("context-file", contextFile);
  core.setOutput("outcome-file", outcomeFile);
  core.setOutput("live", isLive ? "true" : "false");
  // the executor contract, as the local runner sets it (core/executor.ts)
  const vars = executorVariables({
    run: state.run.run,
    ticket,
    attempt,
    ticketFile,
    dir: join(workspace, rc.dir),
    bound: ticketBoundOf(spec, settings.ticket_bound),
    ...deadlineOf(live?.claimed_at, ticketBoundOf(spec, settings.ticket_bound)?.timeoutMs),
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
}

/** Files at the head of the run's branch, in one query. */
async function readThroughApi(rc: RunContext, paths: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const answer = await graphqlStore(rc.gh, rc.repo, rc.branch).read(paths);
  for (const [k, v] of answer?.files ?? []) out.set(k, v.text);
  return out;
}

/**
 * The run's state (state.json, its shards) and tickets as at its base (base.json): from
 * the checkout of its records on disk (made before the agent runs), else in one query.
 */
async function readRecords(rc: RunContext, records: string | undefined) {
  const paths = [statePath(rc.dir), snapshotPath(rc.dir)];
  const shardDir = shardDirPath(rc.dir);
  let read: BranchRead | undefined;
  if (records) {
    const text = (path: string) =>
      readFile(join(records, path), "utf8").then(
        (t) => ({ oid: "", text: t }),
        () => undefined,
      );
    const files = new Map<string, BlobText>();
    for (const path of paths) {
      const file = await text(path);
      if (file) files.set(path, file);
    }
    const shards = new Map<string, BlobText>();
    for (const name of await readdir(join(records, shardDir)).catch(() => [] as string[])) {
      const file = name.endsWith(".json") ? await text(`${shardDir}/${name}`) : undefined;
      if (file) shards.set(name, file);
    }
    read = { head: "", files, dirs: new Map([[shardDir, shards]]) };
  } else read = await graphqlStore(rc.gh, rc.repo, rc.branch).read(paths, [shardDir]);
  return {
    state: read ? stateOfRead(rc.dir, read) : undefined,
    snapshot: read?.files.get(snapshotPath(rc.dir))?.text,
  };
}

/** When a duration bound, counted from the claim, runs out: its lease's end. */
function deadlineOf(claimedAt: string | undefined, ms: number | undefined) {
  const at = claimedAt === undefined ? Number.NaN : Date.parse(claimedAt);
  return ms === undefined || ms <= 0 || Number.isNaN(at)
    ? {}
    : { leaseUntil: new Date(at + ms).toISOString() };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}
