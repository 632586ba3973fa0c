/** What the `yaml` package read and said, for yaml-fields.ts, settings.ts and the ticket edits. */
import { isScalar } from "yaml";

/**
 * What the `yaml` package said, for a person: its first line without the position (the
 * problem carries the line), and without the name of a JavaScript error the package let
 * through (`URIError: URI malformed` for a tag like `!!%` becomes `a tag it cannot read
 * (URI malformed)`).
 */
export function yamlErrorText(err: { message: string; code?: string }): string {
  if (err.code === "TAB_AS_INDENT")
    return "a tab indents this line (YAML indents with spaces only)";
  const line = (err.message.split("\n", 1)[0] ?? err.message).replace(
    / at line \d+, column \d+:?$/,
    "",
  );
  const leaked = /^[A-Za-z]*Error: (.*)$/.exec(line);
  if (leaked === null) return line;
  return err.code === "TAG_RESOLVE_FAILED"
    ? `a tag it cannot read (${leaked[1]})`
    : (leaked[1] ?? line);
}

/** How to fix what the `yaml` package said: a tab has one fix; the rest, `otherwise`. */
export function yamlFixText(err: { code?: string }, otherwise: string): string {
  return err.code === "TAB_AS_INDENT" ? "replace the tab with spaces" : otherwise;
}

/** A scalar as the author wrote it: plain scalars by their source text, quoted ones by their value. */
export function scalarText(n: { value: unknown; source?: string }): string {
  return typeof n.value === "string" ? n.value : (n.source ?? String(n.value));
}

/** A node that reads as nothing: absent, empty, `~` or `null`. */
export function isNull(n: unknown): boolean {
  return n === null || n === undefined || (isScalar(n) && n.value === null);
}
