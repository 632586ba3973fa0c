/** "Did you mean …": the known ids nearest to a mistyped one, worded for the terminal. */
import { nearMatches } from "../core/near.js";
import { shellWord } from "../terminal/text.js";

/** ` Did you mean retry-plan or review-plan?`, or nothing. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const near = nearMatches(typed, known);
  if (near.length === 0) return "";
  const last = near.pop()!;
  return ` Did you mean ${near.length > 0 ? `${near.join(", ")} or ${last}` : last}?`;
}

/** `no ticket "retyr-plan" in tickets. Did you mean retry-plan? (`frontier status tickets` lists them)` */
export function unknownTicket(ticket: string, dir: string, known: Iterable<string>): string {
  return `no ticket "${ticket}" in ${dir}.${didYouMean(ticket, known)} (\`frontier status ${shellWord(dir)}\` lists them)`;
}
