import fc from "fast-check";
import matter from "gray-matter";
import { describe, expect, test } from "vitest";
import { splitFrontMatter } from "../../src/tickets/frontmatter.js";
import { formatProblem } from "../../src/tickets/problems.js";
import { parseSettings } from "../../src/tickets/settings.js";
import { defaultRunName } from "../../src/tickets/settings-load.js";
import { readMatter } from "../../src/tickets/yaml-fields.js";
import { runs } from "../support/runs.js";

describe("frontier.yml", () => {
  test("every setting is read, text as written", () => {
    const r = parseSettings(
      [
        "schema: ticket-frontier/settings@1",
        "run: 2026-01-02",
        "goal: Ship the retry redesign",
        "max_parallel: 4",
        "bound: {dispatches: 50, duration: 2h}",
        "ticket_bound: 30m",
        "retries: 1",
        "executor: ./run.sh",
        "executors: {review: ./review.sh, '010': x}",
        "max_tickets: 010",
        "max_file_bytes: 1000",
        "max_result_bytes: 2000",
      ].join("\n"),
    );
    expect(r.problems).toEqual([]);
    expect(r.settings).toEqual({
      schema: "ticket-frontier/settings@1",
      run: "2026-01-02",
      goal: "Ship the retry redesign",
      max_parallel: 4,
      bound: { dispatches: 50, duration: "2h" },
      ticket_bound: "30m",
      retries: 1,
      executor: "./run.sh",
      executors: { review: "./review.sh", "010": "x" },
      max_tickets: 10,
      max_file_bytes: 1000,
      max_result_bytes: 2000,
    });
  });

  test("bound may be a plain dispatch count", () => {
    expect(parseSettings("bound: 20\n").settings.bound).toBe(20);
  });

  test("errors name the line and the fix", () => {
    const r = parseSettings("run: x\nmax_parallel: 0\nbound: {duration: soon}\n");
    expect(r.problems.map((p) => formatProblem(p))).toEqual([
      "frontier.yml:2: max_parallel must be a whole number, 1 or more, got 0 — write max_parallel: 4",
      // one wrong setting hides nothing: the rest are still checked
      'frontier.yml:3: bound.duration must be a duration such as 2h or 90m, got "soon" — write bound: {duration: 2h}',
    ]);
    expect(r.settings).toEqual({ run: "x" });
    expect(parseSettings("bound: {duration: soon}\n").problems[0]).toMatchObject({
      line: 1,
      kind: "invalid-settings",
    });
  });

  test("a setting named like a JavaScript built-in (constructor, toString) is an unknown setting, not silently taken", () => {
    const r = parseSettings("constructor: 3\ntoString: x\nmax_parallel: 2\n");
    expect(r.settings).toEqual({ max_parallel: 2 });
    expect(r.warnings.map((p) => formatProblem(p))).toEqual([
      'frontier.yml:1: warning: unknown setting "constructor" — remove it (it is ignored)',
      'frontier.yml:2: warning: unknown setting "toString" — remove it (it is ignored)',
    ]);
  });

  test("a tag the YAML parser cannot decode is named as such, not as a JavaScript error", () => {
    expect(
      parseSettings("max_parallel: 2\nbound: !!%de 3\n").problems.map((p) => formatProblem(p)),
    ).toEqual([
      "frontier.yml:2: frontier.yml is not valid YAML: a tag it cannot read (URI malformed) — fix the YAML (quote text that contains : or #)",
    ]);
  });

  test("broken YAML names its line", () => {
    expect(parseSettings("run: x\ngoal: [\n").problems[0]).toMatchObject({
      kind: "invalid-settings",
      file: "frontier.yml",
    });
  });

  test("an unknown setting is a warning, with a near-miss suggestion", () => {
    const r = parseSettings("max_paralel: 3\n");
    expect(r.warnings.map((p) => formatProblem(p))).toEqual([
      'frontier.yml:1: warning: unknown setting "max_paralel" (did you mean max_parallel?) — rename it to max_parallel',
    ]);
  });

  test("run defaults to the directory's name", () => {
    expect(defaultRunName("/work/repo/tickets")).toBe("tickets");
    expect(defaultRunName("/work/repo/tickets/")).toBe("tickets");
  });
});

describe("front matter is split exactly where gray-matter splits it", () => {
  test("arbitrary text built from delimiters and line breaks (property)", () => {
    const piece = fc.constantFrom(
      "---",
      "----",
      "\n",
      "\r\n",
      "\r",
      "yaml",
      "js",
      " ",
      "a: 1",
      "\ufeff",
      "x",
      "#",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }).map((a) => a.join("")),
        (text) => {
          const split = splitFrontMatter(text);
          let file: { content: string; matter?: string };
          try {
            // gray-matter only splits here: its default engine would also parse the YAML
            // (and throw on a YAML error, which readMatter leaves to the field reader)
            const splitOnly = () => ({});
            file = matter(text, {
              engines: { yaml: splitOnly, js: splitOnly, javascript: splitOnly },
            });
          } catch {
            // gray-matter refuses an odd language line; readMatter reports that as a language problem
            expect(readMatter(text).kind).not.toBe("ok");
            return true;
          }
          if (split.kind === "none") {
            expect(file.content).toBe(text.replace(/^\ufeff/, ""));
            return true;
          }
          if (!split.closed || !/^(|ya?ml)$/i.test(split.language)) return true;
          expect(text.slice(split.bodyStart)).toBe(file.content);
          expect(text.slice(split.yamlStart, split.closeAt)).toBe(file.matter);
          // and readMatter agrees with itself
          expect(readMatter(text).kind).toBe("ok");
          return true;
        },
      ),
      { numRuns: runs(3000) },
    );
  });
});
