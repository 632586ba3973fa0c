/**
 * The loop every event runs, on the Action and in the bot alike:
 *
 *   read the head of the run's branch (ref → commit → state.json, worklog.jsonl)
 *   → Frontier.create(the run's specs, config, saved state, now) — the checkout's when
 *     its authored tickets are the run's base (state.authored_digest), else read at base
 *     through the API (see loadRunSource)
 *   → apply the event → claimReady → drainChanges
 *   → ONE commit (ticket front matter, .frontier/ files, worklog, state.json), parent =
 *     the head read, ref moved with force:false
 *   → on "not a fast forward": read again and re-apply the whole event on the new head
 *   → only after the commit landed: dispatch the claims it recorded
 *   → a refused dispatch is one more event (the attempt fails with GitHub's message)
 *   → the sticky report comment shows the result.
 *
 * Requests per event are constant (2 reads: the branch and state.json; 3 writes: tree,
 * commit, ref; 2 for the comment) plus one per dispatch: nothing here reads or writes
 * per ticket of the graph — except on an event whose checkout is not the run's base
 * (a comment steering a run on another branch), which reads the ticket directory at
 * base once: one listing plus one read per ticket file. The worklog lines live in state.json too, so
 * worklog.jsonl is written from them and never read.
 */
import { createHash, randomBytes } from "node:crypto";
import { type Dirent, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { engineConfig, type RunFlags } from "../core/config.js";
import { type Claim, type EventResult, Frontier } from "../core/engine.js";
import { type Receipt, type Settings, type TicketSpec, WorklogEntry } from "../core/model.js";
import { GITHUB_COMMENT_MAX, renderMarkdown } from "../report/markdown.js";
import { buildReceipt } from "../report/receipt.js";
import { ENGINE_FIELDS, idFromFile } from "../tickets/fields.js";
import { loadDirectory, ticketFileNames } from "../tickets/load.js";
import { formatProblem } from "../tickets/problems.js";
import { SETTINGS_FILE } from "../tickets/settings.js";
import { type EngineFieldValues, editFrontMatter, planWrites } from "../tickets/writeback.js";
import { type DispatchSession, dispatchClaim } from "./dispatch.js";
import { UserError } from "./errors.js";
import { commitFiles, type FileWrite, type Repo, readHead, readText } from "./git.js";
import { apiFailure, type GitHub } from "./octokit.js";
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
  GITHUB_STATE_SCHEMA,
  type GitHubState,
  joinRepoPath,
  parseState,
  type QuestionRecord,
  type ReportRecord,
  serializeState,
  statePath,
  worklogPath,
  worklogText,
} from "./state.js";

/** Everything an event needs to know about where it runs. Built once per process. */
export interface RunContext {
  gh: GitHub;
  repo: Repo;
  /** the branch the run lives on (its state, its dispatch ref) */
  branch: string;
  /** the ticket directory, relative to the repository root */
  dir: string;
  /** the checkout's root (GITHUB_WORKSPACE): authored tickets are read from there */
  workspace: string;
  /** the orch-task workflow file */
  workflow: string;
  /** action inputs that override frontier.yml */
  flags: RunFlags;
  /** the commit this job runs at: the base of a run that starts now */
  sha: string;
  /** who claims, for the record */
  claimedBy: string;
  clock: () => number;
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
}

/** What an event sees besides the engine: the bookkeeping it may change, files it may add. */
export interface RunView {
  /** the state read from the head; undefined when the run starts with this event */
  readonly state: GitHubState | undefined;
  /** ticket id → question issue; the bot marks an answered one closed */
  questions: Record<string, QuestionRecord>;
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
  /** what the event itself did (the first event, not the follow-ups of refused dispatches) */
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
}

interface Loaded {
  settings: Settings;
  specs: readonly TicketSpec[];
}

const loadedCache = new WeakMap<RunContext, Loaded>();

