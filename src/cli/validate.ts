/** `frontier validate`: loads nothing but the ticket reader, so checking 10k files stays fast. */
import { loadDirectory } from "../tickets/load.js";
import { formatProblem } from "../tickets/problems.js";
import { type CliIo, EXIT, line } from "./io.js";
import { printProblems } from "./problems.js";

export async function validateCommand(dir: string, opts: { json: boolean }, io: CliIo) {
  const loaded = await loadDirectory(dir);
  const problems = loaded.kind === "invalid" ? loaded.problems : loaded.warnings;
  const errors = problems.filter((p) => p.severity === "error").length;
  if (opts.json) {
    io.stdout.write(
      `${JSON.stringify(
        {
          schema: "ticket-frontier/validation@1",
          valid: errors === 0,
          tickets: loaded.kind === "ok" ? loaded.specs.length : undefined,
          problems: problems.map((p) => ({ ...p, text: formatProblem(p) })),
        },
        null,
        2,
      )}\n`,
    );
  } else if (loaded.kind === "invalid") {
    printProblems(problems, io);
  } else {
    if (problems.length > 0) line(io.stderr, problems.map((p) => formatProblem(p)).join("\n"));
    line(io.stdout, `${dir}: ${loaded.specs.length} tickets, no problems.`);
  }
  return errors > 0 ? EXIT.usage : EXIT.complete;
}
