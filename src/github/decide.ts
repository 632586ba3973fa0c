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
import { plural } from "../report/states.js";
import { planWrites } from "../tickets/writeback.js";
import { integrationMessage } from "../workspace/commit-message.js";
import type { BranchRead, FileChanges } from "./branch.js";
import { HISTORY_READ, nameCommits } from "./changes.js";
import { historyMessage, savedFromHistory } from "./history.js";
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
  type OutboxEntry,
  serializeState,
  shardDirPath,
  shardFileOf,
  shardTexts,
  snapshotPath,
  statePath,
  type Unnamed,
  worklogChunkPath,
  worklogPath,
} from "./state.js";
import { type Need, need } from "./status-index.js";

/** Ids of the newest events kept in the state (a lost commit answer is found among them). */
const EVENTS_KEPT = 64;
/** The report comment is refreshed at least this often while its headline stays the same. */
const REPORT_EVERY_MS = 30_000;
/** Lines a worklog.jsonl holds before it is sealed as a chunk under worklog/. */
const WORKLOG_CHUNK_LINES = 32;

/** An outbox claim to send after the commit. */
export type Send = { ticket: string } & Pick<OutboxEntry, "attempt" | "claim" | "workflow">;

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
  /** ticket files the author changed or deleted since the run's base, as this event saw */
  authoredChanged?: readonly string[];
  /** may this event start a run when the branch has none */
  mayStart: boolean;
  /** send again what the outbox holds (false for a follow-up: it sends only its own claims) */
  drainOutbox: boolean;
  /** the runs listing, when this event searched it */
  seen: RunsSeen | undefined;
  /** the shard files read (names); undefined: every one (status-index.ts) */
  shardsRead?: ReadonlySet<string> | undefined;
  /** the ticket files read with the state (repository paths: `need-files`) */
  filesRead?: ReadonlySet<string>;
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
  /** ticket files an integration rewrote that it writes: read them with the state, decide again */
  | { kind: "need-files"; files: string[] }
  /** the files of one commit (an integration's among them) */
  | ({ kind: "commit"; decided: Decided; message: string } & FileChanges);

/** Decide one try of an event. */
export function decide(input: TryInput): Decision {
  const { ctx, read, state, source, now, history, shardsRead } = input;
  // on a branch holding a finished run's history, only a push adding tickets starts a run
  const fromHistory =
    !state && history && input.mayStart && source.specs.some((s) => !(s.id in history.tickets));
  const fromSaved =
    !state && history ? savedFromHistory(history, source.settings.run, ctx.sha, now) : undefined;
  const loaded = (ticket: string) =>
    shardsRead === undefined || shardsRead.has(shardFileOf(ticket));
  const unnamed = stillUnnamed(state, read, loaded);
  const frontier = openBranchRun(ctx, source, state, now, fromSaved);
  if (!state && (!input.mayStart || (history && !fromHistory))) return noRun(input, frontier);

  const ran = runStep(input, frontier);
  const { changes, view } = ran;
  const drained = drainOutbox(input, frontier, view.outbox, ran.claims);
  if (drained.kind === "search-runs") return drained;
  const tickets = ticketFiles(input, ran.integration);
  const headline = headlineOf(frontier, now);
  const shown = state?.report_shown;
  const refreshReport =
    shown === undefined ||
    shown.headline !== headline ||
    now - Date.parse(shown.at) >= REPORT_EVERY_MS;

  // A state read in part: what this decision changes or shows must have been read.
  if (state && shardsRead !== undefined) {
    const unopened = Object.entries(view.questions)
      .filter(([, q]) => q.issue_number === undefined && !q.closed)
      .map(([t]) => t);
    const wanted = need(frontier, changes, loaded, { refreshReport, now, questions: unopened });
    if (wanted) return { kind: "need-shards", need: wanted };
  }
  const decided = {
    result: ran.result,
    frontier,
    settings: source.settings,
    ...(state && shardsRead !== undefined ? { partial: true } : {}),
  };
  const unchanged =
    state !== undefined &&
    [changes.tickets, changes.attempts, changes.answers, changes.log, drained.sends].every(
      (list) => list.length === 0,
    ) &&
    !changes.run &&
    ran.files.size === 0 &&
    ran.integration === undefined &&
    JSON.stringify([view.questions, drained.outbox, view.report]) ===
      JSON.stringify([state.questions, state.outbox ?? {}, state.report]) &&
    tickets.authored.size === (state.authored_changed?.length ?? 0);
  if (unchanged) {
    return { kind: "unchanged", decided: { ...decided, state, sends: [], refreshReport: false } };
  }

  const seq = (state?.seq ?? 0) + 1;
  const own = ran.integration;
  const next = nextState(input, frontier, tickets, {
    seq,
    questions: view.questions,
    report: view.report,
    report_shown: refreshReport ? { at: new Date(now).toISOString(), seq, headline } : shown,
    outbox: drained.outbox,
    outbox_checked_at: drained.checkedAt,
    unnamed: [
      ...unnamed,
      ...(own ? [{ ticket: own.ticket, attempt: own.attempt, claim: own.claim, seq }] : []),
    ],
  });
  const { deletions, ci, entries } = writeFiles(input, frontier, { ...ran, next, tickets });
  if (tickets.unread.length > 0) return { kind: "need-files", files: tickets.unread };
  return {
    kind: "commit",
    decided: { ...decided, state: next, sends: drained.sends, refreshReport, asked: ran.asked, ci },
    additions: ran.files,
    deletions,
    ...(entries.size > 0 ? { entries } : {}),
    message: commitMessage(frontier.runRecord().run, input.label, changes.log, ran.claims, own),
  };
}

