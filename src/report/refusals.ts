// The words for an event the engine refused or found stale (its `Refusal` codes): the CLI
// prints them, the bot quotes them and the action logs them.
import type { Refusal } from "../core/engine.js";

type Of<C extends Refusal["code"]> = Extract<Refusal, { code: C }>;

/** What an attempt that is not the live one met instead. */
const notLive = ({ ticket, status, live, claim }: Of<"not-live">) =>
  status !== "claimed"
    ? `${ticket} is ${status} (attempt ${live})`
    : claim === undefined
      ? `${ticket} is running attempt ${live}`
      : `claim ${claim} is not the live claim of ${ticket} attempt ${live}`;

/** Why a ticket in `status` cannot be retried, and what to do instead. */
const notRetryable = ({ ticket, status, attempt, root }: Of<"not-retryable">) =>
  status === "blocked"
    ? `${ticket} is blocked by root ${root}; retry ${root}`
    : status === "claimed"
      ? `${ticket} is running attempt ${attempt}; wait for it to settle (or for its lease to run out)`
      : status === "suspended"
        ? `${ticket} is suspended on a question; answer it to run it again`
        : status === "pending" || status === "ready"
          ? `${ticket} is ${status}; it has not run yet, so there is nothing to retry`
          : `${ticket} is ${status}; to ask for a change, retry it with feedback for its next attempt`;

const WORDS: { [C in Refusal["code"]]: (why: Of<C>) => string } = {
  unknown: ({ ticket }) =>
    `unknown ticket "${ticket}": no ticket in this run has that id (frontier status lists them)`,
  "not-live": (why) =>
    `${why.event} of ${why.ticket} attempt ${why.attempt} changed nothing: ${notLive(why)}`,
  "not-suspended": ({ ticket, status }) =>
    `${ticket} is ${status}; nothing to answer (only a suspended ticket has an open question)`,
  "not-retryable": notRetryable,
  behind: ({ ticket, behind, status, root }) =>
    `${ticket} depends on ${behind}, which is ${status}; retry ${root} first`,
  cancelled: ({ event, by, at }) =>
    event === "retry"
      ? `the run was cancelled by ${by}; nothing in it can be retried (start a new run)`
      : `the run was already cancelled by ${by} at ${at}; nothing changed`,
  finished: ({ state }) => `the run has finished (${state}); nothing is open to cancel`,
  said: ({ text }) => text,
};

/** Why an event changed nothing, in words a person can act on. */
export const refusalWords = (why: Refusal): string =>
  (WORDS[why.code] as (why: Refusal) => string)(why);
