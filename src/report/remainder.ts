/**
 * The open remainder in words (SPEC §3): every ticket not complete or empty, with what
 * holds it — the blocker chain, the question, the spent bound. The engine says what
 * holds a ticket as data (`Frontier.holds`); this is where it becomes a phrase, for the
 * receipt, the reports and the terminal alike.
 */
import type { Frontier, Hold, SpentBound } from "../core/engine.js";
import { questionOf } from "../core/engine-types.js";
import type { RemainderEntry } from "../core/model.js";
import { singleLine } from "../core/text.js";
import { formatAmount, plural } from "./states.js";

/** What of the run's bound is spent, in words: "2,000,412 of 2,000,000 tokens used". */
export function spentWords(spent: SpentBound): string {
  switch (spent.kind) {
    case "dispatches":
      return `${spent.spent} of ${plural(spent.limit, "dispatch", "dispatches")} made`;
    case "deadline":
      return `its deadline ${spent.deadline} has passed`;
    case "usage":
      return `${formatAmount(spent.total)} of ${formatAmount(spent.limit)} ${spent.key} used`;
  }
}

/** Claimed tickets whose ended attempt the run could not integrate: they wait on the user. */
export type Held = Pick<ReadonlySet<string>, "has">;

/** What holds an open ticket, as one line; a `held` claim's, the user. */
export function holdWords(hold: Hold, held?: boolean): string {
  switch (hold.kind) {
    case "blocked": {
      const word =
        hold.rootStatus === "limited" || hold.rootStatus === "cancelled"
          ? hold.rootStatus
          : "failed";
      return `${hold.root} ${word}${hold.via === undefined ? "" : ` (via ${hold.via})`}`;
    }
    case "question":
      // one line: a table cell and a terminal line summarise it; the attempt keeps it whole
      return `question: ${singleLine(questionOf({ question: hold.question }))}`;
    case "waiting":
      return `waiting on ${hold.on.join(", ")}`;
    case "ready":
      return "ready";
    case "run-cancelled":
      return `run cancelled by ${hold.by}`;
    case "bound-spent":
      return `run bound spent: ${spentWords(hold.spent)}`;
    case "running":
      if (held) return "held: its attempt waits on you — fix what the run said, then frontier run";
      return `running attempt ${hold.attempt} (${hold.by ?? "unknown"})`;
    case "failed":
      return `failed: ${singleLine(hold.reason ?? "no reason given")}`;
    case "limited":
      return "its bound ran out";
    case "cancelled":
      return hold.by !== undefined ? `cancelled by ${hold.by}` : (hold.reason ?? "cancelled");
  }
}

/** The open remainder of a run at `now`, in file order. */
export function remainderOf(frontier: Frontier, now: number, held?: Held): RemainderEntry[] {
  return frontier
    .holds(now)
    .map(({ id, status, hold }) => ({ id, status, waiting_on: holdWords(hold, held?.has(id)) }));
}
