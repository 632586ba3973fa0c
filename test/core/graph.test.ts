/** The graph the engine keeps: reverse edges, topological order, waves, critical path, heap. */
import { describe, expect, it } from "vitest";
import {
  buildGraph,
  criticalPathOf,
  dependentsOf,
  type Graph,
  IndexHeap,
  wavesOf,
} from "../../src/core/graph.js";

/** Ticket i's dependencies, read from the graph's flat arrays. */
const depsOf = (g: Graph, i: number) =>
  Array.from(g.depList.subarray(g.depStart[i]!, g.depStart[i + 1]!));
const node = (id: string, ...dependsOn: string[]) => ({ id, dependsOn });
const unit = () => 1;

describe("reverse edges and a topological order", () => {
  it("lists each ticket's dependents in file order, deduplicating repeated deps", () => {
    const g = buildGraph([node("a"), node("b", "a", "a"), node("c", "a", "b")], unit);
    expect([0, 1, 2].map((i) => depsOf(g, i))).toEqual([[], [0], [0, 1]]);
    expect([0, 1, 2].map((i) => Array.from(dependentsOf(g, i)))).toEqual([[1, 2], [2], []]);
  });

  it("puts every ticket after its dependencies", () => {
    const g = buildGraph([node("c", "b"), node("b", "a"), node("a"), node("d")], unit);
    for (let i = 0; i < g.ids.length; i++) {
      for (const d of depsOf(g, i)) expect(g.topoPos[d]!).toBeLessThan(g.topoPos[i]!);
    }
  });

  it("refuses a graph the checks should have refused", () => {
    expect(() => buildGraph([node("a", "b"), node("b", "a")], unit)).toThrow(/cycle \(a, b\)/);
    expect(() => buildGraph([node("a", "zz")], unit)).toThrow(/unknown dependency "zz"/);
    expect(() => buildGraph([node("a"), node("a")], unit)).toThrow(/duplicate id "a"/);
    expect(() => buildGraph([node("a", "a")], unit)).toThrow(/cycle \(a\)/);
  });
});

describe("waves are Kahn levels", () => {
  it("places a ticket one wave after its latest dependency", () => {
    const g = buildGraph(
      [node("a"), node("b", "a"), node("c"), node("d", "b", "c"), node("e", "a")],
      unit,
    );
    expect(wavesOf(g)).toEqual([["a", "c"], ["b", "e"], ["d"]]);
  });
});

describe("the remaining critical path and the critical path", () => {
  it("remaining = own weight + the longest remaining of its dependents", () => {
    const w = [1, 5, 2, 1];
    const g = buildGraph(
      [node("a"), node("b", "a"), node("c", "a"), node("d", "b", "c")],
      (i) => w[i]!,
    );
    expect(g.remaining).toEqual([7, 6, 3, 1]);
    expect(criticalPathOf(g)).toEqual(["a", "b", "d"]);
  });

  it("breaks ties by file order", () => {
    const g = buildGraph([node("x"), node("y"), node("x1", "x"), node("y1", "y")], unit);
    expect(criticalPathOf(g)).toEqual(["x", "x1"]);
  });

  it("is computed in one pass for a long chain", () => {
    const n = 20_000;
    const nodes = Array.from({ length: n }, (_, i) =>
      i === 0 ? node("t0") : node(`t${i}`, `t${i - 1}`),
    );
    const g = buildGraph(nodes, unit);
    expect(g.remaining[0]).toBe(n);
    expect(criticalPathOf(g)).toHaveLength(n);
    expect(wavesOf(g)).toHaveLength(n);
  });
});

describe("the dispatch-order heap", () => {
  it("pops in the order given, whatever the push order", () => {
    const keys = [5, 3, 9, 1, 7, 3, 8, 0, 2];
    const h = new IndexHeap((a, b) => keys[a]! > keys[b]! || (keys[a] === keys[b] && a < b));
    for (const i of [4, 0, 8, 2, 6, 1, 3, 7, 5]) h.push(i);
    const out: number[] = [];
    while (h.size > 0) out.push(h.pop()!);
    expect(out.map((i) => keys[i])).toEqual([9, 8, 7, 5, 3, 3, 2, 1, 0]);
    expect(out.slice(4, 6)).toEqual([1, 5]);
    expect(h.pop()).toBeUndefined();
  });
});
