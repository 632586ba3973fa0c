/**
 * Escaping for every renderer. Receipt text (titles, reasons, results, questions,
 * answers, even ids of a hand-made receipt) is data written by other people: it is
 * shown, never interpreted — not as markdown, HTML, mermaid, a table cell boundary,
 * a code span, an @-mention, or the report's own hidden marker.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for an HTML element or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** Collapse newlines and runs of whitespace: one-line cells and list items. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Cut to at most `max` characters, saying so with an ellipsis. Never splits a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

// Characters that start markdown constructs anywhere in a line. `<`, `>` and `&` become
// entities (so no HTML, no `<!--`, no autolink); `|` becomes an entity so it can never end
// a table cell; `$` is escaped because GitHub renders `$…$` as math.
const MD_SPECIAL = /[\\`*_[\]#~|<>&@$]/g;
/** The special characters written as something else than a backslash and themselves. */
const MD_ESCAPES: Readonly<Record<string, string>> = {
  "<": "&lt;",
  ">": "&gt;",
  "&": "&amp;",
  "|": "&#124;",
  "@": "@\u200b",
};

/**
 * Inline markdown text: shown literally by GitHub in paragraphs, list items and table
 * cells. Newlines are collapsed (use `escapeMarkdownBlock` for multi-line text).
 * `@` is followed by a zero-width space so a title never pings anyone.
 */
export function escapeMarkdown(text: string): string {
  const escaped = oneLine(text).replace(MD_SPECIAL, (c) => MD_ESCAPES[c] ?? `\\${c}`);
  // Text often follows "- " in a list item: a leading `-`, `+` or `1.` would open a
  // nested list there.
  if (/^[-+]/.test(escaped)) return `\\${escaped}`;
  return escaped.replace(/^(\d+)([.)])/, "$1\\$2");
}

/**
 * Multi-line text inside a list item or a <details>: each line escaped like
 * `escapeMarkdown`, joined with `<br>` so it stays inside the item it belongs to.
 */
export function escapeMarkdownBlock(text: string, maxLines = 20): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const kept = lines.slice(0, maxLines).map((l) => escapeMarkdown(l));
  if (lines.length > maxLines) kept.push(`… ${lines.length - maxLines} more lines`);
  return kept.join("<br>");
}

/**
 * Text as inline code when a code span can hold it — no backtick, no newline, no pipe (a
 * table cell would end there) — else as escaped text: an odd ticket id or an agent's
 * path cannot leave the span.
 */
export function mdCode(text: string): string {
  return /^[^`|\r\n]+$/.test(text) ? `\`${text}\`` : escapeMarkdown(text);
}

/** Backticks longer than any run in `text`, and at least `least`: a fence or span it cannot close. */
export function fenceFor(text: string, least = 3): string {
  let n = least;
  for (const run of text.matchAll(/`+/g)) n = Math.max(n, run[0].length + 1);
  return "`".repeat(n);
}

/**
 * A URL as a markdown link destination: percent-encodes what could end the
 * destination or a table cell. The caller has already checked the scheme.
 */
export function mdUrl(url: string): string {
  return url.replace(/[()|[\]'"<> `*_]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The hidden marker comment's text, reduced to characters that cannot end an HTML
 * comment, so the caller's marker always yields exactly one well-formed comment.
 */
export function markerText(marker: string): string {
  const text = marker.replace(/[^A-Za-z0-9._:/@#=+ -]/g, "").replace(/-{2,}/g, "-");
  return oneLine(text) || "ticket-frontier";
}

/**
 * Markdown cut to at most `max` characters with `note` at its end: at a line, never
 * mid-entity, closing a code fence and every <details> the kept part left open.
 */
export function cutMarkdown(text: string, max: number, note: string): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - note.length - 40));
  const nl = cut.lastIndexOf("\n");
  if (nl > 0) cut = cut.slice(0, nl);
  const open = (cut.match(/<details>/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  if ((cut.match(/^```/gm) ?? []).length % 2 === 1) cut += "\n```";
  for (let i = 0; i < open; i++) cut += "\n</details>";
  return (cut + note).slice(0, max);
}
