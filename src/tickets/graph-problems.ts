/**
 * The graph checks' findings (`src/core/checks.ts`, as data) worded for a person:
 * what is wrong, where, and how to fix it.
 */
import { named } from "../core/changes.js";
import type { GraphProblem, Place } from "../core/checks.js";
import { type Problem, problem } from "./problems.js";

function shown(p: Place): string {
  return p.line === undefined ? p.file : `${p.file}:${p.line}`;
}

/** A finding at a place in a ticket file, said as a problem of its own kind. */
const at = (p: Extract<GraphProblem, { at: Place }>, message: string, fix: string) =>
  problem(p.kind, p.at.file, p.at.line, message, fix);

export function graphProblem(p: GraphProblem): Problem {
  switch (p.kind) {
    case "too-many-tickets":
      return problem(
        "too-many-tickets",
        p.dir,
        undefined,
        `${p.count} ticket files, more than the cap of ${p.cap}`,
        `split the graph into smaller runs, or raise max_tickets in frontier.yml`,
      );
    case "file-too-large":
      return problem(
        "file-too-large",
        p.file,
        undefined,
        `file is ${p.bytes} bytes, more than the cap of ${p.cap}`,
        `move the bulk into a file the ticket points to, or raise max_file_bytes in frontier.yml`,
      );
    case "duplicate-id":
      return problem(
        "duplicate-id",
        p.again.file,
        p.again.line,
        `duplicate id "${p.id}": ${shown(p.first)} and ${shown(p.again)} both use it`,
        p.again.line === undefined
          ? `give one of them another id (add id: to its front matter, or rename ${p.again.file})`
          : `give one of them another id`,
      );
    case "self-dependency":
      return at(p, `"${p.id}" depends on itself`, `remove ${p.id} from depends_on`);
    case "unknown-dependency":
      return at(
        p,
        `depends_on names "${p.dep}", but no ticket has that id${p.near === undefined ? "" : ` (did you mean "${p.near}"?)`}`,
        p.near === undefined
          ? `create ${p.dep}.md, or remove "${p.dep}" from depends_on`
          : `write depends_on: [${p.near}] (or create ${p.dep}.md)`,
      );
    case "unreachable-scope":
      return at(
        p,
        `write_scope entry ${JSON.stringify(p.entry)} can match no path in the repository (${p.why === "absolute" ? "it is an absolute path" : "it climbs out with .."})`,
        "write it relative to the repository's top (e.g. src/**), or remove it",
      );
    case "isolated-without-scope":
      return at(
        p,
        `"${p.id}" runs isolated but has no write_scope, so any change it makes is a scope breach`,
        `add write_scope: [PATHS] naming what it may change, or set isolation: none on it`,
      );
    case "depends-on-isolated":
      return at(
        p,
        `"${p.id}" runs in your working tree but depends on "${p.dep}", which runs isolated: it would not see ${p.dep}'s changes (they land on the run's branch)`,
        `set isolation: worktree on ${p.id} (with a write_scope), or isolation: none on ${p.dep}`,
      );
    case "cycle":
      return cycleProblem(p);
  }
}

function cycleProblem(p: Extract<GraphProblem, { kind: "cycle" }>): Problem {
  const ids = p.ids;
  // a loop of thousands is shown by its ends, so the message stays readable
  const loopIds =
    ids.length > 100
      ? [...ids.slice(0, 50), `… ${ids.length - 99} more …`, ...ids.slice(-49)]
      : ids;
  const loop = [...loopIds, ids[0]].join(" → ");
  const edges = named(
    p.steps.map((e) => `${shown(e)} depends on ${e.dep}`),
    20,
  );
  const first = p.steps[0]!;
  return problem(
    "cycle",
    first.file,
    first.line,
    `cycle: ${loop} (${edges})`,
    `remove one of these dependencies so the loop is broken`,
  );
}
