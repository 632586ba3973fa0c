/**
 * The table of a ticket's fields: the kind each one is, what it expects (for messages),
 * and the quick check that they are all of their types. Shared by the quick reader
 * (fast.ts), the YAML reader (yaml-fields.ts), zod's check (field-types.ts) and
 * fields.ts, so none of them imports another for it.
 */
import { BLOCK_KINDS, MODEL_NAME, STATUSES } from "../core/constants.js";
import type { BlockedBy as BlockedByT, Status } from "../core/model.js";
import type { Problem } from "./problems.js";

export type FieldKind = "text" | "list" | "int" | "map";
/** how a value is checked beyond its kind: a whole number ≥ 0, a status, a model's name */
type FieldCheck = "count" | "status" | "model";

export interface FieldInfo {
  kind: FieldKind;
  check?: FieldCheck;
  /** "must be …" */
  expect: string;
  /** "write …" */
  example: string;
}

/** A whole number ≥ 0: what `retries` and `attempt` hold. */
const COUNT = { kind: "int", check: "count", expect: "a whole number, 0 or more" } as const;

/**
 * Every field of a ticket — the author's, then the engine's — is in these two tables: the
 * readers (fast.ts, yaml-fields.ts), the type checks (`fieldsWellTyped` here, zod's in
 * field-types.ts), `FieldValues` and `ENGINE_FIELDS` derive from them.
 */
const AUTHORED = {
  id: { kind: "text", expect: "a ticket id", example: "id: research" },
  title: { kind: "text", expect: "one line of text", example: "title: Research the options" },
  depends_on: { kind: "list", expect: "a list of ticket ids", example: "depends_on: [research]" },
  inputs: {
    kind: "list",
    expect: "a list of ticket ids from depends_on",
    example: "inputs: [research]",
  },
  executor: { kind: "text", expect: "the name of an executor", example: "executor: review" },
  agent: { kind: "text", expect: "the name of one worker", example: "agent: writer" },
  model: {
    kind: "text",
    check: "model",
    expect: "a model's name, without spaces",
    example: "model: openai/gpt-4.1-mini",
  },
  write_scope: {
    kind: "list",
    expect: "a list of paths or globs",
    example: "write_scope: [src/api/**]",
  },
  bound: {
    kind: "text",
    expect: "a duration such as 30m or 1h30m, or a budget in words",
    example: "bound: 30m",
  },
  isolation: {
    kind: "text",
    expect: "worktree, required or none",
    example: "isolation: worktree",
  },
  retries: { ...COUNT, example: "retries: 2" },
  priority: { kind: "int", expect: "a whole number", example: "priority: 10" },
  // orchflows' work-item floor names the run in each ticket; accepted, not used
  run: { kind: "text", expect: "a run name", example: "run: my-run" },
} as const satisfies Record<string, FieldInfo>;

/** The fields the engine writes into a ticket's front matter, in the order it writes them. */
const ENGINE = {
  status: {
    kind: "text",
    check: "status",
    expect: `one of ${STATUSES.join(", ")}`,
    example: "status: pending (or delete the line)",
  },
  attempt: { ...COUNT, example: "attempt: 1" },
  claimed_by: { kind: "text", expect: "text", example: "claimed_by: runner-1" },
  claimed_at: { kind: "text", expect: "a time", example: `claimed_at: "2026-01-02T10:00:00Z"` },
  claim: { kind: "text", expect: "a claim token", example: "claim: abc123" },
  blocked_by: {
    kind: "map",
    expect: "a mapping {ticket, kind, root}",
    example: "blocked_by: {ticket: a, kind: dep-failed, root: a} (or delete it)",
  },
  reason: { kind: "text", expect: "text", example: `reason: "timeout"` },
  updated_at: { kind: "text", expect: "a time", example: `updated_at: "2026-01-02T10:00:00Z"` },
} as const satisfies Record<string, FieldInfo>;

export const FIELDS = { ...AUTHORED, ...ENGINE };
export type EngineFieldName = keyof typeof ENGINE;
export const ENGINE_FIELDS = Object.keys(ENGINE) as readonly EngineFieldName[];

