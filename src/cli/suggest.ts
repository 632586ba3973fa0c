/** "Did you mean …": the known ids nearest to a mistyped one, worded for the terminal. */
import { nearMatches } from "../core/near.js";
import { shellWord } from "../terminal/text.js";

/** `no ticket "retyr-plan" in tickets. Did you mean retry-plan? (`frontier status tickets` lists them)` */
export function unknownTicket(ticket: string, dir: string, known: Iterable<string>): string {
  const near = nearMatches(ticket, known);
  const last = near.pop();
  const mean =
    last === undefined
      ? ""
      : ` Did you mean ${near.length > 0 ? `${near.join(", ")} or ${last}` : last}?`;
  return `no ticket "${ticket}" in ${dir}.${mean} (\`frontier status ${shellWord(dir)}\` lists them)`;
}
