/**
 * One ticket file → its checked TicketSpec and the engine-written fields, or the
 * problems with it. Plain front matter takes the quick path (fields.ts, fast.ts);
 * anything else is split by gray-matter and read by the `yaml` package
 * (yaml-fields.ts). Both end in the same checks.
 */

import { ENGINE_FIELDS, NO_FIELDS } from "./field-table.js";
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
import { splitFrontMatter } from "./frontmatter.js";
import { readMatter, readYamlFields } from "./yaml-fields.js";

/** Parse one ticket file: `file` is relative to the ticket directory, `order` its file-order index. */
export function parseTicket(...args: Parameters<typeof parseTicketFull>): ParsedTicket {
  return parseTicketQuick(...args) ?? parseTicketFull(...args);
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
  const read =
    m.split.kind === "none"
      ? { kind: "ok" as const, raw: NO_FIELDS }
      : readYamlFields(m.split.yaml, file);
  if (read.kind === "problems") return brokenTicket(read.problems, file, order);
  return checkFields(read.raw, typeFields(read.raw, file), m.body, file, order, opts);
}

const ENGINE_LINE = new RegExp(`^\\s*["']?(?:${ENGINE_FIELDS.join("|")})["']?\\s*:.*$`, "gm");

const ENGINE_ONE = new RegExp(ENGINE_LINE.source);
/**
 * A ticket file's text without the engine-written fields' lines of its front matter (and
 * without a front matter that holds only those): the part only its author writes.
 */
export function authoredPart(text: string): string {
  const split = splitFrontMatter(text);
  if (split.kind !== "front") return text;
  const lines = split.yaml.split(/\r?\n/).filter((l) => l.trim() !== "" && !ENGINE_ONE.test(l));
  const body = text.slice(split.bodyStart);
  return lines.length === 0 ? body : `${lines.join("\n")}\0${body}`;
}

/**
 * The engine-written fields' rule for the ticket directory at `dir` (a repository path,
 * "" at the top): which changed paths are its ticket files, and whether a change to one
 * edits them — two versions (undefined: no file) compared as parsed, or, when either is
 * not a valid ticket, as the front matter lines that name one. What both runners hand to
 * the collection of an attempt's changes.
 */
export function engineFieldRule(dir: string) {
  const prefix = dir === "" ? "" : `${dir}/`;
  const name = (path: string) => path.slice(prefix.length);
  const lines = (text: string | undefined) => {
    const split = text === undefined ? undefined : splitFrontMatter(text);
    return split?.kind === "front" ? (split.yaml.match(ENGINE_LINE) ?? []).sort().join("\n") : "";
  };
  return {
    isTicket: (path: string) => path.startsWith(prefix) && /^[^/._][^/]*\.md$/.test(name(path)),
    changed(path: string, before: string | undefined, after: string | undefined): boolean {
      const parse = (text: string | undefined) =>
        text === undefined ? { kind: "none" as const } : parseTicket(text, name(path), 0);
      const [b, a] = [parse(before), parse(after)];
      // a parse holds only the engine fields that are set
      const fields = (p: typeof b) =>
        p.kind === "ok" ? JSON.stringify(Object.entries(p.fields).sort()) : "[]";
      if (b.kind !== "invalid" && a.kind !== "invalid") return fields(b) !== fields(a);
      return lines(before) !== lines(after);
    },
  };
}
