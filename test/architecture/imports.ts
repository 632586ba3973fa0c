/**
 * The import graph of src/ and the layer rules, for test/architecture/imports.test.ts:
 *   core (0) ← tickets, report, workspace (1) ← terminal (2) ← local, github, agent (3)
 *   ← cli/, cli.ts, action.ts (4)
 * terminal/ is what a person at a terminal is told: streams, exit codes, colour, the
 * wording of problems and hints — shared by the CLI and the local runner, never core's.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const src = join(root, "src");

/** The layer a module (path relative to src/, posix) belongs to. */
export function layerOf(file: string): { name: string; rank: number } {
  if (file === "cli.ts" || file === "action.ts" || file.startsWith("cli/")) {
    return { name: "shell", rank: 4 };
  }
  const top = file.split("/")[0];
  switch (top) {
    case "core":
      return { name: "core", rank: 0 };
    case "tickets":
    case "report":
    case "workspace":
      return { name: top, rank: 1 };
    case "terminal":
      return { name: top, rank: 2 };
    case "local":
    case "github":
    // the built-in agent: both shells run it (the CLI and the action's bundle), so it
    // imports neither runner
    case "agent":
      return { name: top, rank: 3 };
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

/**
 * The modules caught in import cycles, one line per tangle (a strongly connected
 * component, Tarjan): `a <-> b <-> c` — each reaches every other through imports.
 */
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
  return components.map((c) => c.map((f) => `src/${f}`).join(" <-> ")).sort();
}
