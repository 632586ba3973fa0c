/**
 * The bot's commands, found in the body of a new comment. Pure: text in, a list of
 * commands (or parse errors to reply with) out.
 *
 * A command is a line that starts with `/answer`, `/retry`, `/cancel` or `/status`
 * (up to three spaces of indent, as markdown allows). Lines that GitHub shows as
 * quotes or code are never commands: a quoted `> /answer …` is someone citing a
 * command, and a command inside a fenced or indented code block is an example of
 * one; neither is a command inside an HTML comment, which GitHub does not show. Other
 * `/words` are left alone: other bots use slashes too.
 *
 * Everything a comment says is data. The parser never interprets an answer; it
 * only cuts it out of the comment, line for line.
 */
import { TICKET_ID } from "../core/model.js";
import { clip, fenceFor } from "../report/escape.js";

export type Command =
  /** `ticket` is undefined for `/answer TEXT` on a question issue (the marker names it) */
  | { kind: "answer"; ticket: string | undefined; text: string; line: number }
  /** `feedback`: a reviewer's note for the next attempt (the rest of the command, line for line) */
  | { kind: "retry"; ticket: string; feedback?: string; line: number }
  | { kind: "cancel"; line: number }
  | { kind: "status"; line: number }
  /** a known command written wrongly: `message` says how to write it */
  | { kind: "error"; command: CommandName; message: string; line: number };

export const COMMAND_NAMES = ["answer", "retry", "cancel", "status"] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface ParseContext {
  /**
   * The ticket of the question issue the comment is on (from its hidden marker), if it
   * is one. There `/answer TEXT` answers that ticket; a leading word equal to this
   * ticket id is taken as the ticket, so `/answer plan TEXT` works there too.
   */
  questionTicket?: string;
}

// `/name` then whitespace or the end of the line; up to three spaces of indent.
const COMMAND_LINE = /^ {0,3}\/([A-Za-z][A-Za-z0-9_-]*)(?=\s|$)(.*)$/s;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const QUOTE = /^ {0,3}>/;
// Four spaces or a tab (after at most three spaces) is indented code in markdown.
const INDENTED_CODE = /^(?: {4}| {0,3}\t)/;

function commandName(line: string): { name: CommandName; rest: string } | undefined {
  const m = COMMAND_LINE.exec(line);
  const name = m && COMMAND_NAMES.find((n) => n === m[1]!.toLowerCase());
  return name ? { name, rest: m![2]! } : undefined;
}

interface Scanned {
  text: string;
  /** true when the line is code or a quote: shown as written, never a command */
  inert: boolean;
}

/**
 * Marks each line as inert (inside a fence, a fence line itself, indented code, a
 * quote) or live. A fence closes with the same character, at least as long, and
 * nothing but spaces after it; an unclosed fence runs to the end (as GitHub renders it).
 */
function scan(lines: readonly string[]): Scanned[] {
  let fence: { char: string; length: number } | undefined;
  let htmlComment = false;
  return lines.map((text) => {
    // An HTML comment is invisible on GitHub (issue templates are full of them): a
    // command inside one is not something anyone sees being given.
    if (htmlComment) {
      if (text.includes("-->")) htmlComment = false;
      return { text, inert: true };
    }
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(text);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        fence = undefined;
      }
      return { text, inert: true };
    }
    const open = FENCE_OPEN.exec(text);
    // A backtick fence's info string may not contain a backtick (CommonMark 4.5).
    if (open && !(open[1]![0] === "`" && open[2]!.includes("`"))) {
      fence = { char: open[1]![0]!, length: open[1]!.length };
      return { text, inert: true };
    }
    const opened = text.lastIndexOf("<!--");
    if (opened >= 0 && text.indexOf("-->", opened + 4) < 0) htmlComment = true;
    // Four spaces of indent is indented code, or a paragraph's continuation line:
    // either way the line does not start with the command as the reader sees it.
    return { text, inert: INDENTED_CODE.test(text) || QUOTE.test(text) };
  });
}

/** Drops blank lines at both ends; keeps every line in between exactly as written. */
function trimBlankLines(lines: string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === "") start++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  return lines.slice(start, end).join("\n");
}

/** `rest`'s first word and what follows it (whitespace between them dropped). */
function firstWord(rest: string): { word: string; after: string } {
  const m = /^\s*(\S+)[^\S\n]*([\s\S]*)$/.exec(rest);
  return m ? { word: m[1]!, after: m[2]! } : { word: "", after: "" };
}

function error(command: CommandName, line: number, message: string): Command {
  return { kind: "error", command, line, message };
}

/**
 * Every command in a comment body, in order. An answer runs from its command to the
 * next command line or the end of the comment and keeps its lines (quotes and code
 * blocks inside an answer are part of it). Lines are split the way GitHub renders them:
 * CRLF, CR and LF all end a line.
 */
export function parseCommands(body: string, context: ParseContext = {}): Command[] {
  const lines = scan(body.replace(/\r\n?/g, "\n").split("\n"));
  const starts = lines.flatMap((l, index) => {
    const c = l.inert ? undefined : commandName(l.text);
    return c ? [{ index, ...c }] : [];
  });
  return starts.map((start, k) => {
    const next = starts[k + 1]?.index ?? lines.length;
    const following = lines.slice(start.index + 1, next).map((l) => l.text);
    return PARSERS[start.name](start.rest, following, start.index + 1, context);
  });
}

