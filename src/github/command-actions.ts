/**
 * What each bot command does once it is parsed and allowed (`/answer`, `/retry`, `/cancel`,
 * `/status`), and the reactions, replies and issue closes it answers with; commands.ts
 * reads the comment and routes it here.
 */
import type { EventResult, Frontier } from "../core/engine.js";
import { mdCode } from "../report/escape.js";
import { GITHUB_COMMENT_MAX, renderMarkdown } from "../report/markdown.js";
import { refusalWords } from "../report/refusals.js";
import { answerFile } from "../tickets/layout.js";
import { type AdvanceOutcome, advance, readRun } from "./advance.js";
import type { Command, QuestionMarker } from "./command-parse.js";
import { workflowFor } from "./decide.js";
import { findClaimRuns, runIdOf } from "./dispatch.js";
import { closeIssue, receiptOf } from "./effects.js";
import { apiFailure, describeApiError } from "./octokit.js";
import {
  alreadyAnswered,
  answered,
  answerNeedsTicket,
  type CancelledRun,
  cancelled,
  engineSaid,
  failedToApply,
  feedbackRecorded,
  notSuspended,
  type OpenQuestion,
  parseError,
  replyBody,
  retried,
  statusReply,
  unknownTicket,
  who,
} from "./replies.js";
import type { RunContext, RunEvent, RunView } from "./run-context.js";
import { joinRepoPath, statePath } from "./state.js";

export type CommandOutcome =
  | { kind: "answered"; ticket: string; attempt: number; closedIssue?: number }
  | { kind: "retried"; ticket: string }
  | { kind: "cancelled"; tickets: string[]; runs: CancelledRun[] }
  | { kind: "status" }
  | { kind: "failed"; command: Command["kind"]; message: string };

type Reaction = "eyes" | "+1" | "confused";

export interface Here {
  issue: number;
  commentUrl?: string;
  /** set when the comment is on a question issue the action opened (`issue` is that issue) */
  question?: QuestionMarker;
}

export interface Done {
  outcome: CommandOutcome;
  section: string;
}

export async function runCommand(ctx: RunContext, command: Command, login: string, here: Here) {
  try {
    switch (command.kind) {
      case "error":
        return failed(command.kind, parseError(command.command, command.line, command.message));
      case "answer":
        return await answerCommand(ctx, command, login, here);
      case "retry":
        return await retryCommand(ctx, command, login);
      case "cancel":
        return await cancelCommand(ctx, login);
      case "status":
        return await statusCommand(ctx);
    }
  } catch (error) {
    const message = describeApiError(error);
    ctx.log(`/${command.kind === "error" ? command.command : command.kind} failed: ${message}`);
    return failed(command.kind, failedToApply(message));
  }
}

export function failed(command: Command["kind"], section: string): Done {
  return { outcome: { kind: "failed", command, message: section }, section };
}

/** The issue of `ticket`'s question on `attempt`, while it is open. */
function questionIssue(view: Pick<RunView, "questions">, ticket: string, attempt: number) {
  const q = view.questions[ticket];
  return q?.attempt === attempt && !q.closed ? q.issue_number : undefined;
}

/** The tickets waiting on a question, with their issues where the action opened one. */
function openQuestions(frontier: Frontier, view: Pick<RunView, "questions">): OpenQuestion[] {
  return frontier.specs().flatMap(({ id }) => {
    const s = frontier.state(id);
    return s?.status === "suspended"
      ? [{ ticket: id, issue: questionIssue(view, id, s.attempt) }]
      : [];
  });
}

type Reject = (message: string) => EventResult;

/**
 * A command's event through advance(), with base.json read in the same query (a comment's
 * checkout is seldom the run's base). `reject` is for refusals the bot words itself
 * (markdown, outside text already escaped); the engine's plain-text ones are escaped on
 * the way out (`refused`).
 */
