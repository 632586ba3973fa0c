import { describe, expect, test } from "vitest";
import { formatProblem, problem, sortProblems } from "../../src/tickets/problems.js";

describe("a problem says what, where and how to fix it", () => {
  const p = problem(
    "wrong-type",
    "plan.md",
    3,
    "depends_on must be a list of ticket ids, got a mapping",
    "write depends_on: [research]",
  );

  test("file:line: message — fix", () => {
    expect(formatProblem(p)).toBe(
      "plan.md:3: depends_on must be a list of ticket ids, got a mapping — write depends_on: [research]",
    );
  });

  test("shown under the ticket directory when it is given", () => {
    expect(formatProblem(p, "tickets")).toMatch(/^tickets\/plan\.md:3: /);
    expect(formatProblem(p, "tickets/")).toMatch(/^tickets\/plan\.md:3: /);
    expect(formatProblem(p, ".")).toMatch(/^plan\.md:3: /);
  });

  test("a problem of the directory itself is not joined to it", () => {
    const dirProblem = problem("too-many-tickets", "tickets", undefined, "too many", "split it");
    expect(formatProblem(dirProblem, "tickets")).toBe("tickets: too many — split it");
  });

  test("warnings say so", () => {
    const w = problem("unknown-field", "a.md", 2, "unknown field", "rename it", "warning");
    expect(formatProblem(w)).toBe("a.md:2: warning: unknown field — rename it");
  });

  test("sorted by file, then line, errors before warnings", () => {
    const ps = [
      problem("unknown-field", "b.md", 1, "w", "f", "warning"),
      problem("wrong-type", "b.md", 1, "e", "f"),
      problem("cycle", "a.md", 9, "c", "f"),
      problem("invalid-id", "a.md", undefined, "i", "f"),
    ];
    expect(sortProblems(ps).map((x) => [x.file, x.line, x.severity])).toEqual([
      ["a.md", undefined, "error"],
      ["a.md", 9, "error"],
      ["b.md", 1, "error"],
      ["b.md", 1, "warning"],
    ]);
  });
});
