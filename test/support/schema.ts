/**
 * The receipt's JSON Schema, generated from the zod `Receipt` (the one source of the
 * type) and shipped as `schema/receipt.schema.json`. A test keeps the committed file
 * equal to a fresh generation; `node scripts/gen-schema.mjs` rewrites it. Only the tests and
 * that script use it: the package ships the files, not their generator.
 */
import { z } from "zod";
import { RECEIPT_SCHEMA, Receipt } from "../../src/core/model.js";
import { COMMAND_SCHEMA, CommandResult } from "../../src/report/command-result.js";

/** Where the schema files are published: the `$id` of each is this and its file's name. */
const SCHEMA_BASE = "https://github.com/ticket-frontier/ticket-frontier/schema/";

/**
 * A schema's file text (two-space JSON, a final newline), generated from its zod type.
 * `io: "input"`: objects stay open (no `additionalProperties: false`), because SPEC §7
 * lets later producers add fields — a consumer holding the schema must still accept
 * them. Every field named here keeps its type.
 */
function schemaText(type: z.ZodType, file: string, title: string, what: string): string {
  const { $schema, ...rest } = z.toJSONSchema(type, { target: "draft-2020-12", io: "input" });
  const description = `${what} Fields may be added; none may change meaning without a new schema version.`;
  const $id = SCHEMA_BASE + file;
  return `${JSON.stringify({ $schema, $id, title, description, ...rest }, null, 2)}\n`;
}

export function receiptJsonSchemaText(): string {
  return schemaText(
    Receipt,
    "receipt.schema.json",
    RECEIPT_SCHEMA,
    "The record of a Ticket Frontier run (SPEC §7).",
  );
}

/** What the commands that change something print with --json (and `ready --json`). */
export function commandJsonSchemaText(): string {
  return schemaText(
    CommandResult,
    "command.schema.json",
    COMMAND_SCHEMA,
    "What a frontier command that changes something prints with --json (answer, retry, cancel, new, reset, dep add, dep rm), and ready --json.",
  );
}
