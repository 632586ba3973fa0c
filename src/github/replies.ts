/**
 * What the bot says back. Pure: every reply is a function of what happened, and every
 * piece of text that came from a comment or a ticket is escaped, so a reply can
 * never ping someone, open a code block, or plant a marker.
 */
import { named } from "../core/changes.js";
import type { Status } from "../core/model.js";
import { closest } from "../core/near.js";
import { clip, cutMarkdown, escapeMarkdown, mdCode, mdUrl, oneLine } from "../report/escape.js";
import { GITHUB_COMMENT_MAX } from "../report/markdown.js";
import { noun, plural } from "../report/states.js";
import { type CommandName, quoteWord } from "./command-parse.js";

/** Every reply carries this marker, so nothing mistakes it for the sticky report. */
export const REPLY_MARKER = "<!-- ticket-frontier:reply -->";

export function who(login: string): string {
  // A login is [A-Za-z0-9-]; anything else is shown escaped and cannot mention anyone.
  return /^[A-Za-z0-9-]{1,39}$/.test(login) ? `@${login}` : escapeMarkdown(login);
}

/** One reply comment from the sections the commands of one comment produced. */
export function replyBody(sections: readonly string[]): string {
  const body = `${REPLY_MARKER}\n${sections.filter((s) => s.length > 0).join("\n\n---\n\n")}\n`;
  return cutMarkdown(body, GITHUB_COMMENT_MAX, "\n\n… reply cut to fit GitHub's comment limit.\n");
}

export function refusal(login: string, owner: string, repo: string, role: string): string {
  return (
    `${who(login)}, only people with write access to ${escapeMarkdown(`${owner}/${repo}`)} can steer this run ` +
    `(your permission here: ${escapeMarkdown(role)}). Nothing was changed. ` +
    "A maintainer can run the command for you."
  );
}

export function permissionUnknown(login: string, message: string): string {
  return (
    `${who(login)}, I could not check your permission on this repository, so nothing was changed ` +
    `(GitHub said: ${escapeMarkdown(clip(oneLine(message), 300))}). ` +
    "Post the command again in a new comment; the workflow needs `contents: write`, `actions: write` and `issues: write`."
  );
}

export function parseError(command: CommandName, line: number, message: string): string {
  return `Line ${line} (\`/${command}\`): ${message}`;
}

export function unknownTicket(ticket: string, known: readonly string[]): string {
  const near = closest(ticket, known);
  const hint = near ? ` Did you mean ${mdCode(near)}?` : "";
  const list = known.length > 0 ? ` Tickets in this run: ${named(known.map(mdCode), 20)}.` : "";
  return `There is no ticket ${mdCode(ticket)} in this run.${hint}${list}`;
}

export interface OpenQuestion {
  ticket: string;
  issue?: number;
}

export function openQuestionsLine(questions: readonly OpenQuestion[]): string {
  if (questions.length === 0) return "There are no open questions.";
  const shown = questions.map((q) => mdCode(q.ticket) + (q.issue ? ` (#${q.issue})` : ""));
  return `Open questions: ${named(shown, 10)}.`;
}

export function notSuspended(ticket: string, status: Status, open: readonly OpenQuestion[]) {
  return `${mdCode(ticket)} is ${status}; it has no open question, so there is nothing to answer. ${openQuestionsLine(open)}`;
}

export function alreadyAnswered(
  ticket: string,
  attempt: number,
  by: string,
  current: { status: Status; attempt: number },
  open: readonly OpenQuestion[],
): string {
  const now =
    current.status === "suspended"
      ? ` ${mdCode(ticket)} is suspended again on attempt ${current.attempt}: answer that question with \`/answer ${ticket} TEXT\`.`
      : ` ${mdCode(ticket)} is now ${current.status}.`;
  return `The question of ${mdCode(ticket)} attempt ${attempt} was already answered by ${escapeMarkdown(by)}.${now} ${openQuestionsLine(open)}`;
}

