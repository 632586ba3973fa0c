/**
 * One event of a run on GitHub, for every entry point (push, settle, a dead job, the
 * sweep, the context step's take, the bot's commands):
 *
 *   read    ONE query: the head of the run's branch and, at that commit, state.json,
 *           worklog.jsonl (and base.json when the checkout is not the run's base)
 *   decide  Frontier.create(the run's tickets, config, saved state, now) → the event →
 *           reclaim expired claims → the outbox (claims nobody dispatched) → claimReady
 *           → drainChanges: every file the event changes, the report's headline
 *   commit  ONE createCommitOnBranch on the head read (compare-and-swap). A lost race
 *           re-reads and re-applies after a jittered back-off; a lost answer re-reads and
 *           finds the event's id in the state if its commit landed
 *   effects only after the outcome is recorded: dispatch the claims, open question
 *           issues, post or refresh the report comment — each idempotent, each retried by
 *           a later event if it fails, none undone by a lost race
 *
 * Requests per event: 2 GraphQL (read, commit) plus one REST request per dispatch, the
 * report comment at most every 30 s or when its headline changes, and one runs listing a
 * minute while claims are overdue. Nothing here reads or writes per ticket of the graph.
 */
import { randomBytes } from "node:crypto";
import { engineConfig, type RunFlags } from "../core/config.js";
import { type Claim, type EventResult, Frontier } from "../core/engine.js";
import type { Receipt, Settings, TicketSpec } from "../core/model.js";
import { GITHUB_COMMENT_MAX, renderMarkdown } from "../report/markdown.js";
import { buildReceipt } from "../report/receipt.js";
import { STATE_DIR } from "../tickets/layout.js";
import { planWrites } from "../tickets/writeback.js";
import {
  type BranchRead,
  type BranchStore,
  type FileChanges,
  graphqlStore,
  restStore,
} from "./branch.js";
import { type DispatchSession, dispatchClaim, findRunsByClaims } from "./dispatch.js";
import { UserError } from "./errors.js";
import type { Repo } from "./git.js";
import {
  apiFailure,
  type GitHub,
  isConflict,
  isPushRefused,
  isUnclear,
  rateLimitOf,
} from "./octokit.js";
import {
  adoptUntracked,
  liveEntries,
  OUTBOX_CHECK_EVERY_MS,
  OUTBOX_LAG_MS,
  type Outbox,
  overdue,
  unsent,
} from "./outbox.js";
import { openQuestionIssue } from "./questions.js";
import {
  createReportComment,
  findReportComment,
  findReportTarget,
  reportMarker,
  seqLine,
  updateReportComment,
} from "./report-comment.js";
import {
  addedSince,
  type Checkout,
  type RunSource,
  snapshotText,
  sourceFromSnapshot,
} from "./source.js";
import {
  GITHUB_STATE_SCHEMA,
  type GitHubState,
  joinRepoPath,
  livePath,
  parseState,
  type QuestionRecord,
  type ReportRecord,
  type ReportShown,
  serializeState,
  shardCountFor,
  shardDirPath,
  snapshotPath,
  statePath,
  worklogChunkPath,
  worklogPath,
} from "./state.js";

/** Everything an event needs to know about where it runs. Built once per process. */
export interface RunContext {
  gh: GitHub;
  repo: Repo;
  /** the branch the run lives on (its state, its dispatch ref) */
  branch: string;
  /** the ticket directory, relative to the repository root */
  dir: string;
  /** the checkout (GITHUB_WORKSPACE): the run's tickets when it is the run's base */
  checkout: Checkout;
  /** the orch-task workflow file */
  workflow: string;
  /** action inputs that override frontier.yml */
  flags: RunFlags;
  /** the commit this job runs at: the base of a run that starts now */
  sha: string;
  /** who claims, for the record */
  claimedBy: string;
  clock: () => number;
  /** uniform in [0, 1): the back-off's jitter */
  random?: () => number;
  /** a fresh claim token per dispatch */
  claimToken: (ticket: string, attempt: number) => string;
  links: { workflowRun?: string; repository?: string; htmlReport?: string; blob?: string };
  log: (line: string) => void;
  /** remembers per process whether the server takes return_run_details */
  session: DispatchSession;
  /** tries of the whole event on a moving branch (default 25) */
  maxTries?: number;
  /**
   * Least back-off window after a lost race (default 250 ms). The window is at least
   * the time one try took, doubled per lost race, and the wait is drawn uniformly from
   * it ("full jitter"), so racing jobs spread out instead of colliding again.
   */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** keep the sticky report comment (default true) */
  report?: boolean;
  /** how long a committed claim may go unseen before the runs listing is searched (default 2 min) */
  outboxLagMs?: number;
  /** the branch's reads and commits; GraphQL unless its budget is spent */
  store?: BranchStore;
  /** told of every commit of state this event makes ("settle a#1 (commit 1a2b3c)") */
  onRecorded?: (what: string) => void;
}

/** What an event sees besides the engine: the bookkeeping it may change, files it may add. */
export interface RunView {
  /** the state read from the head; undefined when the run starts with this event */
  readonly state: GitHubState | undefined;
  /** ticket id → question issue; the bot marks an answered one closed */
  questions: Record<string, QuestionRecord>;
  /** where the report comment is */
  report: ReportRecord | undefined;
  /** the dispatch outbox of the live claims */
  outbox: Outbox;
  /** add a file to the event's commit (path relative to the ticket directory) */
  writeFile(path: string, content: string): void;
}

export type RunEvent = (frontier: Frontier, now: number, view: RunView) => EventResult;

export interface Dispatched {
  ticket: string;
  attempt: number;
  claim: string;
  runUrl?: string;
}

