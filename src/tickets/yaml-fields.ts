/**
 * The full path for front matter the quick path does not take: gray-matter splits
 * the file (with engines for every other language that throw, so nothing is ever
 * evaluated) and the `yaml` package reads it, YAML 1.2 core schema, with line
 * numbers from its LineCounter. The split's first line break ends the `---` line, so
 * YAML line numbers are file line numbers.
 */
import matter from "gray-matter";
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type YAMLError,
} from "yaml";
import { errorText } from "../core/errors.js";
import { FIELD_INFO, type FieldKind, type RawFields } from "./field-table.js";
import { isYaml, type Split, splitFrontMatter } from "./frontmatter.js";
import { DECIMAL, decimalInt } from "./integers.js";
import { type Problem, problem } from "./problems.js";
import { isNull, scalarText, yamlErrorText, yamlFixText } from "./yaml-errors.js";

/** Engines for every language gray-matter knows but YAML: each throws, so nothing is evaluated. */
const ENGINES = {
  yaml: { parse: () => ({}), stringify: () => "" },
  ...Object.fromEntries(
    ["js", "javascript", "coffee", "coffeescript", "cson", "toml", "json"].map((language) => {
      const refuse = () => {
        throw new Error(`front matter in ${language} is never evaluated`);
      };
      return [language, { parse: refuse, stringify: refuse }];
    }),
  ),
};

export type Matter =
  | { kind: "ok"; split: Split; body: string }
  | { kind: "language"; language: string }
  | { kind: "unclosed" };

/**
 * gray-matter's split of `text`, checked against our offsets. A front matter in any
 * language but YAML is refused before (and, through the throwing engines, even if)
 * gray-matter would hand it to an engine.
 */
export function readMatter(text: string): Matter {
  const split = splitFrontMatter(text);
  if (split.kind === "front") {
    if (!isYaml(split.language)) return { kind: "language", language: split.language };
    if (!split.closed) return { kind: "unclosed" };
  }
  let file: { content: string; matter?: string };
  try {
    // options on every call: gray-matter caches by content when called without them
    file = matter(text, { engines: ENGINES, language: "yaml" });
  } catch {
    // only an engine refusal or an unknown language gets here; both are a language problem
    return { kind: "language", language: split.kind === "front" ? split.language : "" };
  }
  const body = text.slice(split.bodyStart);
  if (
    file.content !== body ||
    (split.kind === "front" && file.matter !== text.slice(split.yamlStart, split.closeAt))
  ) {
    throw new Error("front matter split disagrees with gray-matter (a bug in Ticket Frontier)");
  }
  return { kind: "ok", split, body };
}

type Unreadable = { kind: "problems"; problems: Problem[] };
type YamlRead = { kind: "ok"; raw: RawFields } | Unreadable;

/** Front matter that cannot be read as fields, and its one problem. */
function malformed(file: string, line: number | undefined, message: string, fix: string) {
  const only = problem("malformed-front-matter", file, line, message, fix);
  return { kind: "problems" as const, problems: [only] };
}

/** The full YAML path: the `yaml` package, YAML 1.2 core schema, line numbers from its LineCounter. */
export function readYamlFields(yaml: string, file: string): YamlRead {
  const lc = new LineCounter();
  const doc = parseYaml(yaml, file, lc);
  if ("problems" in doc) return doc;
  const contents = doc.contents;
  const values: Record<string, unknown> = {};
  const lines = new Map<string, number>();
  const unknown: Array<{ key: string; line: number }> = [];
  if (isNull(contents)) {
    return { kind: "ok", raw: { values, lines, unknown } };
  }
  const lineOf = (n: Node | null | undefined, fallback: number) =>
    n?.range ? lc.linePos(n.range[0]).line : fallback;
  if (!isMap(contents)) {
    return malformed(
      file,
      lineOf(contents, 2),
      `front matter must be fields (name: value lines), got ${isSeq(contents) ? "a list" : "a single value"}`,
      "write one field per line, e.g. depends_on: [research]",
    );
  }
  const resolve = (n: unknown): unknown => (isAlias(n) ? n.resolve(doc) : n);
  let itemLines = false;
  for (const pair of contents.items) {
    const key = resolve(pair.key);
    const keyLine = lineOf(key as Node, 2);
    if (!isScalar(key) || key.value === null || typeof key.value === "object") {
      return malformed(
        file,
        keyLine,
        "a field name must be plain text",
        "write the field as name: value",
      );
    }
    const name = scalarText(key);
    const info = FIELD_INFO[name];
    if (info === undefined) {
      unknown.push({ key: name, line: keyLine });
      continue;
    }
    const value = resolve(pair.value) as Node | null;
    const line = lineOf(value, keyLine);
    lines.set(name, keyLine);
    const v = toValue(value, info.kind, resolve, (sub, n) => {
      // an item on its own line gets its own entry; the rest fall back to the field's line
      const at = lineOf(n as Node, line);
      if (at !== keyLine) {
        lines.set(`${name}.${sub}`, at);
        itemLines = true;
      }
    });
    if (v !== undefined) values[name] = v;
  }
  return {
    kind: "ok",
    raw: itemLines ? { values, lines, unknown, itemLines } : { values, lines, unknown },
  };
}

