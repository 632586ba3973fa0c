/**
 * The zod check of a ticket's fields, and what it says is wrong, in words. Only
 * needed when a field is not of its type: for well-typed fields (fields.ts,
 * `fieldsWellTyped`, proved to agree with this check) zod is never loaded.
 */
import { z } from "zod";
import { MODEL_NAME } from "../core/constants.js";
import { BlockedBy, Status } from "../core/model.js";
import {
  FIELD_INFO,
  fieldsWellTyped,
  type RawFields,
  SUBFIELDS,
  type TypedFields,
  WELL_TYPED,
} from "./field-table.js";
import { describeValue, type Problem, problem } from "./problems.js";

/** zod's check of each kind of value (field-table.ts `FieldInfo`) */
const CHECKS = {
  text: z.string(),
  list: z.array(z.string()),
  int: z.int(),
  map: BlockedBy,
  count: z.int().min(0),
  status: Status,
  model: z.string().regex(MODEL_NAME),
};
export const TicketFields = z.object(
  Object.fromEntries(
    Object.entries(FIELD_INFO).map(([name, f]) => [name, CHECKS[f!.check ?? f!.kind].optional()]),
  ),
);

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[k as string];
  }
  return v;
}

/** Check the fields' types: which are bad, and one problem (with its line) for each. */
export function typeFields(raw: RawFields, file: string): TypedFields {
  if (fieldsWellTyped(raw.values)) return WELL_TYPED;
  const { values, lines } = raw;
  const parsed = TicketFields.safeParse(values);
  if (parsed.success) return WELL_TYPED;
  const problems: Problem[] = [];
  const bad = new Set<string>();
  const seen = new Set<string>();
  for (const issue of parsed.error.issues) {
    const path = issue.path.map(String);
    const name = path[0] ?? "";
    bad.add(name);
    const isItem = path.length > 1 && /^\d+$/.test(path[1]!);
    const key = isItem ? name : path.join(".");
    if (seen.has(key)) continue;
    seen.add(key);
    const info = SUBFIELDS[key] ?? FIELD_INFO[name];
    if (info === undefined) continue;
    const got = valueAt(values, isItem ? path.slice(0, 2) : path);
    const line = lines.get(path.slice(0, 2).join(".")) ?? lines.get(name);
    const where = isItem ? ` (item ${Number(path[1]) + 1})` : "";
    const message =
      got === undefined && path.length > 1
        ? `${key} is missing`
        : `${key} must be ${info.expect}, got ${describeValue(got)}${where}`;
    problems.push(problem("wrong-type", file, line, message, `write ${info.example}`));
  }
  return { bad, problems };
}
