/** `frontier dep add|rm`'s edit of a ticket's `depends_on`, the rest of the file kept. */
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import { splitFrontMatter } from "./frontmatter.js";

import { checkEditable, type MapNode, sameElsewhere, yamlString } from "./writeback.js";

/**
 * A ticket's `depends_on` set to `next`, the rest of the file byte-for-byte, by the same
 * approach as the engine fields: line edits at the positions the YAML document gives, the
 * author's own text for every id that stays (its quotes, its comments), then the result
 * checked with the full parser — every other field reads as before, the body is the same
 * bytes, and `depends_on` reads as `next`. A list written `[a, b]` stays a flow list, a
 * block list (`- a` lines) stays a block list, a single id becomes a flow list.
 */
export function editDependsOn(text: string, next: readonly string[]): string {
  const split = splitFrontMatter(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const flow = (items: readonly string[]) => `[${items.join(", ")}]`;
  if (split.kind === "none") {
    if (next.length === 0) return text;
    return `${text.slice(0, split.bom)}---${eol}depends_on: ${flow(next.map(yamlString))}${eol}---${eol}${text.slice(split.bom)}`;
  }
  checkEditable(split);
  const doc = parseDocument(split.yaml, { version: "1.2" });
  if (doc.errors.length > 0) throw new Error("the ticket's front matter is not valid YAML");
  const contents = doc.contents;
  const empty = contents === null || (isScalar(contents) && contents.value === null);
  if (!empty && !isMap(contents)) throw new Error("the ticket's front matter is not a mapping");
  const at = (offset: number) => split.yamlStart + offset;
  const pair = empty
    ? undefined
    : (contents as MapNode).items.find((p) => {
        const k = (p as { key: unknown }).key;
        return isScalar(k) && String(k.value) === "depends_on";
      });
  /** a node's own text in the file, as the author wrote it */
  const src = (node: unknown): string => {
    const range = (node as { range?: readonly number[] | null } | null)?.range;
    return range ? text.slice(at(range[0]!), at(range[1]!)) : "";
  };
  /** what an id written this way reads as: its text, without the quotes around it */
  const idOf = (node: unknown) => src(node).replace(/^(["'])(.*)\1$/, "$2");
  let out: string;
  if (pair === undefined) {
    if (next.length === 0) return text;
    const insert = `depends_on: ${flow(next.map(yamlString))}${eol}`;
    out = text.slice(0, split.closeAt + 1) + insert + text.slice(split.closeAt + 1);
  } else {
    const value = (pair as { value: unknown }).value as {
      range?: [number, number, number];
      flow?: boolean;
      items?: unknown[];
      value?: unknown;
    } | null;
    // the author's text of each id that stays, by what it reads as
    const kept = new Map<string, string>();
    if (isSeq(value)) {
      for (const item of value.items) {
        if (isScalar(item)) kept.set(idOf(item), src(item));
      }
    } else if (isScalar(value) && value.value !== null) {
      kept.set(String(value.value), src(value));
    }
    const written = next.map((id) => kept.get(id) ?? yamlString(id));
    if (isSeq(value) && !value.flow && next.length > 0) {
      // a block list: remove the lines of the ids that go, add a line per new id
      const items = value.items as Array<{ range?: [number, number, number] }>;
      const lineOf = (node: { range?: [number, number, number] }) => {
        const start = text.lastIndexOf("\n", at(node.range![0]) - 1) + 1;
        const end = text.indexOf("\n", at(node.range![1]) - 1) + 1 || text.length;
        return { start, end };
      };
      const first = lineOf(items[0]!);
      const prefix = text.slice(first.start, at(items[0]!.range![0]));
      let body = "";
      const lines = items.map((item) => ({ item, ...lineOf(item) }));
      const keptIds = new Set(next);
      for (const l of lines) {
        const id = idOf(l.item);
        if (keptIds.has(id)) body += text.slice(l.start, l.end);
      }
      for (const id of next) if (!kept.has(id)) body += `${prefix}${yamlString(id)}${eol}`;
      const last = lines.at(-1)!;
      out = text.slice(0, first.start) + body + text.slice(last.end);
    } else if (value === null || value.range === undefined) {
      // `depends_on:` with nothing after it
      const key = (pair as { key: { range: [number, number, number] } }).key;
      const keyEnd = at(key.range[1]);
      const colon = text.indexOf(":", keyEnd);
      out = `${text.slice(0, colon + 1)} ${flow(written)}${text.slice(colon + 1)}`;
    } else if (isSeq(value) && !value.flow) {
      // a block list that becomes empty: `depends_on: []`, its lines gone
      const items = value.items as Array<{ range?: [number, number, number] }>;
      const key = (pair as { key: { range: [number, number, number] } }).key;
      const colon = text.indexOf(":", at(key.range[1]));
      const start = text.lastIndexOf("\n", at(items[0]!.range![0]) - 1) + 1;
      const lastItem = items.at(-1)!;
      const end = text.indexOf("\n", at(lastItem.range![1]) - 1) + 1 || text.length;
      out = `${text.slice(0, colon + 1)} []${text.slice(colon + 1, start).replace(/[ \t]+(\r?\n)$/, "$1")}${text.slice(end)}`;
    } else {
      out = text.slice(0, at(value.range[0])) + flow(written) + text.slice(at(value.range[1]));
    }
  }
  if (!sameElsewhere(text, out, {}, ["depends_on"], false) || !readsAs(out, next)) {
    throw new Error("depends_on could not be edited without changing the author's part");
  }
  return out;
}

/** Whether the front matter's depends_on reads as exactly `ids`, by each item's own text. */
function readsAs(text: string, ids: readonly string[]): boolean {
  const split = splitFrontMatter(text);
  if (split.kind !== "front") return ids.length === 0;
  const doc = parseDocument(split.yaml, { version: "1.2" });
  const value = isMap(doc.contents) ? doc.contents.get("depends_on", true) : undefined;
  const read = (node: unknown): string | undefined =>
    isScalar(node) && node.range
      ? split.yaml.slice(node.range[0], node.range[1]).replace(/^(["'])(.*)\1$/, "$2")
      : undefined;
  const got =
    value === undefined || value === null || (isScalar(value) && value.value === null)
      ? []
      : isSeq(value)
        ? value.items.map(read)
        : [read(value)];
  return got.length === ids.length && got.every((g, i) => g === ids[i]);
}
