/**
 * "Did you mean": the one near-match rule for every mistyped name (ticket ids,
 * dependencies, fields, settings, executors). A name is a typo of a candidate when it
 * is within a typo's distance: one edit up to 6 characters, two up to 10, three beyond,
 * ignoring case, a swap of two neighbours counting one edit.
 *
 * Short words two edits apart are usually other words, not typos (`ready` is not `retry`,
 * `parent` is not `agent`): suggesting one would change what the user meant, so only
 * what is one slip away from a short name is offered.
 */

/** How many edits a name of this length may be off by and still be a typo. */
export function typoLimit(name: string): number {
  return name.length <= 6 ? 1 : name.length <= 10 ? 2 : 3;
}

/** Optimal string alignment distance (edits, with adjacent swaps), stopping early past `max`. */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/** The candidate nearest to `name` when it is close enough to be a typo (the first of equals). */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  const max = typoLimit(name);
  let best: string | undefined;
  let bestD = max + 1;
  const lower = name.toLowerCase();
  for (const c of candidates) {
    if (Math.abs(c.length - name.length) > max) continue;
    const d = c.toLowerCase() === lower ? 0 : editDistance(lower, c.toLowerCase(), bestD - 1);
    if (d < bestD) {
      bestD = d;
      best = c;
      if (d === 0) break;
    }
  }
  return best;
}

/**
 * Up to `max` candidates a user plausibly meant: those within a typo's distance, then
 * those that contain what was typed or are contained in it (`retry` → `retry-plan`),
 * nearest first.
 */
export function nearMatches(typed: string, candidates: Iterable<string>, max = 3): string[] {
  const word = typed.toLowerCase();
  const limit = typoLimit(word);
  const scored: Array<{ id: string; score: number }> = [];
  for (const id of candidates) {
    const lower = id.toLowerCase();
    const d = editDistance(word, lower, limit);
    if (d <= limit) scored.push({ id, score: d });
    else if (word.length >= 3 && (lower.includes(word) || word.includes(lower)))
      scored.push({ id, score: limit + 1 + Math.abs(lower.length - word.length) / 1000 });
  }
  scored.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, max).map((s) => s.id);
}
