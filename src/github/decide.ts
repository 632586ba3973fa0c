/**
 * One try of an event on GitHub, decided without a request: from what one read of the
 * run's branch found, the engine's step (core/event.ts) and the run's bookkeeping on
 * GitHub (the dispatch outbox, question issues, the report comment, live.json) → the
 * files of one commit, and what to perform once it lands.
 *
 * The compare-and-swap loop (record.ts) calls this once per try; a lost race decides
 * again from a fresh read. Nothing here reads a clock, sleeps or asks GitHub.
 */
import type { Claim, EventResult, Frontier } from "../core/engine.js";
import { openRun, step } from "../core/event.js";
import type { SavedState, Settings } from "../core/model.js";
import { planWrites } from "../tickets/writeback.js";
import { integrationMessage } from "../workspace/changes.js";
import type { BranchRead, FileChanges } from "./branch.js";
import { HISTORY_READ, nameCommits, type Unnamed } from "./changes.js";
import { freshHint } from "./fresh-words.js";
import { addedAfter, historyMessage, savedFromHistory } from "./history.js";
import {
  adoptUntracked,
  enqueue,
  liveEntries,
  OUTBOX_CHECK_EVERY_MS,
  OUTBOX_LAG_MS,
  type Outbox,
  overdue,
  resend,
  seen as seenRun,
  unsent,
} from "./outbox.js";
import type { Integration, RunContext, RunEvent, RunView } from "./run-context.js";
import { type RunSource, snapshotText } from "./source.js";
import {
  GITHUB_STATE_SCHEMA,
  type GitHubState,
  joinRepoPath,
  livePath,
  type ReportShown,
  serializeState,
  shardDirPath,
  shardName,
  shardOf,
  snapshotPath,
  statePath,
  worklogChunkPath,
  worklogPath,
} from "./state.js";
import { INDEXED_SHARDS, type Need, need } from "./status-index.js";

/** Ids of the newest events kept in the state (a lost commit answer is found among them). */
export const EVENTS_KEPT = 64;
/** The report comment is refreshed at least this often while its headline stays the same. */
export const REPORT_EVERY_MS = 30_000;
/** Lines a worklog.jsonl holds before it is sealed as a chunk under worklog/. */
export const WORKLOG_CHUNK_LINES = 32;

/** An outbox claim to send after the commit. */
export interface Send {
  ticket: string;
  attempt: number;
  claim: string;
  workflow: string;
}

/** What an event decided, recorded or not: what the effects after its commit work from. */
export interface Decided {
  result: EventResult;
  frontier: Frontier;
  state: GitHubState;
  settings: Settings;
  /** claims to dispatch now: this event's, and the outbox's that are due */
  sends: Send[];
  /** this event brings the report comment up to date */
  refreshReport: boolean;
  /** tickets whose question this event recorded: it opens their issues */
  asked?: string[];
  /** the frontier holds only some tickets' histories (the rest are their heads) */
  partial?: boolean;
  /** the run ended with this event: dispatch the user's CI workflow on its branch */
  ci?: string;
}

/** What the runs listing showed of overdue claims, searched at most once per event. */
export interface RunsSeen {
  /** claim token → the run carrying it; undefined when the listing could not be read */
  runs: Map<string, { id: number; url: string }> | undefined;
  /** the claims the listing was searched for */
  searched: ReadonlySet<string>;
}

