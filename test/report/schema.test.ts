import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { RECEIPT_SCHEMA, Receipt } from "../../src/core/model.js";
import { receiptJson } from "../../src/report/receipt.js";
import { receiptJsonSchemaText } from "../support/schema.js";
import { makeReceipt } from "./fixtures.js";

const committed = readFileSync(
  new URL("../../schema/receipt.schema.json", import.meta.url),
  "utf8",
);
const schema = JSON.parse(committed);

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

describe("a JSON Schema for the receipt ships with the package", () => {
  it("the committed schema equals a fresh generation from the zod Receipt", () => {
    // if this fails: node scripts/gen-schema.mjs
    expect(committed).toBe(receiptJsonSchemaText());
  });

  it("declares draft 2020-12 and names the receipt version", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.title).toBe(RECEIPT_SCHEMA);
    expect(schema.properties.schema.const).toBe(RECEIPT_SCHEMA);
  });

  it("is included in the published package files", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(pkg.files).toContain("schema");
  });
});

describe("receipts validate against the shipped schema", () => {
  const validate = validator();

  it("accepts receipts of every size with every state, as written to disk", () => {
    for (const n of [1, 15, 200]) {
      const r = makeReceipt(n);
      const json = JSON.parse(receiptJson(r));
      const ok = validate(json);
      expect(validate.errors ?? [], `n=${n}`).toEqual([]);
      expect(ok).toBe(true);
      // and zod agrees
      expect(Receipt.safeParse(json).success).toBe(true);
    }
  });

  it("accepts the example of SPEC §7 once its required fields are filled in", () => {
    const example = {
      schema: "ticket-frontier/receipt@1",
      run: "example",
      state: "failed",
      generated_at: "2026-11-30T03:00:00.000Z",
      counts: { complete: 3, empty: 1, failed: 1, blocked: 2 },
      waves: [["a", "b"], ["c"]],
      critical_path: ["a", "c"],
      tickets: [
        {
          id: "c",
          title: "…",
          file: "c.md",
          status: "blocked",
          depends_on: ["a"],
          inputs: ["a"],
          write_scope: [],
          priority: 0,
          attempt: 1,
          blocked_by: { ticket: "a", kind: "dep-failed", root: "a" },
          attempts: [
            {
              n: 1,
              claim: "k",
              outcome: "failed",
              reason: "…",
              claimed_by: "…",
              started_at: "…",
              ended_at: "…",
            },
          ],
          answers: [],
        },
      ],
      blockers: [{ root: "a", root_status: "failed", tickets: ["c"] }],
      questions: [],
      remainder: [{ id: "c", status: "blocked", waiting_on: "a failed" }],
    };
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it("accepts fields added later (receipt@1 may grow) but not a changed meaning", () => {
    const r = JSON.parse(receiptJson(makeReceipt(3)));
    r.added_later = { anything: true };
    r.tickets[0].added_later = 1;
    expect(validate(r)).toBe(true);
  });

  it("rejects a wrong schema version, an unknown state, a negative count and a bad blocker kind", () => {
    // biome-ignore lint/suspicious/noExplicitAny: the parsed JSON is bent into bad shapes on purpose
    const bad = (mutate: (r: Record<string, any>) => void) => {
      const r = JSON.parse(receiptJson(makeReceipt(15)));
      mutate(r);
      return validate(r);
    };
    expect(bad((r) => (r.schema = "ticket-frontier/receipt@2"))).toBe(false);
    expect(bad((r) => (r.state = "done"))).toBe(false);
    expect(bad((r) => (r.tickets[0].status = "done"))).toBe(false);
    expect(bad((r) => (r.counts.complete = -1))).toBe(false);
    expect(bad((r) => (r.counts.done = 1))).toBe(false);
    expect(bad((r) => (r.tickets[10].blocked_by.kind = "dep-unhappy"))).toBe(false);
    expect(bad((r) => delete r.tickets)).toBe(false);
    expect(bad((r) => (r.tickets[0].attempts[0].n = 0))).toBe(false);
  });
});
