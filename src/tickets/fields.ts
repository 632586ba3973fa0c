/**
 * A ticket's fields: what each one means and accepts, their defaults, and the quick
 * path that reads plain front matter without a YAML parser and checks well-typed
 * fields without zod. Nothing here loads the YAML parser, gray-matter or zod: loading
 * a directory of plain, well-typed tickets never pays for them (src/tickets/parse.ts
 * adds the full path, and field-types.ts the zod check that says what is wrong).
 *
 * What the author wrote stays what they wrote: string fields take the scalar's
 * source text, so `id: 2026-01-02` and `depends_on: [010]` keep their spelling;
 * numbers are read only where numbers are meant, and always in decimal.
 */

import { parseBound } from "../core/bound.js";
import type { CheckNode } from "../core/checks.js";
import { ISOLATIONS, type Isolation, isolationOf, TICKET_ID } from "../core/constants.js";
import { setDefined } from "../core/engine-types.js";
import type { TicketSpec } from "../core/model.js";
import { closest } from "../core/near.js";
import { fastFields } from "./fast.js";
import {
  ENGINE_FIELDS,
  type EngineFieldName,
  type FieldValues,
  fieldsWellTyped,
  KNOWN_FIELDS,
  NO_FIELDS,
  type RawFields,
  type TypedFields,
  typedValue,
  WELL_TYPED,
} from "./field-table.js";
import { isYaml, splitFrontMatter } from "./frontmatter.js";
import { boundProblems, type Problem, type ProblemKind, problem, quoted } from "./problems.js";

/** The engine-written fields as read back from a ticket file. */
export type EngineFields = Pick<FieldValues, EngineFieldName>;

export type ParsedTicket =
  | {
      kind: "ok";
      spec: TicketSpec;
      fields: EngineFields;
      node: CheckNode;
      warnings: Problem[];
    }
  | {
      kind: "invalid";
      problems: Problem[];
      warnings: Problem[];
      /** what the graph checks can still use of it */
      node: CheckNode;
    };

export interface ParseOptions {
  /** false: the spec's body is "" (its title is still taken from it) */
  bodies?: boolean;
}

/** `plan.md` → `plan` */
export function idFromFile(file: string): string {
  const base = file.slice(file.lastIndexOf("/") + 1);
  return base.endsWith(".md") ? base.slice(0, -3) : base;
}

const EMPTY_ENGINE_FIELDS: EngineFields = {};
const ENGINE_FIELD_SET: ReadonlySet<string> = new Set(ENGINE_FIELDS);

/** The engine's fields among the values, in ENGINE_FIELDS order; one shared {} when none. */
function engineFields(values: Readonly<Record<string, unknown>>): EngineFields {
  // most tickets have none: look at the few names there, not at every engine field
  const any = Object.keys(values).some(
    (name) => values[name] !== undefined && ENGINE_FIELD_SET.has(name),
  );
  if (!any) return EMPTY_ENGINE_FIELDS;
  const fields: Record<string, unknown> = {};
  for (const name of ENGINE_FIELDS) {
    const v = values[name];
    if (v !== undefined) fields[name] = typedValue(name, v);
  }
  return fields as EngineFields;
}

/** What the steps of checkFields share: the fields, their lines, and what is found. */
interface Checking {
  raw: RawFields;
  file: string;
  /** a field's value, unless it is not of its type */
  ok<K extends keyof FieldValues>(k: K): FieldValues[K];
  problems: Problem[];
  warnings: Problem[];
  /** a problem of the file at `line`, among the problems (or, with "warning", the warnings) */
  add(
    kind: ProblemKind,
    line: number | undefined,
    message: string,
    fix: string,
    severity?: "warning",
  ): void;
}

/**
 * Apply the defaults and check what the types cannot say (ids, dependencies, inputs,
 * bound), then build the spec. `typed` is the result of the type check: WELL_TYPED
 * when `fieldsWellTyped` holds, else zod's account of it (field-types.ts).
 */
