/**
 * Where loading's time goes: CPU milliseconds of each stage over every ticket of DIR,
 * in one process (module imports first, cold). For the notes under the table, not a
 * goal. Uses the tickets module's internals, so it may need updating when they move.
 *   node bench/load-stages.mjs DIR   → one JSON line
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const out = {};
const stage = async (name, fn) => {
  const t0 = cpu();
  const r = await fn();
  out[name] = Math.round(cpu() - t0);
  return r;
};
const dir = process.argv[2];
const mods = await stage("import", async () => ({
  fast: await import("../build/src/tickets/fast.js"),
  front: await import("../build/src/tickets/frontmatter.js"),
  parse: await import("../build/src/tickets/parse.js"),
  checks: await import("../build/src/core/checks.js"),
}));
const names = readdirSync(dir)
  .filter((n) => n.endsWith(".md"))
  .sort();
const texts = await stage("read", () => names.map((n) => readFileSync(join(dir, n), "utf8")));
const splits = await stage("split", () => texts.map((t) => mods.front.splitFrontMatter(t)));
await stage("readMatter (split + gray-matter cross-check)", () =>
  texts.map((t) => mods.front.readMatter(t)),
);
const slow = await stage("fast path, all tickets", () =>
  splits.map((s, k) => (mods.fast.fastFields(s.yaml) === undefined ? k : -1)).filter((k) => k >= 0),
);
out.slowTickets = slow.length;
await stage("yaml full parse, tickets the fast path refused", () =>
  slow.map((k) => mods.parse.readYamlFields(splits[k].yaml, names[k])),
);
const parsed = await stage("parseTicket, all (split, fields, zod checks)", () =>
  texts.map((t, k) => mods.parse.parseTicket(t, names[k], k, {})),
);
await stage("graph checks", () => mods.checks.checkGraph(parsed.map((p) => p.node)));
process.stdout.write(`${JSON.stringify(out)}\n`);