/**
 * The event, then every step every event takes (core/event.ts): reclaim the claims whose
 * lease ran out, claim what became ready, drain what changed. The event sees the run's
 * bookkeeping (`view`), and adds files and a ticket's changes to integrate to it.
 */
function runStep(input: TryInput, frontier: Frontier) {
  const { ctx, state, now } = input;
  const view: RunView = {
    questions: { ...(state?.questions ?? {}) },
    report: state?.report,
    // the event sees the outbox of the claims still live when it starts
    outbox: liveEntries(state?.outbox, frontier),
    files: new Map(),
    moved: input.moved ?? new Map(),
  };
  const result = input.event(frontier, now, view);
  const ran = step(frontier, {
    now,
    reclaim: true,
    claimAs: { by: ctx.claimedBy, token: ctx.claimToken },
  });
  // A suspended attempt asks its question in an issue, opened after the commit.
  for (const { ticket, record } of ran.changes.attempts) {
    if (record.outcome !== "suspended") continue;
    if (view.questions[ticket]?.attempt !== record.n)
      view.questions[ticket] = { attempt: record.n };
  }
  const files = new Map([...view.files].map(([path, c]) => [joinRepoPath(ctx.dir, path), c]));
  return { ...ran, result, view, files, integration: view.integration };
}

/** The state after the event: the engine's, with the run's bookkeeping on GitHub. */
function nextState(
  input: TryInput,
  frontier: Frontier,
  { authored, rewritten }: Pick<TicketFiles, "authored" | "rewritten">,
  decided: Pick<
    GitHubState,
    "seq" | "questions" | "report" | "report_shown" | "outbox" | "outbox_checked_at" | "unnamed"
  >,
): GitHubState {
  const { ctx, state, history, source } = input;
  const { unnamed, ...bookkeeping } = decided;
  const chunks = (state ?? history)?.worklog_chunks;
  return {
    ...stateOf(ctx, frontier),
    ...bookkeeping,
    events: [...(state?.events ?? []), input.eventId].slice(-EVENTS_KEPT),
    ...(chunks ? { worklog_chunks: chunks } : {}),
    authored_digest: state?.authored_digest || source.digest,
    ...(state?.base_snapshot || source.files ? { base_snapshot: true } : {}),
    authored_changed: authored.size > 0 ? [...authored].sort() : undefined,
    rewritten: rewritten.size > 0 ? [...rewritten].sort() : undefined,
    ...(state?.ci ? { ci: state.ci } : {}),
    ...(unnamed?.length ? { unnamed } : {}),
  };
}

/** The engine's saved state, on this branch. */
function stateOf(ctx: RunContext, frontier: Frontier): Omit<GitHubState, "seq" | "questions"> {
  return { schema: GITHUB_STATE_SCHEMA, branch: ctx.branch, dir: ctx.dir, ...frontier.snapshot() };
}

