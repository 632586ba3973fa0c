/**
 * The run's graph as a mermaid flowchart (`flowchart TD`): dependencies above their
 * dependents, one class per state. Used by the markdown comment and by
 * `frontier plan --mermaid` (its `text`, without the fence).
 *
 * Node ids are never the ticket ids: each ticket gets `n0`, `n1`, … so no id can clash
 * with a mermaid keyword (`end`, `graph`, `class`…) or carry syntax. Labels are
 * quoted, and every character that could end the quote, start a comment (`%%`), an
 * arrow (`-->`), a shape (`]`, `|`), markdown (backticks) or HTML (`<`) is written as a
 * mermaid entity code (`#34;`), which mermaid shows as the character itself.
 */
import type { Receipt, Status } from "../core/model.js";
import { clip, oneLine } from "./escape.js";
import { STATUS_COLOURS, STATUS_ICON } from "./states.js";

/**
 * Mermaid refuses a diagram whose text exceeds `maxTextSize` (default 50,000
 * characters: "Maximum text size in diagram exceeded") or that has more than
 * `maxEdges` edges (default 500: "Too many edges"). GitHub renders ```mermaid blocks
 * with mermaid's defaults, and a comment may not set them. We stay well inside both,
 * and within what a reader can take in on a PR page.
 */
export const MERMAID_LIMITS = {
  /** mermaid's defaults, as documented in its config schema */
  maxTextSize: 50_000,
  maxEdges: 500,
  /** what we allow ourselves: well inside the above */
  nodes: 150,
  edges: 300,
  chars: 25_000,
} as const;

export interface MermaidGraph {
  /** the flowchart source, without the ``` fence */
  text: string;
  nodes: number;
  edges: number;
}

export interface MermaidOptions {
  /** longest title shown in a node, in characters (default 40) */
  maxTitle?: number;
}

/**
 * Characters shown as themselves in a quoted label (this matches any other character);
 * everything else is an entity code.
 * `:` is not among them: before parsing, mermaid strips the last `;` of any line that
 * looks like `style …:…#…;` or `classDef …:…#…;`, which a title holding those words
 * would otherwise turn on our own entity codes (found by rendering with mermaid itself).
 */
const LABEL_UNSAFE = /[^\p{L}\p{N} .,_/()?!'+=*~^$@{}-]/gu;

export function renderMermaidGraph(receipt: Receipt, opts: MermaidOptions = {}): MermaidGraph {
  // a hand-made receipt may repeat an id: the first one is drawn
  const nodeIds = new Map<string, string>();
  const drawn = receipt.tickets.flatMap((t, i) => {
    if (nodeIds.has(t.id)) return [];
    nodeIds.set(t.id, `n${i}`);
    return [{ t, node: `n${i}` }];
  });

  const lines: string[] = ["flowchart TD"];
  const byStatus = new Map<Status, string[]>();
  for (const { t, node } of drawn) {
    const title = oneLine(t.title);
    // id, title, state: one line each. The state is written in the node too, so colour
    // is never the only signal.
    const parts = [clip(t.id, 40)];
    if (title && title !== t.id) parts.push(clip(title, opts.maxTitle ?? 40));
    parts.push(`${STATUS_ICON[t.status]} ${t.status}`);
    // unsafe characters as mermaid entity codes: `#` + decimal code point + `;` (`#34;` for `"`)
    const label = parts.map((p) => p.replace(LABEL_UNSAFE, (ch) => `#${ch.codePointAt(0)};`));
    lines.push(`  ${node}["${label.join("<br/>")}"]`);
    const list = byStatus.get(t.status) ?? [];
    list.push(node);
    byStatus.set(t.status, list);
  }

  const edges = receipt.tickets.flatMap((t) =>
    t.depends_on.flatMap((dep) =>
      nodeIds.has(dep) ? [`  ${nodeIds.get(dep)} --> ${nodeIds.get(t.id)}`] : [],
    ),
  );
  for (const edge of edges) lines.push(edge);

  for (const [status, nodes] of byStatus) {
    const c = STATUS_COLOURS[status];
    const dashed = status === "empty" || status === "cancelled" ? ",stroke-dasharray:4 3" : "";
    // class names are ours, never the receipt's: `st_failed`, …
    lines.push(`  classDef st_${status} fill:${c.fill},stroke:${c.stroke},color:#111${dashed}`);
    lines.push(`  class ${nodes.join(",")} st_${status}`);
  }

  return { text: lines.join("\n"), nodes: nodeIds.size, edges: edges.length };
}

/** Whether GitHub will draw this graph: inside our margins of mermaid's limits. */
export function mermaidFits(graph: MermaidGraph): boolean {
  return (
    graph.nodes <= MERMAID_LIMITS.nodes &&
    graph.edges <= MERMAID_LIMITS.edges &&
    graph.text.length <= MERMAID_LIMITS.chars
  );
}