async function apply(
  ctx: RunContext,
  label: string,
  touches: string[],
  event: (...args: [...Parameters<RunEvent>, Reject]) => EventResult,
): Promise<AdvanceOutcome & { refused?: string }> {
  let mine: string | undefined;
  const reject: Reject = (message) => {
    mine = message;
    return { kind: "rejected", why: { code: "said", text: message } };
  };
  const run: RunEvent = (frontier, now, view) => {
    mine = undefined;
    return event(frontier, now, view, reject);
  };
  const outcome = await advance(ctx, run, label, { readBase: true, touches });
  const r = outcome.result;
  if (r.kind === "ok") return outcome;
  const said = refusalWords(r.why);
  return { ...outcome, refused: said === mine ? mine : engineSaid(said) };
}

const idsOf = (frontier: Frontier) => frontier.specs().map((s) => s.id);

async function answerCommand(
  ctx: RunContext,
  command: Extract<Command, { kind: "answer" }>,
  login: string,
  here: Here,
): Promise<Done> {
  const named = command.ticket ?? here.question?.ticket;
  // On the ticket's own question issue the answer is to the question that issue
  // asked; anywhere else, to the ticket's open question.
  const asked = here.question?.ticket === named ? here.question : undefined;
  let note: { ticket: string; attempt: number; file?: string; issue?: number } | undefined;
  const label = `answer ${named ?? "?"} by ${login}`;
  const outcome = await apply(ctx, label, named ? [named] : [], (frontier, now, view, reject) => {
    note = undefined;
    const open = () => openQuestions(frontier, view);
    if (named === undefined) return reject(answerNeedsTicket(open()));
    const s = frontier.state(named);
    if (!s) {
      const hint = here.question
        ? ""
        : " Outside a question issue, `/answer` starts with the ticket: `/answer TICKET TEXT`.";
      return reject(unknownTicket(named, idsOf(frontier)) + hint);
    }
    const attempt = asked ? asked.attempt : s.attempt;
    const prior = s.answers.find((a) => a.attempt === attempt);
    if (prior && prior.by === login && prior.text === command.text) {
      // The same comment again (a re-run job, a redelivered event): already recorded.
      note = { ticket: named, attempt };
      return { kind: "stale", why: { code: "said", text: "already recorded" } };
    }
    if (prior) return reject(alreadyAnswered(named, attempt, prior.by, s, open()));
    if (s.status !== "suspended") return reject(notSuspended(named, s.status, open()));
    if (attempt !== s.attempt) {
      const issue = questionIssue(view, named, s.attempt);
      return reject(
        `This issue asked the question of ${mdCode(named)} attempt ${attempt}; ${mdCode(named)} is now suspended on attempt ${s.attempt}` +
          `${issue === undefined ? "" : ` (#${issue})`}: answer that question with \`/answer ${named} TEXT\`.`,
      );
    }
    const result = frontier.answer(named, command.text, login, now);
    if (result.kind !== "ok") return result;
    const answers = frontier.state(named)!.answers;
    const file = joinRepoPath(ctx.dir, answerFile(named, answers.at(-1)?.n ?? answers.length));
    const q = view.questions[named];
    const closes = q?.attempt === attempt;
    if (closes) view.questions[named] = { ...q, closed: true };
    note = { ticket: named, attempt, file, issue: closes ? q.issue_number : asked && here.issue };
    return result;
  });
  if (note && outcome.result.kind === "stale") {
    return {
      outcome: { kind: "answered", ticket: note.ticket, attempt: note.attempt },
      section: `This answer to \`${note.ticket}\` (the question of attempt ${note.attempt}) was already recorded; nothing changed.`,
    };
  }
  if (outcome.refused !== undefined || !note) return failed("answer", outcome.refused ?? "");
  const { ticket, attempt, file, issue } = note;
  const next = outcome.frontier.state(ticket);
  const runLink =
    outcome.dispatched.find((d) => d.ticket === ticket)?.runUrl ?? ctx.links.workflowRun;
  let section = answered(ticket, attempt, file, {
    status: next?.status ?? "ready",
    attempt: next?.attempt ?? attempt,
  });
  if (runLink) section += ` [The run](${runLink}).`;
  // Answered elsewhere: the question issue hears about it and is closed now; answered
  // on the issue itself, the reply is posted there and the caller closes it after.
  if (issue !== undefined && issue !== here.issue) {
    const by = here.commentUrl ? `[answered](${here.commentUrl})` : "answered";
    await reply(ctx, issue, [`${by} by ${who(login)}. ${section}`]);
    await closeIssue(ctx, issue);
  }
  return { outcome: { kind: "answered", ticket, attempt, closedIssue: issue }, section };
}

async function retryCommand(
  ctx: RunContext,
  command: Extract<Command, { kind: "retry" }>,
  login: string,
): Promise<Done> {
  const { ticket, feedback } = command;
  let ran: string[] = [];
  let note: number | undefined;
  const label = `retry ${ticket} by ${login}`;
  const outcome = await apply(ctx, label, [ticket], (frontier, now, _, reject) => {
    note = undefined;
    if (!frontier.spec(ticket)) return reject(unknownTicket(ticket, idsOf(frontier)));
    // read before the retry: the dependents that already ran on the result it replaces
    ran = feedback !== undefined ? frontier.ranDependents(ticket) : [];
    const result = frontier.retry(ticket, login, now, feedback);
    if (result.kind === "ok" && feedback !== undefined)
      note = frontier.state(ticket)?.answers.at(-1)?.n;
    return result;
  });
  if (outcome.result.kind !== "ok") return failed("retry", outcome.refused ?? "");
  const next = outcome.frontier.state(ticket);
  const reopened = outcome.result.changed.filter((id) => {
    if (id === ticket) return false;
    const st = outcome.frontier.state(id)?.status;
    return st === "pending" || st === "ready" || st === "claimed";
  });
  let section = retried(
    ticket,
    { status: next?.status ?? "ready", attempt: next?.attempt ?? 0 },
    reopened,
  );
  if (note !== undefined)
    section += ` ${feedbackRecorded(joinRepoPath(ctx.dir, answerFile(ticket, note)), ran)}`;
  return { outcome: { kind: "retried", ticket }, section };
}

interface LiveClaim {
  ticket: string;
  runUrl: string | undefined;
  /** its claim token, to look for its run by in its workflow's runs since it was claimed */
  claim: { claim: string; workflow: string; since: number } | undefined;
}

async function cancelCommand(ctx: RunContext, login: string): Promise<Done> {
  let live: LiveClaim[] = [];
  let questions: number[] = [];
  const outcome = await apply(ctx, `cancel by ${login}`, [], (frontier, now, view) => {
    questions = [];
    // What is running now, read before the cancel ends it: the claim token finds the
    // GitHub run when the dispatch did not record its id.
    live = frontier.claimedIds().map((id) => {
      const s = frontier.state(id)!;
      const attempt = s.attempts.at(-1);
      const claim = s.claim ?? attempt?.claim;
      const since = Date.parse(s.claimed_at ?? attempt?.started_at ?? "") || now;
      const workflow = workflowFor(ctx, frontier, id);
      return {
        ticket: id,
        runUrl: attempt?.run_url,
        claim: claim ? { claim, workflow, since } : undefined,
      };
    });
    const result = frontier.cancel(login, now);
    if (result.kind !== "ok") return result;
    for (const [ticket, q] of Object.entries(view.questions)) {
      if (q.closed) continue;
      view.questions[ticket] = { ...q, closed: true };
      if (q.issue_number !== undefined) questions.push(q.issue_number);
    }
    return result;
  });
  if (outcome.result.kind !== "ok") return failed("cancel", outcome.refused ?? "");
  // Only after the cancel is committed: a job that settles now is told its attempt is
  // no longer live, whether or not its run was stopped in time.
  const runs = await cancelRuns(ctx, live);
  for (const issue of questions) {
    await reply(ctx, issue, [
      `The run was cancelled by ${who(login)}; this question no longer needs an answer.`,
    ]);
    await closeIssue(ctx, issue, "not_planned");
  }
  const tickets = outcome.result.changed.filter(
    (id) => outcome.frontier.state(id)?.status === "cancelled",
  );
  return {
    outcome: { kind: "cancelled", tickets, runs },
    section: cancelled(login, tickets, runs),
  };
}

async function cancelRuns(ctx: RunContext, live: readonly LiveClaim[]): Promise<CancelledRun[]> {
  // Runs whose id was not recorded: found by the claim token in their run-name, one
  // listing per workflow, however many tickets were live.
  const claims = live.flatMap((c) => (runIdOf(c.runUrl) === undefined && c.claim ? [c.claim] : []));
  const found = await findClaimRuns(ctx.gh, ctx.repo, claims, (workflow) => ({
    pages: 5,
    slackMs: 5 * 60_000,
    openOnly: true,
    // The run is cancelled in the state either way: a job still running is told,
    // when it settles, that its attempt is no longer live.
    onError: (error) =>
      ctx.log(`could not list the runs of ${workflow} to cancel them: ${describeApiError(error)}`),
  }));
  const out: CancelledRun[] = [];
  for (const { ticket, runUrl, claim } of live) {
    const recorded = runIdOf(runUrl);
    const t =
      recorded !== undefined ? { id: recorded, url: runUrl } : found.get(claim?.claim ?? "");
    if (!t) continue;
    try {
      await ctx.gh.rest.actions.cancelWorkflowRun({ ...ctx.repo, run_id: t.id });
      out.push({ ticket, ...t, cancelled: true });
    } catch (error) {
      // 409: the run had already finished — nothing left to stop.
      const f = apiFailure(error);
      const message = f?.status === 409 ? "it had already finished" : describeApiError(error);
      out.push({ ticket, ...t, cancelled: false, message });
      ctx.log(`could not cancel run ${t.id} of ${ticket}: ${message}`);
    }
  }
  return out;
}

async function statusCommand(ctx: RunContext): Promise<Done> {
  // Read-only: the summary of the state at the head of the run's branch, with the run's
  // own tickets (its base.json, read in the same query: a comment's checkout is the
  // default branch). Asking for the status commits nothing and dispatches nothing.
  const run = await readRun(ctx);
  if (!run)
    return failed("status", failedToApply(`no ${statePath(ctx.dir)} of a run on ${ctx.branch}`));
  // the receipt carries the links to this workflow run and its HTML report
  const summary = renderMarkdown(receiptOf(ctx, run.frontier, run.settings), {
    marker: "ticket-frontier:status",
    maxChars: 12_000,
  });
  return { outcome: { kind: "status" }, section: statusReply(summary, GITHUB_COMMENT_MAX - 4_000) };
}

/**
 * A reaction, a reply (and, in effects.ts, an issue closed): a courtesy around what the command did, whose
 * failure changes nothing else. Logged, never thrown.
 */
async function courtesy(ctx: RunContext, what: string, request: () => Promise<unknown>) {
  await request().catch((error) => ctx.log(`could not ${what}: ${describeApiError(error)}`));
}

export async function react(ctx: RunContext, commentId: number, content: Reaction): Promise<void> {
  await courtesy(ctx, `react ${content} to comment ${commentId}`, () =>
    ctx.gh.rest.reactions.createForIssueComment({ ...ctx.repo, comment_id: commentId, content }),
  );
}

export async function reply(ctx: RunContext, issue: number, sections: readonly string[]) {
  const body = replyBody(sections);
  await courtesy(ctx, `reply on #${issue}`, () =>
    ctx.gh.rest.issues.createComment({ ...ctx.repo, issue_number: issue, body }),
  );
}