/** The authored tickets of the checkout; a graph that does not hold together starts nothing. */
export async function loadSpecs(ctx: RunContext): Promise<Loaded> {
  const cached = loadedCache.get(ctx);
  if (cached) return cached;
  const dir = join(ctx.workspace, ctx.dir);
  const loaded = await loadDirectory(dir, {});
  if (loaded.kind === "invalid") {
    const errors = loaded.problems.filter((p) => p.severity === "error");
    throw new UserError(
      `${errors.length} problem${errors.length === 1 ? "" : "s"} in ${ctx.dir}: nothing was started. Fix ${errors.length === 1 ? "it" : "them"} and push again.`,
      loaded.problems.map((p) => formatProblem(p, ctx.dir)),
    );
  }
  for (const w of loaded.warnings) ctx.log(`warning: ${formatProblem(w, ctx.dir)}`);
  const out = { settings: loaded.settings, specs: loaded.specs };
  loadedCache.set(ctx, out);
  return out;
}

/**
 * The tickets an event of a run works with: the engine is built from their specs and the
 * engine fields are written into their text. Either the checkout's (when it holds the
 * run's tickets) or the ticket directory as it was at the run's `base`.
 */
interface RunSource extends Loaded {
  /** a ticket file's text (path relative to the ticket directory) */
  read(file: string): string;
  /** the checkout's authored digest, when it is the run's base to record */
  digest?: string;
}

/** Every engine field, set to be removed: what is left is the author's part. */
const NO_ENGINE_FIELDS = Object.fromEntries(
  ENGINE_FIELDS.map((k) => [k, undefined]),
) as EngineFieldValues;
const MAY_HOLD_ENGINE_FIELD = new RegExp(`\\b(?:${ENGINE_FIELDS.join("|")})\\s*:`);

