/**
 * The executor contract (SPEC §6): the variables every executor is given, with the same
 * names, meanings and encodings locally and on GitHub — one definition, which both the
 * local runner and the orch-task job's context step use, so an agent written for
 * `frontier run` works unchanged in orch-task.
 */
import type { Claim, RunBoundLeft } from "./engine-types.js";
import type { RunBound } from "./model.js";

/**
 * What the contract needs to know about one attempt: its claim (the bound is the ticket's
 * own, else the run's ticket_bound), and where its files are.
 */
export interface ExecutorAttempt
  extends Pick<Claim, "ticket" | "attempt" | "claim" | "bound" | "runBound"> {
  run: string;
  /** absolute path of the ticket's `.md` file */
  ticketFile: string;
  /** absolute path of the ticket directory */
  dir: string;
  /**
   * when the claim's lease ends (a bound that is a duration is the lease): FRONTIER_DEADLINE,
   * when the runner stops the attempt (locally) or its lease ends (on GitHub, where the job
   * starts later than the claim)
   */
  leaseUntil?: string;
  contextFile: string;
  outcomeFile: string;
}

/** The environment an executor of `a` is given (beside the runner's own). */
export function executorVariables(a: ExecutorAttempt) {
  return {
    FRONTIER_RUN: a.run,
    FRONTIER_TICKET: a.ticket,
    FRONTIER_ATTEMPT: String(a.attempt),
    FRONTIER_TICKET_FILE: a.ticketFile,
    FRONTIER_BOUND: a.bound?.raw ?? "",
    FRONTIER_DEADLINE: a.bound?.timeoutMs === undefined ? "" : (a.leaseUntil ?? ""),
    FRONTIER_RUN_BOUND: formatRunBound(a.runBound),
    FRONTIER_OUTCOME_FILE: a.outcomeFile,
    FRONTIER_CONTEXT_FILE: a.contextFile,
    FRONTIER_DIR: a.dir,
    FRONTIER_CLAIM: a.claim,
  };
}

/** A usage key as it may appear in FRONTIER_RUN_BOUND: letters, digits, `_`, `-`, `.`. */
const USAGE_KEY = /^[A-Za-z0-9_.-]+$/;

/**
 * What remains of the run bound, as FRONTIER_RUN_BOUND carries it: space-separated
 * `dispatches=N`, `deadline=ISO` and `usage.KEY=N`, each present only when bounded;
 * empty when the run is unbounded.
 */
export function formatRunBound(bound: RunBoundLeft): string {
  const parts: string[] = [];
  if (bound.dispatchesLeft !== undefined) parts.push(`dispatches=${bound.dispatchesLeft}`);
  if (bound.deadline !== undefined) parts.push(`deadline=${bound.deadline}`);
  const usage = bound.usage ?? {};
  for (const key of Object.keys(usage).sort()) {
    if (USAGE_KEY.test(key)) parts.push(`usage.${key}=${Math.max(0, usage[key]!)}`);
  }
  return parts.join(" ");
}

export type ParsedRunBound = { kind: "ok"; bound: RunBound } | { kind: "bad"; part: string };

/** FRONTIER_RUN_BOUND as a parent run set it: the bound a nested run inherits. */
export function parseRunBound(text: string | undefined): ParsedRunBound {
  const bound: RunBound = {};
  for (const part of (text ?? "").trim().split(/\s+/).filter(Boolean)) {
    const at = part.indexOf("=");
    const key = at < 0 ? part : part.slice(0, at);
    const value = at < 0 ? "" : part.slice(at + 1);
    if (key === "dispatches" && /^\d+$/.test(value)) bound.dispatches = Number(value);
    else if (key === "deadline" && !Number.isNaN(Date.parse(value))) {
      bound.deadline = new Date(Date.parse(value)).toISOString();
    } else if (
      key.startsWith("usage.") &&
      USAGE_KEY.test(key.slice(6)) &&
      /^\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(value)
    ) {
      bound.usage = { ...bound.usage, [key.slice(6)]: Number(value) };
    } else {
      return { kind: "bad", part };
    }
  }
  return { kind: "ok", bound };
}
