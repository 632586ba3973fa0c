/**
 * What an event performs once its outcome is on the branch: dispatch the claims, open
 * the question issues, post or refresh the report comment. Each is idempotent (found by
 * its marker or claim token before it is made again), each that fails is left for the
 * next event with a warning, and none is undone by a later lost race. What they learn
 * (an issue's number, a comment's id, a dispatch GitHub refused or did not start) is
 * one more small event for the state.
 */
import { DEFAULTS } from "../core/constants.js";
import type { Frontier } from "../core/engine.js";
import type { Receipt, Settings } from "../core/model.js";
import { GITHUB_COMMENT_MAX, renderMarkdown } from "../report/markdown.js";
import { buildReceipt } from "../report/receipt.js";
import { plural } from "../report/states.js";
import type { Send } from "./decide.js";
import { dispatchClaim, dispatchWorkflow } from "./dispatch.js";
import {
  budgetWords,
  describeApiError,
  describeError,
  isTransient,
  type RateLimitSpent,
  rateLimitOf,
} from "./octokit.js";
import { markUnsent, seen } from "./outbox.js";
import { openQuestionIssue } from "./questions.js";
import type { Recorded } from "./record.js";
import { placeReport, reportMarker, seqLine, updateReportComment } from "./report-comment.js";
import type { RunContext, RunEvent } from "./run-context.js";
import type { ReportRecord } from "./state.js";

/** A dispatch made by this event. */
export type Dispatched = Send & { runUrl?: string };

/**
 * An orch-task job's timeout in minutes: its ticket's lease (the bound), so a job never
 * outlives its claim and a longer bound is never cut at a fixed hour. GitHub allows at
 * most 6 hours on its own runners and 5 days on self-hosted ones.
 */
export function jobMinutes(leaseMs: number | undefined): number {
  return Math.min(7_200, Math.max(1, Math.ceil((leaseMs ?? DEFAULTS.leaseMs) / 60_000)));
}

/** How long a recorded question waits for its own event to open its issue before another does. */
const QUESTION_GRACE_MS = 60_000;

/** What the effects learned that the state must record, as one more event. */
export interface Learned {
  event: RunEvent;
  label: string;
  /** once the event is recorded */
  after?: () => Promise<void>;
}

/** A claim's dispatch this event made, by what GitHub answered. */
interface Sent {
  refused: Array<{ send: Send; message: string }>;
  started: Array<Send & { runId: number }>;
  /** GitHub answered that it started nothing (a spent budget): sent again by the next event */
  notStarted: Send[];
  spent?: RateLimitSpent;
}

/**
 * Optional work (`what`) GitHub refused or did not answer is left to the next event, said
 * in `deferred` ("… (why): `done` by the next event"); any other error is a bug of ours
 * and is thrown.
 */
function deferOrThrow(
  ctx: RunContext,
  deferred: string[],
  error: unknown,
  what: string,
  done: string,
): void {
  if (!rateLimitOf(error) && !isTransient(error)) throw error;
  deferred.push(`${what} (${describeError(error, ctx.clock())}): ${done} by the next event`);
}

export async function performEffects(
  ctx: RunContext,
  last: Recorded,
  sends: readonly Send[],
  dispatched: Dispatched[],
  deferred: string[],
): Promise<Learned | undefined> {
  // The report comment first: the page never sits silent while the jobs run.
  let report: ReportRecord | undefined;
  // posted by an event that recorded something; one that changed nothing leaves it to that one
  if (!last.state.report && last.commit !== undefined) {
    try {
      const placed = await placeReport(ctx, last.state.run.run, () =>
        renderReport(ctx, receiptOf(ctx, last.frontier, last.settings), last.state.seq),
      );
      report = placed.record;
      if (placed.posted) ctx.log(`report comment posted on #${report.issue_number}`);
    } catch (error) {
      deferOrThrow(ctx, deferred, error, "the report comment", "posted");
    }
  }
  const sent = await sendClaims(ctx, last, sends, dispatched);
  if (last.ci && last.commit !== undefined) {
    // once: the commit that ended the run recorded it, and only its event dispatches it
    const ci = `the CI workflow ${last.ci} on ${ctx.branch}`;
    try {
      const refusedCi = await dispatchWorkflow(ctx.gh, ctx.repo, last.ci, ctx.branch);
      if (refusedCi === undefined) ctx.log(`dispatched ${last.ci} on ${ctx.branch}: the run ended`);
      else deferred.push(`${ci} was not started: ${refusedCi}`);
    } catch (error) {
      deferred.push(`${ci} (${describeError(error, ctx.clock())}): not started`);
    }
  }
  if (sent.notStarted.length > 0) {
    deferred.push(
      `${plural(sent.notStarted.length, "dispatch", "dispatches")} (${sent.notStarted.map((s) => s.ticket).join(", ")}) not made: ${budgetWords(sent.spent, ctx.clock())}; the claims are recorded and sent by the next event or the scheduled sweep`,
    );
  }
  const opened = await openQuestions(ctx, last, deferred);
  if (sent.refused.length === 0 && sent.notStarted.length === 0 && opened.size === 0 && !report)
    return undefined;
  return learnedOf(ctx, sent, opened, report);
}

