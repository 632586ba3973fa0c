import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ticketFileNames } from "../tickets/load.js";
import { formatProblem, type Problem, problem } from "../tickets/problems.js";
import { namesIn, tryReadText } from "../tickets/read-optional.js";
import { painter } from "./colour.js";
import { type CliIo, line } from "./io.js";
import { noun, plural, shellWord } from "./text.js";

/**
 * Every problem, one line each, then what it means for the run. Files are shown under
 * `dir` (`tickets/plan.md:3`), the way every other message names them.
 */
export function printProblems(all: readonly Problem[], io: CliIo, dir: string): void {
  const paint = painter(io.stderr, io.env);
  const problems = tkDirectory(all, dir);
  const errors = problems.filter((p) => p.severity === "error");
  // one write for them all: thousands of problems are thousands of lines
  const out = problems.map((p) => {
    const text = formatProblem(forTheCommandLine(p, dir), dir);
    if (!paint.enabled) return text;
    const head = text.indexOf(": ");
    const rest = text.slice(head + 2).replace(/^warning: /, () => paint("yellow", "warning: "));
    return `${paint("bold", text.slice(0, head + 1))} ${rest}`;
  });
  if (errors.length > 0) {
    out.push(
      paint(
        "red",
        `${plural(errors.length, "problem")}: nothing was started. Fix ${noun(errors.length, "it", "them")} and run again.`,
      ),
    );
  }
  if (out.length > 0) line(io.stderr, out.join("\n"));
}

/**
 * On the command line, a missing ticket directory is named as it was typed, and can be made
 * with one command — unless the user stands in a ticket directory already (`cd tickets`,
 * then `frontier run`): then that is what to say.
 */
function forTheCommandLine(p: Problem, typed: string): Problem {
  if (p.kind !== "no-ticket-directory") return p;
  const where = shellWord(typed);
  let fix = `make one with \`frontier init ${where}\` (a starter directory with example tickets), or \`mkdir ${where}\` and \`frontier new ${where} ID\`; or pass the directory that holds your tickets as DIR`;
  if (!isAbsolute(typed) && typed !== ".tickets" && existsSync(".tickets")) {
    fix =
      "there is a .tickets directory here (tk's): `frontier validate .tickets` says what to change to run those tickets, or pass the directory that holds yours as DIR";
  } else if (!isAbsolute(typed) && looksLikeTicketDirectory(process.cwd())) {
    fix =
      "this directory holds tickets itself: pass . as DIR (`frontier run .`), or run from its parent";
  }
  return { ...p, message: `no ticket directory at ${typed}`, fix };
}

/** Run settings, a run's records, or a markdown file with front matter: a ticket directory. */
function looksLikeTicketDirectory(path: string): boolean {
  if (existsSync(join(path, "frontier.yml")) || existsSync(join(path, ".frontier"))) return true;
  return ticketFileNames(namesIn(path)).some(
    (name) => tryReadText(join(path, name))?.slice(0, 4) === "---\n",
  );
}

/**
 * A directory of tk tickets (`deps:`, `status: open|closed`): every file has the same two
 * problems, so they are said once, with what to change. tk's fields are not read as they
 * are: `status: closed` is a person's word that work is done, and frontier takes no such
 * word on trust (a ticket nobody ran would be reported complete), and `deps` would then
 * mean two things. Other problems are kept as they are.
 */
function tkDirectory(problems: readonly Problem[], dir: string): readonly Problem[] {
  const isTkStatus = (p: Problem) =>
    p.kind === "authored-status" && /status: "(open|closed|in_progress)"/.test(p.message);
  const isDeps = (p: Problem) =>
    p.kind === "unknown-field" && /unknown field "deps"/.test(p.message);
  const statuses = problems.filter(isTkStatus);
  if (statuses.length === 0 || !problems.some(isDeps)) return problems;
  const files = new Set([...statuses, ...problems.filter(isDeps)].map((p) => p.file));
  const rest = problems.filter((p) => !isTkStatus(p) && !isDeps(p));
  return [
    problem(
      "authored-status",
      dir,
      undefined,
      `${plural(files.size, "ticket")} here ${noun(files.size, "is", "are")} written for tk (deps:, status: open/closed); frontier reads depends_on: and records each ticket's status itself, never taking one on trust`,
      "rename deps: to depends_on: and delete the status: lines (a closed ticket belongs out of the directory, and out of depends_on); tk's other fields (type, links, assignee, …) may stay",
    ),
    ...rest,
  ];
}
