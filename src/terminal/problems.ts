import { formatProblem, type Problem } from "../tickets/problems.js";
import { painter } from "./colour.js";
import { type CliIo, line } from "./io.js";
import { plural, shellWord } from "./text.js";

/**
 * Every problem, one line each, then what it means for the run. With `dir`, files are
 * shown under it (`tickets/plan.md:3`), the way every other message names them.
 */
export function printProblems(problems: readonly Problem[], io: CliIo, dir?: string): void {
  const paint = painter(io.stderr, io.env);
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
        `${plural(errors.length, "problem")}: nothing was started. Fix ${
          errors.length === 1 ? "it" : "them"
        } and run again.`,
      ),
    );
  }
  if (out.length > 0) line(io.stderr, out.join("\n"));
}

/** On the command line, a missing ticket directory can be made with one command. */
function forTheCommandLine(p: Problem, dir: string | undefined): Problem {
  if (p.kind !== "no-ticket-directory") return p;
  const where = shellWord(dir ?? p.file);
  return {
    ...p,
    fix: `make one with \`frontier init ${where}\` (a starter directory with example tickets), or \`mkdir ${where}\` and \`frontier new ${where} ID\`; or pass the directory that holds your tickets as DIR`,
  };
}