/** A ticket's text without the engine-written fields (as authored); unparseable text as it is. */
function authoredText(text: string): string {
  // the YAML parse only for text that may hold an engine field: most authored files do not
  if (!MAY_HOLD_ENGINE_FIELD.test(text)) return text;
  try {
    return editFrontMatter(text, NO_ENGINE_FIELDS);
  } catch {
    return text;
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * One digest of a ticket directory as authored: every ticket file without the engine's
 * fields, and frontier.yml. The same at the run's base and on its branch however many
 * commits of state the run made; different when a ticket or the settings changed.
 */
export function authoredDigest(files: ReadonlyMap<string, string>): string {
  const hash = createHash("sha256");
  for (const name of [...files.keys()].sort()) {
    const text = files.get(name) as string;
    hash.update(`${name}\0${sha256(name === SETTINGS_FILE ? text : authoredText(text))}\n`);
  }
  return `sha256:${hash.digest("hex")}`;
}

/** The checkout's ticket files and frontier.yml, or undefined when it has no such directory. */
async function checkoutFiles(ctx: RunContext): Promise<Map<string, string> | undefined> {
  const dir = join(ctx.workspace, ctx.dir);
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const names = ticketFileNames(
    entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name),
  );
  if (entries.some((e) => e.name === SETTINGS_FILE)) names.push(SETTINGS_FILE);
  const files = new Map<string, string>();
  for (const name of names) {
    try {
      files.set(name, await readFile(join(dir, name), "utf8"));
    } catch {
      // unreadable: loadDirectory says so if these tickets are used
    }
  }
  return files;
}

const checkoutDigestCache = new WeakMap<RunContext, Promise<string | undefined>>();

function checkoutDigest(ctx: RunContext): Promise<string | undefined> {
  let digest = checkoutDigestCache.get(ctx);
  if (!digest) {
    digest = checkoutFiles(ctx).then((files) => (files ? authoredDigest(files) : undefined));
    checkoutDigestCache.set(ctx, digest);
  }
  return digest;
}

const baseSourceCache = new WeakMap<RunContext, { base: string; source: Promise<RunSource> }>();

/**
 * The run's tickets for this event. A run is pinned to its `base`: its tickets are the
 * ticket directory there. When the checkout's authored digest equals the one recorded
 * when the run started (push, settle: jobs check out `base`), the checkout is used and
 * nothing more is read. Otherwise — a comment steering a run on another branch (the
 * workflow checks out the default branch), a sweep or a workflow_run whose checkout moved
 * on — the directory is read at `base` through the API: one listing and one read per
 * ticket file, on those rare events only, once per process.
 */
export async function loadRunSource(
  ctx: RunContext,
  state: GitHubState | undefined,
): Promise<RunSource> {
  const fromCheckout = async (record: boolean): Promise<RunSource> => {
    const loaded = await loadSpecs(ctx);
    const digest = record ? await checkoutDigest(ctx) : undefined;
    return {
      ...loaded,
      read: (file) => readFileSync(join(ctx.workspace, ctx.dir, file), "utf8"),
      ...(digest ? { digest } : {}),
    };
  };
  if (!state) return fromCheckout(true);
  const base = state.run.base;
  if (!base) return fromCheckout(false);
  const recorded = state.authored_digest;
  if (recorded !== undefined ? (await checkoutDigest(ctx)) === recorded : ctx.sha === base) {
    // a run recorded before the digest was: its checkout at base gets one now
    return fromCheckout(recorded === undefined);
  }
  const cached = baseSourceCache.get(ctx);
  if (cached?.base === base) return cached.source;
  const source = loadAtBase(ctx, base);
  baseSourceCache.set(ctx, { base, source });
  source.catch(() => baseSourceCache.delete(ctx));
  return source;
}

/** Entries the contents API lists of one directory, at most. */
export const CONTENTS_LIST_MAX = 1000;

/** A directory's entries at `base` through the Git trees API (up to 100,000 entries). */
async function listTree(
  ctx: RunContext,
  base: string,
  dirPath: string,
): Promise<Array<{ name: string; type: string }>> {
  let treeSha: string | undefined;
  const cut = dirPath.lastIndexOf("/");
  if (cut > 0) {
    // the parent directory's listing names this one's tree
    const parent = (
      await ctx.gh.rest.repos.getContent({ ...ctx.repo, path: dirPath.slice(0, cut), ref: base })
    ).data;
    const name = dirPath.slice(cut + 1);
    if (Array.isArray(parent))
      treeSha = parent.find((e) => e.name === name && e.type === "dir")?.sha;
  } else {
    // the repository's root: the commit's tree (the contents API has no route for it)
    const root = (await ctx.gh.rest.git.getCommit({ ...ctx.repo, commit_sha: base })).data.tree.sha;
    if (dirPath === "") treeSha = root;
    else {
      const top = (await ctx.gh.rest.git.getTree({ ...ctx.repo, tree_sha: root })).data;
      treeSha = top.tree.find((e) => e.path === dirPath && e.type === "tree")?.sha;
    }
  }
  if (!treeSha)
    throw new UserError(`${ctx.dir} is not a directory at the run's base ${base.slice(0, 12)}`);
  const tree = (await ctx.gh.rest.git.getTree({ ...ctx.repo, tree_sha: treeSha })).data;
  if (tree.truncated) {
    throw new UserError(
      `${ctx.dir} at the run's base ${base.slice(0, 12)} has more entries than GitHub lists: move files that are not tickets out of it`,
    );
  }
  return tree.tree.map((e) => ({
    name: e.path ?? "",
    type: e.type === "blob" ? (e.mode === "120000" ? "symlink" : "file") : "dir",
  }));
}

/** The ticket directory at `base`, read through the API into a temporary directory. */
async function loadAtBase(ctx: RunContext, base: string): Promise<RunSource> {
  const dirPath = joinRepoPath(ctx.dir, "x").slice(0, -1).replace(/\/$/, "");
  let listing: unknown;
  try {
    listing =
      dirPath === ""
        ? await listTree(ctx, base, dirPath)
        : (await ctx.gh.rest.repos.getContent({ ...ctx.repo, path: dirPath, ref: base })).data;
  } catch (error) {
    if (apiFailure(error)?.status !== 404) throw error;
    listing = undefined;
  }
  if (!Array.isArray(listing)) {
    throw new UserError(
      `${ctx.dir} is not a directory at the run's base ${base.slice(0, 12)} on ${ctx.branch}: the run's tickets cannot be read. Delete ${statePath(ctx.dir)} on ${ctx.branch} to start a new run.`,
    );
  }
  let entries = listing as Array<{ name: string; type: string }>;
  // The contents API lists at most 1,000 entries of a directory: a larger one is listed
  // through its git tree (two requests more).
  if (dirPath !== "" && entries.length >= CONTENTS_LIST_MAX)
    entries = await listTree(ctx, base, dirPath);
  const names = ticketFileNames(
    entries.filter((e) => e.type === "file" || e.type === "symlink").map((e) => e.name),
  );
  if (entries.some((e) => e.name === SETTINGS_FILE && e.type === "file")) names.push(SETTINGS_FILE);
  ctx.log(
    `the checkout's tickets are not the run's (base ${base.slice(0, 12)}): reading ${names.length} file${names.length === 1 ? "" : "s"} of ${ctx.dir} at the base`,
  );
  // the same directory name as the checkout's, so a run named after it keeps its name
  const root = await mkdtemp(join(tmpdir(), "frontier-base-"));
  const dir = join(root, basename(resolve(ctx.workspace, ctx.dir)) || "frontier");
  await mkdir(dir, { recursive: true });
  const files = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++] as string;
      const text = await readText(ctx.gh, ctx.repo, joinRepoPath(ctx.dir, name), base);
      if (text === undefined) continue;
      files.set(name, text);
      await writeFile(join(dir, name), text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, names.length) }, worker));
  const loaded = await loadDirectory(dir, {});
  if (loaded.kind === "invalid") {
    const errors = loaded.problems.filter((p) => p.severity === "error");
    throw new UserError(
      `${errors.length} problem${errors.length === 1 ? "" : "s"} in ${ctx.dir} at the run's base ${base.slice(0, 12)}: nothing was changed.`,
      loaded.problems.map((p) => formatProblem(p, ctx.dir)),
    );
  }
  // tickets the checkout has and the run has not wait for the next run: say so
  const checkout = await checkoutFiles(ctx);
  const ids = new Set(loaded.specs.map((s) => s.id));
  const added = [...(checkout?.keys() ?? [])]
    .filter((n) => n !== SETTINGS_FILE && !files.has(n))
    .map(idFromFile)
    .filter((id) => !ids.has(id));
  if (added.length > 0) {
    ctx.log(
      `warning: ${added.join(", ")} ${added.length === 1 ? "was" : "were"} added after the run started at ${base.slice(0, 12)}; ${added.length === 1 ? "it runs" : "they run"} in the next run (delete ${statePath(ctx.dir)} on the branch to start one)`,
    );
  }
  return {
    settings: loaded.settings,
    specs: loaded.specs,
    read: (file) => {
      const text = files.get(file);
      if (text === undefined) throw new Error(`${file}: not in ${ctx.dir} at ${base}`);
      return text;
    },
  };
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
}

