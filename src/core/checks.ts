/**
 * Graph checks (SPEC §2): pure, over every parsed ticket at once, so a broken
 * directory is reported whole instead of one problem per try. What is wrong is
 * returned as data; `src/tickets/graph-problems.ts` words it for a person.
 */
import type { TicketSpec } from "./model.js";
import { closest } from "./near.js";
import { unreachableEntry } from "./scope.js";

/** What the graph checks need to know of one ticket file, valid or not. */
export interface CheckNode {
  id: string;
  /** path relative to the ticket directory */
  file: string;
  /** file order, 0-based */
  order: number;
  /** line of the `id:` field; undefined when the id is the file name */
  idLine?: number;
  /**
   * false when the file is broken before its id could be read for sure: the id
   * (its file name) then only keeps dependents from a false "unknown dependency".
   */
  certain: boolean;
  dependsOn: ReadonlyArray<{ id: string; line?: number }>;
}

/** A place in a ticket file: the file, and the line when there is one. */
export interface Place {
  file: string;
  line?: number;
}

/** One step of a loop: `file:line` depends on `dep`. */
export interface CycleStep extends Place {
  dep: string;
}

/** What the graph checks find, as data (the words are the tickets layer's). */
export type GraphProblem =
  | { kind: "too-many-tickets"; dir: string; count: number; cap: number }
  | { kind: "file-too-large"; file: string; bytes: number; cap: number }
  | { kind: "duplicate-id"; id: string; first: Place; again: Place }
  | { kind: "self-dependency"; id: string; at: Place }
  | { kind: "unknown-dependency"; dep: string; at: Place; near?: string }
  /** `ids` in loop order from the loop's first ticket in file order; `steps[k]` leaves `ids[k]` */
  | { kind: "cycle"; ids: string[]; steps: CycleStep[] }
  /** a write_scope entry that can match no repository path */
  | { kind: "unreachable-scope"; at: Place; entry: string; why: "absolute" | "outside" }
  /** an isolated ticket with no write_scope: any change it makes is a breach */
  | { kind: "isolated-without-scope"; id: string; at: Place }
  /** a ticket in the user's tree depending on an isolated one, whose changes it would not see */
  | { kind: "depends-on-isolated"; id: string; dep: string; at: Place };

export type ScopeProblem = Extract<
  GraphProblem,
  { kind: "unreachable-scope" | "isolated-without-scope" | "depends-on-isolated" }
>;

/** What the scope and isolation checks need of one valid ticket. */
export interface ScopeNode extends Pick<TicketSpec, "id" | "file" | "writeScope" | "dependsOn"> {
  isolated: boolean;
}

/**
 * The write_scope and isolation checks (SPEC §4b): entries that can match nothing, an
 * isolated ticket without a scope, and (for a local run) a ticket in the user's tree
 * that depends on an isolated one. Places carry no line: the loader finds the field's.
 */
export function checkScopes(nodes: readonly ScopeNode[]): ScopeProblem[] {
  const problems: ScopeProblem[] = [];
  const isolated = new Set(nodes.filter((n) => n.isolated).map((n) => n.id));
  for (const n of nodes) {
    for (const entry of n.writeScope) {
      const why = unreachableEntry(entry);
      if (why !== undefined) {
        problems.push({ kind: "unreachable-scope", at: { file: n.file }, entry, why });
      }
    }
    if (n.isolated && n.writeScope.length === 0) {
      problems.push({ kind: "isolated-without-scope", id: n.id, at: { file: n.file } });
    }
    const dep = n.isolated ? undefined : n.dependsOn.find((d) => isolated.has(d));
    if (dep !== undefined) {
      problems.push({ kind: "depends-on-isolated", id: n.id, dep, at: { file: n.file } });
    }
  }
  return problems;
}

function place(file: string, line: number | undefined): Place {
  return line === undefined ? { file } : { file, line };
}

/**
 * Duplicate ids, unknown and self dependencies, and cycles. Every problem at once.
 * Costs O(N + E) plus the "did you mean" search for unknown names.
 */
