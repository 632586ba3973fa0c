/**
 * Run settings (frontier.yml, overridden by CLI flags or action inputs) → the engine's
 * configuration. One function, used by the CLI, the local runner and the action, so
 * the three never disagree about defaults.
 */
import { boundProblem, parseBound, parseDuration } from "./bound.js";
import { DEFAULTS } from "./constants.js";
import type { EngineConfig } from "./engine.js";
import type { RunBound, SavedState, Settings } from "./model.js";

export interface RunFlags {
  maxParallel?: number;
  /** `--bound N`: at most N dispatches in this run */
  bound?: number;
  retries?: number;
  base?: string;
  /**
   * The bound an outer run hands down (a run started by an attempt of another): at most
   * this many more dispatches than the run has made, by this deadline. The run's own
   * bound is kept where it is tighter.
   */
  within?: RunBound;
}

export type ConfigResult = { kind: "ok"; config: EngineConfig } | { kind: "bad"; message: string };

export function engineConfig(
  settings: Settings,
  saved: SavedState | undefined,
  flags: RunFlags,
  now: number,
): ConfigResult {
  let ticketBound: EngineConfig["ticketBound"];
  if (settings.ticket_bound !== undefined) {
    ticketBound = parseBound(settings.ticket_bound);
  }

  const bound: RunBound = {};
  const configured = settings.bound;
  if (typeof configured === "number") bound.dispatches = configured;
  else if (configured) {
    if (configured.dispatches !== undefined) bound.dispatches = configured.dispatches;
    if (configured.duration !== undefined) {
      // refused where frontier.yml is read (tickets/problems.ts boundProblems); this guards
      // settings that came another way
      const ms = parseDuration(configured.duration);
      if (ms === undefined || boundProblem(configured.duration, true) !== undefined) {
        return {
          kind: "bad",
          message: `frontier.yml: bound.duration "${configured.duration}" is not a duration — write e.g. 45m or 2h`,
        };
      }
      // The deadline is pinned when the run starts; a resumed run keeps its own.
      const startedAt = saved?.run.started_at ? Date.parse(saved.run.started_at) : now;
      bound.deadline = saved?.run.bound?.deadline ?? new Date(startedAt + ms).toISOString();
    }
    if (configured.usage !== undefined) bound.usage = { ...configured.usage };
  }
  if (flags.bound !== undefined) bound.dispatches = flags.bound;

  const config: EngineConfig = {
    run: saved?.run.run ?? settings.run,
    leaseMs: DEFAULTS.leaseMs,
  };
  const maxParallel = flags.maxParallel ?? settings.max_parallel;
  if (maxParallel !== undefined) config.maxParallel = maxParallel;
  const retries = flags.retries ?? settings.retries;
  if (retries !== undefined) config.retries = retries;
  if (ticketBound) config.ticketBound = ticketBound;
  if (bound.dispatches !== undefined || bound.deadline !== undefined || bound.usage !== undefined)
    config.bound = bound;
  if (flags.within) {
    // an inherited dispatch count (or usage) is what this run may still spend, on top of
    // what it (when resumed) had already dispatched (or used)
    const inherited: RunBound = { ...flags.within };
    if (inherited.dispatches !== undefined) inherited.dispatches += saved?.run.dispatched ?? 0;
    if (inherited.usage !== undefined) {
      const used = usageOf(saved);
      inherited.usage = Object.fromEntries(
        Object.entries(inherited.usage).map(([k, v]) => [k, v + (used[k] ?? 0)]),
      );
    }
    const tight = tighter(config.bound ?? saved?.run.bound, inherited);
    if (tight) config.bound = tight;
  }
  const base = flags.base ?? saved?.run.base;
  if (base !== undefined) config.base = base;
  return { kind: "ok", config };
}

/** The tighter of two bounds, field by field. */
function tighter(own: RunBound | undefined, inherited: RunBound): RunBound | undefined {
  const out: RunBound = { ...own };
  if (inherited.dispatches !== undefined) {
    out.dispatches = Math.min(out.dispatches ?? Number.POSITIVE_INFINITY, inherited.dispatches);
  }
  if (inherited.deadline !== undefined) {
    out.deadline =
      out.deadline === undefined || Date.parse(inherited.deadline) < Date.parse(out.deadline)
        ? inherited.deadline
        : out.deadline;
  }
  if (inherited.usage !== undefined) {
    const usage = { ...out.usage };
    for (const [k, v] of Object.entries(inherited.usage)) usage[k] = Math.min(usage[k] ?? v, v);
    out.usage = usage;
  }
  return out.dispatches === undefined && out.deadline === undefined && out.usage === undefined
    ? undefined
    : out;
}

/** The usage a saved run's attempts reported, summed per key. */
function usageOf(saved: SavedState | undefined): Record<string, number> {
  const total: Record<string, number> = {};
  for (const t of Object.values(saved?.tickets ?? {})) {
    for (const a of t.attempts) {
      for (const [k, v] of Object.entries(a.usage ?? {})) {
        if (Number.isFinite(v)) total[k] = (total[k] ?? 0) + v;
      }
    }
  }
  return total;
}
