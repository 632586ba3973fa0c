/**
 * What a ticket writes (SPEC §4b), judged: the one rule both runners apply when an
 * attempt ends — integrate its changes, or fail it as a scope breach or a conflict.
 * Pure: the shells collect the changes from a git workspace (src/workspace/) and find
 * what moved on the integration branch; this decides.
 */
import type { ChangedPathRecord } from "./model.js";
import { type CompiledScope, pathInScope } from "./scope.js";
import { formatInt } from "./text.js";

/** The git modes a change can carry: a file, an executable, a symlink, a nested repository. */
export type ChangeMode = "100644" | "100755" | "120000" | "160000";

/**
 * One path an attempt changed, against the commit it started from: what its record keeps
 * (`path` from the repository root; for a deletion, the path that was deleted), and more.
 */
export interface ChangedPath extends Omit<ChangedPathRecord, "mode"> {
  /** the mode now; undefined for a deletion */
  mode?: ChangeMode;
  /** the mode at the start commit; undefined for an addition */
  oldMode?: ChangeMode;
  /** the blob id at the start commit; undefined for an addition */
  oldBlob?: string;
  /** the tree id at the start commit, where an addition replaces a directory (GitHub's probes) */
  oldTree?: string;
  /** bytes of the new content, where a runner needs them (GitHub's limits); undefined for a deletion */
  bytes?: number;
}

/** Every path a change touches: a rename touches its old path too. */
export function touchedPaths(changes: readonly ChangedPath[]): string[] {
  return changes.flatMap((c) => (c.from === undefined ? [c.path] : [c.from, c.path]));
}

export type ChangeVerdict =
  /** the attempt changed nothing */
  | { kind: "none" }
  /** every path is in scope and none moved on the branch: one commit of the ticket */
  | { kind: "integrate" }
  /**
   * paths outside the ticket's write_scope (every path, for a ticket without one), and
   * ticket files whose engine-written fields it changed (the runner's alone, in scope or not)
   */
  | { kind: "breach"; paths: string[]; scoped: boolean; engine: string[] }
  /** paths another commit changed on the integration branch since the attempt started */
  | { kind: "conflict"; conflicts: Array<{ path: string; commit: string }> };

/**
 * Judge an attempt's changes.
 *
 * `moved` maps a path to the commit that changed it on the integration branch after the
 * attempt's start commit (only the paths the attempt touched need be looked up).
 * `engine` names the ticket files whose engine-written fields the attempt changed.
 * A breach is judged before a conflict: a path the ticket was never allowed to write is
 * its own fault, whatever else happened on the branch.
 */
export function judgeChanges(
  changes: readonly ChangedPath[],
  scope: CompiledScope,
  moved: ReadonlyMap<string, string>,
  engine: readonly string[] = [],
): ChangeVerdict {
  if (changes.length === 0) return { kind: "none" };
  const touched = touchedPaths(changes);
  const outside = touched.filter((p) => !pathInScope(p, scope));
  if (outside.length > 0 || engine.length > 0) {
    return { kind: "breach", paths: outside, scoped: scope.length > 0, engine: [...engine] };
  }
  const conflicts = touched
    .filter((p) => moved.has(p))
    .map((path) => ({ path, commit: moved.get(path)! }));
  if (conflicts.length > 0) return { kind: "conflict", conflicts };
  return { kind: "integrate" };
}

/** How a path is shown in a reason: at most this many are named, then a count. */
export const NAMED_PATHS = 20;
/** At most this many of the paths an attempt did not integrate are listed in its record. */
export const RECORDED_PATHS = 1000;

/** The first `most` of `items`, then how many more there are: `a, b and 3 more`. */
export function named(items: readonly string[], most = NAMED_PATHS): string {
  const shown = items.slice(0, most).join(", ");
  return items.length > most ? `${shown} and ${formatInt(items.length - most)} more` : shown;
}

/* The trailers of an integrated attempt's commit: both runners write them, find an attempt
 * already integrated by its claim's line, and name its commit from them. */

/** The claim's trailer line: the one line that says an attempt's changes already landed. */
export function claimTrailer(claim: string): string {
  return `Frontier-Claim: ${claim}`;
}

/** The trailer lines of a ticket attempt's commit, in the order both runners write them. */
export function commitTrailers(
  run: string,
  ticket: string,
  attempt: number,
  claim: string,
): string {
  return [
    `Frontier-Run: ${run}`,
    `Frontier-Ticket: ${ticket}`,
    `Frontier-Attempt: ${attempt}`,
    claimTrailer(claim),
  ].join("\n");
}

/** The claim an integration commit's message carries, if any. */
export function claimOf(message: string): string | undefined {
  return /^Frontier-Claim: (\S+)$/m.exec(message)?.[1];
}
