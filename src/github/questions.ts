/**
 * A suspended ticket opens one question issue: the question, and exactly how to answer.
 * The issue carries a hidden marker (run, ticket, attempt) the bot reads back.
 */
import { questionMarker } from "./command-parse.js";
import type { Repo } from "./git.js";
import { createOnce, type GitHub, NO_RETRY } from "./octokit.js";
import { QUESTION_LABEL } from "./report-comment.js";

export interface QuestionIssue {
  run: string;
  /** the branch the run lives on: the bot finds the run's state there */
  branch: string;
  ticket: string;
  title: string;
  attempt: number;
  question: string;
  /** where the run's report is, to link back */
  reportUrl?: string;
}

/** The body of a question issue. The question is quoted as data in a fenced block. */
function questionBody(q: QuestionIssue, marker: string): string {
  const fence = "`".repeat(Math.max(3, longestRun(q.question, "`") + 1));
  return [
    marker,
    `Ticket **${q.ticket}** (attempt ${q.attempt}) of the run **${encodeURIComponent(q.run)}** stopped with a question and waits for an answer. Tickets that depend on it wait too.`,
    "",
    "### Question",
    "",
    `${fence}text`,
    q.question,
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
}

export async function openQuestionIssue(gh: GitHub, repo: Repo, q: QuestionIssue): Promise<number> {
  const title = `Question from ${q.ticket}: ${oneLine(q.question, 80)}`;
  const marker = questionMarker(q);
  const body = questionBody(q, marker);
  const find = async () => {
    const open = await gh.rest.issues.listForRepo({
      ...repo,
      labels: QUESTION_LABEL,
      state: "open",
      per_page: 100,
    });
    return open.data.find((i) => (i.body ?? "").includes(marker))?.number;
  };
  // opened already by another event of the run (whose record has not landed yet)?
  const existing = await find();
  if (existing !== undefined) return existing;
  return createOnce(async () => {
    const created = await gh.rest.issues.create({
      ...repo,
      title,
      body,
      labels: [QUESTION_LABEL],
      ...NO_RETRY,
    });
    return created.data.number;
  }, find);
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line || "(no question text)";
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === ch ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}