/** Dispatch this event's claims; those GitHub started are added to `dispatched`. */
async function sendClaims(
  ctx: RunContext,
  last: Recorded,
  sends: readonly Send[],
  dispatched: Dispatched[],
): Promise<Sent> {
  const sent: Sent = { refused: [], started: [], notStarted: [] };
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
            run: last.state.run.run,
            ticket: send.ticket,
            attempt: String(send.attempt),
            claim: send.claim,
            base: last.state.run.base ?? ctx.sha,
            // the commit that recorded the claim (or, for a resend, this event's: it holds
            // everything that one held) — the job checks it out
            ref: last.commit ?? last.head,
            timeout: String(jobMinutes(last.frontier.leaseMsOf(send.ticket))),
          },
        },
        ctx.clock(),
      );
    } catch (error) {
      const limit = rateLimitOf(error);
      if (!limit) throw error;
      // GitHub answered that it started nothing: sent again by the next event
      sent.notStarted.push(send);
      sent.spent ??= limit;
      continue;
    }
    const name = `${send.ticket}#${send.attempt}`;
    switch (res.kind) {
      case "dispatched":
        ctx.log(`dispatched ${name}${res.runUrl ? ` → ${res.runUrl}` : ""}`);
        if (res.runId !== undefined) sent.started.push({ ...send, runId: res.runId });
        dispatched.push({ ...send, runUrl: res.runUrl });
        break;
      case "refused":
        ctx.log(`GitHub refused to dispatch ${name}: ${res.message}`);
        sent.refused.push({ send, message: res.message });
        break;
      case "unknown":
        // It may have started: sending it again could run it twice. The outbox looks
        // for a run carrying its token once the listing has caught up, and only then
        // sends it again.
        ctx.log(
          `warning: no clear answer dispatching ${name} (${res.message}); the next event looks for its run before sending it again`,
        );
        break;
    }
  }
  return sent;
}

/**
 * Question issues of suspended attempts, opened once each (found by their marker before
 * one is made). Answers the issues opened, by ticket.
 */
async function openQuestions(
  ctx: RunContext,
  last: Recorded,
  deferred: string[],
): Promise<Map<string, number>> {
  const opened = new Map<string, number>();
  for (const [ticket, q] of Object.entries(last.state.questions)) {
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
        run: last.state.run.run,
        branch: ctx.branch,
        ticket,
        attempt: q.attempt,
        question: record?.question ?? "(the attempt asked no question text)",
        ...(ctx.links.workflowRun ? { reportUrl: ctx.links.workflowRun } : {}),
      });
      opened.set(ticket, issue);
      ctx.log(`opened question issue #${issue} for ${ticket}#${q.attempt}`);
    } catch (error) {
      deferOrThrow(ctx, deferred, error, `the question issue of ${ticket}`, "opened");
    }
  }
  return opened;
}

/** Close an issue; one GitHub refuses is said in the log and left open. */
export async function closeIssue(
  ctx: RunContext,
  issue: number,
  reason: "completed" | "not_planned" = "completed",
): Promise<void> {
  await ctx.gh.rest.issues
    .update({ ...ctx.repo, issue_number: issue, state: "closed", state_reason: reason })
    .catch((error) => ctx.log(`could not close issue #${issue}: ${describeApiError(error)}`));
}

