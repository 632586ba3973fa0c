/**
 * The HTML report's graph: where each ticket sits and how its edges run, drawn as inline
 * SVG. Laid out when the report is made — dagre for small graphs, layers by wave for large
 * ones — and listed as its waves past HTML_GRAPH_MAX_NODES.
 */
import dagre, { type Edge } from "@dagrejs/dagre";
import type { Receipt, ReceiptTicket } from "../core/model.js";
import { formatInt } from "../core/text.js";
import { clip, escapeHtml as e, oneLine } from "./escape.js";
import { icon } from "./html-style.js";

/**
 * Past this many tickets the graph is not drawn but listed as its waves: an SVG of more
 * nodes is more than a reader can take in, and more than a browser draws smoothly.
 */
export const HTML_GRAPH_MAX_NODES = 2_000;
/**
 * dagre lays out graphs up to this many tickets (and no wave wider than DAGRE_MAX_WAVE);
 * larger ones are laid out in layers, one band per wave. dagre's cost grows faster than
 * linearly (measured on a 2-core machine: 100 tickets 0.12 s, 300 tickets 0.4 s, 1,000
 * tickets 14 s) while the layers cost a few milliseconds at 1,000 tickets.
 */
export const DAGRE_MAX_NODES = 150;
/** A wider wave would make dagre's drawing wider than FIT_WIDTH: too small when fitted. */
const DAGRE_MAX_WAVE = 8;
/** Tickets per line of a wave in the layered layout: six fit a page at 80% scale. */
const LAYER_LINE = 6;
const NODE_W = 224;
const NODE_H = 74;
/** characters per line that fit a node at 12px (monospace id, proportional title) */
const ID_CHARS = 28;
const TITLE_CHARS = 31;
/**
 * Graphs up to this wide are scaled to the page on first paint (text stays at 60% or
 * more); wider ones open at full size, scrolled to where the run starts.
 */
const FIT_WIDTH = 2_000;

/** What the graph reads of the page: the tickets, their anchors, the critical path. */
export interface GraphCtx {
  receipt: Receipt;
  /** ticket id -> element id (`ticket-0`, …): receipt ids never become element ids */
  anchor: Map<string, string>;
  byId: Map<string, ReceiptTicket>;
  /** ticket id -> its place on the critical path (0-based) */
  crit: Map<string, number>;
}

/** A coordinate as the SVG writes it. */
const f = (n: number) => n.toFixed(1);

interface Point {
  x: number;
  y: number;
}

/** Where every node sits (its centre) and how each edge runs: what the SVG draws. */
interface Layout {
  kind: "dagre" | "layers";
  width: number;
  height: number;
  nodes: Map<string, Point>;
  edges: Array<{ v: string; w: string; d: string }>;
  /** wave bands of the layered layout: label and top edge */
  bands: Array<{ label: string; y: number }>;
}