export interface TryInput {
  ctx: RunContext;
  event: RunEvent;
  label: string;
  /** this event's id, recorded in the state: a lost answer is found by it */
  eventId: string;
  now: number;
  /** the read of the branch this try commits on */
  read: BranchRead;
  /** the run's state in that read; undefined when the run starts with this event */
  state: GitHubState | undefined;
  /** a run copied from the branch this one was cut from (moved aside on a start) */
  foreign: GitHubState | undefined;
  /** a finished run copied from another branch: this branch's history (history.ts) */
  history?: GitHubState | undefined;
  /** where the run's tickets come from for this event */
  source: RunSource;
  /** the checkout's authored digest, recorded when the run starts */
  digest: string | undefined;
  /** ticket files the author changed or deleted since the run's base, as this event saw */
  authoredChanged?: readonly string[];
  /** may this event start a run when the branch has none */
  mayStart: boolean;
  /** send again what the outbox holds (false for a follow-up: it sends only its own claims) */
  drainOutbox: boolean;
  /** the runs listing, when this event searched it */
  seen: RunsSeen | undefined;
  /** the shard files read (names); undefined: every one (status-index.ts) */
  shardsRead?: ReadonlySet<string>;
  /** the paths this event's changes touch that moved on the branch, with the commit of each */
  moved?: ReadonlyMap<string, string>;
}

export type Decision =
  /** no run on the branch and this event may not start one */
  | { kind: "no-run"; decided: Decided }
  /** the runs listing must be searched for these overdue claims first */
  | { kind: "search-runs"; entries: Array<{ claim: string; workflow: string; at: string }> }
  /** the event changed nothing: no commit */
  | { kind: "unchanged"; decided: Decided }
  /** the decision needs state it did not read: read it and decide again (status-index.ts) */
  | { kind: "need-shards"; need: Need }
  | {
      kind: "commit";
      decided: Decided;
      additions: Map<string, string | Uint8Array>;
      deletions: string[];
      /** files written by id with a mode (an integration through the Git Data API) */
      entries?: FileChanges["entries"];
      message: string;
    };

