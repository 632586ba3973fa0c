/** `frontier validate`: loads nothing but the ticket reader, so checking 10k files stays fast. */

import { join } from "node:path";
import { runsIsolated } from "../core/constants.js";
import type { TicketSpec } from "../core/model.js";
import { compileScope, pathInScope } from "../core/scope.js";
import { painter } from "../terminal/colour.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { printProblems } from "../terminal/problems.js";
import { plural, shownPath } from "../terminal/text.js";
import { fieldLine, loadDirectory } from "../tickets/load.js";
import { formatProblem, type Problem, problem } from "../tickets/problems.js";

/**
 * `for`: which runner to check for. `local`: exactly what `frontier run` accepts. `github`:
 * what a run on GitHub accepts (what only a local run refuses is left out). Neither:
 * both, with what stops only one runner said as a warning naming it.
 */
type ValidateFor = "local" | "github";

export async function validateCommand(
  typed: string,
  opts: { json: boolean; for?: ValidateFor },
  io: CliIo,
) {
  const dir = shownPath(typed);
  // the same checks `frontier run` makes, executors included; no body is shown, so the
  // ticket cache can serve it
  const loaded = await loadDirectory(dir, { localExecutors: true, bodies: false });
  const found = loaded.kind === "invalid" ? loaded.problems : loaded.warnings;
  if (loaded.kind === "ok") {
    const { specs, settings } = loaded;
    if (specs.some((s) => runsIsolated(s, settings))) {
      // isolated tickets need git and a repository: what `run` checks before it starts
      const { isolationProblems } = await import("../local/worktree.js");
      found.unshift(...(await isolationProblems(dir, specs, settings)));
    }
    if (opts.for !== "local") found.push(...workflowScopes(dir, specs));
  }
  const problems = forRunner(found, opts.for);
  const errors = problems.filter((p) => p.severity === "error").length;
  const tickets = loaded.kind === "ok" ? loaded.specs.length : undefined;
  if (opts.json) {
    const shown = problems.map((p) => ({ ...p, text: formatProblem(p) }));
    const report = { schema: "ticket-frontier/validation@1", valid: errors === 0, tickets };
    io.stdout.write(`${JSON.stringify({ ...report, problems: shown }, null, 2)}\n`);
  } else {
    if (problems.length > 0) printProblems(problems, io, dir);
    if (errors > 0) return EXIT.usage;
    // warnings just printed are not "no problems"
    const clean =
      problems.length > 0 ? `no errors (${plural(problems.length, "warning")})` : "no problems";
    line(
      io.stdout,
      `${dir}: ${tickets === undefined ? "" : `${plural(tickets, "ticket")}, `}${painter(io.stdout, io.env)("green", clean)}${opts.for ? ` for a run ${opts.for === "github" ? "on GitHub" : "here"}` : ""}.`,
    );
  }
  return errors > 0 ? EXIT.usage : EXIT.complete;
}

/** The problems that hold for `runner` (both when undefined: one runner's own as warnings). */
function forRunner(problems: readonly Problem[], runner: ValidateFor | undefined): Problem[] {
  if (runner !== undefined) return problems.filter((p) => (p.runner ?? runner) === runner);
  return problems.map((p) =>
    p.runner === undefined
      ? p
      : {
          ...p,
          severity: "warning",
          message: `for a ${p.runner === "local" ? "local run" : "run on GitHub"}: ${p.message}`,
        },
  );
}

/** Tickets whose write_scope reaches `.github/workflows/`, which GitHub refuses to the job's token. */
function workflowScopes(dir: string, specs: readonly TicketSpec[]): Problem[] {
  return specs
    .filter((s) => pathInScope(".github/workflows/ci.yml", compileScope(s.writeScope ?? [])))
    .map((s) => ({
      ...problem(
        "workflow-scope",
        s.file,
        fieldLine(join(dir, s.file), "write_scope"),
        "write_scope reaches .github/workflows/: GitHub refuses a change to a workflow file made with the job's GITHUB_TOKEN (it can never have the workflows permission), so such an attempt fails",
        "to let it land, pass a token with the workflows permission in the action's token input (a fine-grained token with Workflows: write, or a GitHub App token); otherwise narrow write_scope so it leaves .github/workflows/ out",
        "warning",
      ),
      runner: "github" as const,
    }));
}
