/**
 * Paths as the changes hold them: latin1 strings (one character a byte) until they are
 * shown. Git's names are bytes, and a name that is not UTF-8 must neither merge with
 * another nor change.
 */
export const bytesOf = (p: string) => Buffer.from(p, "latin1");
export const split0 = (b: Buffer) =>
  b
    .toString("latin1")
    .split("\0")
    .filter((x) => x !== "");
/** A name as shown: UTF-8 when it is, else its bytes escaped (`caf\xE9`). */
export function shown(p: string): { name: string; utf8: boolean } {
  const b = bytesOf(p);
  if (Buffer.from(b.toString("utf8"), "utf8").equals(b))
    return { name: b.toString("utf8"), utf8: true };
  const name = [...b].map((c) =>
    c >= 0x80 ? `\\x${c.toString(16).toUpperCase()}` : String.fromCharCode(c),
  );
  return { name: name.join(""), utf8: false };
}
/** A path for git's line-per-path input: C-quoted when it holds a line break (CR too), a quote or a backslash. */
export function quoted(p: string): string {
  if (!/["\\\n\r]/.test(p)) return p;
  let out = '"';
  for (const c of p) {
    const n = c.charCodeAt(0);
    out +=
      c === '"' || c === "\\" ? `\\${c}` : n < 0x20 ? `\\${n.toString(8).padStart(3, "0")}` : c;
  }
  return `${out}"`;
}
/** Every path but `exclude` (repository-relative, taken literally), as git's pathspec. */
export function pathspec(exclude: readonly string[] = []): string[] {
  return ["--", ":(top)", ...exclude.filter(Boolean).map((p) => `:(exclude,top,literal)${p}`)];
}
/** `mode blob[ stage]\tpath` split at its first tab. */
export const atTab = (line: string) =>
  [line.slice(0, line.indexOf("\t")), line.slice(line.indexOf("\t") + 1)] as const;
/** Every directory above `path` (`a/b/c` → `a/b`, `a`), added to `into`. */
export function addParents(path: string, into: Set<string>): void {
  for (let d = path.lastIndexOf("/"); d > 0; d = path.lastIndexOf("/", d - 1)) {
    into.add(path.slice(0, d));
  }
}