export function checkFields(
  raw: RawFields,
  typed: TypedFields,
  body: string,
  file: string,
  order: number,
  opts: ParseOptions = {},
): ParsedTicket {
  const { values, lines } = raw;
  const { bad } = typed;
  const c: Checking = {
    raw,
    file,
    ok: <K extends keyof FieldValues>(k: K) =>
      bad.size > 0 && bad.has(k) ? undefined : (values[k] as FieldValues[K]),
    problems: [],
    warnings: [],
    add: (kind, line, message, fix, severity) =>
      (severity === "warning" ? c.warnings : c.problems).push(
        problem(kind, file, line, message, fix, severity),
      ),
  };
  const authored = authoredStatus(values, file, lines.get("status"));
  if (authored !== undefined) {
    c.problems.push(authored);
    // the one problem with that line says it all
    for (const p of typed.problems) if (p.line !== authored.line) c.problems.push(p);
  } else c.problems.push(...typed.problems);

  // id: the author's, else the file name
  const stem = idFromFile(file);
  const declaredId = c.ok("id");
  const id = declaredId ?? stem;
  const certain = validId(c, id, declaredId !== undefined) && !bad.has("id");
  const { dependsOn, nodes } = dependencies(c);
  const inputs = inputsOf(c, dependsOn);
  const title = titleOf(c) || (headingOf(body) ?? id);
  const bound = boundOf(c);
  const isolation = isolationField(c);
  nearMisses(c);

  const node: CheckNode = {
    id: certain ? id : stem,
    file,
    order,
    certain,
    dependsOn: certain ? nodes : [],
  };
  const idLine = declaredId === undefined ? undefined : lines.get("id");
  if (idLine !== undefined && certain) node.idLine = idLine;
  const { problems, warnings } = c;
  if (problems.length > 0) {
    problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { kind: "invalid", problems, warnings, node };
  }

  const spec: TicketSpec = {
    id,
    title,
    file,
    dependsOn,
    inputs,
    writeScope: c.ok("write_scope")?.filter((s) => s.trim() !== "") ?? [],
    priority: c.ok("priority") ?? 0,
    body: opts.bodies === false ? "" : body,
    order,
  };
  for (const name of ["executor", "agent", "model"] as const) setDefined(spec, name, c.ok(name));
  setDefined(spec, "bound", bound);
  setDefined(spec, "retries", c.ok("retries"));
  setDefined(spec, "isolation", isolation);

  return { kind: "ok", spec, fields: engineFields(values), node, warnings };
}

const ID_RULE = "letters, digits, . _ -, starting with a letter or digit, at most 128";

/** Whether `id` is a valid ticket id; a problem when it is not. */
function validId(c: Checking, id: string, declared: boolean): boolean {
  if (TICKET_ID.test(id)) return true;
  // one problem, worded by where the id came from: the id field, or the file's name
  const what = declared
    ? `id ${quoted(id)} is`
    : `the file name gives the id ${quoted(id)}, which is`;
  c.add(
    "invalid-id",
    declared ? c.raw.lines.get("id") : undefined,
    `${what} not a valid ticket id (${ID_RULE})`,
    declared ? `write id: ${suggestId(id)}` : `rename the file, or set id: ${suggestId(id)}`,
  );
  return false;
}

