/**
 * Writing the engine's state back into ticket files, and planning every file the
 * engine's Changes need. Pure: text in, text out; the local store and the GitHub
 * commit both apply the same FileEdits.
 *
 * Only the engine-written fields change. The author's part of the front matter is
 * never re-serialised: only the engine fields' lines are replaced, removed or
 * appended, so every other byte (order, comments, quoting, spacing, the body) stays
 * as it was. Plain front matter finds those lines with the fast reader; anything
 * else with the YAML document.
 */
import { isUtf8 } from "node:buffer";
import { isDeepStrictEqual } from "node:util";
import { type Document, isMap, isScalar, type Pair, parseDocument, type YAMLMap } from "yaml";
import type { Changes, Frontier } from "../core/engine.js";
import { errorText } from "../core/errors.js";
import type { BlockedBy, TicketState } from "../core/model.js";
import { fastFields } from "./fast.js";
import { ENGINE_FIELDS, type EngineFieldName, type RawFields } from "./field-table.js";
import type { EngineFields } from "./fields.js";
import { isYaml, splitFrontMatter } from "./frontmatter.js";
import { answerFile, attemptFile, RUN_FILE, WORKLOG_FILE } from "./layout.js";
import { isNull } from "./yaml-errors.js";

export interface FileEdit {
  /** relative to the ticket directory */
  path: string;
  /** replace: whole file (atomically); create: new file, never overwrite; append: add to the end */
  kind: "replace" | "create" | "append";
  content: string;
  /**
   * the exact bytes to write, when they are not `content` in UTF-8: a ticket whose body
   * holds bytes that are not UTF-8 keeps them (content is then its text as decoded)
   */
  bytes?: Uint8Array;
}

/** A ticket file that could not be written: the problem of that ticket alone. */
export interface Unwritable {
  ticket: string;
  message: string;
}

/** What the tickets layer reads of an engine: a ticket's spec and state, the run record. */
export type EngineView = Pick<Frontier, "spec" | "state" | "runRecord">;

/** The engine fields of a ticket's state, as its front matter should hold them. */
export function fieldsOfState(state: Readonly<TicketState>): EngineFields {
  const fields = Object.fromEntries(ENGINE_FIELDS.map((k) => [k, state[k]]));
  return { ...fields, attempt: state.attempt > 0 ? state.attempt : undefined };
}

/**
 * Every file the engine's `changes` need, in the order to apply them: records first
 * (attempts, answers: created once), then ticket files and the run record
 * (replaced), then the worklog (appended). A crash part-way leaves records that the
 * next load reads, never a ticket pointing at a record that is missing.
 */
export function planWrites(
  changes: Changes,
  engine: EngineView,
  readTicketText: (file: string) => string | Uint8Array,
  /**
   * Called for a ticket file whose state cannot be written (the author broke its
   * front matter meanwhile, it is gone): its edit is left out and the rest go on.
   * Without it such a file throws.
   */
  unwritable?: (problem: Unwritable) => void,
  /** tickets to write although `changes` does not name them (an earlier write failed) */
  alsoTickets: Iterable<string> = [],
): FileEdit[] {
  const edits: FileEdit[] = [];
  for (const { ticket, record } of changes.attempts) {
    edits.push({ path: attemptFile(ticket, record.n), kind: "create", content: json(record) });
  }
  for (const { ticket, record } of changes.answers) {
    edits.push({ path: answerFile(ticket, record.n), kind: "create", content: json(record) });
  }
  for (const id of new Set([...changes.tickets, ...alsoTickets])) {
    const spec = engine.spec(id);
    const state = engine.state(id);
    if (spec === undefined || state === undefined) continue;
    let edit: FileEdit | undefined;
    try {
      edit = editTicket(spec.file, readTicketText(spec.file), fieldsOfState(state));
    } catch (e) {
      // the author broke the file while the run was going: say which, keep the rest
      const message = `${spec.file}: ${errorText(e)} — fix the file, then run again (state of ${id} was not written)`;
      if (unwritable === undefined) throw new Error(message);
      unwritable({ ticket: id, message });
      continue;
    }
    if (edit !== undefined) edits.push(edit);
  }
  if (changes.run) {
    edits.push({ path: RUN_FILE, kind: "replace", content: json(engine.runRecord()) });
  }
  if (changes.log.length > 0) {
    edits.push({
      path: WORKLOG_FILE,
      kind: "append",
      content: changes.log.map((entry) => `${JSON.stringify(entry)}\n`).join(""),
    });
  }
  return edits;
}