export function renderGraph(ctx: GraphCtx): string {
  const r = ctx.receipt;
  if (r.tickets.length === 0) return "";
  if (ctx.byId.size > HTML_GRAPH_MAX_NODES) return renderWaves(ctx);
  const widest = r.waves.reduce((m, w) => Math.max(m, w.length), 0);
  const lay =
    ctx.byId.size <= DAGRE_MAX_NODES && widest <= DAGRE_MAX_WAVE
      ? dagreLayout(ctx)
      : layerLayout(ctx);
  const { width, height } = lay;

  const edges = lay.edges.map(({ v, w, d }) => {
    const to = ctx.byId.get(w);
    // the edge along which a failure blocked its dependent is drawn as such
    const blocking = to?.status === "blocked" && to.blocked_by?.ticket === v;
    const step = ctx.crit.get(v);
    const crit = step !== undefined && ctx.crit.get(w) === step + 1;
    return `<path class="edge${blocking ? " blocking" : ""}${crit ? " crit" : ""}" d="${d}" marker-end="url(#arrow${blocking ? "-b" : ""})"/>`;
  });
  const nodes: string[] = [];
  let start: Point | undefined;
  for (const t of ctx.byId.values()) {
    const n = lay.nodes.get(t.id);
    if (!n) continue;
    if (!start || n.y < start.y || (n.y === start.y && n.x < start.x)) start = n;
    const x = n.x - NODE_W / 2;
    const y = n.y - NODE_H / 2;
    const title = oneLine(t.title);
    const crit = ctx.crit.has(t.id);
    nodes.push(`<a href="#${ctx.anchor.get(t.id)}" class="node st-${t.status}${crit ? " crit" : ""}" data-node-status="${t.status}">
<title>${e(`${t.id}: ${title} — ${t.status}${t.blocked_by ? ` (blocked by ${t.blocked_by.ticket})` : ""}${crit ? " · on the critical path" : ""}`)}</title>
${crit ? `<rect class="halo" x="${f(x - 4)}" y="${f(y - 4)}" width="${NODE_W + 8}" height="${NODE_H + 8}" rx="10"/>` : ""}<rect x="${f(x)}" y="${f(y)}" width="${NODE_W}" height="${NODE_H}" rx="7"/>
<text x="${f(x + 10)}" y="${f(y + 18)}" class="nid">${e(clip(t.id, ID_CHARS))}</text>
${titleLines(title === t.id ? "" : title)
  .map(
    (line, k) =>
      `<text x="${f(x + 10)}" y="${f(y + 34 + k * 15)}" class="ntitle">${e(line)}</text>`,
  )
  .join("\n")}
<use href="#i-${t.status}" x="${f(x + 10)}" y="${f(y + 56)}" width="13" height="13"/><text x="${f(x + 27)}" y="${f(y + 66)}" class="nstate">${e(t.status)}</text>
</a>`);
  }
  const bands = lay.bands
    .map(
      (b) =>
        `<text class="band" x="10" y="${f(b.y + 14)}">${e(b.label)}</text><line class="band" x1="0" x2="${width}" y1="${f(b.y - 8)}" y2="${f(b.y - 8)}"/>`,
    )
    .join("");
  const fit = width <= FIT_WIDTH;
  const how =
    lay.kind === "dagre"
      ? "dependencies above their dependents"
      : `one band per wave, ${LAYER_LINE} tickets a line: dependencies in earlier bands`;
  const critNote = ctx.crit.size > 1 ? " · the critical path is outlined" : "";
  return `<section id="graph">
<h2>Graph <span class="sub">${formatInt(ctx.byId.size)} tickets · ${formatInt(lay.edges.length)} dependencies · ${how}${critNote}</span></h2> <button type="button" id="graph-fit" aria-pressed="${fit}">fit to width</button>
<div class="graph-scroll" data-start-x="${Math.round(start?.x ?? 0)}">
<svg xmlns="http://www.w3.org/2000/svg" class="${lay.kind}${fit ? " fit" : ""}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Dependency graph of the run">
<defs>
${["", "-b"].map((b) => `<marker id="arrow${b}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead${b}"/></marker>\n`).join("")}</defs>
<g class="bands">${bands}</g>
<g class="edges">${edges.join("")}</g>
<g class="nodes">${nodes.join("")}</g>
</svg>
</div>
</section>`;
}

/** The edges of the graph: each dependency once, only between tickets of the receipt. */
function graphEdges(ctx: GraphCtx): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const t of ctx.byId.values())
    for (const d of new Set(t.depends_on)) if (ctx.byId.has(d) && d !== t.id) out.push([d, t.id]);
  return out;
}

function dagreLayout(ctx: GraphCtx): Layout {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 22, ranksep: 46, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of ctx.byId.keys()) g.setNode(id, { width: NODE_W, height: NODE_H });
  for (const [v, w] of graphEdges(ctx)) g.setEdge(v, w);
  dagre.layout(g);
  const size = g.graph();
  return {
    kind: "dagre",
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
    // dagre places every node and gives every edge its points
    nodes: new Map([...ctx.byId.keys()].map((id) => [id, g.node(id)])),
    edges: g.edges().map(({ v, w }: Edge) => ({ v, w, d: smoothPath(g.edge(v, w).points) })),
    bands: [],
  };
}

/**
 * The layout for large graphs, linear in tickets and edges: one band per wave (every
 * dependency sits in an earlier band), LAYER_LINE tickets a line, each wave ordered by
 * where its dependencies sit so edges cross less.
 */
function layerLayout(ctx: GraphCtx): Layout {
  const GAP_X = 22;
  const GAP_LINE = 18;
  const GAP_WAVE = 46;
  const LEFT = 84;
  const MARGIN = 12;
  const waves = drawnWaves(ctx);
  const nodes = new Map<string, Point>();
  const bands: Layout["bands"] = [];
  // a placed ticket -> its column: where its dependents would rather sit
  const key = new Map<string, number>();
  let y = MARGIN;
  waves.forEach((ids, wi) => {
    const at = (id: string, i: number) => {
      const ks = (ctx.byId.get(id)?.depends_on ?? []).flatMap((d) => key.get(d) ?? []);
      return ks.length ? ks.reduce((a, b) => a + b) / ks.length : i % LAYER_LINE;
    };
    // each ticket goes to the column under its dependencies (wave 1: round robin); a line
    // takes one ticket per column, and its empty slots from the fullest columns. Sorted
    // last first, so each column pops its tickets in order.
    const cols: string[][] = Array.from({ length: LAYER_LINE }, () => []);
    ids
      .map((id, i) => ({ id, k: at(id, i), i }))
      .sort((a, b) => b.k - a.k || b.i - a.i)
      .forEach(({ id, k }) => {
        cols[Math.min(LAYER_LINE - 1, Math.max(0, Math.round(k)))]?.push(id);
      });
    bands.push({ label: `wave ${wi + 1}`, y });
    for (let remaining = ids.length; remaining > 0; ) {
      for (let c = 0; c < LAYER_LINE && remaining > 0; c++, remaining--) {
        const own = cols[c] ?? [];
        const id = (own.length ? own : cols.reduce((a, b) => (b.length > a.length ? b : a))).pop();
        if (id === undefined) continue;
        nodes.set(id, { x: LEFT + c * (NODE_W + GAP_X) + NODE_W / 2, y: y + NODE_H / 2 });
        key.set(id, c);
      }
      y += NODE_H + GAP_LINE;
    }
    y += GAP_WAVE - GAP_LINE;
  });
  return {
    kind: "layers",
    width: LEFT + LAYER_LINE * NODE_W + (LAYER_LINE - 1) * GAP_X + MARGIN,
    height: Math.ceil(y - GAP_WAVE + MARGIN),
    nodes,
    edges: layerEdges(ctx, nodes),
    bands,
  };
}