/** depends_on: valid ids, each once; and each with its line, for the graph checks. */
function dependencies(c: Checking): { dependsOn: string[]; nodes: CheckNode["dependsOn"] } {
  const dependsOn: string[] = [];
  const nodes: Array<{ id: string; line?: number }> = [];
  const { lines, itemLines } = c.raw;
  const depsLine = lines.get("depends_on");
  const declared = c.ok("depends_on") ?? [];
  for (let i = 0; i < declared.length; i++) {
    const dep = declared[i]!;
    const line = itemLines === true ? (lines.get(`depends_on.${i}`) ?? depsLine) : depsLine;
    if (!TICKET_ID.test(dep)) {
      c.add(
        "invalid-id",
        line,
        `depends_on names ${quoted(dep)}, which is not a valid ticket id`,
        `write the id of a ticket, e.g. depends_on: [${suggestId(dep)}]`,
      );
    } else if (dependsOn.includes(dep)) {
      c.add(
        "duplicate-dependency",
        line,
        `depends_on names ${quoted(dep)} more than once`,
        `remove the repeated ${quoted(dep)}`,
        "warning",
      );
    } else {
      dependsOn.push(dep);
      nodes.push(line === undefined ? { id: dep } : { id: dep, line });
    }
  }
  return { dependsOn, nodes };
}

/** inputs: all of depends_on unless the ticket says which; each one of them, once. */
function inputsOf(c: Checking, dependsOn: string[]): string[] {
  const declared = c.ok("inputs");
  if (declared === undefined) return dependsOn;
  const inputs: string[] = [];
  declared.forEach((input, i) => {
    if (inputs.includes(input)) return;
    if (dependsOn.includes(input)) {
      inputs.push(input);
      return;
    }
    c.add(
      "unknown-input",
      c.raw.lines.get(`inputs.${i}`) ?? c.raw.lines.get("inputs"),
      `inputs names ${quoted(input)}, which is not in depends_on`,
      `add ${quoted(input)} to depends_on, or remove it from inputs`,
    );
  });
  return inputs;
}

/** A warning for each field that is not ours but is near one of ours (as written it is ignored). */
function nearMisses(c: Checking): void {
  for (const u of c.raw.unknown) {
    const near = nearField(u.key);
    if (near === undefined) continue;
    c.add(
      "unknown-field",
      u.line,
      `unknown field ${quoted(u.key)} (did you mean ${near}?)`,
      `rename it to ${near} (as written it is ignored)`,
      "warning",
    );
  }
}

/** title: one line (empty: the caller takes the first # heading, else the id). */
function titleOf(c: Checking): string | undefined {
  const title = c.ok("title")?.trim();
  if (title !== undefined && /[\r\n]/.test(title)) {
    c.add(
      "wrong-type",
      c.raw.lines.get("title"),
      "title must be one line of text, got several lines",
      "write the title on one line and move the rest into the body",
    );
  }
  return title;
}

function boundOf(c: Checking): TicketSpec["bound"] {
  const text = c.ok("bound");
  if (text === undefined) return undefined;
  const checked = boundProblems("bound", text, c.file, c.raw.lines.get("bound"));
  if (checked.warning !== undefined) c.warnings.push(checked.warning);
  if (checked.problem === undefined) return parseBound(text);
  c.problems.push(checked.problem);
  return undefined;
}

function isolationField(c: Checking): Isolation | undefined {
  const text = c.ok("isolation");
  if (text === undefined) return undefined;
  const isolation = isolationOf(text.trim());
  if (isolation !== undefined) return isolation;
  const near = closest(text.trim().toLowerCase(), ISOLATIONS);
  c.add(
    "wrong-type",
    c.raw.lines.get("isolation"),
    `isolation ${quoted(text)} is not one of ${ISOLATIONS.join(", ")}${near === undefined ? "" : ` (did you mean ${near}?)`}`,
    `write isolation: ${near ?? "worktree"} (its own git worktree, its changes checked and integrated), or isolation: none`,
  );
  return undefined;
}

/**
 * A `status:` the author wrote (orchflows tickets carry one): a status with none of
 * the fields frontier writes beside it (attempt, updated_at, …). Refused rather than
 * taken: a ticket frontier never ran would be passed off as done, in every report.
 */