/** No run on the branch, and this event may not start one: what it says. */
function noRun(input: TryInput, frontier: Frontier): Decision {
  const { ctx, label, history, foreign } = input;
  const message = history
    ? historyMessage(label, ctx.branch, history)
    : foreign
      ? `${label}: the state on ${ctx.branch} belongs to the run on ${foreign.branch} (this branch was cut from it); nothing was changed. A run of this branch starts on its next push.`
      : `${label}: there is no run on branch ${ctx.branch} (no ${statePath(ctx.dir)}); nothing was changed. A run starts on a push of the tickets or a manual run of the frontier workflow.`;
  return {
    kind: "no-run",
    decided: {
      result: { kind: "rejected", why: { code: "said", text: message } },
      frontier,
      // the state of a run that is not there
      state: { ...stateOf(ctx, frontier), seq: 0, questions: {} },
      settings: input.source.settings,
      sends: [],
      refreshReport: false,
    },
  };
}

/**
 * The integrated attempts whose commit is still to be named in their records: the
 * branch's newest commits name some (found by their trailers), the rest wait for a
 * later read. Names them in the state's tickets, in place.
 */
function stillUnnamed(
  state: GitHubState | undefined,
  read: BranchRead,
  loaded: (ticket: string) => boolean,
): Unnamed[] {
  const unnamed = state?.unnamed ?? [];
  if (!state || unnamed.length === 0 || !read.history) return unnamed;
  // one not found among more commits of the run than a read takes is not looked for again
  return nameCommits(state.tickets, unnamed, read.history, loaded).filter(
    (u) => u.commit !== undefined || state.seq - u.seq < HISTORY_READ,
  );
}

/**
 * The outbox: this event's claims go in; what ended goes out; what an older version
 * claimed is adopted; what GitHub said it did not start, or what no run carries long
 * after its commit, is sent again. The runs listing is searched for the overdue claims
 * once per event (`search-runs`), when a search is due.
 */
function drainOutbox(
  input: TryInput,
  frontier: Frontier,
  live: Outbox,
  claims: readonly Claim[],
):
  | { kind: "drained"; outbox: Outbox; sends: Send[]; checkedAt: string | undefined }
  | Extract<Decision, { kind: "search-runs" }> {
  const { ctx, now, seen } = input;
  const iso = new Date(now).toISOString();
  const outbox: Outbox = liveEntries(live, frontier);
  const workflowOf = (t: string) => workflowFor(ctx, frontier, t);
  const sendOf = (ticket: string, { attempt, claim, workflow }: Omit<Send, "ticket">): Send => ({
    ticket,
    attempt,
    claim,
    workflow,
  });
  const claimed = claims.map((c) => sendOf(c.ticket, { ...c, workflow: workflowOf(c.ticket) }));
  for (const c of claimed) enqueue(outbox, c, iso, input.eventId);
  adoptUntracked(outbox, frontier, workflowOf);
  const resends: Send[] = [];
  for (const t of input.drainOutbox ? unsent(outbox) : []) {
    resends.push(sendOf(t, outbox[t]!));
    resend(outbox, t, iso, "pending");
  }
  const lagMs = ctx.outboxLagMs ?? OUTBOX_LAG_MS;
  let checkedAt = input.state?.outbox_checked_at;
  // (this event's own claims are never overdue, whatever the lag)
  const late = input.drainOutbox ? overdue(outbox, now, lagMs, input.eventId) : [];
  const checkDue =
    checkedAt === undefined ||
    now - Date.parse(checkedAt) >= Math.min(OUTBOX_CHECK_EVERY_MS, lagMs);
  if (late.length > 0 && (checkDue || seen)) {
    // searched once per event: a claim that became overdue on a later try waits for the next
    if (!seen) return { kind: "search-runs", entries: late.map((t) => outbox[t]!) };
    if (seen.runs) checkedAt = iso;
    for (const t of late) {
      const e = outbox[t]!;
      if (!seen.runs || !seen.searched.has(e.claim)) continue;
      const run = seen.runs.get(e.claim);
      if (run) {
        seenRun(outbox, t, e.claim, run.id);
        continue;
      }
      ctx.log(
        `${t}#${e.attempt}: no workflow run carries claim ${e.claim} ${Math.round((now - Date.parse(e.at)) / 1000)}s after it was committed; sending it again`,
      );
      resends.push(sendOf(t, e));
      resend(outbox, t, iso, "resent");
    }
  }
  return { kind: "drained", outbox, sends: [...resends, ...claimed], checkedAt };
}

