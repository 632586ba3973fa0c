/**
 * Writing the engine's state back into ticket files, and planning every file the
 * engine's Changes need. Pure: text in, text out; the local store and the GitHub
 * commit both apply the same FileEdits.
 *
 * Only the engine-written fields change. The author's part of the front matter is
 * never re-serialised: the YAML document tells where each engine field's lines
 * are, and only those lines are replaced, removed or appended, so every other byte
 * (order, comments, quoting, spacing, the body) stays as it was.
 */
import { isMap, isScalar, parseDocument } from "yaml";
import type { Changes } from "../core/engine.js";
import type { BlockedBy, RunRecord, TicketSpec, TicketState } from "../core/model.js";
import { ENGINE_FIELDS, type EngineFieldName } from "./fields.js";
import { splitFrontMatter } from "./frontmatter.js";
import { answerFile, attemptFile, RUN_FILE, WORKLOG_FILE } from "./layout.js";

/** Values to write; a field given as undefined is removed. Fields not given stay. */
export type EngineFieldValues = Partial<{
  status: string;
  attempt: number;
  claimed_by: string;
  claimed_at: string;
  claim: string;
  blocked_by: BlockedBy;
  reason: string;
  updated_at: string;
}>;

export interface FileEdit {
  /** relative to the ticket directory */
  path: string;
  /** replace: whole file (atomically); create: new file, never overwrite; append: add to the end */
  kind: "replace" | "create" | "append";
  content: string;
}

export interface EngineView {
  state(id: string): Readonly<TicketState> | undefined;
  spec(id: string): TicketSpec | undefined;
  runRecord(): RunRecord;
}