export interface AdvanceOutcome {
  /** what the event itself did (the first event, not the follow-ups) */
  result: EventResult;
  dispatched: Dispatched[];
  /** dispatches GitHub refused; each attempt was settled as failed with GitHub's message */
  refused: Array<{ ticket: string; attempt: number; message: string }>;
  frontier: Frontier;
  state: GitHubState;
  receipt: Receipt;
  /** the report as markdown (also the job summary) */
  markdown: string;
  /** the commit that recorded the event; undefined when nothing changed */
  commit?: string;
  /** tries it took (1 = no race lost) */
  tries: number;
  /** optional work that failed and is left to the next event, in words */
  deferred: string[];
}

export function randomClaimToken(): string {
  return `c${randomBytes(6).toString("hex")}`;
}

export interface AdvanceOptions {
  /**
   * Whether this event may start a run when the branch has none (default true: push,
   * workflow_dispatch, the bot). A settle, a dead job or the sweep on a branch without a
   * run changes nothing and says so.
   */
  start?: boolean;
  /**
   * Read the run's base.json with the state at once (the bot, the sweep: their checkout
   * is seldom the run's base), instead of a second query when it turns out to be needed.
   */
  readBase?: boolean;
}

/** Outbox claims to send after the commit. */
interface Send {
  ticket: string;
  attempt: number;
  claim: string;
  workflow: string;
}

interface Committed {
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
  commit?: string;
  tries: number;
}

/** Run one event to completion: record it by compare-and-swap, then dispatch and report. */
export async function advance(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  options: AdvanceOptions = {},
): Promise<AdvanceOutcome> {
  const first = await recordEvent(ctx, event, label, options.start !== false, options.readBase);
  let last = first;
  const dispatched: Dispatched[] = [];
  const refused: AdvanceOutcome["refused"] = [];
  const deferred: string[] = [];
  let refresh = first.refreshReport;

  // Effects, after the outcome is on the branch. A refused dispatch and anything the
  // effects learn (an issue opened, a comment posted, a dispatch GitHub did not start)
  // is one more event, which may claim more: at most a few rounds.
  const drive = async (from: Committed): Promise<Committed> => {
    let at = from;
    let sends = from.sends;
    for (let round = 0; round < 10; round++) {
      const learned = await performEffects(ctx, at, sends, dispatched, refused, deferred);
      if (!learned) break;
      // a follow-up sends only what it claims itself: the outbox waits for the next event
      const next = await recordEvent(ctx, learned.event, learned.label, false, false, false);
      await learned.after?.();
      at = next.commit !== undefined ? next : { ...at, frontier: next.frontier, state: next.state };
      refresh ||= next.refreshReport;
      sends = next.sends;
    }
    return at;
  };
  last = await drive(first);

  const receipt = receiptOf(ctx, last.frontier, last.settings, ctx.clock());
  const markdown = renderReport(ctx, receipt, last.state.seq);
  if (refresh && ctx.report !== false && last.state.report) {
    const again = await showReport(ctx, last, markdown, deferred);
    // the commit that recorded a comment posted again may have claimed what became ready
    if (again && again.sends.length > 0) await drive(again);
  }
  const commit = last.commit ?? first.commit;
  return {
    result: first.result,
    dispatched,
    refused,
    frontier: last.frontier,
    state: last.state,
    receipt,
    markdown,
    ...(commit ? { commit } : {}),
    tries: first.tries,
    deferred,
  };
}

/** What the effects learned that the state must record, as one more event. */
interface Learned {
  event: RunEvent;
  label: string;
  /** once the event is recorded */
  after?: () => Promise<void>;
}

