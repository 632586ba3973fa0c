import { commitTrailers } from "../core/changes.js";
import { singleLine } from "../core/text.js";

/**
 * The message of a ticket attempt's commit, the same on both runners: its headline names
 * the ticket as a commit list shows it; its trailers name run, ticket, attempt and claim
 * (the attempt's commit is found by them). `tail` ends its sentence with a runner's words.
 */
export function integrationMessage(
  i: { run: string; ticket: string; title: string; attempt: number; claim: string; paths: number },
  tail = "",
): string {
  const [run, title] = [singleLine(i.run), singleLine(i.title)];
  const headline =
    title === i.ticket
      ? i.ticket
      : `${i.ticket}: ${title.length > 72 ? `${title.slice(0, 71)}…` : title}`;
  const paths = `${i.paths} changed path${i.paths === 1 ? "" : "s"}`;
  return `${headline}\n\nTicket ${i.ticket}, attempt ${i.attempt} of run ${run}: ${paths}.${tail}\n\n${commitTrailers(run, i.ticket, i.attempt, i.claim)}\n`;
}
