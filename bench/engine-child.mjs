/**
 * One engine measurement in a fresh process, so its peak memory is its own:
 *   node bench/engine-child.mjs frontier|naive|input SIZE [MAX_PARALLEL]
 * `input` only builds the specs: the memory every run pays before any engine exists.
 * Prints one JSON line.
 */
import { layeredDag } from "./lib/dag.mjs";
import { drive } from "./lib/drive.mjs";

const [impl, sizeArg, capArg] = process.argv.slice(2);
const size = Number(sizeArg);
const maxParallel = capArg ? Number(capArg) : undefined;

async function engineOf(name) {
  if (name === "naive") return (await import("./naive.mjs")).NaiveFrontier;
  // BENCH_ENGINE: another build of the engine, to A/B a proposed fix in the same run
  const mod = await import(process.env.BENCH_ENGINE ?? "../build/src/core/engine.js");
  if (typeof mod.Frontier?.create !== "function")
    throw new Error("build/src/core/engine.js has no Frontier yet");
  return mod.Frontier;
}

const specs = layeredDag(size);
const out = { impl, size };
if (impl !== "input") {
  const Engine = await engineOf(impl);
  Object.assign(out, drive(Engine, specs, { maxParallel }));
}
out.edges = specs.reduce((n, s) => n + s.dependsOn.length, 0);
out.maxRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify(out)}\n`);