async function performEffects(
  ctx: RunContext,
  last: Committed,
  sends: readonly Send[],
  dispatched: Dispatched[],
  refused: AdvanceOutcome["refused"],
  deferred: string[],
): Promise<Learned | undefined> {
  const state = last.state;
  // The report comment first: the page never sits silent while the jobs run.
  let report: ReportRecord | undefined;
  // posted by an event that recorded something; one that changed nothing leaves it to that one
  if (!state.report && ctx.report !== false && last.commit !== undefined) {
    try {
      report = await startReport(ctx, last);
    } catch (error) {
      if (!rateLimitOf(error) && !isTransient(error)) throw error;
      deferred.push(`the report comment (${describe(error)}): posted by the next event`);
    }
  }

  const refusedNow: Array<{ send: Send; message: string }> = [];
  const notStarted: Send[] = [];
  let spent: ReturnType<typeof rateLimitOf>;
  for (const send of sends) {
    let res: Awaited<ReturnType<typeof dispatchClaim>>;
    try {
      res = await dispatchClaim(
        ctx.gh,
        ctx.repo,
        ctx.session,
        {
          workflow: send.workflow,
          ref: ctx.branch,
          inputs: {
            run: state.run.run,
            ticket: send.ticket,
            attempt: String(send.attempt),
            claim: send.claim,
            base: state.run.base ?? ctx.sha,
          },
        },
        ctx.clock(),
      );
    } catch (error) {
      const limit = rateLimitOf(error);
      if (!limit) throw error;
      // GitHub answered that it started nothing: sent again by the next event
      notStarted.push(send);
      spent ??= limit;
      continue;
    }
    switch (res.kind) {
      case "dispatched":
        ctx.log(`dispatched ${send.ticket}#${send.attempt}${res.runUrl ? ` → ${res.runUrl}` : ""}`);
        dispatched.push({
          ticket: send.ticket,
          attempt: send.attempt,
          claim: send.claim,
          ...(res.runUrl ? { runUrl: res.runUrl } : {}),
        });
        break;
      case "refused":
        ctx.log(`GitHub refused to dispatch ${send.ticket}#${send.attempt}: ${res.message}`);
        refusedNow.push({ send, message: res.message });
        refused.push({ ticket: send.ticket, attempt: send.attempt, message: res.message });
        break;
      case "unknown":
        // It may have started: sending it again could run it twice. The outbox looks
        // for a run carrying its token once the listing has caught up, and only then
        // sends it again.
        ctx.log(
          `warning: no clear answer dispatching ${send.ticket}#${send.attempt} (${res.message}); the next event looks for its run before sending it again`,
        );
        break;
    }
  }
  if (notStarted.length > 0) {
    deferred.push(
      `${notStarted.length} dispatch${notStarted.length === 1 ? "" : "es"} (${notStarted.map((s) => s.ticket).join(", ")}) not made: ${budgetWords(spent)}; the claims are recorded and sent by the next event or the scheduled sweep`,
    );
  }

  // Question issues of suspended attempts, opened once each (found by their marker
  // before one is made), and the report comment of a run that has none yet.
  const opened = new Map<string, number>();
  for (const [ticket, q] of Object.entries(state.questions)) {
    if (q.issue_number !== undefined || q.closed) continue;
    const s = last.frontier.state(ticket);
    if (s?.status !== "suspended" || s.attempt !== q.attempt) continue;
    const record = s.attempts.find((a) => a.n === q.attempt);
    // The event that recorded the question opens its issue; another event only once that
    // one has had time to (it failed, or died): two events never race to open one.
    const waited = ctx.clock() - Date.parse(record?.ended_at ?? "") >= QUESTION_GRACE_MS;
    if (!last.asked?.includes(ticket) && !waited) continue;
    try {
      const issue = await openQuestionIssue(ctx.gh, ctx.repo, {
        run: state.run.run,
        branch: ctx.branch,
        ticket,
        title: last.frontier.spec(ticket)?.title ?? ticket,
        attempt: q.attempt,
        question: record?.question ?? "(the attempt asked no question text)",
        ...(ctx.links.workflowRun ? { reportUrl: ctx.links.workflowRun } : {}),
      });
      opened.set(ticket, issue);
      ctx.log(`opened question issue #${issue} for ${ticket}#${q.attempt}`);
    } catch (error) {
      if (!rateLimitOf(error) && !isTransient(error)) throw error;
      deferred.push(
        `the question issue of ${ticket} (${describe(error)}): opened by the next event`,
      );
    }
  }
  if (refusedNow.length === 0 && notStarted.length === 0 && opened.size === 0 && !report)
    return undefined;
  const lost: { report?: ReportRecord; questions: number[] } = { questions: [] };
  return {
    label: refusedNow.length > 0 ? "dispatch refused" : "record what the event's effects made",
    event: (frontier, now, view) => {
      const changed: string[] = [];
      for (const { send, message } of refusedNow) {
        const r = frontier.settle(
          {
            ticket: send.ticket,
            attempt: send.attempt,
            claim: send.claim,
            outcome: "failed",
            reason: `dispatch refused by GitHub: ${message}`,
            by: "github",
          },
          now,
        );
        if (r.kind === "ok") changed.push(...r.changed);
      }
      for (const send of notStarted) {
        const e = view.outbox[send.ticket];
        if (e?.claim === send.claim) view.outbox[send.ticket] = { ...e, status: "unsent" };
      }
      for (const [ticket, issue] of opened) {
        const q = view.questions[ticket];
        if (q && q.issue_number === undefined)
          view.questions[ticket] = { ...q, issue_number: issue };
        else if (q?.issue_number !== undefined && q.issue_number !== issue)
          lost.questions.push(issue);
      }
      if (report && !view.report) view.report = report;
      else if (report && view.report?.comment_id !== report.comment_id) lost.report = report;
      return { kind: "ok", changed };
    },
    after: async () => {
      // Another event started the run at the same time and its comment is the report:
      // ours goes (and our tracking issue, if we each made one).
      // Another event opened the same question's issue at the same time: ours is closed.
      for (const issue of lost.questions.splice(0)) {
        await ctx.gh.rest.issues
          .update({
            ...ctx.repo,
            issue_number: issue,
            state: "closed",
            state_reason: "not_planned",
          })
          .catch(() => undefined);
      }
      const mine = lost.report;
      if (!mine) return;
      lost.report = undefined;
      await ctx.gh.rest.issues
        .deleteComment({ ...ctx.repo, comment_id: mine.comment_id })
        .catch(() => undefined);
      const kept = (await readRecordedReport(ctx)) ?? undefined;
      if (mine.on === "issue" && kept && kept.issue_number !== mine.issue_number) {
        await ctx.gh.rest.issues
          .update({
            ...ctx.repo,
            issue_number: mine.issue_number,
            state: "closed",
            state_reason: "not_planned",
          })
          .catch(() => undefined);
      }
    },
  };
}

/** The report comment the state on the branch records, if any (one query). */
async function readRecordedReport(ctx: RunContext): Promise<ReportRecord | undefined> {
  const read = await graphqlStore(ctx.gh, ctx.repo, ctx.branch).read([statePath(ctx.dir)]);
  const text = read?.files.get(statePath(ctx.dir))?.text;
  if (text === undefined) return undefined;
  try {
    return (JSON.parse(text) as { report?: ReportRecord }).report;
  } catch {
    return undefined;
  }
}

/** "GitHub's REST rate limit for this token is spent (resets 10:42 UTC, in 18 min)" */
export function budgetWords(limit: ReturnType<typeof rateLimitOf>): string {
  if (!limit) return "GitHub's rate limit is spent";
  if (limit.secondary)
    return "GitHub's secondary rate limit (content-creating requests) stopped it";
  const budget = limit.resource === "graphql" ? "GraphQL" : "REST";
  const when = limit.resetAt
    ? ` (resets ${new Date(limit.resetAt).toISOString().slice(11, 16)} UTC, in ${Math.max(1, Math.round((limit.resetAt - Date.now()) / 60_000))} min)`
    : "";
  return `GitHub's ${budget} rate limit for this token is spent${when}`;
}

