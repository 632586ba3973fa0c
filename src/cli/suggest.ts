/** "Did you mean …": the known ids nearest to a mistyped one, worded for the terminal. */
import { nearMatches } from "../core/near.js";
import { shellWord } from "../terminal/text.js";
import { isDirectory } from "../tickets/read-optional.js";

/** `no ticket "retyr-plan" in tickets. Did you mean retry-plan? (`frontier status tickets` lists them)` */
export function unknownTicket(ticket: string, dir: string, known: Iterable<string>): string {
  const near = nearMatches(ticket, known);
  const last = near.pop();
  const mean =
    last === undefined
      ? ""
      : ` Did you mean ${near.length > 0 ? `${near.join(", ")} or ${last}` : last}?`;
  // `frontier retry tickets`: the directory given, the ticket left out
  const leftOut = isDirectory(ticket)
    ? ` "${ticket}" is a directory: the ticket goes after it`
    : "";
  const list = shellWord(leftOut === "" ? dir : ticket);
  return `no ticket "${ticket}" in ${dir}.${mean}${leftOut} (\`frontier status ${list}\` lists them)`;
}
