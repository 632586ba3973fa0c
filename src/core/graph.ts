/**
 * The dependency graph as index arrays, computed once: reverse edges (dependents),
 * a topological order, Kahn waves and each ticket's remaining critical path. The
 * engine keeps these so that an event only ever walks a ticket's own neighbours.
 *
 * Edges are stored flat (CSR): ticket i's dependencies are
 * `depList[depStart[i] .. depStart[i + 1])`, its dependents likewise in
 * `dependentList`/`dependentStart`. Four typed arrays instead of two arrays of small
 * arrays: at 100k tickets the small arrays were 200k objects that lived to the end of
 * the run, copied by every young-generation GC.
 *
 * The graph is assumed checked (src/core/checks.ts): known dependencies, no cycles.
 * Being handed anything else is a programming error and throws.
 */

import type { TicketSpec } from "./model.js";

export type GraphNode = Pick<TicketSpec, "id" | "dependsOn">;

export interface Graph {
  readonly ids: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** deduplicated dependencies, in the author's order: depList[depStart[i] .. depStart[i+1]) */
  readonly depStart: Int32Array;
  readonly depList: Int32Array;
  /** reverse edges, who depends on each ticket in file order: likewise */
  readonly dependentStart: Int32Array;
  readonly dependentList: Int32Array;
  /** a topological order (Kahn, file order among tickets freed together) */
  readonly topo: Int32Array;
  /** position of each ticket in `topo` */
  readonly topoPos: Int32Array;
  /** 0-based Kahn level: 1 + the highest level of its dependencies */
  readonly wave: Int32Array;
  /** longest weighted path from the ticket to a sink, including its own weight */
  readonly remaining: readonly number[];
}

/** Ticket i's direct dependents in file order: a view of the graph's array, not a copy. */
export function dependentsOf(g: Graph, i: number): Int32Array {
  return g.dependentList.subarray(g.dependentStart[i]!, g.dependentStart[i + 1]!);
}

/** Ticket i's dependencies in the author's order, deduplicated: likewise a view. */
export function dependenciesOf(g: Graph, i: number): Int32Array {
  return g.depList.subarray(g.depStart[i]!, g.depStart[i + 1]!);
}

/** Build the graph. `nodes` are in file order; `weight(i)` is ticket i's expected duration. */
export function buildGraph(nodes: readonly GraphNode[], weight: (i: number) => number): Graph {
  const e = edges(nodes);
  const { topo, wave } = kahn(e);
  const topoPos = new Int32Array(topo.length);
  for (let p = 0; p < topo.length; p++) topoPos[topo[p]!] = p;
  return { ...e, topo, topoPos, wave, remaining: remainingOf(e, topo, weight) };
}

/** A graph the checks (checks.ts) would have refused: a programming error. */
const unchecked = (what: string) => new Error(`unchecked graph: ${what}`);

type Edges = Pick<
  Graph,
  "ids" | "index" | "depStart" | "depList" | "dependentStart" | "dependentList"
>;

/** The ids, and the edges both ways as flat arrays, each ticket's dependencies deduplicated. */
function edges(nodes: readonly GraphNode[]): Edges {
  const n = nodes.length;
  const ids = new Array<string>(n);
  const index = new Map<string, number>();
  let raw = 0;
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    ids[i] = node.id;
    // one hash lookup, not has() then set(): a repeated id leaves the size unchanged
    index.set(node.id, i);
    if (index.size !== i + 1) throw unchecked(`duplicate id "${node.id}"`);
    raw += node.dependsOn.length;
  }
  const depStart = new Int32Array(n + 1);
  const depAll = new Int32Array(raw);
  // dependents per ticket, counted first, then placed
  const dependentStart = new Int32Array(n + 1);
  // seen[j] === i + 1: j is already a dependency of i (a Set per ticket costs more)
  const seen = new Int32Array(n);
  let e = 0;
  for (let i = 0; i < n; i++) {
    depStart[i] = e;
    for (const dep of nodes[i]!.dependsOn) {
      const j = index.get(dep);
      if (j === undefined) throw unchecked(`unknown dependency "${dep}" of "${ids[i]}"`);
      if (seen[j] === i + 1) continue;
      seen[j] = i + 1;
      depAll[e++] = j;
      dependentStart[j + 1]!++;
    }
  }
  depStart[n] = e;
  const depList = e === raw ? depAll : depAll.slice(0, e);
  for (let i = 0; i < n; i++) dependentStart[i + 1]! += dependentStart[i]!;
  const dependentList = new Int32Array(e);
  const fill = dependentStart.slice(0, n);
  for (let i = 0; i < n; i++) {
    for (let k = depStart[i]!; k < depStart[i + 1]!; k++) dependentList[fill[depList[k]!]!++] = i;
  }
  return { ids, index, depStart, depList, dependentStart, dependentList };
}