/**
 * An optional effect (a question issue, the report comment) that GitHub refused or did
 * not answer: left for the next event, with a warning. A bug in our own code is thrown.
 */
function isTransient(error: unknown): boolean {
  return apiFailure(error) !== undefined || isUnclear(error);
}

function describe(error: unknown): string {
  const limit = rateLimitOf(error);
  if (limit) return budgetWords(limit);
  return error instanceof Error ? error.message : String(error);
}

/** The files an event reads at the head of the run's branch. */
function runPaths(ctx: RunContext, withSnapshot: boolean): string[] {
  const paths = [statePath(ctx.dir), worklogPath(ctx.dir), livePath(ctx.dir)];
  if (withSnapshot) paths.push(snapshotPath(ctx.dir));
  return paths;
}

/** Lines a worklog.jsonl holds before it is sealed as a chunk under worklog/. */
export const WORKLOG_CHUNK_LINES = 32;

async function readWithFallback(
  ctx: RunContext,
  store: { current: BranchStore },
  paths: string[],
): Promise<BranchRead | undefined> {
  const dirs = [shardDirPath(ctx.dir)];
  try {
    return await store.current.read(paths, dirs);
  } catch (error) {
    if (store.current.api === "graphql" && rateLimitOf(error)) {
      ctx.log(
        `GitHub's GraphQL budget is spent (${describe(error)}): using the REST API for this event`,
      );
      store.current = restStore(ctx.gh, ctx.repo, ctx.branch);
      return store.current.read(paths, dirs);
    }
    throw error;
  }
}

/** The state a read found (state.json and its shards), or undefined when the branch has none. */
export function stateOfRead(dir: string, read: BranchRead): GitHubState | undefined {
  const text = read.files.get(statePath(dir))?.text;
  if (text === undefined) return undefined;
  const shards = new Map<string, string>();
  for (const [name, blob] of read.dirs.get(shardDirPath(dir)) ?? []) shards.set(name, blob.text);
  const parsed = parseState(text, statePath(dir), shards);
  if (parsed.kind === "bad") throw new UserError(parsed.message);
  return parsed.state;
}

/** The outcome of one try whose commit's answer was lost: if it landed, this is the event. */
interface Unclear {
  committed: Omit<Committed, "tries" | "commit">;
}

/**
 * Record one event by compare-and-swap. The only side effect inside the loop is the
 * runs listing read of overdue claims (a read): everything else waits for the commit.
 */
