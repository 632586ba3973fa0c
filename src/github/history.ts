/**
 * A finished run's state that reached another branch — its pull request merged, a branch
 * cut from it after it ended — is that branch's history, not a run to start again.
 *
 * - It starts nothing: an event there dispatches nothing and commits nothing, and every
 *   ticket stays as the run left it (a complete ticket stays complete).
 * - A ticket added later runs on its own: a push that adds tickets the finished run did
 *   not have starts a new run of the branch, at that push, whose saved state is the
 *   finished run's tickets as they ended (with their attempts and results, so a new
 *   ticket that depends on one of them gets its result as input). Only the added tickets
 *   are new; a ticket the finished run failed stays failed (and blocks what depends on
 *   it) until someone retries it.
 *
 * A run still live when its branch was cut is not history: it stays the run of the
 * branch it lives on, and the new branch starts its own (foreign.ts moves the copy aside).
 * Which one a copy is, is told by live.json: a live run keeps it, a finished run has
 * removed it.
 */
import type { SavedState } from "../core/model.js";
import type { BranchRead } from "./branch.js";
import { type GitHubState, livePath } from "./state.js";

/** A run's state copied from another branch, finished before it was copied. */
export function isFinishedCopy(dir: string, read: BranchRead, copied: GitHubState): boolean {
  if (read.files.has(livePath(dir))) return false;
  return !Object.values(copied.tickets).some((t) => t.status === "claimed");
}

/**
 * The saved state a new run of the branch starts from: a run record of its own (its
 * base is this push, nothing dispatched yet) and the finished run's tickets as they ended.
 */
export function savedFromHistory(
  history: GitHubState,
  run: string,
  base: string,
  now: number,
): SavedState {
  return {
    run: {
      schema: "ticket-frontier/run@1",
      run,
      base,
      started_at: new Date(now).toISOString(),
      dispatched: 0,
    },
    tickets: history.tickets,
  };
}

/** What an event on a branch holding only a finished run's history says. */
export function historyMessage(label: string, branch: string, history: GitHubState): string {
  return `${label}: the state on ${branch} is the finished run ${history.run.run} of branch ${history.branch} (merged or cut from it): it is this branch's history, its tickets stay as they ended, and nothing was started. A ticket added here runs on its own, in a new run of ${branch} started by the push that adds it.`;
}
