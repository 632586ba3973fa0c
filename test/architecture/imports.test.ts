// The layers import one way only:
//   core (0) ← tickets, report, workspace (1) ← terminal (2) ← local, github, agent (3)
//   ← cli/, cli.ts, action.ts (4)
// A module may import its own layer's modules or a lower layer's; modules of two different
// layers of the same rank (tickets and report; local, github and agent) do not import each other.
// No import cycle among the modules of src/.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importCycles, importGraph, layerViolations, specifiersIn } from "./imports.js";

const SRC = resolve(import.meta.dirname, "../../src");

describe("the layers import one way only", () => {
  const graph = importGraph();

  it("reads the imports of every module in src/", () => {
    expect(graph.size).toBeGreaterThan(50);
    for (const targets of graph.values()) {
      for (const target of targets) {
        expect(graph.has(target), `import of a module that is not in src/: ${target}`).toBe(true);
      }
    }
  });

  it("no layer imports a layer above it or beside it", () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it("no import cycle among the modules", () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("the action's bundle carries neither the local runner nor the CLI: nothing reachable from action.ts is in local/ or cli/", () => {
    const reached = new Set<string>();
    const stack = ["action.ts"];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      stack.push(...(graph.get(file) ?? []));
    }
    expect(reached.size).toBeGreaterThan(20);
    expect([...reached].filter((f) => /^(local|cli)\//.test(f)).sort()).toEqual([]);
  });
});

describe("core/ is pure", () => {
  const graph = importGraph();
  it("writes to no stream and holds no exit code: a terminal's concerns live in terminal/", () => {
    const core = [...graph.keys()].filter((f) => f.startsWith("core/"));
    expect(core.length).toBeGreaterThan(10);
    const offenders = core.filter((f) =>
      /WritableStream|process\.(stdout|stderr|exit)|\bEXIT\b/.test(
        readFileSync(join(SRC, f), "utf8"),
      ),
    );
    expect(offenders).toEqual([]);
  });
});

describe("the import check itself", () => {
  it("finds static, re-exported, type-only and dynamic imports, not commented ones", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "../b/b.js";',
      "import {\n  c,\n  d,\n} from './c.js';",
      'export { e } from "./e.js";',
      'export * from "./f.js";',
      'import "./g.js";',
      'const h = await import("./h.js");',
      '// import { x } from "./x.js";',
      '/* import { y } from "./y.js"; */',
    ].join("\n");
    expect(specifiersIn(text).sort()).toEqual(
      ["../b/b.js", "./a.js", "./c.js", "./e.js", "./f.js", "./g.js", "./h.js"].sort(),
    );
  });

  it("names the file and its target when a layer imports against the direction", () => {
    const graph = new Map<string, string[]>([
      ["core/a.ts", ["tickets/b.ts"]],
      ["tickets/b.ts", ["core/a.ts"]],
      ["tickets/c.ts", ["report/d.ts"]],
      ["report/d.ts", []],
      ["local/e.ts", ["cli/f.ts", "github/g.ts"]],
      ["cli/f.ts", ["local/e.ts"]],
      ["github/g.ts", ["core/a.ts"]],
    ]);
    expect(layerViolations(graph)).toEqual([
      "src/core/a.ts (core) -> src/tickets/b.ts (tickets)",
      "src/local/e.ts (local) -> src/cli/f.ts (shell)",
      "src/local/e.ts (local) -> src/github/g.ts (github)",
      "src/tickets/c.ts (tickets) -> src/report/d.ts (report)",
    ]);
  });

  it("names an import cycle inside one layer", () => {
    const graph = new Map<string, string[]>([
      ["tickets/a.ts", ["tickets/b.ts"]],
      ["tickets/b.ts", ["tickets/c.ts"]],
      ["tickets/c.ts", ["tickets/a.ts", "core/d.ts"]],
      ["core/d.ts", []],
    ]);
    expect(importCycles(graph)).toEqual([
      "src/tickets/a.ts <-> src/tickets/b.ts <-> src/tickets/c.ts",
    ]);
  });
});