async function recordEvent(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  mayStart: boolean,
  readBase = false,
  drainOutbox = true,
): Promise<Committed> {
  const maxTries = ctx.maxTries ?? 25;
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = ctx.random ?? Math.random;
  const store = { current: ctx.store ?? graphqlStore(ctx.gh, ctx.repo, ctx.branch) };
  const eventId = `e${randomBytes(6).toString("hex")}`;
  // the runs listing, read once per event however often the race is lost
  let seenRuns: Map<string, { id: number; url: string }> | undefined;
  const searched = new Set<string>();
  let archives = 0;
  let unclear: Unclear | undefined;
  let withSnapshot = readBase;
  // The checkout's tickets and digest load while the branch is read, not between the
  // read and the commit: the shorter that window, the fewer races a busy run loses.
  const prefetch = Promise.all([ctx.checkout.tickets(), ctx.checkout.digest()]).catch(
    () => undefined,
  );

  for (let tries = 1; ; tries++) {
    const tryStarted = ctx.clock();
    const read = await readWithFallback(ctx, store, runPaths(ctx, withSnapshot));
    await prefetch;
    if (!read) {
      throw new UserError(
        `branch ${ctx.branch} does not exist in ${ctx.repo.owner}/${ctx.repo.repo}: the run lives on the branch the workflow ran for — push it, or run the workflow on an existing branch`,
      );
    }
    let state = stateOfRead(ctx.dir, read);
    let foreign: GitHubState | undefined;
    if (state && state.branch !== ctx.branch) {
      // A copy carried along when this branch was cut from the run's: not this branch's run.
      foreign = state;
      state = undefined;
    }
    if (foreign && mayStart) {
      // A new run of this branch: the copied run's records move under runs/ first, so
      // no record of it is overwritten and none is taken for this run's.
      if (++archives > 10) {
        throw new Error(
          `${label}: could not move the run copied from ${foreign.branch} aside on ${ctx.branch} after 10 tries; nothing was started`,
        );
      }
      await archiveForeignRun(ctx, read.head, foreign);
      await sleep(random() * (ctx.backoffMs ?? 250) * archives);
      continue;
    }
    if (unclear && state?.events?.includes(eventId)) {
      ctx.log(`${label}: the commit landed although GitHub's answer was lost`);
      ctx.onRecorded?.(`${label} (commit ${read.head.slice(0, 12)} or before)`);
      return { ...unclear.committed, state, tries };
    }
    // (an unclear commit may still land later: every later read looks for its id)

    const source = await runSource(ctx, state, read, withSnapshot);
    if (source === "need-snapshot") {
      withSnapshot = true;
      tries--;
      continue;
    }
    const { settings, specs } = source;
    const now = ctx.clock();
    const saved = state ? { run: state.run, tickets: state.tickets } : undefined;
    const configured = engineConfig(
      settings,
      saved,
      { ...ctx.flags, base: state?.run.base ?? ctx.sha },
      now,
    );
    if (configured.kind === "bad") throw new UserError(configured.message);
    const frontier = Frontier.create(runSpecs(ctx, specs, state), configured.config, saved, now);
    if (!state && !mayStart) {
      const message = foreign
        ? `${label}: the state on ${ctx.branch} belongs to the run on ${foreign.branch} (this branch was cut from it); nothing was changed. A run of this branch starts on its next push.`
        : `${label}: there is no run on branch ${ctx.branch} (no ${statePath(ctx.dir)}); nothing was changed. A run starts on a push of the tickets or a manual run of the frontier workflow.`;
      return {
        result: { kind: "rejected", message },
        frontier,
        state: emptyState(ctx, frontier),
        settings,
        sends: [],
        refreshReport: false,
        tries,
      };
    }

    const files = new Map<string, string>();
    const deletions: string[] = [];
    const workflowOf = (t: string) => workflowFor(ctx, frontier, t);
    const view: RunView = {
      state,
      questions: { ...(state?.questions ?? {}) },
      report: state?.report,
      outbox: liveEntries(state?.outbox, frontier),
      writeFile: (path, content) => files.set(joinRepoPath(ctx.dir, path), content),
    };
    const result = event(frontier, now, view);
    // every event reclaims the claims whose lease ran out, on the run it touches
    frontier.expire(now);

    // The outbox: drop what ended, adopt what an older version claimed, and send again
    // what GitHub said it did not start or what no run carries long after its commit.
    view.outbox = liveEntries(view.outbox, frontier);
    adoptUntracked(view.outbox, frontier, workflowOf);
    const sends: Send[] = [];
    const iso = new Date(now).toISOString();
    for (const t of drainOutbox ? unsent(view.outbox) : []) {
      const e = view.outbox[t]!;
      view.outbox[t] = { ...e, status: "pending", at: iso, sends: e.sends + 1 };
      sends.push({ ticket: t, attempt: e.attempt, claim: e.claim, workflow: e.workflow });
    }
    const lagMs = ctx.outboxLagMs ?? OUTBOX_LAG_MS;
    let checkedAt = state?.outbox_checked_at;
    const late = drainOutbox ? overdue(view.outbox, now, lagMs) : [];
    const checkDue =
      checkedAt === undefined ||
      now - Date.parse(checkedAt) >= Math.min(OUTBOX_CHECK_EVERY_MS, lagMs);
    if (late.length > 0 && (checkDue || seenRuns)) {
      // the listing is searched once per event; a claim that became overdue on a later try
      // was not searched for, and waits for the next event
      const unsearched = late.filter((t) => !searched.has(view.outbox[t]!.claim));
      if (!seenRuns || unsearched.length === late.length) {
        try {
          seenRuns = await lookForRuns(
            ctx,
            late.map((t) => view.outbox[t]!),
          );
          for (const t of late) searched.add(view.outbox[t]!.claim);
        } catch (error) {
          // optional work: a listing that fails sends nothing again and records the event
          ctx.log(
            `could not search the runs listing for overdue claims (${describe(error)}); the next event looks again`,
          );
          seenRuns = undefined;
        }
      }
      if (seenRuns) checkedAt = iso;
      for (const t of late) {
        const e = view.outbox[t]!;
        if (!seenRuns || !searched.has(e.claim)) continue;
        const run = seenRuns.get(e.claim);
        if (run) {
          view.outbox[t] = { ...e, status: "sent", run_id: run.id };
        } else {
          ctx.log(
            `${t}#${e.attempt}: no workflow run carries claim ${e.claim} ${Math.round((now - Date.parse(e.at)) / 1000)}s after it was committed; sending it again`,
          );
          view.outbox[t] = { ...e, status: "resent", at: iso, sends: e.sends + 1 };
          sends.push({ ticket: t, attempt: e.attempt, claim: e.claim, workflow: e.workflow });
        }
      }
    }

    const claims = frontier.claimReady(now, ctx.claimedBy, ctx.claimToken);
    for (const c of claims) {
      const workflow = workflowOf(c.ticket);
      view.outbox[c.ticket] = {
        claim: c.claim,
        attempt: c.attempt,
        workflow,
        at: iso,
        event: eventId,
        status: "pending",
        sends: 1,
      };
      sends.push({ ticket: c.ticket, attempt: c.attempt, claim: c.claim, workflow });
    }
    const changes = frontier.drainChanges();
    const runName = frontier.runRecord().run;

    // A suspended attempt asks its question in an issue, opened after the commit.
    const asked: string[] = [];
    for (const { ticket, record } of changes.attempts) {
      if (record.outcome !== "suspended") continue;
      asked.push(ticket);
      const q = view.questions[ticket];
      if (q?.attempt !== record.n) view.questions[ticket] = { attempt: record.n };
    }

    const seq = (state?.seq ?? 0) + 1;
    const headline = headlineOf(frontier, now);
    const shown = state?.report_shown;
    const refreshReport =
      ctx.report !== false &&
      (shown === undefined ||
        shown.headline !== headline ||
        now - Date.parse(shown.at) >= REPORT_EVERY_MS);

    const nothingChanged =
      state !== undefined &&
      changes.tickets.length === 0 &&
      changes.attempts.length === 0 &&
      changes.answers.length === 0 &&
      changes.log.length === 0 &&
      !changes.run &&
      files.size === 0 &&
      sends.length === 0 &&
      JSON.stringify(view.questions) === JSON.stringify(state.questions) &&
      JSON.stringify(view.outbox) === JSON.stringify(state.outbox ?? {}) &&
      JSON.stringify(view.report) === JSON.stringify(state.report);
    if (nothingChanged && state) {
      return {
        result,
        frontier,
        state,
        settings,
        sends: [],
        refreshReport: false,
        tries,
      };
    }

    const hadLiveFile = read.files.has(livePath(ctx.dir));
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
      outbox: view.outbox,
      ...(checkedAt ? { outbox_checked_at: checkedAt } : {}),
      events: [...(state?.events ?? []), eventId].slice(-EVENTS_KEPT),
      ...(state?.worklog_chunks ? { worklog_chunks: state.worklog_chunks } : {}),
      ...(state?.authored_digest
        ? { authored_digest: state.authored_digest }
        : source.files
          ? { authored_digest: (await ctx.checkout.digest()) as string }
          : {}),
      ...(state?.base_snapshot || source.files ? { base_snapshot: true } : {}),
    };

    // Every file of the event: records (created once), ticket front matter (from the
    // run's own text at base), the worklog, the state; base.json when the run starts.
    for (const edit of planWrites(changes, frontier, source.read)) {
      const path = joinRepoPath(ctx.dir, edit.path);
      if (path === worklogPath(ctx.dir)) continue;
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
    const liveNow = frontier.runState(now) === "running";
    if (liveNow && (!hadLiveFile || foreign)) {
      files.set(livePath(ctx.dir), liveText(runName, ctx.branch));
    } else if (!liveNow && hadLiveFile) {
      deletions.push(livePath(ctx.dir));
    }
    // the state: state.json, and only the shards whose tickets this event changed
    next.shards = state?.shards ?? shardCountFor(Object.keys(next.tickets).length);
    const written = serializeState(next);
    files.set(statePath(ctx.dir), written.head);
    const shardsBefore = state?.shards ? read.dirs.get(shardDirPath(ctx.dir)) : undefined;
    for (const [name, text] of written.shards) {
      if (shardsBefore?.get(name)?.text !== text)
        files.set(`${shardDirPath(ctx.dir)}/${name}`, text);
    }

    const committed: Omit<Committed, "tries" | "commit"> = {
      result,
      frontier,
      state: next,
      settings,
      sends,
      refreshReport,
      asked,
    };
    let answer: Awaited<ReturnType<BranchStore["commit"]>>;
    try {
      answer = await store.current.commit(
        read.head,
        { additions: files, deletions } satisfies FileChanges,
        commitMessage(runName, label, changes.log.length, claims),
      );
    } catch (error) {
      if (isPushRefused(error)) throw pushRefused(ctx, error);
      if (store.current.api === "graphql" && rateLimitOf(error)) {
        ctx.log(
          `GitHub's GraphQL budget is spent (${describe(error)}): recording with the REST API`,
        );
        store.current = restStore(ctx.gh, ctx.repo, ctx.branch);
        tries--;
        continue;
      }
      throw error;
    }
    if (answer.kind === "ok") {
      ctx.onRecorded?.(`${label} (commit ${answer.sha.slice(0, 12)})`);
      if (tries > 1) ctx.log(`${label}: recorded after ${tries} tries (the branch moved under us)`);
      return { ...committed, commit: answer.sha, tries };
    }
    if (tries >= maxTries) {
      throw new Error(
        `${label}: the branch ${ctx.branch} kept moving; gave up after ${tries} tries. Nothing was dispatched; the next event records it.`,
      );
    }
    if (answer.kind === "unclear") {
      // It may have landed: the next read tells, by this event's id in the state.
      ctx.log(
        `${label}: no clear answer to the commit (${answer.message}); reading the branch again`,
      );
      unclear = { committed };
      await sleep(random() * (ctx.backoffMs ?? 250));
      continue;
    }
    const tryMs = Math.max(ctx.backoffMs ?? 250, ctx.clock() - tryStarted);
    const window = Math.min(30_000, tryMs * 2 ** Math.min(tries, 6));
    await sleep(random() * window);
  }
}

