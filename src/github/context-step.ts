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
import type { Frontier } from "../core/engine.js";
import { executorVariables } from "../core/executor.js";
import type { Settings, TicketSpec } from "../core/model.js";
import { readContext } from "../tickets/context-io.js";
import { readCapped } from "../tickets/outcome-file.js";
import { advance } from "./advance.js";
import { type BranchRead, graphqlStore } from "./branch.js";
import { openBranchRun } from "./decide.js";
import { UserError } from "./errors.js";
import { freshHint } from "./fresh-words.js";
import { dispatchedJob } from "./inputs.js";
import { admit, take } from "./outbox.js";
import { type ActionContext, type RunContext, runBranch } from "./run-context.js";
import { readTexts, snapshotSource } from "./source.js";
import {
  joinRepoPath,
  type OutboxEntry,
  shardDirPath,
  snapshotPath,
  stateOfRead,
  statePath,
} from "./state.js";

/** Where the context step notes when the job's agent started (the settle step times the bound from it). */
const jobStartFile = (runnerTemp: string, ticket: string, attempt: number) =>
  join(runnerTemp, "ticket-frontier", `started-${ticket}-${attempt}`);

/** When the job started, as its context step wrote it down; undefined if it did not. */
export async function jobStartedAt(ctx: ActionContext, ticket: string, attempt: number) {
  // the agent's to replace as well: only a plain file, never waited on (a FIFO) nor followed
  const file = jobStartFile(ctx.settings.env.runnerTemp, ticket, attempt);
  const read = await readCapped(file, 64);
  const started = read.kind === "text" ? Number(read.text) : Number.NaN;
  return Number.isFinite(started) ? started : undefined;
}

/**
 * Whether a workflow file runs the dispatches of one claim one after the other: its
 * `concurrency` group (the workflow's, or every job's) names `inputs.claim`, without
 * cancelling the run in progress.
 */
export function serializesClaims(workflowText: string | undefined): boolean {
  let d: { concurrency?: unknown; jobs?: Record<string, { concurrency?: unknown }> } | null;
  try {
    d = parseYaml(workflowText ?? "");
  } catch {
    return false;
  }
  const byClaim = (c: unknown): boolean => {
    const group = typeof c === "string" ? c : (c as { group?: unknown } | null)?.group;
    const cancels = (c as { "cancel-in-progress"?: unknown } | null)?.["cancel-in-progress"];
    return typeof group === "string" && /inputs\.claim\b/.test(group) && cancels !== true;
  };
  if (byClaim(d?.concurrency)) return true;
  const jobs = Object.values(d?.jobs ?? {});
  return jobs.length > 0 && jobs.every((j) => byClaim(j?.concurrency));
}

export async function writeContext(ctx: ActionContext): Promise<void> {
  const { ticket, attempt, claim } = dispatchedJob(ctx.settings.settle, ctx.payload, "context");
  const { workspace, runnerTemp } = ctx.settings.env;
  const rc = ctx.runContext(runBranch(ctx));
  // the checkout (at `ref`) carries earlier agents' changes: the task is the run's, at base
  rc.jobCheckout = true;
  const read = branchReader(rc, ctx.settings.records && resolve(workspace, ctx.settings.records));
  const { state, source, spec } = await readRecords(rc, read, ticket, workspace);
  const { settings } = source;
  const frontier = openBranchRun(rc, source, state, ctx.clock());
  const live = frontier.state(ticket);
  const admitted = frontier.isLive(ticket, { attempt, claim })
    ? await admission(ctx, rc, state.outbox?.[ticket], ticket, attempt, claim)
    : { run: false };

  const outDir = join(runnerTemp, "ticket-frontier");
  await mkdir(outDir, { recursive: true });
  const contextFile = join(outDir, `context-${ticket}-${attempt}.md`);
  const outcomeFile = join(outDir, `outcome-${ticket}-${attempt}.json`);
  await writeFile(contextFile, await contextText(rc, read, frontier, spec, settings));
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
  core.setOutput("live", admitted.run ? "true" : "false");
  // the executor contract, as the local runner sets it (core/executor.ts)
  const bound = ticketBoundOf(spec, settings.ticket_bound);
  // FRONTIER_DEADLINE: a duration bound, counted from the claim, ends with its lease
  const claimedAt = Date.parse(live?.claimed_at ?? "");
  const vars = executorVariables({
    run: state.run.run,
    ticket,
    attempt,
    ticketFile,
    dir: join(workspace, rc.dir),
    bound,
    leaseUntil:
      bound?.timeoutMs && claimedAt
        ? new Date(claimedAt + bound.timeoutMs).toISOString()
        : undefined,
    runBound: frontier.runBoundLeft(),
    claim: claim ?? live?.claim ?? "",
    contextFile,
    outcomeFile,
  });
  for (const [k, v] of Object.entries(vars)) core.exportVariable(k, v);
  if (admitted.run) core.info(`context of ${ticket}#${attempt} written to ${contextFile}`);
  else
    core.warning(
      admitted.takenBy !== undefined
        ? `${ticket}#${attempt} (claim ${claim}) was dispatched twice and workflow run ${admitted.takenBy} took it first: this run skips the agent step`
        : `${ticket}#${attempt} is not the ticket's live attempt any more (it is ${live?.status ?? "unknown"}, attempt ${live?.attempt ?? 0}): skip the agent step — a settle of it would change nothing`,
    );
}

