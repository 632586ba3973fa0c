/**
 * The zod check of a ticket's fields, and what it says is wrong, in words. Only
 * needed when a field is not of its type: for well-typed fields (fields.ts,
 * `fieldsWellTyped`, proved to agree with this check) zod is never loaded.
 */
import { z } from "zod";
import { BlockedBy, Status } from "../core/model.js";
import {
  FIELDS,
  fieldsWellTyped,
  type RawFields,
  SUBFIELDS,
  type TypedFields,
  WELL_TYPED,
} from "./field-table.js";
import { describeValue, type Problem, problem } from "./problems.js";

const Text = z.string();
const List = z.array(z.string());
export const TicketFields = z.object({
  id: Text.optional(),
  title: Text.optional(),
  depends_on: List.optional(),
  inputs: List.optional(),
  executor: Text.optional(),
  agent: Text.optional(),
  write_scope: List.optional(),
  bound: Text.optional(),
  isolation: Text.optional(),
  retries: z.int().min(0).optional(),
  priority: z.int().optional(),
  run: Text.optional(),
  status: Status.optional(),
  attempt: z.int().min(0).optional(),
  claimed_by: Text.optional(),
  claimed_at: Text.optional(),
  claim: Text.optional(),
  blocked_by: BlockedBy.optional(),
  reason: Text.optional(),
  updated_at: Text.optional(),
});

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
    const info = SUBFIELDS[key] ?? FIELDS[name];
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