type TicketFiles = ReturnType<typeof ticketFiles>;

/**
 * Which ticket files take the engine's fields, and from what text. What the author changed
 * or deleted since the run's base is never written back: its state lives in the records.
 * One an integrated change rewrote keeps that text with the fields written into it, as the
 * local runner writes them into a ticket file as it is now: this event's integrated text,
 * else the branch's (`unread`: read it first).
 */
function ticketFiles(input: TryInput, integration: Integration | undefined) {
  const { ctx, state, source } = input;
  const authored = new Set([...(state?.authored_changed ?? []), ...(input.authoredChanged ?? [])]);
  const rewritten = new Set(state?.rewritten);
  // (deleting or renaming one of the run's ticket files takes its fields away: a breach)
  for (const s of source.specs)
    if (integration?.content(joinRepoPath(ctx.dir, s.file))) rewritten.add(s.file);
  for (const file of rewritten) authored.delete(file);
  const unread: string[] = [];
  const read = (file: string): string | Uint8Array => {
    if (!rewritten.has(file)) return source.read(file);
    const path = joinRepoPath(ctx.dir, file);
    const text = integration?.content(path) ?? input.read.files.get(path);
    if (text === undefined && !input.filesRead?.has(path)) unread.push(path);
    if (text === undefined) throw new Error(`${path} is not on ${ctx.branch}`);
    return text;
  };
  return { authored, rewritten, read, unread };
}

/**
 * Every file of the event: records (created once), ticket front matter (from the run's
 * own text at base), the worklog (sealed as a chunk when full), base.json when the run
 * starts, live.json while it lives (its end records the user's CI in `next`), the state —
 * state.json, and only the shards whose tickets' history this event changed (a shard it
 * did not read it did not change: need() saw to that) — and the ticket's own changes.
 */
function writeFiles(
  input: TryInput,
  frontier: Frontier,
  event: Pick<ReturnType<typeof runStep>, "changes" | "files" | "integration"> & {
    next: GitHubState;
    tickets: TicketFiles;
  },
): { deletions: string[]; ci: string | undefined; entries: FileChanges["entries"] & {} } {
  const { ctx, read, state, source, now, shardsRead } = input;
  const { changes, files, next, tickets } = event;
  // the ticket's own changes, in the commit that records its outcome
  const own = event.integration?.files;
  for (const [path, content] of own?.additions ?? []) files.set(path, content);
  const deletions = [...(own?.deletions ?? [])];
  // a rewritten ticket file that cannot take them (gone, its front matter broken) keeps its
  // text: the ticket's state is in the records (the run's own text at base always takes them)
  for (const edit of planWrites(changes, frontier, tickets.read, () => undefined)) {
    const path = joinRepoPath(ctx.dir, edit.path);
    if (path === worklogPath(ctx.dir) || tickets.authored.has(edit.path)) continue;
    files.set(path, edit.bytes ?? edit.content);
  }
  if (changes.log.length > 0) {
    const before = read.files.get(worklogPath(ctx.dir)) ?? "";
    const lines = changes.log.map((e) => `${JSON.stringify(e)}\n`).join("");
    const count = before === "" ? 0 : before.split("\n").length - 1;
    if (count + changes.log.length > WORKLOG_CHUNK_LINES && count > 0) {
      // the full worklog.jsonl is sealed as a chunk, never written again
      next.worklog_chunks = (next.worklog_chunks ?? 0) + 1;
      files.set(worklogChunkPath(ctx.dir, next.worklog_chunks), before);
      files.set(worklogPath(ctx.dir), lines);
    } else {
      const joined = before === "" || before.endsWith("\n") ? before : `${before}\n`;
      files.set(worklogPath(ctx.dir), joined + lines);
    }
  }
  if (source.files && !state?.base_snapshot) {
    // the run's tickets as authored at its base, for events whose checkout is elsewhere
    files.set(snapshotPath(ctx.dir), snapshotText(next.run.base ?? ctx.sha, source.files));
  }
  const liveNow = frontier.runState(now) === "running";
  const hadLiveFile = read.files.has(livePath(ctx.dir));
  if (liveNow && (!hadLiveFile || input.foreign)) {
    // which run lives on the branch (a copy on a branch cut from it names the original)
    const live = { schema: "ticket-frontier/live@1", run: next.run.run, branch: ctx.branch };
    files.set(livePath(ctx.dir), `${JSON.stringify(live)}\n`);
  } else if (!liveNow && hadLiveFile) {
    deletions.push(livePath(ctx.dir));
    // the run ends in this commit (once: a redelivered event finds no live.json): the
    // user's CI runs on the branch, since the job token's commits start no workflow
    if (ctx.ciWorkflow) {
      const at = new Date(now).toISOString();
      next.ci = { workflow: ctx.ciWorkflow, at, state: frontier.runState(now) };
    }
  }
  const written = serializeState(next);
  files.set(statePath(ctx.dir), written.head);
  const shardDir = shardDirPath(ctx.dir);
  const before = shardTexts(read, ctx.dir);
  for (const [name, text] of written.shards) {
    if (shardsRead !== undefined && !shardsRead.has(name)) continue;
    if (before.get(name) !== text) files.set(`${shardDir}/${name}`, text);
  }
  // a shard file no history is in any more (a state from before the index, re-sharded)
  for (const name of before.keys()) {
    if (!written.shards.has(name)) deletions.push(`${shardDir}/${name}`);
  }
  // a ticket file written with the engine's fields is an addition, not the entry integrated
  const entries = new Map([...(own?.entries ?? [])].filter(([path]) => !files.has(path)));
  return { deletions, ci: next.ci !== state?.ci ? next.ci?.workflow : undefined, entries };
}

