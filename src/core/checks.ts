/**
 * Graph checks (SPEC §2): pure, over every parsed ticket at once, so a broken
 * directory is reported whole instead of one problem per try.
 */
import { type Problem, problem } from "../tickets/problems.js";

/** What the graph checks need to know of one ticket file, valid or not. */
export interface GraphNode {
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

export interface Caps {
  maxTickets: number;
  maxFileBytes: number;
}

/**
 * Size caps, checked before any file is parsed: more ticket files than the cap, and
 * each file over the byte cap. `dir` names the directory in the too-many problem.
 */
export function checkCaps(
  files: ReadonlyArray<{ file: string; bytes: number }>,
  caps: Caps,
  dir: string,
): Problem[] {
  const problems: Problem[] = [];
  if (files.length > caps.maxTickets) {
    problems.push(
      problem(
        "too-many-tickets",
        dir,
        undefined,
        `${files.length} ticket files, more than the cap of ${caps.maxTickets}`,
        `split the graph into smaller runs, or raise max_tickets in frontier.yml`,
      ),
    );
  }
  for (const f of files) {
    if (f.bytes > caps.maxFileBytes) {
      problems.push(fileTooLarge(f.file, f.bytes, caps.maxFileBytes));
    }
  }
  return problems;
}

export function fileTooLarge(file: string, bytes: number, cap: number): Problem {
  return problem(
    "file-too-large",
    file,
    undefined,
    `file is ${bytes} bytes, more than the cap of ${cap}`,
    `move the bulk into a file the ticket points to, or raise max_file_bytes in frontier.yml`,
  );
}

/**
 * Duplicate ids, unknown and self dependencies, and cycles. Every problem at once.
 * Costs O(N + E) plus the "did you mean" search for unknown names.
 */
export function checkGraph(nodes: readonly GraphNode[]): Problem[] {
  const problems: Problem[] = [];
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
    const where = (n: GraphNode) => (n.idLine === undefined ? n.file : `${n.file}:${n.idLine}`);
    problems.push(
      problem(
        "duplicate-id",
        node.file,
        node.idLine,
        `duplicate id "${node.id}": ${where(nodes[first]!)} and ${where(node)} both use it`,
        node.idLine === undefined
          ? `give one of them another id (add id: to its front matter, or rename ${node.file})`
          : `give one of them another id`,
      ),
    );
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
        problems.push(
          problem(
            "self-dependency",
            node.file,
            dep.line,
            `"${node.id}" depends on itself`,
            `remove ${node.id} from depends_on`,
          ),
        );
      } else if (!uncertain.has(dep.id)) {
        const near = suggestionsLeft-- > 0 ? closest(dep.id, byId.keys()) : undefined;
        problems.push(
          problem(
            "unknown-dependency",
            node.file,
            dep.line,
            `depends_on names "${dep.id}", but no ticket has that id${near === undefined ? "" : ` (did you mean "${near}"?)`}`,
            near === undefined
              ? `create ${dep.id}.md, or remove "${dep.id}" from depends_on`
              : `write depends_on: [${near}] (or create ${dep.id}.md)`,
          ),
        );
      }
    }
  }
  offsets[nodes.length] = targets.length;

  for (const cycle of findCycles(nodes, offsets, targets)) {
    const first = cycle[0]!;
    const ids = cycle.map((e) => e.node.id);
    // a loop of thousands is shown by its ends, so the message stays readable
    const shown =
      ids.length > 100
        ? [...ids.slice(0, 50), `… ${ids.length - 99} more …`, ...ids.slice(-49)]
        : ids;
    const loop = [...shown, first.node.id].join(" → ");
    const edges =
      cycle
        .slice(0, 20)
        .map((e) => `${e.node.file}${e.line === undefined ? "" : `:${e.line}`} depends on ${e.dep}`)
        .join(", ") + (cycle.length > 20 ? `, and ${cycle.length - 20} more` : "");
    problems.push(
      problem(
        "cycle",
        first.node.file,
        first.line,
        `cycle: ${loop} (${edges})`,
        `remove one of these dependencies so the loop is broken`,
      ),
    );
  }
  return problems;
}

interface CycleEdge {
  node: GraphNode;
  /** the dependency taken from `node` to the next ticket in the loop */
  dep: string;
  line?: number;
}

/**
 * One cycle per strongly connected component (Tarjan, iterative so a 100k-long chain
 * cannot overflow the stack), walked as the shortest loop through the component's
 * first ticket in file order: the ids of the loop itself, not what hangs off it.
 */
function findCycles(
  nodes: readonly GraphNode[],
  offsets: Int32Array,
  targets: readonly number[],
): CycleEdge[][] {
  const n = nodes.length;
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
  for (let root = 0; root < n; root++) {
    if (idx[root] !== -1) continue;
    let depth = 0;
    callNode[0] = root;
    callEdge[0] = offsets[root]!;
    idx[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (depth >= 0) {
      const v = callNode[depth]!;
      const e = callEdge[depth]!;
      if (e < offsets[v + 1]!) {
        callEdge[depth] = e + 1;
        const w = targets[e]!;
        if (idx[w] === -1) {
          idx[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          depth++;
          callNode[depth] = w;
          callEdge[depth] = offsets[w]!;
        } else if (onStack[w] === 1 && idx[w]! < low[v]!) {
          low[v] = idx[w]!;
        }
        continue;
      }
      depth--;
      if (depth >= 0) {
        const parent = callNode[depth]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
      if (low[v] === idx[v]) {
        if (stack[stack.length - 1] === v) {
          // a component of one: no loop (self-dependencies are reported apart)
          stack.pop();
          onStack[v] = 0;
          continue;
        }
        const scc: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = sccs.length;
          scc.push(w);
        } while (w !== v);
        sccs.push(scc);
      }
    }
  }

  const cycles: CycleEdge[][] = [];
  for (let c = 0; c < sccs.length; c++) {
    const scc = sccs[c]!;
    let start = scc[0]!;
    for (const v of scc) if (v < start) start = v;
    // breadth-first from start inside the component, until an edge returns to it
    const prev = new Map<number, number>();
    const queue = [start];
    let last = -1;
    for (let q = 0; q < queue.length && last === -1; q++) {
      const v = queue[q]!;
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const w = targets[e]!;
        if (comp[w] !== c) continue;
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
    path.reverse();
    cycles.push(
      path.map((v, k) => {
        const node = nodes[v]!;
        const next = nodes[path[(k + 1) % path.length]!]!;
        const dep = node.dependsOn.find((d) => d.id === next.id);
        return dep?.line === undefined
          ? { node, dep: next.id }
          : { node, dep: next.id, line: dep.line };
      }),
    );
  }
  cycles.sort((a, b) => a[0]!.node.order - b[0]!.node.order);
  return cycles;
}

/** Optimal string alignment distance (edits, with adjacent swaps), stopping early past `max`. */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** The candidate nearest to `name` when it is close enough to be a typo. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const max = name.length <= 4 ? 1 : name.length <= 10 ? 2 : 3;
  let best: string | undefined;
  let bestD = max + 1;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    if (Math.abs(c.length - name.length) > max) continue;
    const d = c.toLowerCase() === lower ? 0 : editDistance(lower, c.toLowerCase(), bestD - 1);
    if (d < bestD) {
      bestD = d;
      best = c;
      if (d === 0) break;
    }
  }
  return best;
}
