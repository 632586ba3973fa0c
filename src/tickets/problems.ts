/**
 * What is wrong with a ticket directory, said so a person can fix it: what, where
 * (file and line) and how. Every check reports into this one shape so the CLI, the
 * action's annotations and the report comment print the same words.
 */
import { boundProblem, type DurationHint, durationHint, MAX_DURATION_TEXT } from "../core/bound.js";
import { UnsafeInteger } from "./integers.js";

export type ProblemKind =
  | "no-ticket-directory"
  | "unreadable-file"
  | "malformed-front-matter"
  | "front-matter-language"
  | "wrong-type"
  | "invalid-id"
  | "invalid-file-name"
  | "unknown-input"
  | "duplicate-dependency"
  | "duplicate-id"
  | "unknown-dependency"
  | "self-dependency"
  | "cycle"
  | "too-many-tickets"
  | "file-too-large"
  | "unknown-field"
  | "unknown-executor"
  | "authored-status"
  | "invalid-settings"
  | "isolation-unavailable"
  | "unreachable-scope"
  | "isolated-without-scope"
  | "depends-on-isolated"
  | "corrupt-state"
  | "workflow-scope";

export interface Problem {
  kind: ProblemKind;
  /** path relative to the ticket directory (`plan.md`, `frontier.yml`, `.frontier/run.json`), or the directory itself */
  file: string;
  /** 1-based line in `file`, when there is one */
  line?: number;
  /** what is wrong, in one line */
  message: string;
  /** how to fix it, in one line */
  fix: string;
  severity: "error" | "warning";
  /**
   * The one runner it stops or warns of, when it is not both: `local` — a local run
   * cannot do what the directory asks (a GitHub workflow file named as an executor),
   * while a run on GitHub can; `github` — a run on GitHub warns of it (a write_scope that
   * reaches .github/workflows/). `frontier validate --for` the other runner leaves it out.
   */
  runner?: "local" | "github";
}

/**
 * Something the author wrote, shown inside a message: in double quotes with newlines,
 * tabs and control characters escaped (so a message stays one line whatever a key or
 * value holds), and cut to `max` characters.
 */
export function quoted(text: string, max = 40): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 3)}…` : text);
}

/** A value the author wrote, named for a message: `"text"`, `3`, `true`, `a list`, `a mapping`, `nothing`. */
export function describeValue(v: unknown): string {
  if (v === undefined || v === null) return "nothing";
  if (typeof v === "string") return quoted(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof UnsafeInteger)
    return `${v.text}, beyond ±${Number.MAX_SAFE_INTEGER} (the largest whole number a field holds)`;
  if (Array.isArray(v)) return "a list";
  return "a mapping";
}

export function problem(
  kind: ProblemKind,
  file: string,
  line: number | undefined,
  message: string,
  fix: string,
  severity: "error" | "warning" = "error",
): Problem {
  return line === undefined
    ? { kind, file, message, fix, severity }
    : { kind, file, line, message, fix, severity };
}

/**
 * The one check of a bound's text where it is written — a ticket's `bound`, frontier.yml's
 * `ticket_bound` and `bound.duration` (which takes only a duration): a problem when it is
 * refused, and a warning when it reads like a duration but is not one.
 */
export function boundProblems(
  field: "bound" | "ticket_bound" | "bound.duration",
  text: string,
  file: string,
  line: number | undefined,
  kind: ProblemKind = "wrong-type",
): { problem?: Problem; warning?: Problem } {
  const example = (d: string) =>
    field === "bound.duration" ? `bound: {duration: ${d}}` : `${field}: ${d}`;
  const refused = (message: string, fix: string) => ({
    problem: problem(kind, file, line, message, fix),
  });
  switch (boundProblem(text, field === "bound.duration")) {
    case "zero":
      return refused(
        `${field} ${quoted(text)} is a duration of zero`,
        `write a positive duration, e.g. ${example("30m")}`,
      );
    case "too-long":
      return refused(
        `${field} ${quoted(text)} is longer than the longest bound, ${MAX_DURATION_TEXT}`,
        `write at most ${example(MAX_DURATION_TEXT)}; for no time limit at all, leave ${field} out`,
      );
    case "not-a-duration":
      return refused(
        `${field} must be a duration such as 2h or 90m, got ${describeValue(text)}`,
        `write ${example("2h")}`,
      );
    case undefined: {
      const hint = durationHint(text);
      if (hint === undefined) return {};
      return {
        warning: problem(
          "wrong-type",
          file,
          line,
          `${field} ${quoted(text)} reads like a duration but is not one, so it sets no timeout (it is passed to the executor as text)`,
          `${HINTS[hint.kind]}${hint.write ?? ""}; leave it as it is if it is a budget in words`,
          "warning",
        ),
      };
    }
  }
}

const HINTS: Record<DurationHint["kind"], string> = {
  unit: "the last number has no unit: write ",
  duration: "write just the duration, e.g. ",
  digits: "write it in digits and units: 45s, 30m, 2h, 1h30m or 2d",
};

/**
 * `plan.md:3: depends_on must be a list of ticket ids, got a mapping — write depends_on: [research]`.
 * With `dir`, the file is shown under it (`tickets/plan.md:3: …`) so terminals can open it.
 */
export function formatProblem(p: Problem, dir?: string): string {
  const bare = dir === undefined || dir === "" || dir === "." || p.file === dir;
  const file = bare ? p.file : `${dir}${dir.endsWith("/") ? "" : "/"}${p.file}`;
  const where = p.line === undefined ? file : `${file}:${p.line}`;
  return `${where}: ${p.severity === "warning" ? "warning: " : ""}${p.message} — ${p.fix}`;
}

/** Problems in the order a person reads them: by file, then line, errors before warnings. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1),
  );
}

export function isError(p: Problem): boolean {
  return p.severity === "error";
}