/** The run on the branch as it stands, read-only: nothing is committed or dispatched. */
export async function openRun(
  ctx: RunContext,
): Promise<{ frontier: Frontier; state: GitHubState; settings: Settings } | undefined> {
  const store = { current: ctx.store ?? graphqlStore(ctx.gh, ctx.repo, ctx.branch) };
  let withSnapshot = false;
  for (;;) {
    const read = await readWithFallback(ctx, store, runPaths(ctx, withSnapshot));
    const state = read ? stateOfRead(ctx.dir, read) : undefined;
    if (!read || !state || state.branch !== ctx.branch) return undefined;
    const parsed = { state };
    const source = await runSource(ctx, parsed.state, read, withSnapshot);
    if (source === "need-snapshot") {
      withSnapshot = true;
      continue;
    }
    const now = ctx.clock();
    const saved = { run: parsed.state.run, tickets: parsed.state.tickets };
    const configured = engineConfig(
      source.settings,
      saved,
      { ...ctx.flags, base: saved.run.base ?? ctx.sha },
      now,
    );
    if (configured.kind === "bad") throw new UserError(configured.message);
    const frontier = Frontier.create(
      runSpecs(ctx, source.specs, parsed.state),
      configured.config,
      saved,
      now,
    );
    return { frontier, state: parsed.state, settings: source.settings };
  }
}

/** How long a recorded question waits for its own event to open its issue before another does. */
const QUESTION_GRACE_MS = 60_000;

/** Ids of the newest events kept in the state (a lost commit answer is found among them). */
const EVENTS_KEPT = 64;
/** The report comment is refreshed at least this often while its headline stays the same. */
export const REPORT_EVERY_MS = 30_000;

/** live.json: which run lives on the branch (a copy on a branch cut from it names the original). */
function liveText(run: string, branch: string): string {
  return `${JSON.stringify({ schema: "ticket-frontier/live@1", run, branch })}\n`;
}

/**
 * What the report's first lines say: the run's state and the count of every state a
 * reader must act on. A change here refreshes the comment at once.
 */
function headlineOf(frontier: Frontier, now: number): string {
  const c = frontier.counts();
  return `${frontier.runState(now)} failed=${c.failed ?? 0} blocked=${c.blocked ?? 0} suspended=${c.suspended ?? 0} limited=${c.limited ?? 0} cancelled=${c.cancelled ?? 0}`;
}

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
 * The run's tickets for this event: the checkout's when it is the run's base (its
 * authored digest is the one recorded), else base.json, read in the same query as the
 * state (`need-snapshot`: read again with it).
 */