/** Decide one try of an event. */
export function decide(input: TryInput): Decision {
  const { ctx, read, state, source, now } = input;
  const { settings } = source;
  const { history } = input;
  // on a branch holding a finished run's history, only a push adding tickets starts a run
  const fromHistory =
    !state &&
    history &&
    input.mayStart &&
    addedAfter(history, runSpecs(ctx, source, state)).length > 0;
  const fromSaved =
    !state && history ? savedFromHistory(history, settings.run, ctx.sha, now) : undefined;
  // the commits of integrated attempts that the branch's newest commits name (found by
  // their trailers) go into their records; the rest wait for a later read
  const shardsRead = input.shardsRead;
  const loaded = (ticket: string) =>
    shardsRead === undefined || shardsRead.has(shardName(shardOf(ticket, INDEXED_SHARDS)));
  let unnamed: Unnamed[] = state?.unnamed ?? [];
  if (state && unnamed.length > 0 && read.history) {
    // one not found among more commits of the run than a read takes is not looked for again
    unnamed = nameCommits(state.tickets, unnamed, read.history, loaded).filter(
      (u) => u.commit !== undefined || state.seq - u.seq < HISTORY_READ,
    );
  }
  const frontier = openBranchRun(ctx, source, state, now, fromSaved);
  if (!state && (!input.mayStart || (history && !fromHistory))) {
    const message = history
      ? historyMessage(input.label, ctx.branch, history)
      : input.foreign
        ? `${input.label}: the state on ${ctx.branch} belongs to the run on ${input.foreign.branch} (this branch was cut from it); nothing was changed. A run of this branch starts on its next push.`
        : `${input.label}: there is no run on branch ${ctx.branch} (no ${statePath(ctx.dir)}); nothing was changed. A run starts on a push of the tickets or a manual run of the frontier workflow.`;
    return {
      kind: "no-run",
      decided: {
        result: { kind: "rejected", message },
        frontier,
        state: emptyState(ctx, frontier),
        settings,
        sends: [],
        refreshReport: false,
      },
    };
  }

  // The event, then every step every event takes (core/event.ts): reclaim the claims
  // whose lease ran out, claim what became ready, drain what changed.
  const files = new Map<string, string | Uint8Array>();
  const deletions: string[] = [];
  let integration: Integration | undefined;
  const view: RunView = {
    state,
    questions: { ...(state?.questions ?? {}) },
    report: state?.report,
    outbox: {},
    writeFile: (path, content) => files.set(joinRepoPath(ctx.dir, path), content),
    moved: input.moved ?? new Map(),
    integrate: (i) => {
      integration = i;
    },
  };
  const workflowOf = (t: string) => workflowFor(ctx, frontier, t);
  const iso = new Date(now).toISOString();
  const { result, claims, changes, asked } = step(
    frontier,
    (f, at) => {
      // the event sees the outbox of the claims still live when it starts
      view.outbox = liveEntries(state?.outbox, f);
      return input.event(f, at, view);
    },
    { now, reclaim: true, claimAs: { by: ctx.claimedBy, token: ctx.claimToken } },
  );

  // The outbox: this event's claims go in; what ended goes out; what an older version
  // claimed is adopted; what GitHub said it did not start, or what no run carries long
  // after its commit, is sent again.
  const outbox: Outbox = liveEntries(view.outbox, frontier);
  const claimed: Send[] = [];
  for (const c of claims) {
    const workflow = workflowOf(c.ticket);
    claimed.push({ ticket: c.ticket, attempt: c.attempt, claim: c.claim, workflow });
    enqueue(outbox, c, workflow, iso, input.eventId);
  }
  adoptUntracked(outbox, frontier, workflowOf);
  const resends: Send[] = [];
  for (const t of input.drainOutbox ? unsent(outbox) : []) {
    const e = outbox[t]!;
    resend(outbox, t, iso, "pending");
    resends.push({ ticket: t, attempt: e.attempt, claim: e.claim, workflow: e.workflow });
  }
  const lagMs = ctx.outboxLagMs ?? OUTBOX_LAG_MS;
  let checkedAt = state?.outbox_checked_at;
  // (this event's own claims are never overdue, whatever the lag)
  const late = input.drainOutbox ? overdue(outbox, now, lagMs, input.eventId) : [];
  const seen = input.seen;
  const checkDue =
    checkedAt === undefined ||
    now - Date.parse(checkedAt) >= Math.min(OUTBOX_CHECK_EVERY_MS, lagMs);
  if (late.length > 0 && (checkDue || seen)) {
    // searched once per event: a claim that became overdue on a later try waits for the next
    if (!seen) {
      return { kind: "search-runs", entries: late.map((t) => outbox[t]!) };
    }
    if (seen.runs) checkedAt = iso;
    for (const t of late) {
      const e = outbox[t]!;
      if (!seen.runs || !seen.searched.has(e.claim)) continue;
      const run = seen.runs.get(e.claim);
      if (run) {
        seenRun(outbox, t, e.claim, run.id);
      } else {
        ctx.log(
          `${t}#${e.attempt}: no workflow run carries claim ${e.claim} ${Math.round((now - Date.parse(e.at)) / 1000)}s after it was committed; sending it again`,
        );
        resend(outbox, t, iso, "resent");
        resends.push({ ticket: t, attempt: e.attempt, claim: e.claim, workflow: e.workflow });
      }
    }
  }
  const sends = [...resends, ...claimed];

  // A suspended attempt asks its question in an issue, opened after the commit.
  for (const { ticket, record } of changes.attempts) {
    if (record.outcome !== "suspended") continue;
    const q = view.questions[ticket];
    if (q?.attempt !== record.n) view.questions[ticket] = { attempt: record.n };
  }

  // what the author changed or deleted since the run's base is never written back, nor a
  // ticket file an integrated change rewrote: it is the branch's now, its state in the records
  const authored = new Set([...(state?.authored_changed ?? []), ...(input.authoredChanged ?? [])]);
  if (integration) {
    const { additions, deletions: gone, entries: modes } = integration.files;
    const changed = new Set([...additions.keys(), ...gone, ...(modes?.keys() ?? [])]);
    for (const s of source.specs)
      if (changed.has(joinRepoPath(ctx.dir, s.file))) authored.add(s.file);
  }
  const seq = (state?.seq ?? 0) + 1;
  const headline = headlineOf(frontier, now);
  const shown = state?.report_shown;
  const refreshReport =
    ctx.report !== false &&
    (shown === undefined ||
      shown.headline !== headline ||
      now - Date.parse(shown.at) >= REPORT_EVERY_MS);

  // A state read in part: what this decision changes or shows must have been read.
  if (state && shardsRead !== undefined) {
    const unopened = Object.entries(view.questions)
      .filter(([, q]) => q.issue_number === undefined && !q.closed)
      .map(([t]) => t);
    const wanted = need(frontier, changes, loaded, { refreshReport, now, questions: unopened });
    if (wanted) return { kind: "need-shards", need: wanted };
  }

  if (
    state !== undefined &&
    changes.tickets.length === 0 &&
    changes.attempts.length === 0 &&
    changes.answers.length === 0 &&
    changes.log.length === 0 &&
    !changes.run &&
    files.size === 0 &&
    integration === undefined &&
    sends.length === 0 &&
    JSON.stringify(view.questions) === JSON.stringify(state.questions) &&
    JSON.stringify(outbox) === JSON.stringify(state.outbox ?? {}) &&
    JSON.stringify(view.report) === JSON.stringify(state.report) &&
    authored.size === (state.authored_changed?.length ?? 0)
  ) {
    return {
      kind: "unchanged",
      decided: {
        result,
        frontier,
        state,
        settings,
        sends: [],
        refreshReport: false,
        ...(shardsRead !== undefined ? { partial: true } : {}),
      },
    };
  }

  const next: GitHubState = {
    schema: GITHUB_STATE_SCHEMA,
    branch: ctx.branch,
    dir: ctx.dir,
    ...frontier.snapshot(),
    seq,
    questions: view.questions,
    ...(view.report ? { report: view.report } : {}),
    ...(refreshReport
      ? { report_shown: { at: iso, seq, headline } satisfies ReportShown }
      : shown
        ? { report_shown: shown }
        : {}),
    outbox,
    ...(checkedAt ? { outbox_checked_at: checkedAt } : {}),
    events: [...(state?.events ?? []), input.eventId].slice(-EVENTS_KEPT),
    ...((state ?? history)?.worklog_chunks
      ? { worklog_chunks: (state ?? history)?.worklog_chunks }
      : {}),
    ...(state?.authored_digest
      ? { authored_digest: state.authored_digest }
      : source.files && input.digest !== undefined
        ? { authored_digest: input.digest }
        : {}),
    ...(state?.base_snapshot || source.files ? { base_snapshot: true } : {}),
    ...(authored.size > 0 ? { authored_changed: [...authored].sort() } : {}),
    ...(state?.ci ? { ci: state.ci } : {}),
  };
  if (integration) {
    unnamed = [
      ...unnamed,
      { ticket: integration.ticket, attempt: integration.attempt, claim: integration.claim, seq },
    ];
  }
  if (unnamed.length > 0) next.unnamed = unnamed;

  // Every file of the event: records (created once), ticket front matter (from the
  // run's own text at base), the worklog, the state; base.json when the run starts.
  for (const edit of planWrites(changes, frontier, source.read)) {
    const path = joinRepoPath(ctx.dir, edit.path);
    if (path === worklogPath(ctx.dir) || authored.has(edit.path)) continue;
    files.set(path, edit.content);
  }
  if (changes.log.length > 0) {
    const before = read.files.get(worklogPath(ctx.dir))?.text ?? "";
    const lines = changes.log.map((e) => `${JSON.stringify(e)}\n`).join("");
    const count = before === "" ? 0 : before.split("\n").length - 1;
    if (count + changes.log.length > WORKLOG_CHUNK_LINES && count > 0) {
      // the full worklog.jsonl is sealed as a chunk, never written again
      const n = (next.worklog_chunks ?? 0) + 1;
      files.set(worklogChunkPath(ctx.dir, n), before);
      next.worklog_chunks = n;
      files.set(worklogPath(ctx.dir), lines);
    } else {
      files.set(worklogPath(ctx.dir), joinLines(before, lines));
    }
  }
  if (source.files && !state?.base_snapshot) {
    // the run's tickets as authored at its base, for events whose checkout is elsewhere
    files.set(snapshotPath(ctx.dir), snapshotText(next.run.base ?? ctx.sha, source.files));
  }
  const runName = frontier.runRecord().run;
  const liveNow = frontier.runState(now) === "running";
  const hadLiveFile = read.files.has(livePath(ctx.dir));
  let ci: string | undefined;
  if (liveNow && (!hadLiveFile || input.foreign)) {
    files.set(livePath(ctx.dir), liveText(runName, ctx.branch));
  } else if (!liveNow && hadLiveFile) {
    deletions.push(livePath(ctx.dir));
    // the run ends in this commit (once: a redelivered event finds no live.json): the
    // user's CI runs on the branch, since the job token's commits start no workflow
    if (ctx.ciWorkflow) {
      ci = ctx.ciWorkflow;
      next.ci = { workflow: ci, at: iso, state: frontier.runState(now) };
    }
  }
  // the state: state.json, and only the shards whose tickets' history this event changed
  // (a shard it did not read it did not change: need() saw to that)
  const written = serializeState(next);
  files.set(statePath(ctx.dir), written.head);
  const shardDir = shardDirPath(ctx.dir);
  const before = shardTexts(read, shardDir);
  for (const [name, text] of written.shards) {
    if (shardsRead !== undefined && !shardsRead.has(name)) continue;
    if (before.get(name) !== text) files.set(`${shardDir}/${name}`, text);
  }
  // a shard file no history is in any more (a state from before the index, re-sharded)
  for (const name of before.keys()) {
    if (!written.shards.has(name)) deletions.push(`${shardDir}/${name}`);
  }

  // the ticket's own changes, in the commit that records its outcome
  let entries: FileChanges["entries"];
  if (integration) {
    for (const [path, content] of integration.files.additions) files.set(path, content);
    deletions.push(...integration.files.deletions);
    entries = integration.files.entries;
  }
  return {
    kind: "commit",
    decided: {
      result,
      frontier,
      state: next,
      settings,
      sends,
      refreshReport,
      asked,
      ...(shardsRead !== undefined && state ? { partial: true } : {}),
      ...(ci ? { ci } : {}),
    },
    additions: files,
    deletions,
    ...(entries && entries.size > 0 ? { entries } : {}),
    message: integration
      ? integrationCommit(runName, integration, changes.log.length, claims)
      : commitMessage(runName, input.label, changes.log.length, claims),
  };
}

