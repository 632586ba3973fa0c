/** What to do about a run left `limited` because its run bound is spent. */
import type { Frontier } from "../core/engine.js";

/**
 * One line saying how to go on, or undefined when the run bound is not what holds it.
 * The dispatch count is the run's (it counts across resumes), so going on means a
 * higher --bound; a passed deadline stays passed, so only a new run goes on.
 */
export function boundHint(frontier: Frontier, dir: string, now: number): string | undefined {
  if (!frontier.boundSpentAt(now)) return undefined;
  const run = frontier.runRecord();
  const counts = frontier.counts();
  const open = counts.pending + counts.ready + counts.claimed + counts.suspended;
  if (open === 0) return undefined;
  const limit = run.bound?.dispatches;
  if (limit !== undefined && run.dispatched >= limit) {
    return `the run bound of ${limit} dispatch${limit === 1 ? "" : "es"} is spent (${run.dispatched} made, ${open} ticket${open === 1 ? "" : "s"} open): raise --bound to go on, e.g. \`frontier run ${dir} --bound ${run.dispatched + open}\``;
  }
  return `the run's deadline (${run.bound?.deadline}) has passed with ${open} ticket${open === 1 ? "" : "s"} open: \`frontier run ${dir} --fresh\` starts a new run`;
}
