/**
 * The sticky report comment: one per run, on the open pull request of the run's
 * branch, else on a tracking issue created once. Found by its hidden marker AND by the
 * login that wrote it, so a comment anyone else plants with the marker never counts.
 */
import { escapeMarkdown } from "../report/escape.js";
import type { Repo } from "./git.js";
import { apiFailure, createOnce, type GitHub, NO_RETRY } from "./octokit.js";
import type { RunContext } from "./run-context.js";
import type { ReportRecord } from "./state.js";

export const RUN_LABEL = "frontier:run";
export const QUESTION_LABEL = "frontier:question";
/** GITHUB_TOKEN acts as this login; used to recognise our comments before we made one. */
export const ACTIONS_BOT_LOGIN = "github-actions[bot]";

/** The marker text (renderMarkdown wraps it in `<!-- -->`). */
export function reportMarker(run: string): string {
  return `ticket-frontier:report run=${encodeURIComponent(run)}`;
}

/** A second hidden line: which commit of the state the comment shows, to order racing updates. */
export function seqLine(seq: number): string {
  return `<!-- ticket-frontier:seq=${seq} -->`;
}

function trackingMarker(run: string, branch: string): string {
  return `<!-- ticket-frontier:run run=${encodeURIComponent(run)} branch=${encodeURIComponent(branch)} -->`;
}

type ReportTarget = Pick<ReportRecord, "issue_number" | "on">;

/** The open PR of the run's branch, else its tracking issue (created when there is none). */
async function findReportTarget(ctx: RunContext, run: string): Promise<ReportTarget> {
  const { gh, repo, branch } = ctx;
  const pulls = await gh.rest.pulls.list({
    ...repo,
    state: "open",
    head: `${repo.owner}:${branch}`,
    per_page: 1,
  });
  const pr = pulls.data[0];
  if (pr) return { issue_number: pr.number, on: "pr" };

  const body = [
    trackingMarker(run, branch),
    `This issue tracks the Ticket Frontier run **${escapeMarkdown(run)}** on branch \`${branch}\`.`,
    "",
    "The report comment below is updated on every event. Maintainers can comment `/status`, `/retry TICKET`, `/cancel` or `/answer TICKET TEXT` here.",
    ctx.links.workflowRun ? `\nStarted by ${ctx.links.workflowRun}` : "",
  ].join("\n");
  const title = `Ticket Frontier: run ${run} on ${branch}`;
  const issue = await issueOnce(gh, repo, RUN_LABEL, trackingMarker(run, branch), { title, body });
  return { issue_number: issue, on: "issue" };
}

/**
 * The open issue labelled `label` whose body carries `marker` (opened already by another
 * event whose record has not landed yet), else one opened now, never twice (`createOnce`).
 */
export async function issueOnce(
  gh: GitHub,
  repo: Repo,
  label: string,
  marker: string,
  issue: { title: string; body: string },
): Promise<number> {
  const find = async () => {
    const open = await gh.rest.issues.listForRepo({
      ...repo,
      labels: label,
      state: "open",
      per_page: 100,
    });
    return open.data.find((i) => !i.pull_request && (i.body ?? "").includes(marker))?.number;
  };
  const existing = await find();
  if (existing !== undefined) return existing;
  return createOnce(async () => {
    const created = await gh.rest.issues.create({
      ...repo,
      ...issue,
      labels: [label],
      ...NO_RETRY,
    });
    return created.data.number;
  }, find);
}

/** Our report comment on `target`: marker present and written by `login`. */
export async function findReportComment(
  ctx: RunContext,
  target: ReportTarget,
  run: string,
  login: string = ACTIONS_BOT_LOGIN,
): Promise<ReportRecord | undefined> {
  const { issue_number, on } = target;
  const marker = `<!-- ${reportMarker(run)} -->`;
  const comments = await ctx.gh.paginate(ctx.gh.rest.issues.listComments, {
    ...ctx.repo,
    issue_number,
    per_page: 100,
  });
  const mine = comments.find((c) => c.user?.login === login && (c.body ?? "").includes(marker));
  return mine ? { issue_number, on, comment_id: mine.id, login } : undefined;
}

/**
 * The run's report comment, on the open pull request of its branch or its tracking
 * issue (or where the comment `at` was, by its login): the one there, else `body()`
 * posted (`posted`).
 */
export async function placeReport(
  ctx: RunContext,
  run: string,
  body: () => string,
  at?: ReportRecord,
): Promise<{ record: ReportRecord; posted: boolean }> {
  const target = at ?? (await findReportTarget(ctx, run));
  const found = await findReportComment(ctx, target, run, at?.login);
  if (found) return { record: found, posted: false };
  const { issue_number, on } = target;
  const text = body();
  const record = await createOnce(
    async () => {
      const created = await ctx.gh.rest.issues.createComment({
        ...ctx.repo,
        issue_number,
        body: text,
        ...NO_RETRY,
      });
      const login = created.data.user?.login ?? ACTIONS_BOT_LOGIN;
      return { issue_number, on, comment_id: created.data.id, login };
    },
    () => findReportComment(ctx, target, run),
  );
  return { record, posted: true };
}

/**
 * Show `body` (state commit `seq`) in the comment, unless a racing event already shows
 * a newer commit: updates that land out of order never roll the report back.
 */
export async function updateReportComment(
  ctx: RunContext,
  record: ReportRecord,
  body: string,
  seq: number,
): Promise<"updated" | "newer-shown" | "gone"> {
  const { gh, repo } = ctx;
  try {
    const current = await gh.rest.issues.getComment({ ...repo, comment_id: record.comment_id });
    // the state commit the comment shows (its seqLine)
    const shown = /<!-- ticket-frontier:seq=(\d+) -->/.exec(current.data.body ?? "");
    if (shown && Number(shown[1]) > seq) return "newer-shown";
    if (current.data.body === body) return "updated";
    await gh.rest.issues.updateComment({ ...repo, comment_id: record.comment_id, body });
    return "updated";
  } catch (error) {
    if (apiFailure(error)?.status === 404) return "gone";
    throw error;
  }
}
