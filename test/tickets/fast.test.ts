import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fastFields } from "../../src/tickets/fast.js";
import { KNOWN_FIELDS } from "../../src/tickets/field-table.js";
import { parseTicketQuick } from "../../src/tickets/fields.js";
import { parseTicketFull } from "../../src/tickets/parse.js";
import { readYamlFields } from "../../src/tickets/yaml-fields.js";
import { runs } from "../support/runs.js";

/** The full parser's reading, in the fast path's shape (or "refused"). */
function full(yaml: string) {
  const r = readYamlFields(yaml, "t.md");
  return r.kind === "ok" ? r.raw : "refused";
}

let answered = 0;
function agree(yaml: string): boolean {
  const fast = fastFields(yaml);
  if (fast === undefined) return true;
  answered++;
  const slow = full(yaml);
  expect(slow, `full parser refused what the fast path read:\n${JSON.stringify(yaml)}`).not.toBe(
    "refused",
  );
  if (slow === "refused") return false;
  expect({ ...fast, lines: [...fast.lines].sort() }, JSON.stringify(yaml)).toEqual({
    ...slow,
    lines: [...slow.lines].sort(),
  });
  return true;
}

// characters that make YAML interesting: indicators, quotes, escapes, unicode, spaces
const alphabet = fc.constantFrom(
  ..."abcXYZ019 _-./:#,[]{}'\"\\!&*?|>%@`~=+()$^;<\t\r\néüß中文\u00a0\u0085\u2028\ufeff😀".split(
    "",
  ),
  "😀",
  "\\n",
  "\\u00e9",
  "''",
  ": ",
  " #",
);
const chars = fc.array(alphabet, { maxLength: 12 }).map((a) => a.join(""));
const word = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,8}$/);
const plainValue = fc.oneof(
  word,
  fc.constantFrom(
    "010",
    "007",
    "0x1F",
    "1e3",
    "1.50",
    "-3",
    "+4",
    ".inf",
    "true",
    "no",
    "null",
    "~",
    "2026-01-02",
    "2026-01-02T10:00:00Z",
  ),
  chars,
);
const scalar = fc.oneof(
  plainValue,
  chars.map((s) => JSON.stringify(s)),
  chars.map((s) => `'${s.replaceAll("'", "''")}'`),
  chars.map((s) => `"${s}"`),
  chars.map((s) => `'${s}'`),
);
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  fc.array(plainValue, { maxLength: 4 }).map((a) => `[${a.join(", ")}]`),
  fc.array(scalar, { maxLength: 3 }).map((a) => `[${a.join(",")}]`),
  fc
    .array(fc.tuple(word, plainValue), { maxLength: 3 })
    .map((a) => `{${a.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
  fc.constant(""),
  fc
    .array(plainValue, { minLength: 1, maxLength: 3 })
    .map((a) => `\n${a.map((v) => `  - ${v}`).join("\n")}`),
  fc
    .tuple(
      fc.array(scalar, { minLength: 1, maxLength: 3 }),
      fc.constantFrom("", "  ", "    "),
      fc.array(fc.constantFrom("", "  ", " # c", "  # needs it"), { minLength: 3, maxLength: 3 }),
      fc.constantFrom(
        "",
        "\n",
        "\n  # between",
        "\n  - other-indent",
        "\n-",
        "\n  -  ",
        "\n  - - x",
      ),
    )
    .map(
      ([items, indent, tails, extra]) =>
        `\n${items.map((v, i) => `${indent}- ${v}${tails[i]}`).join("\n")}${extra}`,
    ),
  fc.constantFrom(
    "|\n  a\n  b",
    ">-\n  folded",
    "&a x",
    "*a",
    "!!str 010",
    "[a, [b]]",
    "{a: {b: c}}",
  ),
);
const key = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...KNOWN_FIELDS) },
  word,
  fc.constantFrom("null", "true", "010", "a b", "-x", "?", "<<", "depend_on"),
);
const comment = fc.oneof(
  fc.constant(""),
  chars.map((c) => ` #${c}`),
);
const line = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(key, fc.constantFrom(": ", ":", ":  "), value, comment)
      .map(([k, s, v, c]) => `${k}${s}${v}${c}`),
  },
  comment.map((c) => c.trimStart()),
  fc.constantFrom("", "  ", "  # indented comment", "...", "- x", "  child: 1", "\tkey: v"),
);
const frontMatter = fc
  .tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom("\n", "\r\n"))
  .map(([ls, eol]) => eol + ls.join(eol));

describe("the fast path reads plain front matter exactly as the full YAML parser does", () => {
  test("generated front matter: whenever the fast path answers, it equals the full parser", () => {
    answered = 0;
    fc.assert(fc.property(frontMatter, agree), { numRuns: runs(4000) });
    // the property only proves something if the fast path often answers
    expect(answered).toBeGreaterThan(runs(4000) / 10);
    console.log(`fast path answered ${answered}`);
  });

  test("arbitrary text: the fast path never answers differently from the full parser", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }).map((s) => `\n${s}`),
        agree,
      ),
      {
        numRuns: runs(2000),
      },
    );
  });

  test("the front matter most tickets have takes the fast path", () => {
    const typical = [
      "\nid: plan\ntitle: Plan the retry redesign\ndepends_on: [research, survey-2]\npriority: 2\nbound: 30m\n",
      '\nstatus: complete\nattempt: 1\nclaimed_at: "2026-01-02T10:00:00.000Z"\nupdated_at: "2026-01-02T10:00:00.000Z"\nreason: "exit 1: boom"\n',
      "\n# a comment\nid: a # trailing\nblocked_by: {ticket: b, kind: dep-failed, root: c}\nowner: ana\n",
      "\r\nid: a\r\ndepends_on: []\r\n",
      '\nid: a\ndepends_on:\n  - b  # needs its table\n  - c\nwrite_scope:\n  - "services/x/**"\n',
      "\nid: a\ndepends_on:\n- b\n# between\n- c\n",
    ];
    for (const y of typical) {
      expect(fastFields(y), JSON.stringify(y)).toBeDefined();
      agree(y);
    }
  });

  test("anchors, nested lists and multi-line values go to the full parser", () => {
    for (const y of [
      "\ndepends_on:\n  - [a]\n",
      "\ndepends_on:\n  - a\n   - b\n",
      "\ntitle:\n  - a\n",
      "\nid: &x a\n",
      "\ntitle: |\n  t\n",
      "\nid: a\n  b\n",
    ]) {
      expect(fastFields(y), JSON.stringify(y)).toBeUndefined();
    }
  });

  test("whole tickets: the quick path gives the same spec, fields and problems as the full path", () => {
    const body = fc.constantFrom(
      "",
      "# Title\n",
      "body\r\n---\nstatus: x\n",
      "```\n# no\n```\n# Yes\n",
    );
    const text = fc.oneof(
      fc.tuple(frontMatter, body).map(([fm, b]) => `---${fm}\n---\n${b}`),
      fc
        .tuple(
          fc.constantFrom("", "\ufeff"),
          fc.constantFrom("---", "---yaml", "---js", "--- ", "----"),
          frontMatter,
          body,
        )
        .map(([bom, open, fm, b]) => `${bom}${open}${fm}\n---\n${b}`),
      body,
    );
    fc.assert(
      fc.property(text, fc.constantFrom("a.md", "bad name.md"), (t, file) => {
        const quick = parseTicketQuick(t, file, 3);
        if (quick !== undefined) expect(quick).toEqual(parseTicketFull(t, file, 3));
        return true;
      }),
      { numRuns: runs(3000) },
    );
  });
});
