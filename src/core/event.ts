/**
 * What happens on an event, for every entry point: the CLI's commands, the local
 * runner, the action's steps and the bot's commands all go through these two
 * functions, and differ only in how they read the run, write its records and perform
 * what it decided.
 *
 *   open     openRun: the run's tickets, its settings and its saved state → the engine.
 *            Settings and flags become the engine's configuration in one place
 *            (config.ts), so no entry point disagrees about a default.
 *   apply    the event itself, which the entry point applies to the engine: a settle,
 *            an answer, a retry, a cancel, a take, nothing (a push, the sweep). Its
 *            rules live in the engine (engine.ts): what blocks, what is empty, when a
 *            failure retries, what a bound allows. Nothing here calls back out.
 *   reclaim  claims whose lease ran out fail (or, locally, claims of a runner that is
 *            gone are interrupted), so no ticket waits for a job that will never end.
 *   claim    what became ready is claimed, up to max_parallel and the run's bound —
 *            unless the entry point only looks (status, a stopping runner).
 *   drain    every record the event changed: the files the entry point must write,
 *            and what it must perform once they are written (start the claims, ask
 *            the questions of attempts that suspended).
 *
 * Who reads, writes and performs for each entry point: docs/ARCHITECTURE.md.
 *
 * Nothing here reads a clock or a file: `now` and the claim tokens come from the caller.
 */
import { engineConfig, type RunFlags } from "./config.js";
import { type Changes, type Claim, Frontier } from "./engine.js";
import type { SavedState, Settings, TicketSpec } from "./model.js";

/** A run as an entry point found it. */
export interface RunInput {
  specs: readonly TicketSpec[];
  settings: Settings;
  /** the state recorded so far; undefined when the run starts with this event */
  saved: SavedState | undefined;
  /** command-line flags or action inputs that override the settings */
  flags: RunFlags;
  now: number;
}

/** The engine of a run, configured from its settings and flags, at its saved state. */
export function openRun(run: RunInput): Frontier {
  const config = engineConfig(run.settings, run.saved, run.flags, run.now);
  return Frontier.create(run.specs, config, run.saved, run.now);
}

export interface StepOptions {
  now: number;
  /**
   * Reclaim claims whose lease ran out (true), also those whose holder is gone (a
   * predicate on the ticket and its holder), or none (false: a runner whose own live
   * attempts hold every claim).
   */
  reclaim: boolean | ((ticket: string, claimedBy: string) => boolean);
  /** claim what is ready as this holder, with a fresh token per claim; omitted: claim nothing */
  claimAs?: { by: string; token: (ticket: string, attempt: number) => string };
}

/** What one event decided: the records to write, then what to perform. */
export interface Step {
  /** tickets whose claim was reclaimed */
  reclaimed: string[];
  /** claims to start once the records are written */
  claims: Claim[];
  /** records to write */
  changes: Changes;
  /** tickets whose attempt suspended with a question in this event: ask it */
  asked: string[];
}

/** After the event the caller applied: reclaim, claim, and drain what changed. */
export function step(frontier: Frontier, options: StepOptions): Step {
  const { now, reclaim } = options;
  const isDead = typeof reclaim === "function" ? reclaim : undefined;
  const reclaimed = reclaim === false ? [] : frontier.expire(now, isDead).changed;
  const claims = options.claimAs
    ? frontier.claimReady(now, options.claimAs.by, options.claimAs.token)
    : [];
  const changes = frontier.drainChanges();
  const asked = changes.attempts
    .filter(({ record }) => record.outcome === "suspended")
    .map(({ ticket }) => ticket);
  return { reclaimed, claims, changes, asked };
}
