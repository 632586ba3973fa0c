/**
 * The receipt's JSON Schema, generated from the zod `Receipt` (the one source of the
 * type) and shipped as `schema/receipt.schema.json`. A test keeps the committed file
 * equal to a fresh generation; `node scripts/gen-schema.mjs` rewrites it after a build.
 */
import { z } from "zod";
import { RECEIPT_SCHEMA, Receipt } from "../core/model.js";
import { COMMAND_SCHEMA, CommandResult } from "./command-result.js";

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

export const COMMAND_SCHEMA_ID =
  "https://github.com/ticket-frontier/ticket-frontier/schema/command.schema.json";

/** What the commands that change something print with --json (and `ready --json`). */
export function commandJsonSchemaText(): string {
  const generated = z.toJSONSchema(CommandResult, {
    target: "draft-2020-12",
    io: "input",
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  const schema = {
    $schema,
    $id: COMMAND_SCHEMA_ID,
    title: COMMAND_SCHEMA,
    description:
      "What a frontier command that changes something prints with --json (answer, retry, cancel, new, reset, dep add, dep rm), and ready --json. Fields may be added; none may change meaning without a new schema version.",
    ...rest,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