/** The commit of a ticket attempt (the one message both runners write), with its outcome. */
function integrationCommit(
  run: string,
  i: Integration,
  logLines: number,
  claims: readonly Claim[],
): string {
  const claimed =
    claims.length === 0
      ? ""
      : claims.length <= 10
        ? ` Claims ${claims.map((c) => `${c.ticket}#${c.attempt}`).join(", ")}.`
        : ` Claims ${claims.length} tickets.`;
  return integrationMessage(
    { run, ...i },
    ` With its outcome (${logLines} worklog line${logLines === 1 ? "" : "s"}).${claimed} [skip ci]`,
  );
}

/**
 * The run on a branch as an engine: its tickets (from the source) with the state read
 * from the branch. Every event, the read-only view and the context step open it here.
 */
export function openBranchRun(
  ctx: Pick<RunContext, "dir" | "log" | "flags" | "sha" | "branch">,
  source: Pick<RunSource, "specs" | "settings">,
  state: GitHubState | undefined,
  now: number,
  /** what a run with no state of its own starts from (a finished run's history) */
  fromSaved?: SavedState,
): Frontier {
  return openRun({
    specs: runSpecs(ctx, source, state),
    settings: source.settings,
    saved: state ? { run: state.run, tickets: state.tickets } : fromSaved,
    flags: { ...ctx.flags, base: state?.run.base ?? ctx.sha },
    now,
  });
}

