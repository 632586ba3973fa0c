/** Small helpers for measuring on a shared, noisy machine: medians, spread, child runs. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * CPU ms (user + system) of the children this process has waited for, from
 * /proc/self/stat (cutime + cstime, in clock ticks of 10 ms); undefined off Linux.
 * Read before and after one child, it is that child's CPU with everything it waited
 * for: the number that stays honest when the shared machine is busy and wall time
 * is mostly queueing.
 */
export function childrenCpuMs() {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] is field 3 (state); cutime and cstime are fields 16 and 17
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `1.23 s (1.10–1.40)`-style spread: min and max around the median. */
export function spread(xs, fmt = (x) => x.toFixed(2)) {
  if (xs.length < 2) return fmt(xs[0]);
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
}

export function fmtMs(ms) {
  if (ms >= 120_000) return `${(ms / 60_000).toFixed(0)} min`;
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
}

/**
 * Run `node ARGS…` (or any command) to the end; resolves with wall time, CPU time
 * (see childrenCpuMs), exit code, stdout and stderr. Wall time is measured around the whole process, start to exit.
 */
export function timeProcess(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuMs();
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], ...opts });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const ms = performance.now() - t0;
      const cpu1 = childrenCpuMs();
      const cpuMs = cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0;
      resolve({ ms, cpuMs, code, signal, stdout, stderr });
    });
  });
}

/**
 * Interleave repetitions: every round runs each case once, in order, so slow spells
 * on the shared machine hit all cases alike. Returns results grouped by case name.
 */
export async function interleave(rounds, cases) {
  const out = Object.fromEntries(cases.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      if (c.rounds !== undefined && r >= c.rounds) continue;
      out[c.name].push(await c.run(r));
    }
  }
  return out;
}