/** Run one event to completion: commit by compare-and-swap, dispatch, report. */
export async function advance(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  options: AdvanceOptions = {},
): Promise<AdvanceOutcome> {
  const first = await commitEvent(ctx, event, label, options.start !== false);
  let last = first;
  const dispatched: Dispatched[] = [];
  const refused: AdvanceOutcome["refused"] = [];
  let pending = first.claims;
  // A refused dispatch is settled as failed: one more event, which may claim a retry.
  for (let round = 0; pending.length > 0 && round < 10; round++) {
    const refusedNow: Array<{ claim: Claim; message: string }> = [];
    for (const claim of pending) {
      const res = await dispatchClaim(
        ctx.gh,
        ctx.repo,
        ctx.session,
        {
          workflow: workflowOf(ctx, last.frontier, claim.ticket),
          ref: ctx.branch,
          inputs: {
            run: last.frontier.runRecord().run,
            ticket: claim.ticket,
            attempt: String(claim.attempt),
            claim: claim.claim,
            base: last.state.run.base ?? ctx.sha,
          },
        },
        ctx.clock(),
      );
      switch (res.kind) {
        case "dispatched":
          ctx.log(
            `dispatched ${claim.ticket}#${claim.attempt}${res.runUrl ? ` → ${res.runUrl}` : ""}`,
          );
          dispatched.push(
            res.runUrl
              ? {
                  ticket: claim.ticket,
                  attempt: claim.attempt,
                  claim: claim.claim,
                  runUrl: res.runUrl,
                }
              : { ticket: claim.ticket, attempt: claim.attempt, claim: claim.claim },
          );
          break;
        case "refused":
          ctx.log(`GitHub refused to dispatch ${claim.ticket}#${claim.attempt}: ${res.message}`);
          refusedNow.push({ claim, message: res.message });
          refused.push({ ticket: claim.ticket, attempt: claim.attempt, message: res.message });
          break;
        case "unknown":
          // It may have started: dispatching again could run it twice. The claim stays;
          // if no job settles it, its lease runs out and the schedule sweep reclaims it.
          ctx.log(
            `warning: no clear answer dispatching ${claim.ticket}#${claim.attempt} (${res.message}); the claim is kept and its lease reclaims it if no job settles it`,
          );
          break;
      }
    }
    if (refusedNow.length === 0) break;
    last = await commitEvent(
      ctx,
      (frontier, now) => {
        const changed: string[] = [];
        for (const { claim, message } of refusedNow) {
          const r = frontier.settle(
            {
              ticket: claim.ticket,
              attempt: claim.attempt,
              claim: claim.claim,
              outcome: "failed",
              reason: `dispatch refused by GitHub: ${message}`,
              by: "github",
            },
            now,
          );
          if (r.kind === "ok") changed.push(...r.changed);
        }
        return { kind: "ok", changed };
      },
      "dispatch refused",
    );
    pending = last.claims;
  }

  const markdown = await showReport(ctx, last);
  return {
    result: first.result,
    dispatched,
    refused,
    frontier: last.frontier,
    state: last.state,
    receipt: last.receipt,
    markdown,
    ...((last.commit ?? first.commit) ? { commit: (last.commit ?? first.commit) as string } : {}),
    tries: first.tries,
  };
}