async function runSource(
  ctx: RunContext,
  state: GitHubState | undefined,
  read: BranchRead,
  askedSnapshot: boolean,
): Promise<RunSource | "need-snapshot"> {
  if (!state) return ctx.checkout.source();
  const recorded = state.authored_digest;
  const digest = await ctx.checkout.digest();
  if (recorded !== undefined ? digest === recorded : ctx.sha === state.run.base) {
    return ctx.checkout.source();
  }
  const snapshot = read.files.get(snapshotPath(ctx.dir));
  if (!snapshot) {
    if (!askedSnapshot) return "need-snapshot";
    throw new UserError(
      `the checkout's ${ctx.dir} is not the run's (started at ${state.run.base?.slice(0, 12) ?? "an unknown commit"} on ${ctx.branch}), and the run has no ${snapshotPath(ctx.dir)} to read its tickets from (it was started by an older version): run this on the run's branch, or delete ${statePath(ctx.dir)} there to start a new run`,
    );
  }
  const source = await sourceFromSnapshot(snapshot.text, ctx.dir, ctx.checkout.workspace);
  const added = addedSince(source.specs, await ctx.checkout.authoredFiles());
  if (added.length > 0 && ctx.sha !== state.run.base) {
    ctx.log(
      `warning: ${added.join(", ")} ${added.length === 1 ? "was" : "were"} added after the run started at ${state.run.base?.slice(0, 12)}; ${added.length === 1 ? "it runs" : "they run"} in the next run (delete ${statePath(ctx.dir)} on the branch to start one)`,
    );
  }
  return source;
}

const warned = new Set<string>();

/**
 * The tickets of this run. Every job checks out the commit the run started from, so a
 * ticket pushed while the run is going could not run in it: it waits for the next run
 * (and is said so) — unless a ticket of the run now depends on it, when the checkout's
 * graph is taken as it is.
 */
function runSpecs(
  ctx: RunContext,
  specs: readonly TicketSpec[],
  state: GitHubState | undefined,
): readonly TicketSpec[] {
  if (!state) return specs;
  const added = new Set(specs.filter((s) => !(s.id in state.tickets)).map((s) => s.id));
  if (added.size === 0) return specs;
  const kept = specs.filter((s) => !added.has(s.id));
  if (kept.some((s) => s.dependsOn.some((d) => added.has(d)))) return specs;
  const key = [...added].join(",");
  if (!warned.has(key)) {
    warned.add(key);
    ctx.log(
      `warning: ${[...added].join(", ")} ${added.size === 1 ? "was" : "were"} added after the run started at ${state.run.base?.slice(0, 12) ?? "its base"}; ${added.size === 1 ? "it runs" : "they run"} in the next run (delete ${statePath(ctx.dir)} on the branch to start one)`,
    );
  }
  return kept;
}

/** The tree at `path` under the tree `root` (one request per path segment), if any. */
async function subtree(ctx: RunContext, root: string, path: string): Promise<string | undefined> {
  let sha: string | undefined = root;
  for (const part of path.split("/").filter(Boolean)) {
    if (!sha) return undefined;
    const entries: Array<{ path?: string; type?: string; sha?: string }> = (
      await ctx.gh.rest.git.getTree({ ...ctx.repo, tree_sha: sha })
    ).data.tree;
    sha = entries.find((e) => e.path === part && e.type === "tree")?.sha;
  }
  return sha;
}

/**
 * Move `.frontier/` of a run copied from another branch to `.frontier/runs/<run>-<branch>-<sha>/`
 * in one commit (compare-and-swap). Trees are moved by id: no record is sent again.
 */
async function archiveForeignRun(
  ctx: RunContext,
  head: string,
  foreign: GitHubState,
): Promise<void> {
  const gh = ctx.gh;
  const rootTree = (await gh.rest.git.getCommit({ ...ctx.repo, commit_sha: head })).data.tree.sha;
  const frontierDir = joinRepoPath(ctx.dir, STATE_DIR);
  const old = await subtree(ctx, rootTree, frontierDir);
  if (!old) return;
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 60);
  const name = `${safe(foreign.run.run)}-${safe(foreign.branch)}-${head.slice(0, 7)}`;
  const oldRuns = await subtree(ctx, old, "runs");
  const runs = await gh.rest.git.createTree({
    ...ctx.repo,
    ...(oldRuns ? { base_tree: oldRuns } : {}),
    tree: [{ path: name, mode: "040000", type: "tree", sha: old }],
  });
  const frontier = await gh.rest.git.createTree({
    ...ctx.repo,
    tree: [{ path: "runs", mode: "040000", type: "tree", sha: runs.data.sha }],
  });
  const answer = await commitFilesAsTree(
    ctx,
    head,
    rootTree,
    frontierDir,
    frontier.data.sha,
    `frontier: ${ctx.branch} starts its own run; the run copied from ${foreign.branch} is kept under .frontier/runs/${name} [skip ci]`,
  );
  if (answer)
    ctx.log(
      `the state on ${ctx.branch} was copied from ${foreign.branch}: kept under ${frontierDir}/runs/${name}; this branch starts its own run`,
    );
}

/** One commit whose tree replaces the directory `path` by the tree `sha`; false when the branch moved. */
async function commitFilesAsTree(
  ctx: RunContext,
  head: string,
  rootTree: string,
  path: string,
  sha: string,
  message: string,
): Promise<boolean> {
  const gh = ctx.gh;
  const tree = await gh.rest.git.createTree({
    ...ctx.repo,
    base_tree: rootTree,
    tree: [{ path, mode: "040000", type: "tree", sha }],
  });
  const commit = await gh.rest.git.createCommit({
    ...ctx.repo,
    message,
    tree: tree.data.sha,
    parents: [head],
  });
  try {
    await gh.rest.git.updateRef({
      ...ctx.repo,
      ref: `heads/${ctx.branch}`,
      sha: commit.data.sha,
      force: false,
      request: { retries: 0 },
    });
    return true;
  } catch (error) {
    if (isConflict(error) || isUnclear(error)) return false;
    if (isPushRefused(error)) throw pushRefused(ctx, error);
    throw error;
  }
}