/**
 * The edit of one ticket file, or undefined when nothing changes. Text that is not
 * valid UTF-8 is edited as bytes: the front matter (which must be UTF-8) is edited as
 * text, and the body's bytes are kept exactly — never decoded and encoded again.
 */
export function editTicket(
  file: string,
  raw: string | Uint8Array,
  fields: EngineFields,
): FileEdit | undefined {
  const text = typeof raw === "string" ? raw : Buffer.from(raw).toString("utf8");
  const content = editFrontMatter(text, fields);
  if (content === text) return undefined;
  if (typeof raw === "string" || isUtf8(raw)) return { path: file, kind: "replace", content };
  const head = (t: string) => t.slice(0, splitFrontMatter(t).bodyStart);
  const before = Buffer.from(head(text), "utf8");
  if (!before.equals(raw.subarray(0, before.length))) {
    throw new Error("the ticket's front matter is not valid UTF-8");
  }
  const bytes = Buffer.concat([Buffer.from(head(content), "utf8"), raw.subarray(before.length)]);
  return { path: file, kind: "replace", content, bytes };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

const YAML11_WORDS =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL)$/;
const SAFE_PLAIN = /^[A-Za-z][A-Za-z0-9._/@+-]*$/;

/**
 * A string as a YAML scalar that every YAML reader (1.1 or 1.2) reads back as that
 * exact string: plain when it is a simple word, else double-quoted with escapes.
 */