interface Committed {
  result: EventResult;
  claims: Claim[];
  frontier: Frontier;
  state: GitHubState;
  receipt: Receipt;
  commit?: string;
  tries: number;
}

async function commitEvent(
  ctx: RunContext,
  event: RunEvent,
  label: string,
  mayStart = true,
): Promise<Committed> {
  const maxTries = ctx.maxTries ?? 25;
  const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // Made once and reused on every try, so a lost race never opens a second issue.
  const openedQuestions = new Map<string, number>();
  let createdReport: ReportRecord | undefined;

  for (let tries = 1; ; tries++) {
    const tryStarted = Date.now();
    const head = await readHead(ctx.gh, ctx.repo, ctx.branch);
    if (!head) {
      throw new UserError(
        `branch ${ctx.branch} does not exist in ${ctx.repo.owner}/${ctx.repo.repo}: the run lives on the branch the workflow ran for — push it, or run the workflow on an existing branch`,
      );
    }
    const stateText = await readText(ctx.gh, ctx.repo, statePath(ctx.dir), head.sha);
    let state: GitHubState | undefined;
    if (stateText !== undefined) {
      const parsed = parseState(stateText, statePath(ctx.dir));
      if (parsed.kind === "bad") throw new UserError(parsed.message);
      state = parsed.state;
    }
    // A state written before the worklog moved into it: read the file once.
    let worklog = state?.worklog;
    if (state && !worklog) {
      const text = (await readText(ctx.gh, ctx.repo, worklogPath(ctx.dir), head.sha)) ?? "";
      worklog = parseWorklog(text);
    }
    if (state?.report && createdReport && createdReport.comment_id !== state.report.comment_id) {
      // Another event started the run first and its comment is the report: ours goes.
      await ctx.gh.rest.issues
        .deleteComment({ ...ctx.repo, comment_id: createdReport.comment_id })
        .catch(() => undefined);
      if (
        createdReport.on === "issue" &&
        createdReport.issue_number !== state.report.issue_number
      ) {
        // both made a tracking issue at once; only the recorded one stays open
        await ctx.gh.rest.issues
          .update({
            ...ctx.repo,
            issue_number: createdReport.issue_number,
            state: "closed",
            state_reason: "not_planned",
          })
          .catch(() => undefined);
      }
      createdReport = undefined;
    }
    const source = await loadRunSource(ctx, state);
    const { settings, specs } = source;
    const digest = state?.authored_digest ?? source.digest;
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
      const empty = frontier.snapshot();
      return {
        result: {
          kind: "rejected",
          message: `${label}: there is no run on branch ${ctx.branch} (no ${statePath(ctx.dir)}); nothing was changed. A run starts on a push of the tickets or a manual run of the frontier workflow.`,
        },
        claims: [],
        frontier,
        state: {
          schema: GITHUB_STATE_SCHEMA,
          branch: ctx.branch,
          dir: ctx.dir,
          ...empty,
          seq: 0,
          questions: {},
        },
        receipt: receiptOf(ctx, frontier, settings, now),
        tries,
      };
    }

    const files: FileWrite[] = [];
    const view: RunView = {
      state,
      questions: { ...(state?.questions ?? {}) },
      writeFile: (path, content) => files.push({ path: joinRepoPath(ctx.dir, path), content }),
    };
    const result = event(frontier, now, view);
    const claims = frontier.claimReady(now, ctx.claimedBy, ctx.claimToken);
    const changes = frontier.drainChanges();
    const runName = frontier.runRecord().run;

    // A suspended attempt opens its question issue before the commit, so the commit
    // records the issue number; made once per process however often the race is lost.
    for (const { ticket, record } of changes.attempts) {
      if (record.outcome !== "suspended") continue;
      const key = `${ticket}#${record.n}`;
      let issue =
        openedQuestions.get(key) ??
        (view.questions[ticket]?.attempt === record.n
          ? view.questions[ticket]?.issue_number
          : undefined);
      if (issue === undefined) {
        issue = await openQuestionIssue(ctx.gh, ctx.repo, {
          run: runName,
          branch: ctx.branch,
          ticket,
          title: frontier.spec(ticket)?.title ?? ticket,
          attempt: record.n,
          question: record.question ?? "(the attempt asked no question text)",
          ...(ctx.links.workflowRun ? { reportUrl: ctx.links.workflowRun } : {}),
        });
        openedQuestions.set(key, issue);
        ctx.log(`opened question issue #${issue} for ${ticket}#${record.n}`);
      }
      view.questions[ticket] = { issue_number: issue, attempt: record.n };
    }

    const nothingChanged =
      state !== undefined &&
      changes.tickets.length === 0 &&
      changes.attempts.length === 0 &&
      changes.answers.length === 0 &&
      changes.log.length === 0 &&
      !changes.run &&
      files.length === 0 &&
      JSON.stringify(view.questions) === JSON.stringify(state.questions);
    if (nothingChanged && state) {
      await closeOrphanQuestions(ctx, openedQuestions, view.questions);
      return {
        result,
        claims: [],
        frontier,
        state,
        receipt: receiptOf(ctx, frontier, settings, now),
        tries,
      };
    }

    let report = state?.report;
    if (!report && ctx.report !== false) {
      report =
        createdReport ??
        (await startReport(ctx, runName, frontier, settings, now, (state?.seq ?? 0) + 1));
      createdReport = report;
    }

    const next: GitHubState = {
      schema: GITHUB_STATE_SCHEMA,
      branch: ctx.branch,
      dir: ctx.dir,
      ...frontier.snapshot(),
      seq: (state?.seq ?? 0) + 1,
      questions: view.questions,
      ...(report ? { report } : {}),
      worklog: [...(worklog ?? []), ...changes.log],
      ...(digest ? { authored_digest: digest } : {}),
    };
    // the run's own ticket text (at base), so front matter never carries another branch's
    const edits = planWrites(changes, frontier, source.read);
    for (const edit of edits) {
      const path = joinRepoPath(ctx.dir, edit.path);
      if (path === worklogPath(ctx.dir)) {
        files.push({ path, content: worklogText(next.worklog ?? []) });
      } else if (edit.kind === "append") {
        const before = (await readText(ctx.gh, ctx.repo, path, head.sha)) ?? "";
        files.push({ path, content: joinLines(before, edit.content) });
      } else {
        files.push({ path, content: edit.content });
      }
    }
    files.push({ path: statePath(ctx.dir), content: serializeState(next) });

    const committed = await commitFiles(
      ctx.gh,
      ctx.repo,
      ctx.branch,
      head,
      mergeWrites(files),
      commitMessage(runName, label, changes.log.length, claims),
    );
    if (committed.kind === "ok") {
      if (tries > 1) ctx.log(`${label}: recorded after ${tries} tries (the branch moved under us)`);
      await closeOrphanQuestions(ctx, openedQuestions, view.questions);
      return {
        result,
        claims,
        frontier,
        state: next,
        receipt: receiptOf(ctx, frontier, settings, now),
        commit: committed.sha,
        tries,
      };
    }
    if (tries >= maxTries) {
      throw new Error(
        `${label}: the branch ${ctx.branch} kept moving; gave up after ${tries} tries. Nothing was dispatched; the next event records it.`,
      );
    }
    const tryMs = Math.max(ctx.backoffMs ?? 250, Date.now() - tryStarted);
    const window = Math.min(30_000, tryMs * 2 ** Math.min(tries, 6));
    await sleep(Math.random() * window);
  }
}