/** A field's value as its check gives it back. */
interface CheckedValue {
  text: string;
  list: string[];
  int: number;
  map: BlockedByT;
  count: number;
  status: Status;
  model: string;
}
type CheckOf<F> = F extends { check: infer C extends FieldCheck }
  ? C
  : F extends { kind: infer K extends FieldKind }
    ? K
    : never;
/** The fields as their types say they are: what zod's check of them gives back. */
export type FieldValues = {
  [K in keyof typeof FIELDS]?: CheckedValue[CheckOf<(typeof FIELDS)[K]>];
};

/** `FIELDS` by name, for a name read from a file (not one of its keys, maybe). */
export const FIELD_INFO: Readonly<Record<string, FieldInfo | undefined>> = FIELDS;

export const SUBFIELDS: Record<string, FieldInfo> = {
  "blocked_by.ticket": { kind: "text", expect: "a ticket id", example: "ticket: a" },
  "blocked_by.kind": {
    kind: "text",
    expect: `one of ${BLOCK_KINDS.join(", ")}`,
    example: "kind: dep-failed",
  },
  "blocked_by.root": { kind: "text", expect: "a ticket id", example: "root: a" },
};

export const KNOWN_FIELDS: readonly string[] = Object.keys(FIELDS);

/**
 * Whether the fields are all of their types — exactly when zod's check of them
 * (field-types.ts) succeeds, proved by property tests. Most tickets are, and for them
 * zod is never loaded; for the rest zod says what is wrong.
 */
export function fieldsWellTyped(values: Readonly<Record<string, unknown>>): boolean {
  // the fields that are there (a few), not every field there could be: looking up
  // absent names on objects of many shapes is what cost the time
  for (const name in values) {
    const v = values[name];
    if (v === undefined) continue;
    const info = FIELD_INFO[name];
    switch (info === undefined ? undefined : (info.check ?? info.kind)) {
      case "text":
        if (typeof v !== "string") return false;
        break;
      case "list":
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
        break;
      case "count":
        if (!(Number.isSafeInteger(v) && (v as number) >= 0)) return false;
        break;
      case "int":
        if (!Number.isSafeInteger(v)) return false;
        break;
      case "status":
        if (!(STATUSES as readonly unknown[]).includes(v)) return false;
        break;
      case "model":
        if (!(typeof v === "string" && MODEL_NAME.test(v))) return false;
        break;
      case "map": {
        if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
        const { ticket, kind, root } = v as Record<string, unknown>;
        if (typeof ticket !== "string" || typeof root !== "string") return false;
        if (!(BLOCK_KINDS as readonly unknown[]).includes(kind)) return false;
        break;
      }
      default:
      // not a field: zod's check ignores it too
    }
  }
  return true;
}

/** A field as zod's check gives it back: a mapping keeps only the keys it knows. */
export function typedValue(name: string, v: unknown): unknown {
  if (name !== "blocked_by" || v === undefined) return v;
  const { ticket, kind, root } = v as BlockedByT;
  return { ticket, kind, root };
}

/** The result of checking the fields' types: which are bad, and what is wrong with them. */
export interface TypedFields {
  /** names of the fields that are not of their type (these are then ignored) */
  bad: ReadonlySet<string>;
  /** one problem per bad field, with its line */
  problems: readonly Problem[];
}

export const WELL_TYPED: TypedFields = { bad: new Set(), problems: [] };

/**
 * The known fields of a front matter, as plain values ready for zod, with the line
 * of every value (`depends_on`, `depends_on.1`, `blocked_by.kind`) and the names of
 * the fields that are not ours. Produced by the YAML reader or by the fast path;
 * both must agree exactly (proved by property tests).
 */
export interface RawFields {
  values: Record<string, unknown>;
  /**
   * the line of each field; an item or sub-field (`depends_on.1`, `blocked_by.kind`)
   * only when it is on a line of its own, and then `itemLines` is set
   */
  lines: Map<string, number>;
  itemLines?: true;
  /** keys that are not known fields, with their lines */
  unknown: Array<{ key: string; line: number }>;
}

/** The fields of a ticket without front matter. */
export const NO_FIELDS: RawFields = { values: {}, lines: new Map(), unknown: [] };