export function yamlString(s: string): string {
  if (SAFE_PLAIN.test(s) && !YAML11_WORDS.test(s)) return s;
  return JSON.stringify(s).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function fieldLine(name: EngineFieldName, value: unknown): string {
  if (name === "blocked_by") {
    const b = value as BlockedBy;
    return `blocked_by: {ticket: ${yamlString(b.ticket)}, kind: ${yamlString(b.kind)}, root: ${yamlString(b.root)}}`;
  }
  if (name === "attempt") return `attempt: ${Number(value)}`;
  return `${name}: ${yamlString(String(value))}`;
}

/**
 * Set or remove the engine-written fields in a ticket file's text. Everything else
 * stays byte-for-byte. A file without front matter gets one.
 *
 * Plain front matter (one `name: value` per line — what `fastFields` reads, the kind
 * nearly every ticket has) is edited by line positions and checked with the fast
 * reader, with no YAML document built: the local runner does this after every event.
 * Anything else, or a plain edit whose check fails, goes through the YAML document and
 * is checked with the full parser.
 */
export function editFrontMatter(text: string, fields: EngineFields): string {
  const given = ENGINE_FIELDS.filter((k) => Object.hasOwn(fields, k));
  const set = given.filter((k) => fields[k] !== undefined);
  const front = frontToEdit(text, () => set.map((k) => fieldLine(k, fields[k])));
  if (typeof front === "string") return front;
  const edit = { text, ...front, fields, given };
  return editPlain(edit) ?? editWithDocument(edit);
}

type FrontSplit = Extract<ReturnType<typeof splitFrontMatter>, { kind: "front" }>;

/** One edit of a ticket's engine fields: its text, where its front matter is, what to write. */
type FieldsEdit = Exclude<ReturnType<typeof frontToEdit>, string> & {
  text: string;
  fields: EngineFields;
  /** the fields `fields` sets or removes, in ENGINE_FIELDS order */
  given: readonly EngineFieldName[];
};

/**
 * Where a ticket's front matter is and the text's line break, to edit it; or, when the
 * text has none, the text with front matter of `lines()` put first (after its BOM), or as
 * it is when there are none. Front matter that is not closed YAML cannot be edited.
 */
export function frontToEdit(text: string, lines: () => string[]) {
  const split = splitFrontMatter(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (split.kind === "front") {
    if (!split.closed || !isYaml(split.language)) {
      throw new Error("the ticket's front matter cannot be edited: it is not closed YAML");
    }
    return { split, eol };
  }
  const add = lines();
  if (add.length === 0) return text;
  const bom = split.bodyStart;
  return `${text.slice(0, bom)}---${eol}${add.join(eol)}${eol}---${eol}${text.slice(bom)}`;
}

/**
 * Line edits of plain front matter, or undefined when the full YAML path must do it.
 * In plain front matter every key starts a line at column 0 and an engine field's
 * value is on its key's line, so an engine field is exactly one line: it is replaced
 * or removed whole, and new fields go on their own lines before the closing `---` —
 * the same edit the YAML document's positions give. The result is read back with the
 * fast reader (proved equal to the full parser where it answers): the author's fields
 * must read the same, the engine fields as written, the body byte-for-byte.
 */
function editPlain(edit: FieldsEdit): string | undefined {
  const { text, split } = edit;
  const before = fastFields(split.yaml);
  if (before === undefined) return undefined;
  const out = editLines(edit, "", (name) => {
    if (!before.lines.has(name)) return "absent";
    // its line is the one line that starts with its name (a key of plain front matter)
    const key = text.indexOf(`\n${name}:`, split.yamlStart) + 1;
    return { key, end: key + 1 };
  });
  if (out === undefined || out === text) return out;
  return plainEditHolds(edit, before, out) ? out : undefined;
}

/**
 * The text with each given field's lines replaced or removed, and new fields on their
 * own lines before the closing `---`, every edit at once. `lineOf` says where a field is
 * (offsets into the text of its key and of its value's end), or that it is "absent";
 * undefined when it cannot tell or the key is not indented by `indent`, and then so is
 * this.
 */
function editLines(
  { text, split, fields, given, eol }: FieldsEdit,
  indent: string,
  lineOf: (name: EngineFieldName) => { key: number; end: number } | "absent" | undefined,
): string | undefined {
  const edits: Array<{ from: number; to: number; insert: string }> = [];
  let appended = "";
  for (const name of given) {
    const value = fields[name];
    const line = value === undefined ? "" : `${indent}${fieldLine(name, value)}${eol}`;
    const where = lineOf(name);
    if (where === undefined) return undefined;
    if (where === "absent") {
      appended += line;
      continue;
    }
    const from = text.lastIndexOf("\n", where.key - 1) + 1;
    if (text.slice(from, where.key) !== indent) return undefined;
    const to = text.indexOf("\n", where.end - 1) + 1;
    if (text.slice(from, to) !== line) edits.push({ from, to, insert: line });
  }
  // new fields go on their own lines just before the closing ---
  const close = split.closeAt + 1;
  if (appended !== "") edits.push({ from: close, to: close, insert: appended });
  let out = "";
  let at = 0;
  for (const e of edits.sort((a, b) => a.from - b.from)) {
    out += text.slice(at, e.from) + e.insert;
    at = e.to;
  }
  return out + text.slice(at);
}

/** The line edit changed nothing but the engine fields, read with the fast reader. */
function plainEditHolds(
  { text, split, fields, given }: FieldsEdit,
  before: RawFields,
  after: string,
): boolean {
  const s = splitFrontMatter(after);
  if (s.kind !== "front" || !s.closed || s.language !== split.language) return false;
  if (after.length - s.bodyStart !== text.length - split.bodyStart) return false;
  if (after.slice(s.bodyStart) !== text.slice(split.bodyStart)) return false;
  const read = fastFields(s.yaml);
  if (read === undefined) return false;
  const touched = new Set<string>(given);
  for (const key of new Set([...Object.keys(before.values), ...Object.keys(read.values)])) {
    if (!touched.has(key) && !isDeepStrictEqual(before.values[key], read.values[key])) return false;
  }
  if (before.unknown.length !== read.unknown.length) return false;
  if (before.unknown.some((u, i) => u.key !== read.unknown[i]!.key)) return false;
  return given.every((name) =>
    fields[name] === undefined
      ? !read.lines.has(name)
      : isDeepStrictEqual(read.values[name], fields[name]),
  );
}

/**
 * The edit through the YAML document: line edits at the positions the document gives,
 * else (a flow mapping, `...`, indented keys on a `---` line) the document re-written;
 * either way checked with the full parser.
 */
function editWithDocument(edit: FieldsEdit): string {
  const { text, fields, given } = edit;
  const spliced = splice(edit, frontMatterMap(edit.split));
  if (spliced !== undefined && sameElsewhere(text, spliced, fields, given)) return spliced;
  // a front matter shaped so that line edits are unsafe (a flow mapping, `...`,
  // indented keys on a `---` line): let the YAML document do it instead
  const viaDocument = editViaDocument(edit);
  if (sameElsewhere(text, viaDocument, fields, given)) return viaDocument;
  throw new Error(
    "the ticket's front matter could not be edited without changing the author's part",
  );
}

/** The mapping of front matter (undefined: empty), or thrown when it is not valid YAML or not a mapping. */
export function frontMatterMap(split: FrontSplit): YAMLMap | undefined {
  const doc = parseDocument(split.yaml, { version: "1.2" });
  if (doc.errors.length > 0) throw new Error("the ticket's front matter is not valid YAML");
  const contents = doc.contents;
  if (isNull(contents)) return undefined;
  if (!isMap(contents)) throw new Error("the ticket's front matter is not a mapping");
  return contents;
}

export function pairNamed(map: YAMLMap | undefined, name: string): Pair | undefined {
  return map?.items.find((p) => isScalar(p.key) && String(p.key.value) === name);
}

/**
 * Line edits at the positions the YAML document gives. The front matter ends with the
 * closing delimiter's line break, so every line, the last one too, ends with one.
 */
function splice(edit: FieldsEdit, map: YAMLMap | undefined): string | undefined {
  const { text, split } = edit;
  const at = (offset: number) => split.yamlStart + offset;
  let indent = "";
  const firstKey = map?.items[0]?.key as { range?: number[] } | undefined;
  if (firstKey?.range) {
    const key = at(firstKey.range[0]!);
    indent = text.slice(text.lastIndexOf("\n", key - 1) + 1, key);
    if (!/^ *$/.test(indent)) return undefined;
  }
  return editLines(edit, indent, (name) => {
    const pair = pairNamed(map, name) as
      | { key: { range?: number[] }; value: { range?: number[] } | null }
      | undefined;
    if (pair === undefined) return "absent";
    const key = pair.key.range?.[0];
    if (key === undefined) return undefined;
    return { key: at(key), end: at(pair.value?.range?.[1] ?? pair.key.range?.[1] ?? key) };
  });
}

function editViaDocument({ text, split, fields, given, eol }: FieldsEdit): string {
  const doc = parseDocument(split.yaml, { version: "1.2" });
  if (isNull(doc.contents)) {
    doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  }
  for (const name of given) {
    const value = fields[name];
    if (value === undefined) {
      doc.delete(name);
      continue;
    }
    // the value goes in through our own safe scalar text, parsed back into a node
    const m = parseDocument(`${fieldLine(name, value)}\n`, { version: "1.2" }).contents;
    if (isMap(m)) doc.set(name, m.items[0]!.value);
  }
  let yaml = doc.toString({ lineWidth: 0 });
  if (yaml.endsWith("\n")) yaml = yaml.slice(0, -1);
  if (eol === "\r\n") yaml = yaml.replace(/\r?\n/g, "\r\n");
  const close = eol === "\r\n" ? "\r" : "";
  return `${text.slice(0, split.yamlStart)}${eol}${yaml}${close}${text.slice(split.closeAt)}`;
}

/**
 * The edit changed nothing but the engine fields: the body is the same, every other
 * field reads the same, and the engine fields read back as written (or as `givenRead`
 * says they should, from the edit's YAML document and its text).
 */
export function sameElsewhere(
  before: string,
  after: string,
  fields: Readonly<Record<string, unknown>>,
  given: readonly string[],
  givenRead?: (doc: Document, yaml: string) => boolean,
): boolean {
  const a = splitFrontMatter(before);
  const b = splitFrontMatter(after);
  // (`before` is front matter that could be edited: the callers opened it to edit it)
  if (a.kind !== "front" || b.kind !== "front" || !b.closed) return false;
  if (after.slice(b.bodyStart) !== before.slice(a.bodyStart)) return false;
  const docB = parseDocument(b.yaml, { version: "1.2" });
  if (docB.errors.length > 0) return false;
  const jsB = (docB.toJS() ?? {}) as Record<string, unknown>;
  const jsA = (parseDocument(a.yaml, { version: "1.2" }).toJS() ?? {}) as Record<string, unknown>;
  if (typeof jsB !== "object" || Array.isArray(jsB)) return false;
  const touched = new Set<string>(given);
  for (const key of new Set([...Object.keys(jsA), ...Object.keys(jsB)])) {
    if (touched.has(key)) continue;
    if (JSON.stringify(jsA[key]) !== JSON.stringify(jsB[key])) return false;
  }
  if (givenRead !== undefined) return givenRead(docB, b.yaml);
  return given.every((name) =>
    fields[name] === undefined
      ? jsB[name] === undefined
      : JSON.stringify(jsB[name]) === JSON.stringify(fields[name]),
  );
}

/** Every engine field, set to be removed: what a reset and a fresh run write into each ticket. */
export const CLEARED_FIELDS = Object.fromEntries(
  ENGINE_FIELDS.map((k) => [k, undefined]),
) as EngineFields;
