/**
 * A suspended ticket opens one question issue: the question, and exactly how to answer.
 * The issue carries a hidden marker (run, ticket, attempt) the bot reads back.
 */
import { clip, fenceFor, oneLine } from "../report/escape.js";
import { GITHUB_COMMENT_MAX } from "../report/markdown.js";
import { type QuestionMarker, questionMarker } from "./command-parse.js";
import type { Repo } from "./git.js";
import type { GitHub } from "./octokit.js";
import { issueOnce, QUESTION_LABEL } from "./report-comment.js";

/** Its marker's fields, the branch always among them: the bot finds the run's state there. */
export interface QuestionIssue extends Required<QuestionMarker> {
  question: string;
  /** where the run's report is, to link back */
  reportUrl?: string;
}

/** The body of a question issue. The question is quoted as data in a fenced block. */
function questionBody(q: QuestionIssue, marker: string, keep = q.question.length): string {
  const note = `\n(cut to fit an issue: ${q.question.length} characters, whole in the attempt's record)`;
  const question = keep < q.question.length ? clip(q.question, keep) + note : q.question;
  const fence = fenceFor(question);
  const body = [
    marker,
    `Ticket **${q.ticket}** (attempt ${q.attempt}) of the run **${encodeURIComponent(q.run)}** stopped with a question and waits for an answer. Tickets that depend on it wait too.`,
    "",
    "### Question",
    "",
    `${fence}text`,
    question,
    fence,
    "",
    "### How to answer",
    "",
    "Comment on this issue with a line that starts with `/answer`, followed by your answer (it may continue on the next lines):",
    "",
    "```",
    "/answer Use the staging database; the production one is read-only.",
    "```",
    "",
    `Only people with write access to this repository are obeyed. The answer is stored as a file next to the ticket, this issue is closed, and **${q.ticket}** runs again with the question and your answer in its context.`,
    q.reportUrl ? `\nThe run's report: ${q.reportUrl}` : "",
  ].join("\n");
  // GitHub refuses a longer body on every try: cut here, whole in the record and the next
  // context — until it fits, as its fence (longer than any run of backticks) shrinks with it:
  // a character of that run costs three
  if (body.length <= GITHUB_COMMENT_MAX || keep === 0) return body;
  const over = Math.ceil((body.length - GITHUB_COMMENT_MAX) / (fence.length > 3 ? 3 : 1));
  return questionBody(q, marker, Math.max(0, Math.min(keep, question.length) - over));
}

export async function openQuestionIssue(gh: GitHub, repo: Repo, q: QuestionIssue): Promise<number> {
  const title = `Question from ${q.ticket}: ${clip(oneLine(q.question), 80) || "(no question text)"}`;
  const marker = questionMarker(q);
  return issueOnce(gh, repo, QUESTION_LABEL, marker, { title, body: questionBody(q, marker) });
}
