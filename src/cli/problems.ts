import { formatProblem, type Problem } from "../tickets/problems.js";
import { type CliIo, line } from "./io.js";

export function printProblems(problems: readonly Problem[], io: CliIo): void {
  const errors = problems.filter((p) => p.severity === "error");
  // one write for them all: thousands of problems are thousands of lines
  const out = problems.map((problem) => formatProblem(problem));
  if (errors.length > 0) {
    out.push(
      `${errors.length} problem${errors.length === 1 ? "" : "s"}: nothing was started. Fix ${
        errors.length === 1 ? "it" : "them"
      } and run again.`,
    );
  }
  if (out.length > 0) line(io.stderr, out.join("\n"));
}
