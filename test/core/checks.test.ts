import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type CheckNode, checkGraph as checkGraphData } from "../../src/core/checks.js";
import { closest, editDistance } from "../../src/core/near.js";
import { graphProblem } from "../../src/tickets/graph-problems.js";
import { formatProblem } from "../../src/tickets/problems.js";
import { runs } from "../support/runs.js";

/** `a: b c` lines → nodes (file a.md, one dependency per line starting at line 2). */
function graph(...defs: string[]): CheckNode[] {
  return defs.map((def, order) => {
    const [id, deps = ""] = def.split(":").map((s) => s.trim()) as [string, string?];
    return {
      id,
      file: `${id}.md`,
      order,
      idLine: 1,
      certain: true,
      dependsOn: deps
        .split(/\s+/)
        .filter(Boolean)
        .map((d, i) => ({ id: d, line: i + 2 })),
    };
  });
}

// the checks find problems as data; the tickets layer words them (the words are asserted here)
const checkGraph = (nodes: readonly CheckNode[]) => checkGraphData(nodes).map(graphProblem);
const text = (nodes: CheckNode[]) => checkGraph(nodes).map((p) => formatProblem(p));

describe("a duplicate id names both files", () => {
  test("two files, one id", () => {
    const nodes = graph("a", "b");
    nodes[1] = { ...nodes[1]!, id: "a", file: "copy.md", idLine: 3 };
    const ps = checkGraph(nodes);
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({ kind: "duplicate-id", file: "copy.md", line: 3 });
    expect(ps[0]!.message).toBe('duplicate id "a": a.md:1 and copy.md:3 both use it');
  });
  test("without id lines, the fix says how to change it", () => {
    const nodes: CheckNode[] = [
      { id: "x", file: "x.md", order: 0, certain: true, dependsOn: [] },
      { id: "x", file: "y.md", order: 1, certain: true, dependsOn: [] },
    ];
    expect(checkGraph(nodes)[0]!.fix).toMatch(/add id: .* or rename y\.md/);
  });
});

describe("an unknown dependency is named, with a 'did you mean' when close", () => {
  test("close to an existing id", () => {
    expect(text(graph("research", "plan: reserch"))).toEqual([
      'plan.md:2: depends_on names "reserch", but no ticket has that id (did you mean "research"?) — write depends_on: [research] (or create reserch.md)',
    ]);
  });
  test("nothing close", () => {
    const ps = checkGraph(graph("a", "plan: zzzzzz"));
    expect(ps[0]).toMatchObject({ kind: "unknown-dependency", file: "plan.md", line: 2 });
    expect(ps[0]!.message).not.toMatch(/did you mean/);
  });
  test("a dependency on a ticket that exists but is broken is not called unknown", () => {
    const nodes = graph("plan: broken");
    nodes.push({ id: "broken", file: "broken.md", order: 1, certain: false, dependsOn: [] });
    expect(checkGraph(nodes)).toEqual([]);
  });
});

describe("self-dependency", () => {
  test("a ticket that depends on itself", () => {
    const ps = checkGraph(graph("a: b a", "b"));
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({ kind: "self-dependency", file: "a.md", line: 3 });
  });
});

