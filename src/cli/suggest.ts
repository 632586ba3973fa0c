/** "Did you mean …": the known ids nearest to a mistyped one. */
import { editDistance } from "../core/checks.js";

/**
 * Up to `max` known ids a user plausibly meant: those within a typo's distance (about
 * one edit in four characters), then those that contain what was typed or are contained
 * in it (`retry` → `retry-plan`), nearest first.
 */
export function nearIds(typed: string, known: Iterable<string>, max = 3): string[] {
  const word = typed.toLowerCase();
  const limit = word.length <= 4 ? 1 : word.length <= 10 ? 2 : 3;
  const scored: Array<{ id: string; score: number }> = [];
  for (const id of known) {
    const lower = id.toLowerCase();
    const d = editDistance(word, lower, limit);
    if (d <= limit) scored.push({ id, score: d });
    else if (word.length >= 3 && (lower.includes(word) || word.includes(lower)))
      scored.push({ id, score: limit + 1 + Math.abs(lower.length - word.length) / 1000 });
  }
  scored.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, max).map((s) => s.id);
}

/** ` Did you mean retry-plan or review-plan?`, or nothing. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const near = nearIds(typed, known);
  if (near.length === 0) return "";
  const last = near.pop()!;
  return ` Did you mean ${near.length > 0 ? `${near.join(", ")} or ${last}` : last}?`;
}