/** The state of a run that is not there: what an event on a branch without one reports. */
function emptyState(ctx: RunContext, frontier: Frontier): GitHubState {
  return {
    schema: GITHUB_STATE_SCHEMA,
    branch: ctx.branch,
    dir: ctx.dir,
    ...frontier.snapshot(),
    seq: 0,
    questions: {},
  };
}

/**
 * What the report's first lines say: the run's state and the count of every state a
 * reader must act on. A change here refreshes the comment at once.
 */
function headlineOf(frontier: Frontier, now: number): string {
  const c = frontier.counts();
  return `${frontier.runState(now)} failed=${c.failed ?? 0} blocked=${c.blocked ?? 0} suspended=${c.suspended ?? 0} limited=${c.limited ?? 0} cancelled=${c.cancelled ?? 0}`;
}

/** live.json: which run lives on the branch (a copy on a branch cut from it names the original). */
function liveText(run: string, branch: string): string {
  return `${JSON.stringify({ schema: "ticket-frontier/live@1", run, branch })}\n`;
}

const warned = new Set<string>();

/**
 * The tickets of this run. Every job checks out the commit the run started from, so a
 * ticket pushed while the run is going could not run in it: it waits for the next run
 * (and is said so) — unless a ticket of the run now depends on it, when the checkout's
 * graph is taken as it is.
 */
