/**
 * The words that name a fresh run (fresh.ts), for every message that suggests one: kept
 * apart so that the tickets' source and the decision can say them without importing
 * what performs it.
 */
import { UserError } from "./errors.js";
import type { GitHubState } from "./state.js";

/** How a person starts a new run of `branch` on GitHub: named wherever one is suggested. */
export function freshHint(branch: string): string {
  return `run the frontier workflow by hand on ${branch} with fresh: true`;
}

/** The warning for tickets added after the run started (at `base`): they wait for a new run. */
export function addedLater(added: readonly string[], base: string | undefined, branch: string) {
  const one = added.length === 1;
  return `warning: ${added.join(", ")} ${one ? "was" : "were"} added after the run started at ${base?.slice(0, 12) ?? "its base"}; ${one ? "it runs" : "they run"} in a new run (${freshHint(branch)} to start one)`;
}

/** The refusal for a fresh run while the old one is still running. */
export function stillRunning(branch: string, state: GitHubState): UserError {
  return new UserError(
    `run ${state.run.run} on ${branch} is still running: a fresh run would leave its live jobs settling into nothing. Cancel it first (comment /cancel on its pull request or issue), then start the fresh run; nothing was changed.`,
  );
}