/** The receipt's waves, each ticket once; a hand-made receipt's tickets left out of them last. */
function drawnWaves(ctx: GraphCtx): string[][] {
  const waves: string[][] = [];
  const placed = new Set<string>();
  for (const w of ctx.receipt.waves) {
    const ids = w.filter((id) => ctx.byId.has(id) && !placed.has(id));
    for (const id of ids) placed.add(id);
    if (ids.length) waves.push(ids);
  }
  const rest = [...ctx.byId.keys()].filter((id) => !placed.has(id));
  if (rest.length) waves.push(rest);
  return waves;
}

/** Edges of the layered layout: a curve from a node's bottom to its dependent's top. */
function layerEdges(ctx: GraphCtx, nodes: Map<string, Point>): Layout["edges"] {
  const edges: Layout["edges"] = [];
  for (const [v, w] of graphEdges(ctx)) {
    const a = nodes.get(v);
    const b = nodes.get(w);
    if (!a || !b) continue;
    const y1 = a.y + NODE_H / 2;
    const y2 = b.y - NODE_H / 2 - 1;
    const bend = Math.max(12, Math.min(40, (y2 - y1) / 2));
    edges.push({
      v,
      w,
      d: `M${f(a.x)},${f(y1)} C${f(a.x)},${f(y1 + bend)} ${f(b.x)},${f(y2 - bend)} ${f(b.x)},${f(y2)}`,
    });
  }
  return edges;
}

/** A title in at most two lines of a node, cut at a word where it can be. */
function titleLines(title: string): string[] {
  if (title.length <= TITLE_CHARS) return title ? [title] : [];
  let cut = title.lastIndexOf(" ", TITLE_CHARS);
  if (cut < TITLE_CHARS / 2) cut = TITLE_CHARS;
  return [title.slice(0, cut).trimEnd(), clip(title.slice(cut).trimStart(), TITLE_CHARS)];
}

/** Edges as smooth curves through dagre's points: a quadratic spline through the midpoints. */
function smoothPath(pts: Point[]): string {
  const first = pts[0];
  if (!first) return "";
  let d = `M${f(first.x)},${f(first.y)}`;
  for (let i = 1; i < pts.length - 1; i++) {
    const p = pts[i]!;
    const q = pts[i + 1]!;
    d += ` Q${f(p.x)},${f(p.y)} ${f((p.x + q.x) / 2)},${f((p.y + q.y) / 2)}`;
  }
  const last = pts[pts.length - 1]!;
  if (pts.length > 1) d += ` L${f(last.x)},${f(last.y)}`;
  return d;
}

function renderWaves(ctx: GraphCtx): string {
  const rows = ctx.receipt.waves
    .map((w, i) => {
      const chips = w
        .map((id) => {
          const t = ctx.byId.get(id);
          const s = t?.status ?? "pending";
          const a = ctx.anchor.get(id);
          const inner = `${icon(s)}${e(id)}`;
          return a
            ? `<a class="chip st-${s}" data-node-status="${s}" href="#${a}" title="${e(`${s}: ${oneLine(t?.title ?? id)}`)}">${inner}</a>`
            : `<span class="chip">${inner}</span>`;
        })
        .join("");
      return `<li><span class="wave-n">wave ${i + 1} <span class="sub">(${formatInt(w.length)})</span></span><div class="chips">${chips}</div></li>`;
    })
    .join("\n");
  return `<section id="graph">
<h2>Waves <span class="sub">${formatInt(ctx.byId.size)} tickets: more than ${formatInt(HTML_GRAPH_MAX_NODES)}, too many to draw legibly; each wave lists tickets that can run together</span></h2>
<ol class="waves">${rows}</ol>
</section>`;
}