export function runSpecs(
  ctx: Pick<RunContext, "dir" | "log" | "branch">,
  source: Pick<RunSource, "specs">,
  state: GitHubState | undefined,
): RunSource["specs"] {
  const { specs } = source;
  if (!state) return specs;
  const added = new Set(specs.filter((s) => !(s.id in state.tickets)).map((s) => s.id));
  if (added.size === 0) return specs;
  const kept = specs.filter((s) => !added.has(s.id));
  if (kept.some((s) => s.dependsOn.some((d) => added.has(d)))) return specs;
  const key = [...added].join(",");
  if (!warned.has(key)) {
    warned.add(key);
    ctx.log(
      `warning: ${[...added].join(", ")} ${added.size === 1 ? "was" : "were"} added after the run started at ${state.run.base?.slice(0, 12) ?? "its base"}; ${added.size === 1 ? "it runs" : "they run"} in a new run (${freshHint(ctx.branch)} to start one)`,
    );
  }
  return kept;
}

function joinLines(before: string, added: string): string {
  if (before === "" || before.endsWith("\n")) return before + added;
  return `${before}\n${added}`;
}

function commitMessage(
  run: string,
  label: string,
  logLines: number,
  claims: readonly Claim[],
): string {
  const claimed =
    claims.length > 0 ? `; claim ${claims.map((c) => `${c.ticket}#${c.attempt}`).join(", ")}` : "";
  const short = claimed.length > 300 ? `; claim ${claims.length} tickets` : claimed;
  // [skip ci]: if a token that does trigger workflows is used, our own commit still starts none.
  return `frontier ${run}: ${label}${short} [skip ci]\n\n${logLines} worklog line${logLines === 1 ? "" : "s"}.`;
}

/**
 * An executor that names a workflow file (`*.yml`/`*.yaml`) is dispatched as that
 * workflow; anything else (a local command name) runs through the default workflow.
 */
export function workflowFor(
  ctx: Pick<RunContext, "workflow">,
  frontier: Pick<Frontier, "spec">,
  ticket: string,
): string {
  const executor = frontier.spec(ticket)?.executor;
  return executor && /\.ya?ml$/.test(executor) ? executor.replace(/^.*\//, "") : ctx.workflow;
}

/** The shard files a read holds (name → text): the whole directory, or the ones read by path. */
function shardTexts(read: BranchRead, shardDir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, blob] of read.dirs.get(shardDir) ?? []) out.set(name, blob.text);
  const prefix = `${shardDir}/`;
  for (const [path, blob] of read.files) {
    if (path.startsWith(prefix)) out.set(path.slice(prefix.length), blob.text);
  }
  return out;
}
