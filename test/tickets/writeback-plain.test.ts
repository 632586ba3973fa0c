/**
 * Plain front matter is edited by line positions, checked with the fast reader, with
 * no YAML document: the property tests hold that edit equal to the YAML-document edit
 * (`editFrontMatter` with the fast reader made to refuse every text, so that the YAML
 * document does it: the path every ticket took before) on generated plain
 * front matter, and the YAML parser is watched to prove the plain path never calls it.
 */
import fc from "fast-check";
import { afterEach, describe, expect, test, vi } from "vitest";
import { fastFields } from "../../src/tickets/fast.js";
import { ENGINE_FIELDS } from "../../src/tickets/field-table.js";
import type { EngineFields } from "../../src/tickets/fields.js";
import { splitFrontMatter } from "../../src/tickets/frontmatter.js";
import { editFrontMatter } from "../../src/tickets/writeback.js";
import { readYamlFields } from "../../src/tickets/yaml-fields.js";
import { runs } from "../support/runs.js";
import { ok } from "./helpers.js";

const yamlCalls = vi.hoisted(() => ({ parseDocument: 0 }));
vi.mock("yaml", async (importOriginal) => {
  const real = await importOriginal<typeof import("yaml")>();
  return {
    ...real,
    parseDocument: (...args: Parameters<typeof real.parseDocument>) => {
      yamlCalls.parseDocument++;
      return real.parseDocument(...args);
    },
  };
});

// the fast reader refuses while `documentOnly` is set: the edit then goes through the document
const fast = vi.hoisted(() => ({ documentOnly: false }));
vi.mock("../../src/tickets/fast.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/tickets/fast.js")>();
  return {
    ...real,
    fastFields: (...args: Parameters<typeof real.fastFields>) =>
      fast.documentOnly ? undefined : real.fastFields(...args),
  };
});

/** The same edit through the YAML document only. */
function editFrontMatterWithDocument(text: string, fields: EngineFields): string {
  fast.documentOnly = true;
  try {
    return editFrontMatter(text, fields);
  } finally {
    fast.documentOnly = false;
  }
}

afterEach(() => {
  yamlCalls.parseDocument = 0;
});

/** Both edits, or the error each gave. */
function outcome(edit: () => string): string {
  try {
    return edit();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

// values as authors write them: plain words, numbers-as-text, quoted with escapes, unicode
const chars = fc
  .array(
    fc.constantFrom(
      ..."abcXYZ019 _-./:#,'\"\\!&*?%@`~=+()$^;<>éüß中文😀".split(""),
      "😀",
      "''",
      ": ",
      " #",
    ),
    { maxLength: 10 },
  )
  .map((a) => a.join(""));
const word = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,8}$/);
const plain = fc.oneof(
  word,
  fc.constantFrom("010", "-3", "true", "no", "null", "~", "2026-01-02T10:00:00Z", "café ☕ 日本"),
);
const scalar = fc.oneof(
  plain,
  chars.map((s) => JSON.stringify(s)),
  chars.map((s) => `'${s.replaceAll("'", "''")}'`),
);
const comment = fc.oneof(
  fc.constant(""),
  chars.map((c) => ` #${c}`),
);
const authorLine = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom("id", "title", "owner", "agent", "bound", "run"), scalar, comment)
      .map(([k, v, c]) => `${k}: ${v}${c}`),
  },
  fc
    .tuple(fc.constantFrom("priority", "retries"), fc.constantFrom("1", "010", "-2"), comment)
    .map(([k, v, c]) => `${k}: ${v}${c}`),
  fc
    .tuple(fc.array(word, { maxLength: 3 }), comment)
    .map(([ids, c]) => `depends_on: [${ids.join(", ")}]${c}`),
  fc
    .array(word, { minLength: 1, maxLength: 3 })
    .map((ids) => `inputs:\n${ids.map((i) => `  - ${i}`).join("\n")}`),
  fc.constantFrom(
    "",
    "  ",
    "# a comment",
    "  # an indented comment",
    "# status: complete",
    "extra: {a: b, c: d}",
    "list: [x, y]",
  ),
);
const engineLine = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("status", "claimed_by", "claim", "reason", "updated_at", "claimed_at"),
      scalar,
      comment,
    )
    .map(([k, v, c]) => `${k}: ${v}${c}`),
  fc
    .tuple(fc.constantFrom("status", "reason"), fc.constantFrom("", " ~", " null", " # empty"))
    .map(([k, v]) => `${k}:${v}`),
  fc.tuple(fc.constantFrom("1", "2", "10"), comment).map(([n, c]) => `attempt: ${n}${c}`),
  fc
    .tuple(word, word, comment)
    .map(([t, r, c]) => `blocked_by: {ticket: ${t}, kind: dep-failed, root: ${r}}${c}`),
);
const body = fc.constantFrom(
  "",
  "# Title\n",
  "Body with a fenced block:\n\n```yaml\nstatus: complete\nattempt: 9\n---\n```\n",
  "---\nstatus: claimed\n---\ntrailing  \n",
  "naïve résumé 日本語 🚀\n",
  "no final newline",
);
const eol = fc.constantFrom("\n", "\r\n");
const ticketText = fc
  .tuple(
    fc.constantFrom("", "\ufeff"),
    fc.constantFrom("---", "---yaml", "--- "),
    fc.array(fc.oneof({ weight: 3, arbitrary: authorLine }, engineLine), { maxLength: 9 }),
    body,
    eol,
  )
  .map(([bom, open, lines, b, e]) => {
    // an engine field at most once: duplicates are not plain front matter
    const seen = new Set<string>();
    const kept = lines.filter((l) => {
      const key = /^([a-z_]+):/.exec(l)?.[1];
      if (key === undefined) return true;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const fm = kept.length === 0 ? "" : `${kept.join("\n")}\n`;
    return `${bom}${open}\n${fm}---\n${b}`.replaceAll("\n", e);
  });

const text = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
  chars,
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "exit 1: boom # not a comment\n---\nstill",
    "010",
    "yes",
    "2026-01-02T10:00:00.000Z",
  ),
);
const engineValue: Record<(typeof ENGINE_FIELDS)[number], fc.Arbitrary<unknown>> = {
  status: fc.constantFrom("ready", "claimed", "complete", "failed", "blocked"),
  attempt: fc.integer({ min: 1, max: 12 }),
  claimed_by: text,
  claimed_at: text,
  claim: text,
  blocked_by: fc
    .tuple(
      fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,8}$/),
      fc.constantFrom("dep-failed", "dep-blocked"),
    )
    .map(([t, kind]) => ({ ticket: t, kind, root: t })),
  reason: text,
  updated_at: text,
};
const fieldsToWrite = fc
  .array(fc.tuple(fc.constantFrom(...ENGINE_FIELDS), fc.boolean()), {
    maxLength: ENGINE_FIELDS.length,
  })
  .chain((picks) =>
    fc.tuple(
      ...picks.map(([name, remove]) =>
        remove
          ? fc.constant([name, undefined] as const)
          : engineValue[name].map((v) => [name, v] as const),
      ),
    ),
  )
  .map((pairs) => Object.fromEntries(pairs) as EngineFields);