/** The engine fields of a ticket's state, as its front matter should hold them. */
export function fieldsOfState(state: Readonly<TicketState>): EngineFieldValues {
  return {
    status: state.status,
    attempt: state.attempt > 0 ? state.attempt : undefined,
    claimed_by: state.claimed_by,
    claimed_at: state.claimed_at,
    claim: state.claim,
    blocked_by: state.blocked_by,
    reason: state.reason,
    updated_at: state.updated_at,
  };
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
  readTicketText: (file: string) => string,
): FileEdit[] {
  const edits: FileEdit[] = [];
  for (const { ticket, record } of changes.attempts) {
    edits.push({ path: attemptFile(ticket, record.n), kind: "create", content: json(record) });
  }
  for (const { ticket, record } of changes.answers) {
    edits.push({ path: answerFile(ticket, record.n), kind: "create", content: json(record) });
  }
  for (const id of new Set(changes.tickets)) {
    const spec = engine.spec(id);
    const state = engine.state(id);
    if (spec === undefined || state === undefined) continue;
    const text = readTicketText(spec.file);
    let content: string;
    try {
      content = editFrontMatter(text, fieldsOfState(state));
    } catch (e) {
      // the author broke the file while the run was going: say which, keep the rest
      throw new Error(
        `${spec.file}: ${(e as Error).message} — fix the file, then run again (state of ${id} was not written)`,
      );
    }
    if (content !== text) edits.push({ path: spec.file, kind: "replace", content });
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
 */
export function editFrontMatter(text: string, fields: EngineFieldValues): string {
  const given = ENGINE_FIELDS.filter((k) => Object.hasOwn(fields, k));
  const split = splitFrontMatter(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (split.kind === "none") {
    const lines = given.filter((k) => fields[k] !== undefined).map((k) => fieldLine(k, fields[k]));
    if (lines.length === 0) return text;
    const bom = text.slice(0, split.bom);
    return `${bom}---${eol}${lines.join(eol)}${eol}---${eol}${text.slice(split.bom)}`;
  }
  const lang = split.language.toLowerCase();
  if (!split.closed || (lang !== "" && lang !== "yaml" && lang !== "yml")) {
    throw new Error("the ticket's front matter cannot be edited: it is not closed YAML");
  }
  const doc = parseDocument(split.yaml, { version: "1.2" });
  if (doc.errors.length > 0) throw new Error("the ticket's front matter is not valid YAML");
  const contents = doc.contents;
  const empty = contents === null || (isScalar(contents) && contents.value === null);
  if (!empty && !isMap(contents)) throw new Error("the ticket's front matter is not a mapping");

  const spliced = splice(
    text,
    split.yamlStart,
    text.slice(split.yamlStart, split.closeAt + 1),
    empty ? undefined : contents,
    fields,
    given,
    eol,
  );
  if (spliced !== undefined && sameElsewhere(text, spliced, fields, given)) return spliced;
  // a front matter shaped so that line edits are unsafe (a flow mapping, `...`,
  // indented keys on a `---` line): let the YAML document do it instead
  const viaDocument = editViaDocument(text, split, fields, given, eol);
  if (sameElsewhere(text, viaDocument, fields, given)) return viaDocument;
  throw new Error(
    "the ticket's front matter could not be edited without changing the author's part",
  );
}

type MapNode = Extract<
  NonNullable<ReturnType<typeof parseDocument>["contents"]>,
  { items: unknown[] }
>;

/**
 * Line edits. `y` is the front matter with the line break that ends it (the closing
 * delimiter's), so every line, the last one too, ends with a line break.
 */
function splice(
  text: string,
  yamlStart: number,
  y: string,
  map: unknown,
  fields: EngineFieldValues,
  given: readonly EngineFieldName[],
  eol: string,
): string | undefined {
  const edits: Array<{ from: number; to: number; insert: string }> = [];
  const pairs = map === undefined ? [] : (map as MapNode).items;
  let indent = "";
  const firstKey = (pairs[0] as { key?: { range?: number[] } } | undefined)?.key;
  if (firstKey?.range) {
    const ls = y.lastIndexOf("\n", firstKey.range[0]! - 1) + 1;
    indent = y.slice(ls, firstKey.range[0]);
    if (!/^ *$/.test(indent)) return undefined;
  }
  const appended: string[] = [];
  for (const name of given) {
    const pair = pairs.find((p) => {
      const k = (p as { key: unknown }).key;
      return isScalar(k) && String(k.value) === name;
    }) as { key: { range?: number[] }; value: { range?: number[] } | null } | undefined;
    const value = fields[name];
    const line = value === undefined ? "" : `${indent}${fieldLine(name, value)}${eol}`;
    if (pair === undefined) {
      if (line !== "") appended.push(line);
      continue;
    }
    const keyStart = pair.key.range?.[0];
    if (keyStart === undefined) return undefined;
    const from = y.lastIndexOf("\n", keyStart - 1) + 1;
    if (y.slice(from, keyStart) !== indent) return undefined;
    const valueEnd = pair.value?.range?.[1] ?? pair.key.range?.[1] ?? keyStart;
    const to = y[valueEnd - 1] === "\n" ? valueEnd : y.indexOf("\n", valueEnd) + 1;
    edits.push({ from, to, insert: line });
  }
  if (appended.length > 0) {
    // new fields go on their own lines just before the closing ---
    edits.push({ from: y.length, to: y.length, insert: appended.join("") });
  }
  edits.sort((a, b) => b.from - a.from);
  let out = text;
  for (const e of edits) {
    out = out.slice(0, yamlStart + e.from) + e.insert + out.slice(yamlStart + e.to);
  }
  return out;
}

function editViaDocument(
  text: string,
  split: Extract<ReturnType<typeof splitFrontMatter>, { kind: "front" }>,
  fields: EngineFieldValues,
  given: readonly EngineFieldName[],
  eol: string,
): string {
  const doc = parseDocument(split.yaml, { version: "1.2" });
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    doc.contents = doc.createNode({}) as unknown as typeof doc.contents;
  }
  for (const name of given) {
    const value = fields[name];
    if (value === undefined) {
      doc.delete(name);
      continue;
    }
    // the value goes in through our own safe scalar text, parsed back into a node
    const node = parseDocument(`${fieldLine(name, value)}\n`, { version: "1.2" });
    const m = node.contents;
    if (isMap(m)) doc.set(name, m.items[0]!.value);
  }
  let yaml = doc.toString({ lineWidth: 0 });
  if (yaml.endsWith("\n")) yaml = yaml.slice(0, -1);
  if (eol === "\r\n") yaml = yaml.replace(/\r?\n/g, "\r\n");
  const lead = eol === "\r\n" ? "\r\n" : "\n";
  const close = eol === "\r\n" ? "\r" : "";
  return `${text.slice(0, split.yamlStart)}${lead}${yaml}${close}${text.slice(split.closeAt)}`;
}

/**
 * The edit changed nothing but the engine fields: the body is the same, every other
 * field reads the same, and the engine fields read back as written.
 */
function sameElsewhere(
  before: string,
  after: string,
  fields: EngineFieldValues,
  given: readonly EngineFieldName[],
): boolean {
  const a = splitFrontMatter(before);
  const b = splitFrontMatter(after);
  if (b.kind !== "front" || !b.closed) return false;
  const bodyBefore = a.kind === "front" ? before.slice(a.bodyStart) : before.slice(a.bom);
  if (after.slice(b.bodyStart) !== bodyBefore) return false;
  const docB = parseDocument(b.yaml, { version: "1.2" });
  if (docB.errors.length > 0) return false;
  const jsB = (docB.toJS() ?? {}) as Record<string, unknown>;
  const jsA =
    a.kind === "front"
      ? ((parseDocument(a.yaml, { version: "1.2" }).toJS() ?? {}) as Record<string, unknown>)
      : {};
  if (typeof jsB !== "object" || Array.isArray(jsB)) return false;
  const touched = new Set<string>(given);
  for (const key of new Set([...Object.keys(jsA), ...Object.keys(jsB)])) {
    if (touched.has(key)) continue;
    if (JSON.stringify(jsA[key]) !== JSON.stringify(jsB[key])) return false;
  }
  for (const name of given) {
    const want = fields[name];
    const got = jsB[name];
    if (want === undefined ? got !== undefined : JSON.stringify(got) !== JSON.stringify(want)) {
      return false;
    }
  }
  return true;
}
