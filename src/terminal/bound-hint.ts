/** What to do about a run left `limited` because its run bound is spent. */
import type { Frontier } from "../core/engine.js";
import { spentWords } from "../report/remainder.js";
import { plural } from "./text.js";

/**
 * One line saying how to go on, or undefined when the run bound is not what holds it.
 * The dispatch count is the run's (it counts across resumes), so going on means a
 * higher --bound; a passed deadline stays passed, so only a new run goes on.
 */
export function boundHint(
  frontier: Frontier,
  dir: string,
  now: number,
  /** the command that continues this run (`frontier run DIR --exec …`) */
  resume: string,
): string | undefined {
  const spent = frontier.spentBound(now);
  if (spent === undefined) return undefined;
  const run = frontier.runRecord();
  const counts = frontier.counts();
  const open = counts.pending + counts.ready + counts.claimed + counts.suspended;
  if (open === 0) return undefined;
  const tickets = `${plural(open, "ticket")} open`;
  switch (spent.kind) {
    case "dispatches":
      return `the run bound of ${plural(spent.limit, "dispatch", "dispatches")} is spent (${run.dispatched} made, ${tickets}): raise --bound to go on, e.g. \`${resume} --bound ${run.dispatched + open}\``;
    case "deadline":
      return `the run's deadline (${spent.deadline}) has passed with ${tickets}: \`${resume} --fresh\` starts a new run`;
    case "usage":
      return `the run's usage bound is spent — ${spentWords(spent)} (${tickets}): raise bound.usage.${spent.key} in ${dir}/frontier.yml to go on, or \`${resume} --fresh\` starts a new run`;
  }
}
