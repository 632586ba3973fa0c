/**
 * `write_scope` overlap: two claimed tickets never write the same path.
 *
 * Overlap is judged conservatively. A false "no overlap" would let two tickets write
 * the same file at once; a false "overlap" only makes one of them wait. So whenever
 * the shape of a glob makes the answer unclear, the answer is "they overlap".
 *
 * Rules (after normalising `./`, a leading `/`, `//` and a trailing `/`):
 * - literal vs literal: equal, or one is a directory prefix of the other
 *   (`src` and `src/a.ts` overlap; `src` and `src2` do not).
 * - literal vs glob: the glob matches the literal; or the literal is a directory
 *   that holds the glob's base (`src` vs `src/lib/**`); or the literal lies under the
 *   glob's base and could be, or could contain, or could sit inside a match
 *   (`src/a` vs `src/* /b.ts` overlap: `src/a/b.ts` is in both), judged one path
 *   segment at a time; a `**` segment, or a brace/extglob spanning `/`, means overlap.
 * - glob vs glob: overlap when one base is a directory prefix of the other
 *   (`src/*.ts` vs `src/*.md` is reported as overlapping; `docs/**` vs `src/**` is not).
 * - A negated entry (`!x`) only takes back what earlier entries allowed: overlap is
 *   judged on the other entries (a scope it narrows is judged as if it did not).
 * - Tickets without `write_scope` never conflict.
 *
 * An entry that can match no repository path (absolute, or climbing out with `..`) is
 * named by `unreachableEntry`, a graph problem the loader reports.
 */
import picomatch from "picomatch";

export interface ScopeEntry {
  /** normalised path or pattern; "" is the whole repository */
  path: string;
  glob: boolean;
  /** for a glob: the literal directory before the first glob character ("" = root) */
  base: string;
  /** for a glob: the part after the base */
  rest: string;
  /** `!x`: a path it matches is taken back out of the scope */
  negated: boolean;
}

export type CompiledScope = readonly ScopeEntry[];

const MATCH_OPTIONS = { dot: true } as const;

/** `./src/`, `/src`, `src//` and `src` are the same path; `.` is the whole repository. */
function normaliseScopePath(raw: string): string {
  const p = raw.trim().replace(/(^|\/)\.(?=\/|$)/g, "$1");
  return p.replace(/\/{2,}/g, "/").replace(/^\/|\/$/g, "");
}

export function compileScope(patterns: readonly string[]): CompiledScope {
  return patterns.map((raw): ScopeEntry => {
    const negated = raw.trim().startsWith("!");
    const path = normaliseScopePath(negated ? raw.trim().slice(1) : raw);
    const scan = picomatch.scan(path);
    if (scan.negatedExtglob) {
      // "everything but x" is still almost everything
      return { path: "**", glob: true, base: "", rest: "**", negated };
    }
    if (!scan.isGlob) return { path, glob: false, base: path, rest: "", negated };
    return { path, glob: true, base: normaliseScopePath(scan.base), rest: scan.glob, negated };
  });
}

/** Why an authored entry can match no repository path: `absolute` or `outside` (`..`); else undefined. */
export function unreachableEntry(raw: string): "absolute" | "outside" | undefined {
  const p = raw.trim().replace(/^!/, "");
  if (p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p)) return "absolute";
  return p.split(/[\\/]/).includes("..") ? "outside" : undefined;
}

/** `a` and `b` are the same path, or one is a directory holding the other. */
function related(a: string, b: string): boolean {
  return a === b || a === "" || b === "" || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);
}

/** A brace or extglob group with a `/` inside cannot be judged segment by segment. */
const GROUP_SPANS_SLASH = /[{(][^})]*\//;

function literalMeetsGlob(literal: string, g: ScopeEntry): boolean {
  if (!related(literal, g.base)) return false;
  // the literal is the glob's base or a directory above it: everything the glob matches is inside
  if (literal === "" || literal === g.base || g.base.startsWith(`${literal}/`)) return true;
  if (picomatch.isMatch(literal, g.path, MATCH_OPTIONS)) return true;
  if (GROUP_SPANS_SLASH.test(g.rest)) return true;
  const lsegs = (g.base === "" ? literal : literal.slice(g.base.length + 1)).split("/");
  const gsegs = g.rest.split("/");
  for (let i = 0; ; i++) {
    const gseg = gsegs[i];
    const lseg = lsegs[i];
    // the glob matched a directory that holds the literal, or the literal is a
    // directory that could hold a match
    if (gseg === undefined || lseg === undefined) return true;
    if (gseg.includes("**")) return true;
    if (!picomatch.isMatch(lseg, gseg, MATCH_OPTIONS)) return false;
  }
}

function entriesOverlap(a: ScopeEntry, b: ScopeEntry): boolean {
  if (!a.glob && !b.glob) return related(a.path, b.path);
  if (a.glob && b.glob) return related(a.base, b.base);
  return a.glob ? literalMeetsGlob(b.path, a) : literalMeetsGlob(a.path, b);
}

/** Some path could be in both scopes. Empty scopes (read-only tickets) never overlap. */
export function scopesOverlap(a: CompiledScope, b: CompiledScope): boolean {
  return a.some((x) => !x.negated && b.some((y) => !y.negated && entriesOverlap(x, y)));
}

/**
 * `path` (a file path from the repository root, `/`-separated) is one a ticket with
 * `scope` may change: it is, or lies under, a literal entry; or it, or a directory
 * above it, matches a glob entry. The same rules as overlap, seen from one path: when
 * two scopes do not overlap, no path is in both (a property test holds them to it).
 * The last entry that matches decides: a `!` entry takes the path back out. A ticket
 * without a write_scope may change nothing.
 */
export function pathInScope(path: string, scope: CompiledScope): boolean {
  const p = normaliseScopePath(path);
  for (let i = scope.length - 1; i >= 0; i--) {
    if (entryMatches(p, scope[i]!)) return !scope[i]!.negated;
  }
  return false;
}

function entryMatches(p: string, entry: ScopeEntry): boolean {
  if (!entry.glob) return entry.path === "" || p === entry.path || p.startsWith(`${entry.path}/`);
  if (entry.base !== "" && p !== entry.base && !p.startsWith(`${entry.base}/`)) return false;
  // the path itself, or a directory holding it, matched by the glob
  for (let at = p.length; at > 0; at = p.lastIndexOf("/", at - 1)) {
    if (picomatch.isMatch(p.slice(0, at), entry.path, MATCH_OPTIONS)) return true;
  }
  return false;
}