/** Kahn's topological order (file order among tickets freed together) and each ticket's wave. */
function kahn(g: Edges): { topo: Int32Array; wave: Int32Array } {
  const { ids, depStart, dependentStart, dependentList } = g;
  const n = ids.length;
  const indegree = new Int32Array(n);
  for (let i = 0; i < n; i++) indegree[i] = depStart[i + 1]! - depStart[i]!;
  const wave = new Int32Array(n);
  const topo = new Int32Array(n);
  let tail = 0;
  for (let i = 0; i < n; i++) if (indegree[i] === 0) topo[tail++] = i;
  for (let head = 0; head < tail; head++) {
    const i = topo[head]!;
    const next = wave[i]! + 1;
    for (let k = dependentStart[i]!; k < dependentStart[i + 1]!; k++) {
      const d = dependentList[k]!;
      if (wave[d]! < next) wave[d] = next;
      if (--indegree[d]! === 0) topo[tail++] = d;
    }
  }
  // a ticket that depends on itself is never freed either
  if (tail !== n) throw unchecked(`cycle (${ids.filter((_, i) => indegree[i]! > 0).join(", ")})`);
  return { topo, wave };
}

/** Each ticket's weight plus the longest remaining path of its dependents, sinks first. */
function remainingOf(g: Edges, topo: Int32Array, weight: (i: number) => number): number[] {
  const { dependentStart, dependentList } = g;
  const remaining = new Array<number>(topo.length).fill(0);
  for (let pos = topo.length - 1; pos >= 0; pos--) {
    const i = topo[pos]!;
    let longest = 0;
    for (let k = dependentStart[i]!; k < dependentStart[i + 1]!; k++) {
      const r = remaining[dependentList[k]!]!;
      if (r > longest) longest = r;
    }
    remaining[i] = weight(i) + longest;
  }
  return remaining;
}

/** Kahn levels as ids, each level in file order. */
export function wavesOf(g: Graph): string[][] {
  const levels: string[][] = [];
  g.ids.forEach((id, i) => {
    const w = g.wave[i]!;
    while (levels.length <= w) levels.push([]);
    levels[w]!.push(id);
  });
  return levels;
}

/**
 * The longest weighted path, source to sink. Ties go to the earlier file, so the
 * answer is stable.
 */
export function criticalPathOf(g: Graph): string[] {
  const { depStart, remaining } = g;
  let cur = -1;
  for (let i = 0; i < g.ids.length; i++) {
    if (depStart[i + 1] === depStart[i] && (cur < 0 || remaining[i]! > remaining[cur]!)) cur = i;
  }
  const path: string[] = [];
  while (cur >= 0) {
    path.push(g.ids[cur]!);
    let next = -1;
    // dependents are in file order: a tie keeps the earlier
    for (const d of dependentsOf(g, cur)) {
      if (next < 0 || remaining[d]! > remaining[next]!) next = d;
    }
    cur = next;
  }
  return path;
}

/** A binary heap of ticket indices, ordered by `before(a, b)` (a comes out first). */
export class IndexHeap {
  private readonly items: number[] = [];
  constructor(private readonly before: (a: number, b: number) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(i: number): void {
    const h = this.items;
    h.push(i);
    let at = h.length - 1;
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (!this.before(h[at]!, h[up]!)) break;
      // a plain swap: the destructuring one allocated on every step
      const t = h[at]!;
      h[at] = h[up]!;
      h[up] = t;
      at = up;
    }
  }

  pop(): number | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || last === undefined) return top;
    h[0] = last;
    let at = 0;
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let best = at;
      if (l < h.length && this.before(h[l]!, h[best]!)) best = l;
      if (r < h.length && this.before(h[r]!, h[best]!)) best = r;
      if (best === at) break;
      const t = h[at]!;
      h[at] = h[best]!;
      h[best] = t;
      at = best;
    }
    return top;
  }

  /** the heap's contents, unordered */
  values(): readonly number[] {
    return this.items;
  }
}