/** One runs listing per workflow for the overdue claims; an error reads as "none seen". */
async function lookForRuns(
  ctx: RunContext,
  entries: ReadonlyArray<{ claim: string; workflow: string; at: string }>,
): Promise<Map<string, { id: number; url: string }>> {
  const found = new Map<string, { id: number; url: string }>();
  const byWorkflow = new Map<string, Array<{ claim: string; at: string }>>();
  for (const e of entries) byWorkflow.set(e.workflow, [...(byWorkflow.get(e.workflow) ?? []), e]);
  for (const [workflow, list] of byWorkflow) {
    const since = Math.min(...list.map((e) => Date.parse(e.at) || 0));
    const runs = await findRunsByClaims(
      ctx.gh,
      ctx.repo,
      workflow,
      new Set(list.map((e) => e.claim)),
      // a resent claim's first send was earlier than its entry says
      since - (ctx.outboxLagMs ?? OUTBOX_LAG_MS) * 2,
    );
    for (const [k, v] of runs) found.set(k, v);
  }
  return found;
}

function pushRefused(ctx: RunContext, error: unknown): UserError {
  const said = error instanceof Error ? error.message : String(error);
  return new UserError(
    `the token may not push to branch ${ctx.branch} (GitHub said: ${said.split("\n")[0]}). Ticket Frontier records the run's state by committing to the run's branch: run it on a branch the token can push to — the pull request's branch, or set the action's \`branch\` input to an unprotected branch such as frontier-state — or let GitHub Actions bypass the branch's protection or ruleset. The README's "Branch layouts" section shows each.`,
  );
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

export function receiptOf(
  ctx: RunContext,
  frontier: Frontier,
  settings: Settings,
  now: number,
): Receipt {
  const receipt = buildReceipt(frontier, {
    now,
    where: "github",
    ...(settings.goal ? { goal: settings.goal } : {}),
  });
  const links: NonNullable<Receipt["links"]> = { ...(receipt.links ?? {}) };
  if (ctx.links.workflowRun) links.workflow_run = ctx.links.workflowRun;
  if (ctx.links.repository) links.repository = ctx.links.repository;
  if (ctx.links.htmlReport) links.html_report = ctx.links.htmlReport;
  return Object.keys(links).length > 0 ? { ...receipt, links } : receipt;
}

export function renderReport(ctx: RunContext, receipt: Receipt, seq: number): string {
  const updated = `\n<sub>Updated ${receipt.generated_at.replace("T", " ").replace(/\.\d+Z$/, " UTC")} · state commit ${seq}</sub>\n`;
  const tail = `${updated}\n${seqLine(seq)}`;
  const body = renderMarkdown(receipt, {
    marker: reportMarker(receipt.run),
    maxChars: GITHUB_COMMENT_MAX - tail.length - 64,
    ...(ctx.links.htmlReport ? { htmlReportUrl: ctx.links.htmlReport } : {}),
    ...(ctx.links.workflowRun ? { workflowRunUrl: ctx.links.workflowRun } : {}),
    ...(ctx.links.blob ? { repoBlobUrl: ctx.links.blob } : {}),
  });
  return body + tail;
}

/** Posted when the run starts, so the page never sits silent while jobs run. */
async function startReport(ctx: RunContext, last: Committed): Promise<ReportRecord> {
  const run = last.state.run.run;
  const target = await findReportTarget(ctx.gh, ctx.repo, ctx.branch, run, ctx.links.workflowRun);
  const found = await findReportComment(ctx.gh, ctx.repo, target.issue_number, run);
  if (found)
    return {
      issue_number: target.issue_number,
      on: target.on,
      comment_id: found.id,
      login: found.login,
    };
  const receipt = receiptOf(ctx, last.frontier, last.settings, ctx.clock());
  const record = await createReportComment(
    ctx.gh,
    ctx.repo,
    target,
    renderReport(ctx, receipt, last.state.seq),
    run,
  );
  ctx.log(`report comment posted on #${record.issue_number}`);
  return record;
}

/**
 * Bring the comment up to date. One that someone deleted is posted again and its new id
 * recorded, so later events update the new one.
 */
async function showReport(
  ctx: RunContext,
  last: Committed,
  markdown: string,
  deferred: string[],
): Promise<Committed | undefined> {
  const record = last.state.report as ReportRecord;
  try {
    const res = await updateReportComment(ctx.gh, ctx.repo, record, markdown, last.state.seq);
    if (res !== "gone") return undefined;
    const run = last.state.run.run;
    let again = await findReportComment(ctx.gh, ctx.repo, record.issue_number, run, record.login);
    if (!again) {
      const posted = await createReportComment(ctx.gh, ctx.repo, record, markdown, run);
      again = { id: posted.comment_id, login: posted.login };
    }
    ctx.log(`the report comment was deleted: posted again as ${again.id}`);
    const replaced: ReportRecord = { ...record, comment_id: again.id, login: again.login };
    return await recordEvent(
      ctx,
      (_frontier, _now, view) => {
        if (view.report?.comment_id === record.comment_id) view.report = replaced;
        return { kind: "ok", changed: [] };
      },
      "record the report comment posted again",
      false,
      false,
      false,
    );
  } catch (error) {
    if (!rateLimitOf(error) && !isTransient(error)) throw error;
    deferred.push(`the report comment update (${describe(error)}): made by the next event`);
    return undefined;
  }
}
