// The layers import one way only:
//   core (0) ← tickets, report (1) ← local, github (2) ← cli/, cli.ts, action.ts (3)
// A module may import its own layer's modules or a lower layer's; modules of two different
// layers of the same rank (tickets and report; local and github) do not import each other.
// No import cycle among the modules of src/.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const src = join(root, "src");

/** The layer a module (path relative to src/, posix) belongs to. */
export function layerOf(file: string): { name: string; rank: number } {
  if (file === "cli.ts" || file === "action.ts" || file.startsWith("cli/")) {
    return { name: "shell", rank: 3 };
  }
  const top = file.split("/")[0];
  switch (top) {
    case "core":
      return { name: "core", rank: 0 };
    case "tickets":
    case "report":
      return { name: top, rank: 1 };
    case "local":
    case "github":
      return { name: top, rank: 2 };
    default:
      throw new Error(
        `src/${file}: in no layer; add its folder to test/architecture/imports.test.ts`,
      );
  }
}

/** Every relative module specifier in a file: static import/export … from, bare import "…", dynamic import("…"). */
export function specifiersIn(text: string): string[] {
  // drop comments so an import written in a comment does not count
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["'`]([^"'`]+)["'`]\s*[,)]/g,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push(match[1]!);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** file (relative to src/) → the src/ modules it imports (relative to src/). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const path of sourceFiles(src)) {
    const file = relative(src, path).split("\\").join("/");
    const targets: string[] = [];
    for (const spec of specifiersIn(readFileSync(path, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, ".ts");
      targets.push(target);
    }
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

export function layerViolations(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    for (const target of targets) {
      if (target.startsWith("..")) {
        bad.push(`src/${file} -> ${target} (outside src/)`);
        continue;
      }
      const to = layerOf(target);
      if (to.name === from.name) continue;
      if (to.rank >= from.rank) {
        bad.push(`src/${file} (${from.name}) -> src/${target} (${to.name})`);
      }
    }
  }
  return bad.sort();
}

/** Each import cycle once, as a → b → … → a (Tarjan's strongly connected components). */
export function importCycles(graph: Map<string, string[]>): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((c) => `${[...c, c[0]].map((f) => `src/${f}`).join(" -> ")}`).sort();
}

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
      "src/tickets/a.ts -> src/tickets/b.ts -> src/tickets/c.ts -> src/tickets/a.ts",
    ]);
  });
});