function authoredStatus(
  values: Readonly<Record<string, unknown>>,
  file: string,
  line: number | undefined,
): Problem | undefined {
  const status = values.status;
  // not started yet is what a ticket without state is: nothing is taken on trust
  if (status === undefined || status === "pending" || status === "ready") return undefined;
  for (const name of ENGINE_FIELDS) {
    if (name !== "status" && values[name] !== undefined) return undefined;
  }
  return problem(
    "authored-status",
    file,
    line,
    `status: ${quoted(String(status))} was not written by frontier — it records each ticket's status itself and never takes one on trust`,
    "delete the line (a ticket already done by hand belongs out of the graph: move it aside and remove it from depends_on)",
  );
}

/** The first `# ` heading of the body outside fenced code. */
export function headingOf(body: string): string | undefined {
  let fence: string | undefined;
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf("\n", start);
    if (end === -1) end = body.length;
    const line = body.slice(start, end).replace(/\r$/, "");
    start = end + 1;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]!;
      else if (f[1]!.startsWith(fence[0]!) && f[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (h && h[1]!.trim() !== "") return h[1]!.trim();
  }
  return undefined;
}

function suggestId(text: string): string {
  const s = text
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 128);
  return s === "" ? "my-ticket" : s;
}

const NORMAL = new Map(KNOWN_FIELDS.map((k) => [k.replace(/[-_\s]/g, "").toLowerCase(), k]));

/** Names other tools use for our fields. */
const ALIASES: Record<string, string> = {
  dependencies: "depends_on",
  deps: "depends_on",
  depends: "depends_on",
  needs: "depends_on",
  requires: "depends_on",
  after: "depends_on",
  timeout: "bound",
  writescope: "write_scope",
  scope: "write_scope",
  retry: "retries",
};

/** `depend_on`, `dependsOn`, `depends-on` → `depends_on`. */
export function nearField(key: string): string | undefined {
  const norm = key.replace(/[-_\s]/g, "").toLowerCase();
  return (
    NORMAL.get(norm) ?? ALIASES[norm] ?? (key.length < 4 ? undefined : closest(key, KNOWN_FIELDS))
  );
}

/** A file that could not be read far enough to know its id for sure. */
export function brokenTicket(problems: Problem[], file: string, order: number): ParsedTicket {
  return {
    kind: "invalid",
    problems,
    warnings: [],
    node: { id: idFromFile(file), file, order, certain: false, dependsOn: [] },
  };
}

export function languageProblem(file: string, language: string): Problem {
  return problem(
    "front-matter-language",
    file,
    1,
    `front matter is marked as ${language === "" ? "another language" : `"${language}"`}; only YAML front matter is read, and nothing in it is ever run`,
    "start the file with a plain --- line and write the fields as YAML",
  );
}

export function unclosedProblem(file: string): Problem {
  return problem(
    "malformed-front-matter",
    file,
    1,
    "front matter opened with --- on line 1 is never closed",
    "add a line with only --- after the last field",
  );
}

/**
 * The quick path: a ticket without front matter, with a refused one, or with plain
 * front matter (see fast.ts) whose fields are well typed. Undefined when the full
 * YAML parser must read it, or zod must say what is wrong with a field.
 * The split is the same as gray-matter's (proved by property tests).
 */
export function parseTicketQuick(
  text: string,
  file: string,
  order: number,
  opts: ParseOptions = {},
): ParsedTicket | undefined {
  const split = splitFrontMatter(text);
  if (split.kind === "none")
    return checkFields(NO_FIELDS, WELL_TYPED, text.slice(split.bodyStart), file, order, opts);
  if (!isYaml(split.language))
    return brokenTicket([languageProblem(file, split.language)], file, order);
  if (!split.closed) return brokenTicket([unclosedProblem(file)], file, order);
  const raw = fastFields(split.yaml);
  // a field of the wrong type: the full path, where zod says what is wrong with it
  if (raw === undefined || !fieldsWellTyped(raw.values)) return undefined;
  return checkFields(raw, WELL_TYPED, text.slice(split.bodyStart), file, order, opts);
}