describe("a cycle names the ids of the loop itself, in loop order", () => {
  test("a → b → c → a, not the tickets downstream of it", () => {
    const ps = checkGraph(graph("a: b", "b: c", "c: a", "d: a", "e: d"));
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatchObject({ kind: "cycle", file: "a.md", line: 2 });
    expect(ps[0]!.message).toBe(
      "cycle: a → b → c → a (a.md:2 depends on b, b.md:2 depends on c, c.md:2 depends on a)",
    );
  });
  test("two separate loops are two problems", () => {
    const ps = checkGraph(graph("a: b", "b: a", "c: d", "d: c"));
    expect(ps.map((p) => p.message.split(" (")[0])).toEqual([
      "cycle: a → b → a",
      "cycle: c → d → c",
    ]);
  });
  test("the shortest loop through the first ticket of a tangle", () => {
    const ps = checkGraph(graph("a: b c", "b: c", "c: a"));
    expect(ps).toHaveLength(1);
    expect(ps[0]!.message.split(" (")[0]).toBe("cycle: a → c → a");
  });
  test("a 100k-long chain closing into a loop does not overflow the stack", () => {
    const n = 100_000;
    const nodes: CheckNode[] = Array.from({ length: n }, (_, i) => ({
      id: `t${i}`,
      file: `t${i}.md`,
      order: i,
      certain: true,
      dependsOn: [{ id: `t${(i + 1) % n}` }],
    }));
    const ps = checkGraph(nodes);
    expect(ps).toHaveLength(1);
    expect(ps[0]!.message.startsWith("cycle: t0 → t1 → t2")).toBe(true);
    expect(ps[0]!.message).toContain("… 99901 more … → t99951");
    expect(ps[0]!.message).toMatch(/t99999 → t0 \(t0\.md depends on t1, .* and 99,980 more\)$/);
  });
  test("every reported cycle is a real loop, and an acyclic graph reports none (property)", () => {
    const arb = fc.integer({ min: 1, max: 12 }).chain((n) =>
      fc.array(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), {
        minLength: n,
        maxLength: n,
      }),
    );
    fc.assert(
      fc.property(arb, (adj) => {
        const nodes: CheckNode[] = adj.map((deps, i) => ({
          id: `n${i}`,
          file: `n${i}.md`,
          order: i,
          certain: true,
          dependsOn: [...new Set(deps)].filter((d) => d !== i).map((d) => ({ id: `n${d}` })),
        }));
        const cycles = checkGraph(nodes).filter((p) => p.kind === "cycle");
        for (const c of cycles) {
          const ids = c.message.slice("cycle: ".length).split(" (")[0]!.split(" → ");
          expect(ids[0]).toBe(ids[ids.length - 1]);
          expect(new Set(ids.slice(0, -1)).size).toBe(ids.length - 1);
          for (let k = 0; k + 1 < ids.length; k++) {
            const from = nodes.find((x) => x.id === ids[k])!;
            expect(from.dependsOn.some((d) => d.id === ids[k + 1])).toBe(true);
          }
        }
        // acyclic iff a topological order exists
        const indeg = nodes.map(() => 0);
        for (const node of nodes) for (const d of node.dependsOn) indeg[Number(d.id.slice(1))]!++;
        const queue = indeg.flatMap((v, i) => (v === 0 ? [i] : []));
        let seen = 0;
        while (queue.length) {
          const v = queue.pop()!;
          seen++;
          for (const d of nodes[v]!.dependsOn) {
            const w = Number(d.id.slice(1));
            if (--indeg[w]! === 0) queue.push(w);
          }
        }
        expect(cycles.length === 0).toBe(seen === nodes.length);
        return true;
      }),
      { numRuns: runs(500) },
    );
  });
});

describe("every problem is reported at once", () => {
  test("duplicate, unknown, self and cycle together", () => {
    const nodes = graph("a: b", "b: a", "c: c", "d: nope");
    nodes.push({ ...nodes[3]!, file: "d2.md", dependsOn: [] });
    expect(
      checkGraph(nodes)
        .map((p) => p.kind)
        .sort(),
    ).toEqual(["cycle", "duplicate-id", "self-dependency", "unknown-dependency"]);
  });
});

describe("size caps", () => {
  test("more tickets than the cap", () => {
    const p = graphProblem({ kind: "too-many-tickets", dir: "tickets", count: 4, cap: 3 });
    expect(formatProblem(p)).toBe(
      "tickets: 4 ticket files, more than the cap of 3 — split the graph into smaller runs, or raise max_tickets in frontier.yml",
    );
  });
  test("a file larger than the cap", () => {
    const p = graphProblem({ kind: "file-too-large", file: "big.md", bytes: 11, cap: 10 });
    expect(p).toMatchObject({ kind: "file-too-large", file: "big.md" });
    expect(p.message).toBe("file is 11 bytes, more than the cap of 10");
  });
});

describe("did-you-mean distance", () => {
  test("edits and swaps count one each", () => {
    expect(editDistance("research", "reserch")).toBe(1);
    expect(editDistance("ab", "ba")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });
  test("short names need to be very close", () => {
    expect(closest("ab", ["xy"])).toBeUndefined();
    expect(closest("abc", ["abd", "xyz"])).toBe("abd");
  });
});

describe("the checks return problems as data, not words", () => {
  test("a cycle is its ids and steps; an unknown dependency its name and near match", () => {
    expect(checkGraphData(graph("a: b", "b: a", "c: reserch", "research"))).toEqual([
      {
        kind: "unknown-dependency",
        dep: "reserch",
        at: { file: "c.md", line: 2 },
        near: "research",
      },
      {
        kind: "cycle",
        ids: ["a", "b"],
        steps: [
          { file: "a.md", line: 2, dep: "b" },
          { file: "b.md", line: 2, dep: "a" },
        ],
      },
    ]);
  });
});