/** The run's state at the head of its branch, and its tickets as at its base (base.json). */
async function readRecords(rc: RunContext, read: BranchReader, ticket: string, workspace: string) {
  const head = await read([statePath(rc.dir), snapshotPath(rc.dir)], [shardDirPath(rc.dir)]);
  const state = head && stateOfRead(rc.dir, head);
  if (state === undefined) {
    throw new UserError(
      `${statePath(rc.dir)} is missing on branch ${rc.branch}: this run was not started by Ticket Frontier`,
    );
  }
  // (a run without one, started by an older version, is told how to start afresh)
  const snapshot = head?.files.get(snapshotPath(rc.dir)) ?? "";
  const source = await snapshotSource(snapshot, rc.dir, workspace);
  const spec = source.specs.find((x) => x.id === ticket);
  if (!spec) {
    throw new UserError(
      `${rc.dir}: no ticket "${ticket}" in the run's tickets (at its base ${state.run.base?.slice(0, 12) ?? "unknown"}): a ticket added after the run started runs in a new run — ${freshHint(rc.branch)} to start one.`,
    );
  }
  return { state, source, spec };
}

type Admitted = { run: boolean; takenBy?: number };

/**
 * Whether this run runs the agent for the ticket's live claim (outbox.ts `admit`), having
 * taken the claim by compare-and-swap when it must; else the run that took it, if one did.
 */
async function admission(
  ctx: ActionContext,
  rc: RunContext,
  entry: OutboxEntry | undefined,
  ticket: string,
  attempt: number,
  claim: string | undefined,
): Promise<Admitted> {
  if (claim === undefined || entry?.claim !== claim) return { run: true };
  const { runId = 0, workflowFile, workspace } = ctx.settings.env;
  const workflowText = workflowFile
    ? await readFile(join(workspace, workflowFile), "utf8").catch(() => undefined)
    : undefined;
  const admitted = admit(entry, runId, serializesClaims(workflowText));
  if (admitted.kind === "skip") return { run: false, takenBy: admitted.takenBy };
  if (admitted.kind === "run") return { run: true };
  let took: Admitted = { run: false };
  await advance(
    rc,
    (f, _now, view) => {
      const taken = f.isLive(ticket, { claim })
        ? take(view.outbox, ticket, claim, runId)
        : ({ kind: "gone" } as const);
      // each try decides anew: a try that lost its race took nothing
      took = { run: taken.kind === "taken" };
      if (taken.kind === "taken") return { kind: "ok", changed: [] };
      if (taken.kind === "gone")
        return {
          kind: "stale",
          why: { code: "said", text: `${ticket}#${attempt} is no longer live` },
        };
      took.takenBy = taken.runId;
      return { kind: "stale", why: { code: "said", text: `taken by workflow run ${taken.runId}` } };
    },
    `take ${ticket}#${attempt} for workflow run ${runId}`,
    { start: false },
  );
  return took;
}

/** The ticket's context, with the input results it quotes (each input's last complete one). */
async function contextText(
  rc: RunContext,
  read: BranchReader,
  frontier: Frontier,
  spec: TicketSpec,
  settings: Settings,
): Promise<string> {
  const wanted = spec.inputs
    .map(
      (id) =>
        frontier
          .state(id)
          ?.attempts.filter((a) => a.outcome === "complete")
          .sort((a, b) => b.n - a.n)[0]?.result_file,
    )
    .filter((f): f is string => f !== undefined)
    .map((f) => joinRepoPath(rc.dir, f));
  // read at once: one query when they are read through the API
  const results = wanted.length > 0 ? await read(wanted) : undefined;
  return readContext(
    async (file) => results?.files.get(joinRepoPath(rc.dir, file)),
    frontier,
    spec.id,
    settings.goal ? { goal: settings.goal } : {},
  );
}

type BranchReader = (paths: string[], dirs?: string[]) => Promise<BranchRead | undefined>;

/**
 * Files at the head of the run's branch (and each directory's `.json` files): from the
 * checkout of its records on disk (made before the agent runs), else in one query.
 */
function branchReader(rc: RunContext, records: string | undefined): BranchReader {
  if (!records) return graphqlStore(rc.gh, rc.repo, rc.branch).read;
  return async (paths, dirs = []) => {
    const files = await readTexts(records, paths);
    const read: BranchRead = { head: "", tree: "", files, dirs: new Map() };
    for (const dir of dirs) {
      const names = await readdir(join(records, dir)).catch(() => [] as string[]);
      const json = names.filter((n) => n.endsWith(".json"));
      read.dirs.set(dir, await readTexts(join(records, dir), json));
    }
    return read;
  };
}
