/**
 * The dependency graph as index arrays, computed once: reverse edges (dependents),
 * a topological order, Kahn waves and each ticket's remaining critical path. The
 * engine keeps these so that an event only ever walks a ticket's own neighbours.
 *
 * The graph is assumed checked (src/core/checks.ts): known dependencies, no cycles.
 * Being handed anything else is a programming error and throws.
 */

export interface GraphNode {
  id: string;
  dependsOn: readonly string[];
}

export interface Graph {
  readonly ids: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  /** deduplicated dependencies, in the author's order */
  readonly deps: readonly (readonly number[])[];
  /** reverse edges: who depends on each ticket, in file order */
  readonly dependents: readonly (readonly number[])[];
  /** a topological order (Kahn, file order among tickets freed together) */
  readonly topo: readonly number[];
  /** position of each ticket in `topo` */
  readonly topoPos: readonly number[];
  /** 0-based Kahn level: 1 + the highest level of its dependencies */
  readonly wave: readonly number[];
  /** longest weighted path from the ticket to a sink, including its own weight */
  readonly remaining: readonly number[];
}

/** Build the graph. `nodes` are in file order; `weight(i)` is ticket i's expected duration. */
export function buildGraph(nodes: readonly GraphNode[], weight: (i: number) => number): Graph {
  const n = nodes.length;
  const ids = nodes.map((t) => t.id);
  const index = new Map<string, number>();
  ids.forEach((id, i) => {
    if (index.has(id))
      throw new Error(`engine given duplicate ticket id "${id}"; run the checks first`);
    index.set(id, i);
  });
  const deps: number[][] = [];
  const dependents: number[][] = ids.map(() => []);
  // seen[j] === i + 1: j is already a dependency of i (a Set per ticket costs more)
  const seen = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const mine: number[] = [];
    for (const dep of nodes[i]!.dependsOn) {
      const j = index.get(dep);
      if (j === undefined) {
        throw new Error(
          `engine given ticket "${ids[i]}" with unknown dependency "${dep}"; run the checks first`,
        );
      }
      if (j === i)
        throw new Error(
          `engine given ticket "${ids[i]}" depending on itself; run the checks first`,
        );
      if (seen[j] === i + 1) continue;
      seen[j] = i + 1;
      mine.push(j);
      dependents[j]!.push(i);
    }
    deps.push(mine);
  }

  const indegree = deps.map((d) => d.length);
  const wave = new Array<number>(n).fill(0);
  const topo: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) topo.push(i);
  for (let head = 0; head < topo.length; head++) {
    const i = topo[head]!;
    for (const d of dependents[i]!) {
      if (wave[d]! < wave[i]! + 1) wave[d] = wave[i]! + 1;
      indegree[d]!--;
      if (indegree[d] === 0) topo.push(d);
    }
  }
  if (topo.length !== n) {
    const caught = ids.filter((_, i) => indegree[i]! > 0);
    throw new Error(`engine given a cyclic graph (${caught.join(", ")}); run the checks first`);
  }
  const topoPos = new Array<number>(n);
  topo.forEach((i, pos) => {
    topoPos[i] = pos;
  });

  const remaining = new Array<number>(n).fill(0);
  for (let pos = n - 1; pos >= 0; pos--) {
    const i = topo[pos]!;
    let longest = 0;
    for (const d of dependents[i]!) if (remaining[d]! > longest) longest = remaining[d]!;
    remaining[i] = weight(i) + longest;
  }
  return { ids, index, deps, dependents, topo, topoPos, wave, remaining };
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
  let cur = -1;
  for (let i = 0; i < g.ids.length; i++) {
    if (g.deps[i]!.length === 0 && (cur < 0 || g.remaining[i]! > g.remaining[cur]!)) cur = i;
  }
  const path: string[] = [];
  while (cur >= 0) {
    path.push(g.ids[cur]!);
    let next = -1;
    for (const d of g.dependents[cur]!) {
      if (
        next < 0 ||
        g.remaining[d]! > g.remaining[next]! ||
        (g.remaining[d] === g.remaining[next] && d < next)
      ) {
        next = d;
      }
    }
    cur = next;
  }
  return path;
}

/** Every ticket that depends on `from`, directly or not (BFS over reverse edges). */
export function dependentsClosure(g: Graph, from: number): number[] {
  const seen = new Set<number>([from]);
  const out: number[] = [];
  for (let head = -1; head < out.length; head++) {
    const at = head < 0 ? from : out[head]!;
    for (const d of g.dependents[at]!) {
      if (!seen.has(d)) {
        seen.add(d);
        out.push(d);
      }
    }
  }
  return out;
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