export function checkGraph(nodes: readonly CheckNode[]): GraphProblem[] {
  const problems: GraphProblem[] = [];
  // id -> index of the first certain node with it
  const byId = new Map<string, number>();
  const uncertain = new Set<string>();
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (!node.certain) {
      uncertain.add(node.id);
      continue;
    }
    const first = byId.get(node.id);
    if (first === undefined) {
      byId.set(node.id, i);
      continue;
    }
    const firstNode = nodes[first]!;
    problems.push({
      kind: "duplicate-id",
      id: node.id,
      first: place(firstNode.file, firstNode.idLine),
      again: place(node.file, node.idLine),
    });
  }

  // the edges between known tickets, as one flat adjacency (offsets into targets)
  const offsets = new Int32Array(nodes.length + 1);
  const targets: number[] = [];
  let suggestionsLeft = 200;
  for (let i = 0; i < nodes.length; i++) {
    offsets[i] = targets.length;
    const node = nodes[i]!;
    if (!node.certain) continue;
    // a duplicate's own dependencies are still checked (every problem at once), but it
    // adds no edges: the graph is the first file's
    const duplicate = byId.get(node.id) !== i;
    for (const dep of node.dependsOn) {
      const t = byId.get(dep.id);
      if (t !== undefined && dep.id !== node.id) {
        if (!duplicate) targets.push(t);
      } else if (t !== undefined) {
        problems.push({ kind: "self-dependency", id: node.id, at: place(node.file, dep.line) });
      } else if (!uncertain.has(dep.id)) {
        const near = suggestionsLeft-- > 0 ? closest(dep.id, byId.keys()) : undefined;
        const at = place(node.file, dep.line);
        problems.push({ kind: "unknown-dependency", dep: dep.id, at, ...(near && { near }) });
      }
    }
  }
  offsets[nodes.length] = targets.length;

  for (const cycle of findCycles(nodes, offsets, targets)) problems.push(cycle);
  return problems;
}

/**
 * One cycle per strongly connected component, walked as the shortest loop through the
 * component's first ticket in file order: the ids of the loop itself, not what hangs off it.
 */
function findCycles(
  nodes: readonly CheckNode[],
  offsets: Int32Array,
  targets: readonly number[],
): Array<Extract<GraphProblem, { kind: "cycle" }>> {
  const { sccs, comp } = components(offsets, targets);
  const loops = sccs.map((scc, c) => shortestLoop(scc, (v) => comp[v] === c, offsets, targets));
  loops.sort((a, b) => nodes[a[0]!]!.order - nodes[b[0]!]!.order);
  return loops.map((loop) => {
    const ids = loop.map((v) => nodes[v]!.id);
    const steps = loop.map((v, k) => {
      const node = nodes[v]!;
      const dep = ids[(k + 1) % ids.length]!;
      return { ...place(node.file, node.dependsOn.find((d) => d.id === dep)?.line), dep };
    });
    return { kind: "cycle", ids, steps };
  });
}

/**
 * Tarjan's strongly connected components of more than one ticket (a self-dependency is
 * reported apart), iterative so a 100k-long chain cannot overflow the stack; `comp[v]` is
 * the index of v's component, -1 when it is in none.
 */
function components(offsets: Int32Array, targets: readonly number[]) {
  const n = offsets.length - 1;
  const idx = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const comp = new Int32Array(n).fill(-1);
  const sccs: number[][] = [];
  // explicit call stack: node and the position in its edge list
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  let counter = 0;
  let depth = -1;
  const enter = (v: number) => {
    idx[v] = low[v] = counter++;
    stack.push(v);
    onStack[v] = 1;
    callNode[++depth] = v;
    callEdge[depth] = offsets[v]!;
  };
  for (let root = 0; root < n; root++) {
    if (idx[root] !== -1) continue;
    enter(root);
    while (depth >= 0) {
      const v = callNode[depth]!;
      const e = callEdge[depth]!;
      if (e < offsets[v + 1]!) {
        callEdge[depth] = e + 1;
        const w = targets[e]!;
        if (idx[w] === -1) enter(w);
        else if (onStack[w] === 1 && idx[w]! < low[v]!) low[v] = idx[w]!;
        continue;
      }
      depth--;
      if (depth >= 0) {
        const parent = callNode[depth]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
      if (low[v] === idx[v]) {
        const scc: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          scc.push(w);
        } while (w !== v);
        // a component of one is no loop (self-dependencies are reported apart)
        if (scc.length === 1) continue;
        for (const u of scc) comp[u] = sccs.length;
        sccs.push(scc);
      }
    }
  }
  return { sccs, comp };
}

/** The shortest loop from the component's first ticket back to it, breadth-first inside it. */
function shortestLoop(
  scc: readonly number[],
  inside: (v: number) => boolean,
  offsets: Int32Array,
  targets: readonly number[],
): number[] {
  const start = scc.reduce((a, b) => Math.min(a, b));
  const prev = new Map<number, number>();
  const queue = [start];
  let last = -1;
  for (let q = 0; q < queue.length && last === -1; q++) {
    const v = queue[q]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const w = targets[e]!;
      if (!inside(w)) continue;
      if (w === start) {
        last = v;
        break;
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [last];
  while (path[path.length - 1] !== start) path.push(prev.get(path[path.length - 1]!)!);
  return path.reverse();
}
