/**
 * Drive an engine (the real Frontier or the naive baseline: same interface) to the end
 * of a graph the way the local runner does: claim what is ready, and on every settle
 * claim again and drain the changes the shell would write. Outcomes are instant.
 * An event is one settle together with the claimReady and drainChanges that follow it.
 */
import { readFileSync } from "node:fs";
import { outcomeOf as defaultOutcome } from "./dag.mjs";

/**
 * CPU ms of the main thread alone (Linux: /proc/self/task/PID/stat, 10 ms ticks):
 * without the GC's helper threads, which on a busy 2-core machine add noise, not work.
 */
function mainThreadCpuMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export function drive(Engine, specs, { maxParallel, outcomeOf = defaultOutcome } = {}) {
  let now = Date.UTC(2026, 0, 1);
  const token = (ticket, attempt) => `${ticket}#${attempt}`;
  const config = { run: "bench" };
  if (maxParallel !== undefined) config.maxParallel = maxParallel;

  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs();
  const t0 = performance.now();
  const frontier = Engine.create(specs, config, undefined, now);
  const createMs = performance.now() - t0;
  const inflight = frontier.claimReady(now, "bench", token);
  frontier.drainChanges();
  let events = 0;
  for (let head = 0; head < inflight.length; head++) {
    const claim = inflight[head];
    now += 1;
    const result = frontier.settle(
      {
        ticket: claim.ticket,
        attempt: claim.attempt,
        claim: claim.claim,
        outcome: outcomeOf(claim.ticket),
      },
      now,
    );
    if (result.kind !== "ok")
      throw new Error(`settle ${claim.ticket}: ${result.kind} ${JSON.stringify(result.why)}`);
    for (const next of frontier.claimReady(now, "bench", token)) inflight.push(next);
    frontier.drainChanges();
    events++;
  }
  const state = frontier.runState(now);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // CPU time of the process (all threads, GC helpers included): on a busy shared
  // machine it shows the work done when wall time shows the queueing
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const mainCpuMs = mainThreadCpuMs() - main0;
  const all = frontier.counts();
  const counts = {};
  for (const k of Object.keys(all).sort()) if (all[k]) counts[k] = all[k];
  return { ms, cpuMs, mainCpuMs, createMs, events, state, counts };
}
