/** "Did you mean …": the known ids nearest to a mistyped one, worded for the terminal. */
import { nearMatches } from "../core/near.js";

/** ` Did you mean retry-plan or review-plan?`, or nothing. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const near = nearMatches(typed, known);
  if (near.length === 0) return "";
  const last = near.pop()!;
  return ` Did you mean ${near.length > 0 ? `${near.join(", ")} or ${last}` : last}?`;
}
