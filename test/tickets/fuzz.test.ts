import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { KNOWN_FIELDS, parseTicket } from "../../src/tickets/parse.js";
import { formatProblem } from "../../src/tickets/problems.js";

const FILE = "fuzzed.md";

/** Never a crash; a refusal always names the file, in one line, with no stack trace. */
function wellBehaved(text: string): boolean {
  const r = parseTicket(text, FILE, 0);
  const all = r.kind === "ok" ? r.warnings : [...r.problems, ...r.warnings];
  if (r.kind === "invalid") expect(r.problems.length).toBeGreaterThan(0);
  for (const p of all) {
    const line = formatProblem(p);
    expect(p.file).toBe(FILE);
    expect(line.startsWith(`${FILE}:`) || line.startsWith(`${FILE} `)).toBe(true);
    expect(line).not.toMatch(/\n\s+at |Error:|TypeError|undefined is not/);
    expect(p.message).not.toContain("\n");
    expect(p.fix.length).toBeGreaterThan(0);
  }
  return true;
}

const fieldValue = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string(), { maxKeys: 3 }),
  fc.anything({ maxDepth: 2 }),
);

describe("fuzz: no input crashes the reader, every error names the file", () => {
  test("arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) =>
        wellBehaved(Buffer.from(bytes).toString("utf8")),
      ),
      { numRuns: 1500 },
    );
  });

  test("arbitrary bytes inside --- delimiters", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.string(), (bytes, body) =>
        wellBehaved(`---\n${Buffer.from(bytes).toString("utf8")}\n---\n${body}`),
      ),
      { numRuns: 1500 },
    );
  });

  test("arbitrary text made of YAML's own characters", () => {
    const yamlish = fc
      .array(
        fc.constantFrom(
          ..."-:#[]{}|>!&*?,'\"%@`\n\r\t ~.0a1".split(""),
          "---",
          "\n---\n",
          "id: ",
          "depends_on: ",
        ),
        {
          maxLength: 80,
        },
      )
      .map((a) => a.join(""));
    fc.assert(
      fc.property(yamlish, (s) => wellBehaved(`---\n${s}\n---\n`) && wellBehaved(s)),
      {
        numRuns: 2000,
      },
    );
  });

  test("arbitrary YAML documents as front matter", () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 3 }), (value) => {
        let yaml: string;
        try {
          yaml = stringify(value);
        } catch {
          return true;
        }
        return wellBehaved(`---\n${yaml}---\nbody\n`);
      }),
      { numRuns: 1000 },
    );
  });

  test("arbitrary values in every known field", () => {
    const ticket = fc.dictionary(fc.constantFrom(...KNOWN_FIELDS), fieldValue, { maxKeys: 6 });
    fc.assert(
      fc.property(ticket, (fields) => wellBehaved(`---\n${stringify(fields)}---\n# T\n`)),
      { numRuns: 1500 },
    );
  });
});

describe("fuzz: any string written as YAML text reads back as that exact string", () => {
  test("reason: <any string> round-trips", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (s) => {
        const r = parseTicket(`---\n${stringify({ reason: s })}---\n`, FILE, 0);
        expect(r.kind).toBe("ok");
        if (r.kind === "ok") expect(r.fields.reason).toBe(s);
        return true;
      }),
      { numRuns: 1000 },
    );
  });
});
