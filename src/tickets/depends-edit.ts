/** `frontier dep add|rm`'s edit of a ticket's `depends_on`, the rest of the file kept. */
import { type Document, isMap, isScalar, isSeq, type Pair } from "yaml";
import { frontMatterMap, frontToEdit, pairNamed, sameElsewhere, yamlString } from "./writeback.js";
import { isNull } from "./yaml-errors.js";

const flow = (items: readonly string[]) => `[${items.join(", ")}]`;
/** what an id written as `text` reads as: its text, without the quotes around it */
const unquoted = (text: string) => text.replace(/^(["'])(.*)\1$/, "$2");

/**
 * A ticket's `depends_on` set to `next`, the rest of the file byte-for-byte, by the same
 * approach as the engine fields: line edits at the positions the YAML document gives, the
 * author's own text for every id that stays (its quotes, its comments), then the result
 * checked with the full parser — every other field reads as before, the body is the same
 * bytes, and `depends_on` reads as `next`. A list written `[a, b]` stays a flow list, a
 * block list (`- a` lines) stays a block list, a single id becomes a flow list.
 */
export function editDependsOn(text: string, next: readonly string[]): string {
  const line = `depends_on: ${flow(next.map(yamlString))}`;
  const front = frontToEdit(text, () => (next.length === 0 ? [] : [line]));
  if (typeof front === "string") return front;
  const { split, eol } = front;
  const pair = pairNamed(frontMatterMap(split), "depends_on");
  let out: string;
  if (pair !== undefined) out = editValue(text, split.yamlStart, pair, next, eol);
  else if (next.length === 0) return text;
  else out = text.slice(0, split.closeAt + 1) + line + eol + text.slice(split.closeAt + 1);
  if (!sameElsewhere(text, out, {}, ["depends_on"], (doc, yaml) => readsAs(doc, yaml, next))) {
    throw new Error("depends_on could not be edited without changing the author's part");
  }
  return out;
}

type Ranged = { range: [number, number, number] };

/** The text with the value of the `depends_on` pair (front matter at `yamlStart`) set to `next`. */
function editValue(
  text: string,
  yamlStart: number,
  pair: Pair,
  next: readonly string[],
  eol: string,
): string {
  const at = (offset: number) => yamlStart + offset;
  /** a node's own text in the file, as the author wrote it */
  const src = (node: unknown): string => {
    const range = (node as { range?: readonly number[] | null } | null)?.range;
    return range ? text.slice(at(range[0]!), at(range[1]!)) : "";
  };
  const idOf = (node: unknown) => unquoted(src(node));
  const afterColon = () => text.indexOf(":", at((pair.key as Ranged).range[1])) + 1;
  const value = pair.value as { range?: [number, number, number] } | null;
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
  if (isSeq(value) && !value.flow) {
    // a block list: the lines of the ids that go removed, a line added per new id
    const lines = (value.items as Ranged[]).map((item) => ({
      item,
      start: text.lastIndexOf("\n", at(item.range[0]) - 1) + 1,
      end: text.indexOf("\n", at(item.range[1]) - 1) + 1 || text.length,
    }));
    const first = lines[0]!;
    const rest = text.slice(lines.at(-1)!.end);
    if (next.length === 0) {
      // it becomes empty: `depends_on: []`, its lines gone
      const colon = afterColon();
      const between = text.slice(colon, first.start).replace(/[ \t]+(\r?\n)$/, "$1");
      return `${text.slice(0, colon)} []${between}${rest}`;
    }
    const prefix = text.slice(first.start, at(first.item.range[0]));
    let body = "";
    for (const l of lines) if (next.includes(idOf(l.item))) body += text.slice(l.start, l.end);
    for (const id of next) if (!kept.has(id)) body += `${prefix}${yamlString(id)}${eol}`;
    return text.slice(0, first.start) + body + rest;
  }
  if (value === null || value.range === undefined) {
    // `depends_on:` with nothing after it
    const colon = afterColon();
    return `${text.slice(0, colon)} ${flow(written)}${text.slice(colon)}`;
  }
  return text.slice(0, at(value.range[0])) + flow(written) + text.slice(at(value.range[1]));
}

/** Whether front matter (`yaml`, read as `doc`) has a depends_on that reads as exactly `ids`, by each item's own text. */
function readsAs(doc: Document, yaml: string, ids: readonly string[]): boolean {
  const value = isMap(doc.contents) ? doc.contents.get("depends_on", true) : undefined;
  const read = (node: unknown): string | undefined =>
    isScalar(node) && node.range ? unquoted(yaml.slice(node.range[0], node.range[1])) : undefined;
  const got = isNull(value) ? [] : isSeq(value) ? value.items.map(read) : [read(value)];
  return got.length === ids.length && got.every((g, i) => g === ids[i]);
}