export function answerNeedsTicket(open: readonly OpenQuestion[]): string {
  return `This is not a question issue, so \`/answer\` needs the ticket: write \`/answer TICKET TEXT\`. ${openQuestionsLine(open)}`;
}

export function answered(
  ticket: string,
  attempt: number,
  file: string | undefined,
  next: { status: Status; attempt: number },
): string {
  const where = file ? ` in ${quoteWord(file)}` : "";
  const then =
    next.status === "claimed"
      ? `${mdCode(ticket)} was dispatched again (attempt ${next.attempt}); its next attempt sees the question and the answer.`
      : next.status === "ready"
        ? `${mdCode(ticket)} is ready again and runs as soon as a slot frees up.`
        : `${mdCode(ticket)} is now ${next.status}.`;
  return `Recorded the answer to ${mdCode(ticket)} (the question of attempt ${attempt})${where}. ${then}`;
}

export function retried(
  ticket: string,
  next: { status: Status; attempt: number },
  unblocked: readonly string[],
): string {
  const back =
    unblocked.length > 0
      ? ` ${named(unblocked.map(mdCode), 20)} ${noun(unblocked.length, "returns", "return")} to pending and will run when ready.`
      : "";
  const state =
    next.status === "claimed"
      ? `was dispatched for a new attempt (attempt ${next.attempt})`
      : `gets a new attempt and is ${next.status}`;
  return `${mdCode(ticket)} ${state}.${back}`;
}

/**
 * What a retry with feedback adds to its reply: where the feedback is kept, and the
 * dependents that already ran on the result it replaces (not re-run unless retried too).
 */
export function feedbackRecorded(file: string, ran: readonly string[]): string {
  const kept = `The feedback is recorded for its next attempt (\`${file}\`) and shown in its context.`;
  if (ran.length === 0) return kept;
  return `${kept} ${named(ran.map(mdCode), 20)} already ran on its earlier result and ${noun(ran.length, "is", "are")} not re-run unless retried too (\`/retry TICKET\`).`;
}

export interface CancelledRun {
  ticket: string;
  id: number;
  url?: string;
  /** false when GitHub refused (usually: the run had already finished) */
  cancelled: boolean;
  message?: string;
}

export function cancelled(
  login: string,
  tickets: readonly string[],
  runs: readonly CancelledRun[],
): string {
  const lines = [
    `Run cancelled by ${who(login)}: ${plural(tickets.length, "open ticket")} cancelled${
      tickets.length > 0 ? ` (${named(tickets.map(mdCode), 30)})` : ""
    }.`,
  ];
  for (const r of runs.slice(0, 50)) {
    const link = r.url ? `[run ${r.id}](${mdUrl(r.url)})` : `run ${r.id}`;
    lines.push(
      r.cancelled
        ? `- ${link} of ${mdCode(r.ticket)}: cancelled`
        : `- ${link} of ${mdCode(r.ticket)}: not cancelled (${escapeMarkdown(clip(oneLine(r.message ?? "GitHub refused"), 200))})`,
    );
  }
  if (runs.length > 50) lines.push(`- … and ${runs.length - 50} more runs`);
  return lines.join("\n");
}

/** The engine's own words for a refused or stale event: escaped, one paragraph. */
export function engineSaid(message: string): string {
  return escapeMarkdown(clip(oneLine(message), 1_000));
}

export function failedToApply(message: string): string {
  return `Could not apply the command: ${escapeMarkdown(clip(oneLine(message), 500))}. Nothing was changed; post it again in a new comment.`;
}

/** The /status reply: the report's summary under a short heading, within `budget`. */
export function statusReply(summary: string, budget: number): string {
  const head = "**Status** (the sticky report has the full picture):\n\n";
  const room = Math.max(0, budget - head.length);
  return (
    head +
    cutMarkdown(summary, room, "\n\n… cut to fit; see the report comment or the HTML report.")
  );
}
