/**
 * The receipt's JSON Schema, generated from the zod `Receipt` (the one source of the
 * type) and shipped as `schema/receipt.schema.json`. A test keeps the committed file
 * equal to a fresh generation; `node scripts/gen-schema.mjs` rewrites it after a build.
 */
import { z } from "zod";
import { RECEIPT_SCHEMA, Receipt } from "../core/model.js";

export const RECEIPT_SCHEMA_ID =
  "https://github.com/ticket-frontier/ticket-frontier/schema/receipt.schema.json";

/**
 * `io: "input"`: objects stay open (no `additionalProperties: false`), because SPEC §7
 * lets later producers add fields to receipt@1 — a consumer holding this schema must
 * still accept them. Every field named here keeps its type.
 */
export function receiptJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(Receipt, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: RECEIPT_SCHEMA_ID,
    title: RECEIPT_SCHEMA,
    description:
      "The record of a Ticket Frontier run (SPEC §7). Fields may be added; none may change meaning without a new schema version.",
    ...rest,
  };
}

/** The file's exact text: two-space JSON and a final newline. */
export function receiptJsonSchemaText(): string {
  return `${JSON.stringify(receiptJsonSchema(), null, 2)}\n`;
}
