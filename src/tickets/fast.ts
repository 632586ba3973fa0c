/**
 * The fast path for plain front matter: one `name: value` per line, values that are
 * plain or quoted scalars, or flow lists and mappings of them. Most tickets are
 * exactly that, and reading them without building a YAML document is what keeps
 * loading 10k tickets close to the cost of reading the files.
 *
 * Anything else — block lists, anchors, tags, multi-line values, tabs, escapes YAML
 * has and JSON has not — returns undefined and goes to the full YAML parser. The
 * property tests prove that whenever this returns fields, they equal what the full
 * parser gives.
 */
import { FIELDS, type FieldKind, type RawFields } from "./field-table.js";
import { DECIMAL, decimalInt } from "./integers.js";

const KIND = new Map<string, FieldKind>(Object.entries(FIELDS).map(([name, f]) => [name, f.kind]));

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +|$)/;
// a plain scalar whose value is its text: no indicator first, no ": " or " #" inside
const PLAIN_FIRST = "A-Za-z0-9_./(\\u00C0-\\u1FFF\\u3000-\\uD7FF";
const PLAIN_REST = "A-Za-z0-9_./()+=@$%^*&!?;'\"<>~`\\\\\\u00C0-\\u1FFF\\u3000-\\uD7FF-";
const BLOCK_PLAIN = new RegExp(
  `^[${PLAIN_FIRST}](?:[${PLAIN_REST},\\[\\]{}#]|:(?=[${PLAIN_REST}])| (?=[${PLAIN_REST},\\[\\]{}:]))*$`,
);
const FLOW_PLAIN = new RegExp(`^[${PLAIN_FIRST}](?:[${PLAIN_REST}#]| (?=[${PLAIN_REST}]))*$`);
// the common shapes, checked first: a title of words, an id (a subset of the plain scalars above)
const SIMPLE = /^[A-Za-z0-9_./(][A-Za-z0-9_./() -]*$/;
const SIMPLE_ID = /^[A-Za-z0-9_./(][A-Za-z0-9_./()-]*$/;
const NULLS = new Set(["null", "Null", "NULL", "~"]);
// raw control characters are refused: the full parser decides about those
const NOT_RAW = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\ufeff";
const DOUBLE = new RegExp(`^"((?:[^"\\\\${NOT_RAW}]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*)"`);
const SINGLE = new RegExp(`^'((?:[^'${NOT_RAW}]|'')*)'`);

/** tabs, lone carriage returns, control characters, odd line breaks, lone surrogates */
const UNUSUAL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  /[\t\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|\r(?!\n)|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** `  - item` of a block list */
const ITEM = /^( *)- +(.*)$/;
const BLANK_OR_COMMENT = /^ *(?:#.*)?$/;

export type Scalar = { text: string; plain: boolean } | null;

/** Fields of plain front matter, or undefined when the full parser must decide. */
export function fastFields(yaml: string): RawFields | undefined {
  if (UNUSUAL.test(yaml)) return undefined;
  const values: Record<string, unknown> = {};
  const lines = new Map<string, number>();
  const unknown: Array<{ key: string; line: number }> = [];
  const seen = new Set<string>();
  let itemLines = false;
  // a block list under the last `name:` that had nothing after it
  let list:
    | { name: string; kind: FieldKind | undefined; indent: number; items: string[]; at: number[] }
    | undefined;
  const closeList = (): boolean => {
    const l = list;
    list = undefined;
    if (l === undefined || l.items.length === 0 || l.kind === undefined) return true;
    // a list where one value is meant: the full parser says what is wrong
    if (l.kind !== "list") return false;
    values[l.name] = l.items;
    for (let i = 0; i < l.at.length; i++) lines.set(`${l.name}.${i}`, l.at[i]!);
    itemLines = true;
    return true;
  };
  const rows = yaml.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const lineNo = i + 1;
    const line = rows[i]!.endsWith("\r") ? rows[i]!.slice(0, -1) : rows[i]!;
    if (list !== undefined) {
      const item = ITEM.exec(line);
      if (item !== null) {
        const indent = item[1]!.length;
        if (list.items.length === 0) list.indent = indent;
        else if (indent !== list.indent) return undefined;
        const text = stripComment(item[2]!);
        const scalar = text === undefined || text === "" ? undefined : blockScalar(text);
        if (scalar === undefined || scalar === null) return undefined;
        list.items.push(scalar.text);
        list.at.push(lineNo);
        continue;
      }
      if (BLANK_OR_COMMENT.test(line)) continue;
      if (!closeList()) return undefined;
    }
    if (BLANK_OR_COMMENT.test(line)) continue;
    // a line that does not start with a name (an indented or `- ` line) belongs to a
    // block value the full parser must read
    const named = nameLine(line, seen);
    if (named === undefined) return undefined;
    const { key, rest } = named;
    const kind = KIND.get(key);
    if (kind === undefined) unknown.push({ key, line: lineNo });
    else lines.set(key, lineNo);
    if (rest === "") {
      list = { name: key, kind, indent: -1, items: [], at: [] };
      continue;
    }
    const v = readValue(rest);
    if (v === undefined) return undefined;
    if (kind === undefined) continue;
    const value = fieldValue(kind, v);
    if (value === REFUSED) return undefined;
    if (value !== undefined) values[key] = value;
  }
  if (!closeList()) return undefined;
  return itemLines ? { values, lines, unknown, itemLines } : { values, lines, unknown };
}

/** what fieldValue gives for a value the full parser must read */
const REFUSED = Symbol("refused");

/** A field's value of `kind` as the line writes it: undefined when it is null, or REFUSED. */
function fieldValue(kind: FieldKind, v: Value): unknown {
  switch (kind) {
    case "text":
      return !isScalar(v) ? REFUSED : v?.text;
    case "int":
      if (!isScalar(v)) return REFUSED;
      // quoted: its text, for the type check to refuse
      if (v === null || !v.plain) return v?.text;
      return DECIMAL.test(v.text) ? decimalInt(v.text) : REFUSED;
    case "list":
      if (v === null) return undefined;
      if (isScalar(v)) return [v.text];
      if (!Array.isArray(v) || v.some((item) => item === null)) return REFUSED;
      return v.map((item) => item!.text);
    case "map": {
      if (v === null) return undefined;
      if (isScalar(v) || Array.isArray(v)) return REFUSED;
      const out: Record<string, unknown> = {};
      for (const [name, item] of v) out[name] = item?.text;
      return out;
    }
  }
}

/**
 * A mapping of `name: scalar` lines and nothing else (no lists, mappings or indented
 * values; each name once), for frontier.yml: the names in document order with their
 * lines and values (null for an empty one or a null), or undefined when the full parser
 * must read it. The scalars are read exactly as for a ticket's text fields: `plain`
 * when the value is its own text.
 */
export function fastScalarMap(yaml: string) {
  if (UNUSUAL.test(yaml)) return undefined;
  const out: Array<{ key: string; line: number; value: Scalar }> = [];
  const seen = new Set<string>();
  const rows = yaml.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const line = rows[i]!.endsWith("\r") ? rows[i]!.slice(0, -1) : rows[i]!;
    if (BLANK_OR_COMMENT.test(line)) continue;
    const named = nameLine(line, seen);
    if (named === undefined) return undefined;
    const { key, rest } = named;
    const value = rest === "" ? null : blockScalar(rest);
    if (value === undefined) return undefined;
    out.push({ key, line: i + 1, value });
  }
  return out;
}

/**
 * A `name: …` line of a mapping: its name (a plain one, not seen before in `seen`, which
 * it joins) and what follows the colon without its comment; undefined when the full
 * parser must read the line.
 */
function nameLine(line: string, seen: Set<string>): { key: string; rest: string } | undefined {
  const k = KEY.exec(line);
  if (k === null) return undefined;
  const key = k[1]!;
  if (seen.has(key) || NULLS.has(key)) return undefined;
  seen.add(key);
  const rest = stripComment(line.slice(k[0].length));
  return rest === undefined ? undefined : { key, rest };
}

function isScalar(v: Value): v is Scalar {
  return v === null || (!Array.isArray(v) && !(v instanceof Map));
}

type Value = Scalar | Scalar[] | Map<string, Scalar>;

/** The value text without a trailing comment; undefined when a quote makes that unclear. */
function stripComment(rest: string): string | undefined {
  const first = rest.charAt(0);
  if (first === '"' || first === "'") {
    const m = (first === '"' ? DOUBLE : SINGLE).exec(rest);
    if (m === null) return undefined;
    // nothing after the closing quote but spaces, or a comment
    return /^ *$|^ +#/.test(rest.slice(m[0].length)) ? m[0] : undefined;
  }
  if (rest.startsWith("#")) return "";
  // a quote inside a flow list or after a plain start: keep it simple
  if ((first === "[" || first === "{") && (rest.includes("'") || rest.includes('"')))
    return undefined;
  const hash = rest.indexOf(" #");
  const value = hash === -1 ? rest : rest.slice(0, hash);
  return value.endsWith(" ") ? value.replace(/ +$/, "") : value;
}

function readValue(text: string): Value | undefined {
  const first = text.charAt(0);
  if (first === "[") {
    if (!text.endsWith("]")) return undefined;
    const inner = spaces(text.slice(1, -1));
    if (inner === "") return [];
    const items: Scalar[] = [];
    for (const part of inner.split(",")) {
      const s = flowScalar(spaces(part));
      if (s === undefined) return undefined;
      items.push(s);
    }
    return items;
  }
  if (first === "{") {
    if (!text.endsWith("}")) return undefined;
    const inner = spaces(text.slice(1, -1));
    const map = new Map<string, Scalar>();
    if (inner === "") return map;
    for (const part of inner.split(",")) {
      const m = /^ *([A-Za-z_][A-Za-z0-9_-]*): +(.*?) *$/.exec(part);
      if (m === null || map.has(m[1]!)) return undefined;
      const s = flowScalar(m[2]!);
      if (s === undefined) return undefined;
      map.set(m[1]!, s);
    }
    return map;
  }
  return blockScalar(text);
}

/** Trim spaces only: YAML's white space is space and tab, not JavaScript's (NBSP, …). */
function spaces(s: string): string {
  return s.charCodeAt(0) === 32 || s.charCodeAt(s.length - 1) === 32
    ? s.replace(/^ +| +$/g, "")
    : s;
}

function quoted(text: string): Scalar | undefined {
  if (text.startsWith('"')) {
    const m = DOUBLE.exec(text);
    if (m === null || m[0].length !== text.length) return undefined;
    return { text: JSON.parse(text) as string, plain: false };
  }
  const m = SINGLE.exec(text);
  if (m === null || m[0].length !== text.length) return undefined;
  return { text: m[1]!.replaceAll("''", "'"), plain: false };
}

function blockScalar(text: string): Scalar | undefined {
  if (text.startsWith('"') || text.startsWith("'")) return quoted(text);
  if (NULLS.has(text)) return null;
  return SIMPLE.test(text) || BLOCK_PLAIN.test(text) ? { text, plain: true } : undefined;
}

function flowScalar(text: string): Scalar | undefined {
  if (text === "") return undefined;
  if (NULLS.has(text)) return null;
  if (text.startsWith('"') || text.startsWith("'")) return undefined;
  return SIMPLE_ID.test(text) || FLOW_PLAIN.test(text) ? { text, plain: true } : undefined;
}
