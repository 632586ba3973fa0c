/** `frontier validate`: loads nothing but the ticket reader, so checking 10k files stays fast. */

import { ticketIsolation } from "../core/constants.js";
import { type CliIo, EXIT, line } from "../core/io.js";
import { painter } from "../local/colour.js";
import { printProblems } from "../local/problems.js";
import { plural, shownPath } from "../local/text.js";
import { loadDirectory } from "../tickets/load.js";
import { formatProblem } from "../tickets/problems.js";

export async function validateCommand(typed: string, opts: { json: boolean }, io: CliIo) {
  const dir = shownPath(typed);
  // the same checks `frontier run` makes, executors included; no body is shown, so the
  // ticket cache can serve it
  const loaded = await loadDirectory(dir, {}, { localExecutors: true, bodies: false });
  const problems = loaded.kind === "invalid" ? loaded.problems : loaded.warnings;
  if (
    loaded.kind === "ok" &&
    loaded.specs.some((s) => ticketIsolation(s.isolation, loaded.settings.isolation) === "worktree")
  ) {
    // isolated tickets need git and a repository: what `run` checks before it starts
    const { isolationProblems } = await import("../local/worktree.js");
    problems.unshift(...(await isolationProblems(dir, loaded.specs, loaded.settings)));
  }
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
  } else if (errors > 0) {
    printProblems(problems, io, dir);
  } else {
    if (problems.length > 0) printProblems(problems, io, dir);
    const paint = painter(io.stdout, io.env);
    const count = loaded.kind === "ok" ? loaded.specs.length : 0;
    line(io.stdout, `${dir}: ${plural(count, "ticket")}, ${paint("green", "no problems")}.`);
  }
  return errors > 0 ? EXIT.usage : EXIT.complete;
}
