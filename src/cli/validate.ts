/** `frontier validate`: loads nothing but the ticket reader, so checking 10k files stays fast. */
import { join } from "node:path";
import { loadDirectory } from "../tickets/load.js";
import { formatProblem } from "../tickets/problems.js";
import { type CliIo, EXIT, line } from "./io.js";
import { printProblems } from "./problems.js";

export async function validateCommand(dir: string, opts: { json: boolean }, io: CliIo) {
  // the same checks `frontier run` makes, executors included
  const loaded = await loadDirectory(dir, {}, { localExecutors: true });
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
    // each file shown under DIR, as `frontier run` shows it: a terminal can open it
    printProblems(
      problems.map((p) => ({ ...p, file: p.file === dir ? dir : join(dir, p.file) })),
      io,
    );
  } else {
    if (problems.length > 0) line(io.stderr, problems.map((p) => formatProblem(p, dir)).join("\n"));
    line(io.stdout, `${dir}: ${loaded.specs.length} tickets, no problems.`);
  }
  return errors > 0 ? EXIT.usage : EXIT.complete;
}