const warnedAdded = new WeakSet<RunContext>();

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
  if (!warnedAdded.has(ctx)) {
    warnedAdded.add(ctx);
    ctx.log(
      `warning: ${[...added].join(", ")} ${added.size === 1 ? "was" : "were"} added after the run started at ${state.run.base?.slice(0, 12) ?? "its base"}; ${added.size === 1 ? "it runs" : "they run"} in the next run (delete ${statePath(ctx.dir)} on the branch to start one)`,
    );
  }
  return kept;
}

/**
 * A question issue this process opened on a try that lost its race, for an attempt the
 * winning event recorded (with its own issue): closed, so each question has one issue.
 */
async function closeOrphanQuestions(
  ctx: RunContext,
  opened: ReadonlyMap<string, number>,
  recorded: Record<string, QuestionRecord>,
): Promise<void> {
  for (const [key, issue] of opened) {
    const ticket = key.slice(0, key.lastIndexOf("#"));
    if (recorded[ticket]?.issue_number === issue) continue;
    await ctx.gh.rest.issues
      .update({ ...ctx.repo, issue_number: issue, state: "closed", state_reason: "not_planned" })
      .catch(() => undefined);
  }
}

function parseWorklog(text: string): WorklogEntry[] {
  const out: WorklogEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed = WorklogEntry.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // a line that is not JSON is not ours to keep
    }
  }
  return out;
}