/** Each command from the rest of its line and the lines up to the next command. */
const PARSERS: Record<
  CommandName,
  (rest: string, following: string[], line: number, context: ParseContext) => Command
> = {
  answer: parseAnswer,
  retry: parseRetry,
  // `/cancel build` would read as "cancel one ticket"; cancelling the whole run
  // by surprise is worse than asking again.
  cancel: (rest, _, line) =>
    rest.trim() === ""
      ? { kind: "cancel", line }
      : error(
          "cancel",
          line,
          "`/cancel` cancels the whole run and takes no arguments: write `/cancel` alone on its line.",
        ),
  status: (_, __, line) => ({ kind: "status", line }),
};

/**
 * `/retry TICKET` and `/retry TICKET FEEDBACK`: the feedback runs from after the ticket
 * to the next command line or the end of the comment, kept line for line like an answer.
 */
function parseRetry(rest: string, following: string[], line: number): Command {
  const { word, after } = firstWord(rest);
  const wrong = (message: string) => error("retry", line, message);
  if (word === "")
    return wrong(
      "`/retry` needs the ticket to retry: write `/retry TICKET`, e.g. `/retry build` (feedback for its next attempt may follow the ticket).",
    );
  if (!TICKET_ID.test(word))
    return wrong(
      `\`/retry\` needs a ticket id (letters, digits, \`.\`, \`_\`, \`-\`); ${quoteWord(word)} is not one.`,
    );
  const feedback = trimBlankLines([after, ...following]);
  return { kind: "retry", ticket: word, ...(feedback !== "" && { feedback }), line };
}

function parseAnswer(
  rest: string,
  following: string[],
  line: number,
  context: ParseContext,
): Command {
  const { word, after } = firstWord(rest);
  const onIssue = context.questionTicket !== undefined;
  const wrong = (message: string) => error("answer", line, message);
  if (!onIssue && word === "")
    return wrong(
      "`/answer` needs the ticket it answers here: write `/answer TICKET TEXT`, or write `/answer TEXT` on the ticket's question issue.",
    );
  if (!onIssue && !TICKET_ID.test(word))
    return wrong(
      `\`/answer\` outside a question issue starts with the ticket it answers: write \`/answer TICKET TEXT\`; ${quoteWord(word)} is not a ticket id.`,
    );
  // On a question issue everything is the answer, except a leading copy of the
  // issue's own ticket id.
  const ticket = !onIssue || word === context.questionTicket ? word : undefined;
  const text = trimBlankLines([ticket !== undefined ? after : rest.trimStart(), ...following]);
  if (text === "")
    return wrong(
      onIssue
        ? "The answer is empty: write it after the command, e.g. `/answer use the staging database` (it may continue on the following lines)."
        : `\`/answer\` outside a question issue needs the ticket and then the answer: write \`/answer TICKET TEXT\`, e.g. \`/answer plan use the staging database\` (here ${quoteWord(word)} was read as the ticket, and no answer followed).`,
    );
  return { kind: "answer", ticket, text, line };
}

/** A word from a comment, shown back in a code span it cannot break out of. */
export function quoteWord(word: string): string {
  const clipped = clip(word, 60);
  const fence = fenceFor(clipped, 1);
  const pad = clipped.startsWith("`") || clipped.endsWith("`") ? " " : "";
  return `${fence}${pad}${clipped}${pad}${fence}`;
}

/* ------------------------------------------------------------------------- */
/* The question issue's hidden marker                                         */
/* ------------------------------------------------------------------------- */

export interface QuestionMarker {
  run: string;
  ticket: string;
  attempt: number;
  /** the branch the run lives on, when the issue says (older issues do not) */
  branch?: string;
}

/**
 * The hidden marker a question issue carries:
 * `<!-- ticket-frontier:question run=RUN ticket=TICKET attempt=N branch=BRANCH -->`, with
 * the run and branch names URI-encoded so spaces or `-->` in them cannot break the
 * marker. `branch` is optional: without it the bot looks for the run on the branch the
 * workflow runs on.
 */
export function questionMarker(m: QuestionMarker): string {
  const branch = m.branch ? ` branch=${encodeURIComponent(m.branch)}` : "";
  return `<!-- ticket-frontier:question run=${encodeURIComponent(m.run)} ticket=${m.ticket} attempt=${m.attempt}${branch} -->`;
}

const MARKER =
  /<!--\s*ticket-frontier:question\s+run=(\S+)\s+ticket=([A-Za-z0-9][A-Za-z0-9._-]{0,127})\s+attempt=(\d+)(?:\s+branch=(\S+))?\s*-->/;

/** The marker of a question issue's body, if it has one. */
export function parseQuestionMarker(body: string | null | undefined): QuestionMarker | undefined {
  const m = MARKER.exec(body ?? "");
  const attempt = Number(m?.[3]);
  if (!m || !Number.isSafeInteger(attempt) || attempt < 1) return undefined;
  return { run: decode(m[1]!), ticket: m[2]!, attempt, branch: m[4] && decode(m[4]) };
}

/** The branch the hidden marker of a run's tracking issue names (`report-comment.ts` writes it). */
export function parseRunMarker(body: string | null): string | undefined {
  const m = /<!-- ticket-frontier:run run=\S+ branch=(\S+) -->/.exec(body ?? "");
  return m ? decode(m[1]!) : undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