describe("plain front matter is edited by lines, exactly as the YAML document would", () => {
  test("generated plain front matter (comments, quoting, CRLF, unicode, fenced status: in the body): the line edit equals the document edit (property)", () => {
    let plainCount = 0;
    fc.assert(
      fc.property(ticketText, fieldsToWrite, (t, fields) => {
        const split = splitFrontMatter(t);
        if (split.kind === "front" && fastFields(split.yaml) !== undefined) plainCount++;
        const viaLines = outcome(() => editFrontMatter(t, fields));
        const viaDocument = outcome(() => editFrontMatterWithDocument(t, fields));
        expect(viaLines, JSON.stringify({ t, fields })).toBe(viaDocument);
        return true;
      }),
      { numRuns: runs(3000) },
    );
    // the property only proves something when most generated tickets are plain
    expect(plainCount).toBeGreaterThan(runs(3000) / 2);
  });

  test("after any sequence of edits the ticket reads back with the fields written and the body unmoved (property)", () => {
    fc.assert(
      fc.property(
        ticketText,
        fc.array(fieldsToWrite, { minLength: 1, maxLength: 4 }),
        (t, steps) => {
          const split = splitFrontMatter(t);
          if (split.kind !== "front" || fastFields(split.yaml) === undefined) return true;
          let cur = t;
          const want: Record<string, unknown> = {};
          for (const fields of steps) {
            cur = editFrontMatter(cur, fields);
            Object.assign(want, fields);
          }
          const s = splitFrontMatter(cur);
          expect(s.kind).toBe("front");
          if (s.kind !== "front") return false;
          expect(cur.slice(s.bodyStart)).toBe(t.slice(split.bodyStart));
          // read back with the full parser: a value the fast reader leaves to it (a quoted
          // id in blocked_by) was written through the YAML document instead
          const read = readYamlFields(s.yaml, "t.md");
          expect(read.kind).toBe("ok");
          if (read.kind !== "ok") return false;
          for (const [k, v] of Object.entries(want)) expect(read.raw.values[k]).toEqual(v);
          return true;
        },
      ),
      { numRuns: runs(800) },
    );
  });

  test("a plain ticket is edited without building a YAML document", () => {
    const t =
      '---\r\n# the plan\r\nid: plan   # odd spacing\r\ntitle: "Plan — café ☕"\r\nstatus: ready\r\nreason: "old"\r\ndepends_on:\r\n  - a\r\n---\r\n```\r\nstatus: complete\r\n```\r\n';
    const after = editFrontMatter(t, {
      status: "claimed",
      attempt: 1,
      claim: "plan#1-ab12",
      reason: undefined,
      blocked_by: { ticket: "a", kind: "dep-failed", root: "a" },
    });
    expect(yamlCalls.parseDocument).toBe(0);
    expect(after).toBe(
      '---\r\n# the plan\r\nid: plan   # odd spacing\r\ntitle: "Plan — café ☕"\r\nstatus: claimed\r\ndepends_on:\r\n  - a\r\nattempt: 1\r\nclaim: "plan#1-ab12"\r\nblocked_by: {ticket: a, kind: dep-failed, root: a}\r\n---\r\n```\r\nstatus: complete\r\n```\r\n',
    );
    expect(ok(after).fields).toEqual({
      status: "claimed",
      attempt: 1,
      claim: "plan#1-ab12",
      blocked_by: { ticket: "a", kind: "dep-failed", root: "a" },
    });
  });

  test("front matter that is not plain still goes through the YAML document", () => {
    const t = "---\nreason: |\n  line one\n  line two\ntitle: T\n---\n";
    expect(editFrontMatter(t, { reason: "short" })).toBe("---\nreason: short\ntitle: T\n---\n");
    expect(yamlCalls.parseDocument).toBeGreaterThan(0);
  });
});