/** The YAML document of front matter, or the problems that keep it from being read. */
function parseYaml(
  yaml: string,
  file: string,
  lc: LineCounter,
): ReturnType<typeof parseDocument> | Unreadable {
  const unreadable = (line: number | undefined, e: unknown, fix: string) =>
    malformed(file, line, `front matter could not be read as YAML (${errorText(e)})`, fix);
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(yaml, { lineCounter: lc, version: "1.2", prettyErrors: true });
  } catch (e) {
    return unreadable(undefined, e, "check the front matter between the --- lines");
  }
  if (doc.errors.length > 0) {
    return { kind: "problems", problems: dedupe(doc.errors.slice(0, 3).map(errorProblem)) };
  }
  // The whole document is resolved once, as writing the ticket back resolves it: YAML
  // aliases that expand past the parser's limit (a "billion laughs") are refused here,
  // in any field, known or not — never first when the run writes its state.
  try {
    // (only a document with an alias can expand: the rest skip the resolve)
    if (yaml.includes("*")) doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    const at = /[&*][^\s,\]}]/.exec(yaml);
    const line = at === null ? undefined : lc.linePos(at.index).line;
    return unreadable(line, e, "write the values out instead of repeating YAML aliases (*name)");
  }
  return doc;

  function errorProblem(err: YAMLError): Problem {
    const line = err.linePos?.[0]?.line ?? lc.linePos(err.pos[0]).line;
    const opened = unclosedFlowLine(yaml, line, err.message);
    if (opened === undefined) {
      return problem(
        "malformed-front-matter",
        file,
        line,
        `front matter is not valid YAML: ${yamlErrorText(err)}`,
        yamlFixText(err, "fix the YAML between the --- lines (quote text that contains : or #)"),
      );
    }
    return problem(
      "malformed-front-matter",
      file,
      opened.line,
      `front matter is not valid YAML: the ${opened.bracket} opened here is never closed`,
      opened.bracket === "["
        ? "close the list on the same line, e.g. depends_on: [a, b]"
        : "close the mapping on the same line, e.g. blocked_by: {ticket: a, kind: dep-failed, root: a}",
    );
  }
}

/**
 * The YAML parser notices an unclosed `[` or `{` only on a later line; the author
 * needs the line where it was opened: the nearest line above with more openers
 * than closers.
 */
function unclosedFlowLine(
  yaml: string,
  errLine: number,
  message: string,
): { line: number; bracket: "[" | "{" } | undefined {
  const m = /end with a ([\]}])/.exec(message);
  if (m === null) return undefined;
  const [open, close] = m[1] === "]" ? ["[", "]"] : ["{", "}"];
  const lines = yaml.split("\n");
  for (let n = Math.min(errLine, lines.length); n >= 1; n--) {
    // brackets inside quotes or comments do not count
    const text = lines[n - 1]!.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, "").replace(
      /(^|\s)#.*$/,
      "",
    );
    if (text.split(open).length > text.split(close).length) {
      return { line: n, bracket: open as "[" | "{" };
    }
  }
  return undefined;
}

function dedupe(problems: Problem[]): Problem[] {
  return problems.filter(
    (p, i) => problems.findIndex((q) => q.line === p.line && q.message === p.message) === i,
  );
}

/**
 * A YAML node as the value zod checks. `undefined` means "not set" (an empty value,
 * `~` or `null`); a value of the wrong shape is passed through so zod can say so.
 */
function toValue(
  n: Node | null,
  kind: FieldKind,
  resolve: (n: unknown) => unknown,
  lineAt: (sub: string, n: unknown) => void,
): unknown {
  if (isNull(n)) return undefined;
  switch (kind) {
    case "text":
      return isScalar(n) ? scalarText(n) : shapeOf(n);
    case "int":
      if (!isScalar(n)) return shapeOf(n);
      if (typeof n.value === "number" && n.source !== undefined && DECIMAL.test(n.source)) {
        // `010` is ten, never eight; past 2⁵³−1, the text as written
        return decimalInt(n.source);
      }
      return n.value;
    case "list":
      if (isScalar(n)) return [scalarText(n)];
      if (isSeq(n)) {
        return n.items.map((item, i) => {
          const it = resolve(item);
          lineAt(String(i), it);
          if (isNull(it)) return null;
          return isScalar(it) ? scalarText(it) : shapeOf(it);
        });
      }
      return shapeOf(n);
    case "map": {
      if (!isMap(n)) return isScalar(n) ? scalarText(n) : shapeOf(n);
      const out: Record<string, unknown> = {};
      for (const pair of n.items) {
        const k = resolve(pair.key);
        if (!isScalar(k)) continue;
        const name = scalarText(k);
        const v = resolve(pair.value);
        lineAt(name, isNull(v) ? k : v);
        out[name] = isNull(v) ? undefined : isScalar(v) ? scalarText(v) : shapeOf(v);
      }
      return out;
    }
  }
}

/** Stand-ins that keep only the shape: enough for zod to say "got a list". */
function shapeOf(n: unknown): unknown {
  if (isSeq(n)) return [{}];
  if (isMap(n)) return { "": {} };
  return {};
}
