/**
 * What each bot command does once it is parsed and allowed (`/answer`, `/retry`, `/cancel`,
 * `/status`), and the reactions, replies and issue closes it answers with; commands.ts
 * reads the comment and routes it here.
 */
import type { EventResult, Frontier } from "../core/engine.js";
import { mdId } from "../report/escape.js";
import { GITHUB_COMMENT_MAX, renderMarkdown } from "../report/markdown.js";
import { answerFile } from "../tickets/layout.js";
import { advance, readRun } from "./advance.js";
import type { Command, QuestionMarker } from "./command-parse.js";
import { workflowFor } from "./decide.js";
import { runIdOf } from "./dispatch.js";
import { receiptOf } from "./effects.js";
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
import { findClaimRuns } from "./sweep.js";

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

export async function runCommand(
  ctx: RunContext,
  command: Command,
  login: string,
  here: Here,
): Promise<Done> {
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
      default: {
        const never: never = command;
        throw new Error(`unhandled command ${JSON.stringify(never)}`);
      }
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

/** The tickets waiting on a question, with their issues where the action opened one. */
function openQuestions(frontier: Frontier, view: Pick<RunView, "questions">): OpenQuestion[] {
  return frontier.specs().flatMap(({ id }) => {
    const s = frontier.state(id);
    if (s?.status !== "suspended") return [];
    const q = view.questions[id];
    return [
      { ticket: id, issue: q?.attempt === s.attempt && !q.closed ? q.issue_number : undefined },
    ];
  });
}

function ticketIds(frontier: Frontier): string[] {
  return frontier.specs().map((s) => s.id);
}

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
  const refusals = new Refusals();
  const event: RunEvent = (frontier, now, view) => {
    note = undefined;
    if (named === undefined)
      return refusals.reject(answerNeedsTicket(openQuestions(frontier, view)));
    const s = frontier.state(named);
    if (!s) {
      const hint = here.question
        ? ""
        : " Outside a question issue, `/answer` starts with the ticket: `/answer TICKET TEXT`.";
      return refusals.reject(unknownTicket(named, ticketIds(frontier)) + hint);
    }
    const attempt = asked ? asked.attempt : s.attempt;
    const prior = s.answers.find((a) => a.attempt === attempt);
    if (prior && prior.by === login && prior.text === command.text) {
      // The same comment again (a re-run job, a redelivered event): already recorded.
      note = { ticket: named, attempt };
      return { kind: "stale", message: "already recorded" };
    }
    const open = () => openQuestions(frontier, view);
    if (prior) return refusals.reject(alreadyAnswered(named, attempt, prior.by, s, open()));
    if (s.status !== "suspended") return refusals.reject(notSuspended(named, s.status, open()));
    const q = view.questions[named];
    if (attempt !== s.attempt)
      return refusals.reject(
        `This issue asked the question of ${mdId(named)} attempt ${attempt}; ${mdId(named)} is now suspended on attempt ${s.attempt}` +
          `${q?.attempt === s.attempt && q.issue_number !== undefined ? ` (#${q.issue_number})` : ""}: answer that question with \`/answer ${named} TEXT\`.`,
      );
    const result = frontier.answer(named, command.text, login, now);
    if (result.kind !== "ok") return result;
    const answers = frontier.state(named)!.answers;
    const n = answers.at(-1)?.n ?? answers.length;
    const file = joinRepoPath(ctx.dir, answerFile(named, n));
    const closes = q?.attempt === attempt;
    if (closes) view.questions[named] = { ...q, closed: true };
    note = { ticket: named, attempt, file, issue: closes ? q.issue_number : asked && here.issue };
    return result;
  };
  const outcome = await advance(ctx, event, `answer ${named ?? "?"} by ${login}`, {
    readBase: true,
    touches: named === undefined ? [] : [named],
  });
  if (note && outcome.result.kind === "stale") {
    return {
      outcome: { kind: "answered", ticket: note.ticket, attempt: note.attempt },
      section: `This answer to \`${note.ticket}\` (the question of attempt ${note.attempt}) was already recorded; nothing changed.`,
    };
  }
  if (outcome.result.kind !== "ok" || !note) return failed("answer", refusals.text(outcome.result));
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
  const refusals = new Refusals();
  const event: RunEvent = (frontier, now) => {
    note = undefined;
    if (!frontier.spec(ticket)) return refusals.reject(unknownTicket(ticket, ticketIds(frontier)));
    // read before the retry: the dependents that already ran on the result it replaces
    ran = feedback !== undefined ? frontier.ranDependents(ticket) : [];
    const result = frontier.retry(ticket, login, now, feedback);
    if (result.kind === "ok" && feedback !== undefined)
      note = frontier.state(ticket)?.answers.at(-1)?.n;
    return result;
  };
  const outcome = await advance(ctx, event, `retry ${ticket} by ${login}`, {
    readBase: true,
    touches: [ticket],
  });
  if (outcome.result.kind !== "ok") return failed("retry", refusals.text(outcome.result));
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
  const event: RunEvent = (frontier, now, view) => {
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
  };
  const outcome = await advance(ctx, event, `cancel by ${login}`, { readBase: true });
  if (outcome.result.kind !== "ok") return failed("cancel", new Refusals().text(outcome.result));
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
  const unknown = live.filter((c) => runIdOf(c.runUrl) === undefined && c.claim);
  const claims = unknown.map((c) => c.claim!);
  const found = await findClaimRuns(ctx.gh, ctx.repo, claims, (workflow) => ({
    pages: 5,
    slackMs: 5 * 60_000,
    openOnly: true,
    // The run is cancelled in the state either way: a job still running is told,
    // when it settles, that its attempt is no longer live.
    onError: (error) =>
      ctx.log(`could not list the runs of ${workflow} to cancel them: ${describeApiError(error)}`),
  }));
  const targets = [
    ...live.flatMap((c) => {
      const id = runIdOf(c.runUrl);
      return id === undefined ? [] : [{ ticket: c.ticket, id, url: c.runUrl }];
    }),
    ...unknown.flatMap((c) => {
      const run = found.get(c.claim!.claim);
      return run ? [{ ticket: c.ticket, id: run.id, url: run.url }] : [];
    }),
  ];
  const out: CancelledRun[] = [];
  for (const t of targets) {
    try {
      await ctx.gh.rest.actions.cancelWorkflowRun({ ...ctx.repo, run_id: t.id });
      out.push({ ...t, cancelled: true });
    } catch (error) {
      // 409: the run had already finished — nothing left to stop.
      const f = apiFailure(error);
      const message = f?.status === 409 ? "it had already finished" : describeApiError(error);
      out.push({ ...t, cancelled: false, message });
      ctx.log(`could not cancel run ${t.id} of ${t.ticket}: ${message}`);
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
  const summary = renderMarkdown(receiptOf(ctx, run.frontier, run.settings, ctx.clock()), {
    marker: "ticket-frontier:status",
    maxChars: 12_000,
  });
  return { outcome: { kind: "status" }, section: statusReply(summary, GITHUB_COMMENT_MAX - 4_000) };
}

/**
 * Refusals the bot words itself (markdown, every piece of outside text already
 * escaped), told apart from the engine's plain-text ones, which are escaped on the way
 * out.
 */
class Refusals {
  private mine = new Set<string>();
  reject(message: string): EventResult {
    this.mine.add(message);
    return { kind: "rejected", message };
  }
  text(result: EventResult): string {
    if (result.kind === "ok") return "";
    return this.mine.has(result.message) ? result.message : engineSaid(result.message);
  }
}

/**
 * A reaction, a reply, an issue closed: a courtesy around what the command did, whose
 * failure changes nothing else. Logged, never thrown.
 */
async function courtesy(ctx: RunContext, what: string, request: () => Promise<unknown>) {
  try {
    await request();
  } catch (error) {
    ctx.log(`could not ${what}: ${describeApiError(error)}`);
  }
}

export async function react(ctx: RunContext, commentId: number, content: Reaction): Promise<void> {
  await courtesy(ctx, `react ${content} to comment ${commentId}`, () =>
    ctx.gh.rest.reactions.createForIssueComment({ ...ctx.repo, comment_id: commentId, content }),
  );
}

export async function reply(ctx: RunContext, issue: number, sections: readonly string[]) {
  if (sections.length === 0) return;
  const body = replyBody(sections);
  await courtesy(ctx, `reply on #${issue}`, () =>
    ctx.gh.rest.issues.createComment({ ...ctx.repo, issue_number: issue, body }),
  );
}

export async function closeIssue(
  ctx: RunContext,
  issue: number,
  reason: "completed" | "not_planned" = "completed",
): Promise<void> {
  await courtesy(ctx, `close question issue #${issue}`, () =>
    ctx.gh.rest.issues.update({
      ...ctx.repo,
      issue_number: issue,
      state: "closed",
      state_reason: reason,
    }),
  );
}