/** Two edits of one path in one commit (e.g. two appends) collapse into the last. */
function mergeWrites(files: FileWrite[]): FileWrite[] {
  const byPath = new Map<string, FileWrite>();
  for (const f of files) byPath.set(f.path, f);
  return [...byPath.values()];
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

function workflowOf(ctx: RunContext, frontier: Frontier, ticket: string): string {
  const executor = frontier.spec(ticket)?.executor;
  // An executor that names a workflow file (`*.yml`/`*.yaml`) is dispatched as that
  // workflow; anything else (a local command name) runs through the default workflow.
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
    ...(settings.goal ? { goal: settings.goal } : {}),
  });
  const links: NonNullable<Receipt["links"]> = { ...(receipt.links ?? {}) };
  if (ctx.links.workflowRun) links.workflow_run = ctx.links.workflowRun;
  if (ctx.links.repository) links.repository = ctx.links.repository;
  if (ctx.links.htmlReport) links.html_report = ctx.links.htmlReport;
  return Object.keys(links).length > 0 ? { ...receipt, links } : receipt;
}

export function renderReport(ctx: RunContext, receipt: Receipt, seq: number): string {
  const tail = `\n${seqLine(seq)}`;
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
async function startReport(
  ctx: RunContext,
  run: string,
  frontier: Frontier,
  settings: Settings,
  now: number,
  seq: number,
): Promise<ReportRecord> {
  const target = await findReportTarget(ctx.gh, ctx.repo, ctx.branch, run, ctx.links.workflowRun);
  const found = await findReportComment(ctx.gh, ctx.repo, target.issue_number, run);
  if (found)
    return {
      issue_number: target.issue_number,
      on: target.on,
      comment_id: found.id,
      login: found.login,
    };
  const body = renderReport(ctx, receiptOf(ctx, frontier, settings, now), seq);
  const record = await createReportComment(ctx.gh, ctx.repo, target, body, run);
  ctx.log(`report comment posted on #${record.issue_number}`);
  return record;
}

async function showReport(ctx: RunContext, last: Committed): Promise<string> {
  const markdown = renderReport(ctx, last.receipt, last.state.seq);
  const record = last.state.report;
  if (ctx.report === false || !record || last.commit === undefined) return markdown;
  const res = await updateReportComment(ctx.gh, ctx.repo, record, markdown, last.state.seq);
  if (res === "gone") {
    // Someone deleted it: post it again; the next commit of state records the new id.
    const again = await findReportComment(
      ctx.gh,
      ctx.repo,
      record.issue_number,
      last.state.run.run,
      record.login,
    );
    if (!again) await createReportComment(ctx.gh, ctx.repo, record, markdown, last.state.run.run);
  }
  return markdown;
}
