import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { BLOCK_KINDS, ISOLATIONS, STATUSES } from "../../src/core/constants.js";
import { Settings } from "../../src/core/model.js";
import { fieldsWellTyped, KNOWN_FIELDS, typedValue } from "../../src/tickets/field-table.js";
import { TicketFields } from "../../src/tickets/field-types.js";
import { KEYS } from "../../src/tickets/setting-keys.js";
import { parseSettings } from "../../src/tickets/settings.js";
import { parseSettingsQuick, settingsWellTyped } from "../../src/tickets/settings-load.js";
import { runs } from "../support/runs.js";

// values of every shape the readers can hand over, and the edges of zod's number checks
const number = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0, -0, 1.5, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e20, Number.NaN, Infinity),
);
const text = fc.oneof(
  fc.constantFrom(...STATUSES, ...BLOCK_KINDS, ...ISOLATIONS, "", "x", "Complete", "dep-other"),
  fc.string({ maxLength: 4 }),
);
const scalar = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.constant(undefined));
const blockedBy = fc.record(
  { ticket: scalar, kind: scalar, root: scalar, extra: scalar },
  { requiredKeys: [] },
);
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  fc.array(fc.oneof({ weight: 4, arbitrary: text }, scalar), { maxLength: 3 }),
  blockedBy,
  fc.record({ ticket: text, kind: text, root: text }),
);
const fieldValues = fc.dictionary(
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...KNOWN_FIELDS) }, fc.constant("other")),
  value,
  { maxKeys: 6 },
);

describe("well-typed fields are checked without zod, exactly as zod checks them", () => {
  test("fieldsWellTyped holds exactly when zod's check succeeds, and zod gives back the same values (property)", () => {
    let typed = 0;
    fc.assert(
      fc.property(fieldValues, (values) => {
        const zod = TicketFields.safeParse(values);
        expect(fieldsWellTyped(values), JSON.stringify(values)).toBe(zod.success);
        if (!zod.success) return;
        typed++;
        for (const name of KNOWN_FIELDS) {
          expect(typedValue(name, values[name])).toStrictEqual(
            (zod.data as Record<string, unknown>)[name],
          );
        }
      }),
      { numRuns: runs(4000) },
    );
    expect(typed).toBeGreaterThan(runs(4000) / 20);
  });

  test("a blocked_by with a key it does not know is given back without it, as zod does", () => {
    const values = { blocked_by: { root: "r", extra: 1, kind: "dep-failed", ticket: "t" } };
    expect(fieldsWellTyped(values)).toBe(true);
    expect(typedValue("blocked_by", values.blocked_by)).toStrictEqual(
      TicketFields.parse(values).blocked_by,
    );
  });
});

const settingValues = fc.dictionary(
  fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...Object.keys(KEYS)) }, fc.constant("other")),
  fc.oneof(
    { weight: 4, arbitrary: scalar },
    fc.record({ dispatches: scalar, duration: scalar }, { requiredKeys: [] }),
    fc.dictionary(fc.constantFrom("a", "b"), scalar, { maxKeys: 2 }),
  ),
  { maxKeys: 5 },
);

// frontier.yml as people write it, and the YAML that is not plain
const settingKey = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(KEYS)) },
  fc.constantFrom("max_paralel", "owner", "constructor", "toString", "null", "a b", "-x", "?"),
);
const settingScalar = fc.oneof(
  fc.constantFrom("4", "010", "+3", "-1", "0", "0x1F", "1e3", "1.50", ".inf", "true", "no"),
  fc.constantFrom("null", "~", "", "9007199254740993", "2026-01-02", "30m", "./run.sh x"),
  fc.constantFrom("worktree", "required", "none", "Worktree"),
  fc.constantFrom('"quoted"', "'single'", '"4"', "'it''s'", '"a\\"b"', '"\\u00e9"', "'"),
  fc.stringMatching(/^[a-z0-9 ._:#/-]{0,10}$/),
  fc.constantFrom("[a, b]", "{dispatches: 5, duration: 2h}", "{a: x}", "&a 3", "*a", "|", "- x"),
);
const settingLine = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        settingKey,
        fc.constantFrom(": ", ":", ":  "),
        settingScalar,
        fc.constantFrom("", " # c", "  #c", "#x"),
      )
      .map(([k, s, v, c]) => `${k}${s}${v}${c}`),
  },
  fc.constantFrom("", "# comment", "  # indented", "  child: 1", "- x", "---", "...", "\tk: v"),
);
const settingsText = fc
  .tuple(fc.array(settingLine, { maxLength: 6 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
  .map(([ls, eol, end]) => ls.join(eol) + (end ? eol : ""));

describe("plain frontier.yml is read without the YAML parser or zod, exactly as parseSettings reads it", () => {
  test("settingsWellTyped holds only when zod's check succeeds, with the values as they are (property)", () => {
    const Partial = Settings.partial();
    fc.assert(
      fc.property(settingValues, (values) => {
        if (!settingsWellTyped(values)) return;
        const zod = Partial.safeParse(values);
        expect(zod.success, JSON.stringify(values)).toBe(true);
        for (const name of Object.keys(KEYS)) {
          expect((zod.data as Record<string, unknown>)[name]).toStrictEqual(values[name]);
        }
      }),
      { numRuns: runs(3000) },
    );
  });

  test("whenever the quick reading answers, it equals parseSettings (property)", () => {
    let answered = 0;
    fc.assert(
      fc.property(settingsText, (text) => {
        const quick = parseSettingsQuick(text);
        if (quick === undefined) return;
        answered++;
        const full = parseSettings(text);
        expect(quick, JSON.stringify(text)).toStrictEqual(full);
        // and in zod's order, which is what a receipt or a test would print
        expect(Object.keys(quick.settings)).toEqual(Object.keys(full.settings));
      }),
      { numRuns: runs(4000) },
    );
    expect(answered).toBeGreaterThan(runs(4000) / 10);
  });

  test("the frontier.yml most directories have takes the quick path", () => {
    for (const text of [
      "run: bench-loading\nmax_tickets: 20000\n",
      "# settings\nrun: release-review\ngoal: Ship the retry redesign  # why\nmax_parallel: 4\nretries: 1\nbound: 50\nexecutor: ./run-ticket.sh\n",
      "run: x\r\nmax_paralel: 3\r\n",
      "",
    ]) {
      const quick = parseSettingsQuick(text);
      expect(quick, JSON.stringify(text)).toBeDefined();
      expect(quick).toStrictEqual(parseSettings(text));
    }
  });

  test("mappings, non-decimal numbers, wrong types and broken YAML go to parseSettings", () => {
    for (const text of [
      "bound: {dispatches: 5}\n",
      "executors:\n  review: ./review.sh\n",
      "max_parallel: 0x10\n",
      "max_parallel: 0\n",
      'max_parallel: "4"\n',
      "run: [a\n",
      "run: a\nrun: b\n",
    ]) {
      expect(parseSettingsQuick(text), JSON.stringify(text)).toBeUndefined();
    }
  });
});
