import { expect } from "vitest";
import type { TicketSpec } from "../../src/core/model.js";
import type { ParsedTicket } from "../../src/tickets/fields.js";
import { parseTicket } from "../../src/tickets/parse.js";
import { formatProblem, type Problem } from "../../src/tickets/problems.js";

/** Parse and insist it is valid. */
export function ok(text: string, file = "t.md"): Extract<ParsedTicket, { kind: "ok" }> {
  const r = parseTicket(text, file, 0);
  if (r.kind !== "ok") throw new Error(r.problems.map((p) => formatProblem(p)).join("\n"));
  return r;
}

export function spec(text: string, file = "t.md"): TicketSpec {
  return ok(text, file).spec;
}

/** Parse and insist it is invalid; the problems as the user reads them. */
export function problems(text: string, file = "t.md"): Problem[] {
  const r = parseTicket(text, file, 0);
  expect(r.kind, `expected ${file} to be refused`).toBe("invalid");
  return r.kind === "invalid" ? r.problems : [];
}

export function lines(ps: readonly Problem[]): string[] {
  return ps.map((p) => formatProblem(p));
}