/**
 * The event's commit message; a ticket attempt's commit (`own`) is the one message both
 * runners write, with its outcome.
 */
function commitMessage(
  run: string,
  label: string,
  log: readonly unknown[],
  claims: readonly Claim[],
  own: Integration | undefined,
): string {
  const list = claims.map((c) => `${c.ticket}#${c.attempt}`).join(", ");
  const lines = plural(log.length, "worklog line");
  if (own) {
    const claimed =
      claims.length === 0
        ? ""
        : ` Claims ${claims.length <= 10 ? list : `${claims.length} tickets`}.`;
    return integrationMessage({ run, ...own }, ` With its outcome (${lines}).${claimed} [skip ci]`);
  }
  const claimed = claims.length > 0 ? `; claim ${list}` : "";
  const short = claimed.length > 300 ? `; claim ${claims.length} tickets` : claimed;
  // [skip ci]: if a token that does trigger workflows is used, our own commit still starts none.
  return `frontier ${run}: ${label}${short} [skip ci]\n\n${lines}.`;
}

/**
 * The run on a branch as an engine: its tickets (from the source, the run's own: a
 * ticket added since its base waits for a new run, source.ts) with the state read from
 * the branch. Every event, the read-only view and the context step open it here.
 */
export function openBranchRun(
  ctx: Pick<RunContext, "flags" | "sha">,
  source: Pick<RunSource, "specs" | "settings">,
  state: GitHubState | undefined,
  now: number,
  /** what a run with no state of its own starts from (a finished run's history) */
  fromSaved?: SavedState,
): Frontier {
  return openRun({
    specs: source.specs,
    settings: source.settings,
    saved: state ? { run: state.run, tickets: state.tickets } : fromSaved,
    flags: { ...ctx.flags, base: state?.run.base ?? ctx.sha },
    now,
  });
}

/**
 * What the report's first lines say: the run's state and the count of every state a
 * reader must act on. A change here refreshes the comment at once.
 */
function headlineOf(frontier: Frontier, now: number): string {
  const c = frontier.counts();
  return `${frontier.runState(now)} failed=${c.failed ?? 0} blocked=${c.blocked ?? 0} suspended=${c.suspended ?? 0} limited=${c.limited ?? 0} cancelled=${c.cancelled ?? 0}`;
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