/** The event that records what the effects learned, and what it leaves to undo after. */
function learnedOf(
  ctx: RunContext,
  sent: Sent,
  opened: ReadonlyMap<string, number>,
  report: ReportRecord | undefined,
): Learned {
  // ours that lost to another event's, and the one the state kept: as the try that
  // commits saw them (a lost race runs the event again on a new read)
  let lost: { report?: ReportRecord; kept?: ReportRecord; questions: number[] } = { questions: [] };
  return {
    label: sent.refused.length > 0 ? "dispatch refused" : "record what the event's effects made",
    event: (frontier, now, view) => {
      lost = { questions: [] };
      const changed: string[] = [];
      for (const { send, message } of sent.refused) {
        const r = frontier.settle(
          {
            ...send,
            outcome: "failed",
            reason: `dispatch refused by GitHub: ${message}`,
            by: "github",
          },
          now,
        );
        if (r.kind === "ok") changed.push(...r.changed);
      }
      for (const send of sent.notStarted) markUnsent(view.outbox, send.ticket, send.claim);
      // the runs GitHub named for this event's dispatches, since a commit is made anyway:
      // a later event never sends them again
      for (const d of sent.started) seen(view.outbox, d.ticket, d.claim, d.runId);
      for (const [ticket, issue] of opened) {
        const q = view.questions[ticket];
        if (q && q.issue_number === undefined)
          view.questions[ticket] = { ...q, issue_number: issue };
        else if (q?.issue_number !== undefined && q.issue_number !== issue)
          lost.questions.push(issue);
      }
      if (report && !view.report) view.report = report;
      else if (report && view.report?.comment_id !== report.comment_id)
        Object.assign(lost, { report, kept: view.report });
      return { kind: "ok", changed };
    },
    after: async () => {
      // Another event started the run at the same time and its comment is the report:
      // ours goes (and our tracking issue, if we each made one).
      // Another event opened the same question's issue at the same time: ours is closed.
      for (const issue of lost.questions) await closeIssue(ctx, issue, "not_planned");
      const mine = lost.report;
      if (!mine) return;
      await ctx.gh.rest.issues
        .deleteComment({ ...ctx.repo, comment_id: mine.comment_id })
        .catch(() => undefined);
      if (mine.on === "issue" && lost.kept?.issue_number !== mine.issue_number)
        await closeIssue(ctx, mine.issue_number, "not_planned");
    },
  };
}

export function receiptOf(ctx: RunContext, frontier: Frontier, settings: Settings): Receipt {
  const { repository, workflowRun, htmlReport } = ctx.links;
  return buildReceipt(frontier, {
    now: ctx.clock(),
    where: "github",
    ...(settings.goal ? { goal: settings.goal } : {}),
    // its pull request: GitHub's page opens one, or shows the one that is open
    branch: {
      name: ctx.branch,
      ...(repository && { merge: `${repository}/pull/new/${ctx.branch}` }),
    },
    links: { workflow_run: workflowRun, repository, html_report: htmlReport },
  });
}

export function renderReport(ctx: RunContext, receipt: Receipt, seq: number): string {
  const updated = `\n<sub>Updated ${receipt.generated_at.replace("T", " ").replace(/\.\d+Z$/, " UTC")} · state commit ${seq}</sub>\n`;
  const tail = `${updated}\n${seqLine(seq)}`;
  const body = renderMarkdown(receipt, {
    marker: reportMarker(receipt.run),
    maxChars: GITHUB_COMMENT_MAX - tail.length - 64,
    // the run's and the HTML report's links are the receipt's (receiptOf)
    repoBlobUrl: ctx.links.blob,
  });
  return body + tail;
}

/**
 * Bring the comment up to date. One that someone deleted is posted again and its new id
 * recorded, so later events update the new one.
 */
export async function showReport(
  ctx: RunContext,
  last: Recorded,
  markdown: string,
  deferred: string[],
): Promise<Learned | undefined> {
  const record = last.state.report as ReportRecord;
  try {
    const res = await updateReportComment(ctx, record, markdown, last.state.seq);
    if (res !== "gone") return undefined;
    const { record: replaced } = await placeReport(ctx, last.state.run.run, () => markdown, record);
    ctx.log(`the report comment was deleted: posted again as ${replaced.comment_id}`);
    return {
      event: (_frontier, _now, view) => {
        if (view.report?.comment_id === record.comment_id) view.report = replaced;
        return { kind: "ok", changed: [] };
      },
      label: "record the report comment posted again",
    };
  } catch (error) {
    deferOrThrow(ctx, deferred, error, "the report comment update", "made");
    return undefined;
  }
}
