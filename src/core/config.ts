/**
 * Run settings (frontier.yml, overridden by CLI flags or action inputs) → the engine's
 * configuration. One function, used by the CLI, the local runner and the action, so
 * the three never disagree about defaults.
 */
import { parseBound, parseDuration } from "./bound.js";
import type { EngineConfig } from "./engine.js";
import { setDefined, usageTotal } from "./engine-types.js";
import type { RunBound, SavedState, Settings } from "./model.js";

export interface RunFlags {
  maxParallel?: number;
  /** `--bound N`: at most N dispatches in this run */
  bound?: number;
  base?: string;
  /**
   * The bound an outer run hands down (a run started by an attempt of another): at most
   * this many more dispatches than the run has made, by this deadline. The run's own
   * bound is kept where it is tighter.
   */
  within?: RunBound;
}

export function engineConfig(
  settings: Settings,
  saved: SavedState | undefined,
  flags: RunFlags,
  now: number,
): EngineConfig {
  const bound: RunBound = {};
  const configured = settings.bound;
  if (typeof configured === "number") bound.dispatches = configured;
  else if (configured) {
    if (configured.dispatches !== undefined) bound.dispatches = configured.dispatches;
    if (configured.duration !== undefined) {
      // a duration: every caller's settings come from tickets/settings.ts, which refuses
      // any other (tickets/problems.ts boundProblems)
      const ms = parseDuration(configured.duration)!;
      // The deadline is pinned when the run starts; a resumed run keeps its own.
      const startedAt = saved?.run.started_at ? Date.parse(saved.run.started_at) : now;
      bound.deadline = saved?.run.bound?.deadline ?? new Date(startedAt + ms).toISOString();
    }
    if (configured.usage !== undefined) bound.usage = { ...configured.usage };
  }
  if (flags.bound !== undefined) bound.dispatches = flags.bound;

  const config: EngineConfig = { run: saved?.run.run ?? settings.run };
  setDefined(config, "maxParallel", flags.maxParallel ?? settings.max_parallel);
  setDefined(config, "retries", settings.retries);
  if (settings.ticket_bound !== undefined) config.ticketBound = parseBound(settings.ticket_bound);
  if (bounded(bound)) config.bound = bound;
  if (flags.within) {
    // an inherited dispatch count (or usage) is what this run may still spend, on top of
    // what it (when resumed) had already dispatched (or used)
    const inherited: RunBound = { ...flags.within };
    if (inherited.dispatches !== undefined) inherited.dispatches += saved?.run.dispatched ?? 0;
    if (inherited.usage !== undefined) {
      const used = usageTotal(Object.values(saved?.tickets ?? {}));
      inherited.usage = Object.fromEntries(
        Object.entries(inherited.usage).map(([k, v]) => [k, v + (used[k] ?? 0)]),
      );
    }
    setDefined(config, "bound", tighter(config.bound ?? saved?.run.bound, inherited));
  }
  setDefined(config, "base", flags.base ?? saved?.run.base);
  return config;
}

const bounded = (b: RunBound): boolean =>
  b.dispatches !== undefined || b.deadline !== undefined || b.usage !== undefined;

/** The tighter of two bounds, field by field. */
function tighter(own: RunBound | undefined, inherited: RunBound): RunBound | undefined {
  const out: RunBound = { ...own };
  const { dispatches, deadline, usage } = inherited;
  if (dispatches !== undefined) out.dispatches = Math.min(out.dispatches ?? dispatches, dispatches);
  if (deadline !== undefined) {
    if (out.deadline === undefined || Date.parse(deadline) < Date.parse(out.deadline)) {
      out.deadline = deadline;
    }
  }
  if (usage !== undefined) {
    out.usage = { ...out.usage };
    for (const [k, v] of Object.entries(usage)) out.usage[k] = Math.min(out.usage[k] ?? v, v);
  }
  return bounded(out) ? out : undefined;
}
