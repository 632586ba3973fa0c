/**
 * One ticket file → its checked TicketSpec and the engine-written fields, or the
 * problems with it. Plain front matter takes the quick path (fields.ts, fast.ts);
 * anything else is split by gray-matter and read by the `yaml` package
 * (yaml-fields.ts). Both end in the same checks.
 */

import type { RawFields } from "./field-table.js";
import { typeFields } from "./field-types.js";
import {
  brokenTicket,
  checkFields,
  languageProblem,
  type ParsedTicket,
  type ParseOptions,
  parseTicketQuick,
  unclosedProblem,
} from "./fields.js";
import { readMatter, readYamlFields } from "./yaml-fields.js";

export { type FieldKind, KNOWN_FIELDS, type RawFields } from "./field-table.js";
export {
  AUTHORED_FIELDS,
  checkFields,
  ENGINE_FIELDS,
  type EngineFieldName,
  type EngineFields,
  headingOf,
  idFromFile,
  nearField,
  type ParsedTicket,
  type ParseOptions,
  parseTicketQuick,
} from "./fields.js";
export { readYamlFields } from "./yaml-fields.js";

/** Parse one ticket file: `file` is relative to the ticket directory, `order` its file-order index. */
export function parseTicket(
  text: string,
  file: string,
  order: number,
  opts: ParseOptions = {},
): ParsedTicket {
  return parseTicketQuick(text, file, order, opts) ?? parseTicketFull(text, file, order, opts);
}

/** The full path: gray-matter's split and the YAML parser, for any front matter at all. */
export function parseTicketFull(
  text: string,
  file: string,
  order: number,
  opts: ParseOptions = {},
): ParsedTicket {
  const m = readMatter(text);
  if (m.kind === "language") return brokenTicket([languageProblem(file, m.language)], file, order);
  if (m.kind === "unclosed") return brokenTicket([unclosedProblem(file)], file, order);
  if (m.split.kind === "none") {
    return checkFields(NO_FIELDS, typeFields(NO_FIELDS, file), m.body, file, order, opts);
  }
  const read = readYamlFields(m.split.yaml, file);
  if (read.kind === "problems") return brokenTicket(read.problems, file, order);
  return checkFields(read.raw, typeFields(read.raw, file), m.body, file, order, opts);
}

const NO_FIELDS: RawFields = { values: {}, lines: new Map(), unknown: [] };
