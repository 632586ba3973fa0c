/**
 * How each state is shown. Every renderer pairs the glyph with the word, so neither
 * colour nor glyph is ever the only signal (a reader on a screen reader, in print or
 * colour-blind still tells `failed` from `blocked`).
 *
 * The text glyphs are ones every common font set draws — DejaVu Sans (the font a stock
 * Debian or Ubuntu falls back to), Segoe UI Symbol, Apple's system fonts — because the
 * markdown comment is drawn with the reader's fonts. `⏸` and `⧗` are not among them:
 * they were empty boxes there. The HTML report draws its own icons (`STATE_ICON_SVG`).
 */
import { formatDuration as formatBoundDuration } from "../core/bound.js";
import type { AttemptOutcome, Receipt, RunState, Status } from "../core/model.js";
import { formatInt } from "../core/text.js";

export const STATUS_ICON: Readonly<Record<Status, string>> = {
  pending: "○",
  ready: "○",
  claimed: "●",
  complete: "✓",
  // `empty` ran and returned nothing: deliberately not a tick, never shown as done.
  empty: "◌",
  failed: "✗",
  blocked: "⊘",
  suspended: "‖",
  limited: "◷",
  cancelled: "–",
};

/** What an icon of the HTML report draws: every state, plus an attempt's `interrupted`. */
export type IconName = Status | AttemptOutcome;

const ring = (extra = "") =>
  `<circle cx="8" cy="8" r="5.4" fill="none" stroke="currentColor" stroke-width="1.7"${extra}/>`;
const line = (d: string, w = 2) =>
  `<path d="${d}" fill="none" stroke="currentColor" stroke-width="${w}" stroke-linecap="round" stroke-linejoin="round"/>`;

/**
 * The HTML report's state icons, drawn as SVG (16×16, in the text's colour): they look
 * the same whatever fonts the reader has. Shapes follow the text glyphs above.
 */
export const STATE_ICON_SVG: Readonly<Record<IconName, string>> = {
  pending: ring(),
  ready: ring(),
  claimed: '<circle cx="8" cy="8" r="5.6" fill="currentColor"/>',
  complete: line("M3.2 8.6l3.2 3.2 6.4-7.2", 2.2),
  empty: ring(' stroke-dasharray="2.4 1.9"'),
  failed: line("M4.2 4.2l7.6 7.6M11.8 4.2l-7.6 7.6", 2.2),
  blocked: ring() + line("M4.3 11.7l7.4-7.4", 1.7),
  suspended:
    '<rect x="3.8" y="3" width="2.8" height="10" rx=".7" fill="currentColor"/><rect x="9.4" y="3" width="2.8" height="10" rx=".7" fill="currentColor"/>',
  limited: '<path d="M4 2.2h8L8 8l4 5.8H4L8 8z" fill="currentColor"/>',
  cancelled: line("M3.5 8h9", 2.2),
  interrupted: line("M12.6 8.6A4.7 4.7 0 1 1 9.4 3.5", 1.8) + line("M7.4 1.6l2.4 1.9-1.9 2.4", 1.8),
};

/** A few words that say what the state means to a reviewer. */
export const STATUS_MEANING: Readonly<Record<Status, string>> = {
  pending: "not yet run: waiting for its dependencies",
  ready: "not yet run: ready to dispatch",
  claimed: "claimed: running now",
  complete: "complete",
  empty: "empty: ran and returned nothing (not counted as done)",
  failed: "failed",
  blocked: "blocked: a dependency can no longer complete",
  suspended: "suspended: waiting on an answer",
  limited: "limited: its bound ran out",
  cancelled: "cancelled",
};

/** The ticket state whose icon and colours show a run state (its glyph, its badge). */
export const RUN_STATE_ICON_NAME: Readonly<Record<RunState, Status>> = {
  "not started": "pending",
  running: "claimed",
  complete: "complete",
  failed: "failed",
  suspended: "suspended",
  limited: "limited",
  cancelled: "cancelled",
};

/**
 * Order in which states need a reviewer's attention: used to sort cut tables so the
 * rows that survive a cut are the ones someone has to act on.
 */
export const ATTENTION_ORDER: readonly Status[] = [
  "failed",
  "limited",
  "suspended",
  "cancelled",
  "blocked",
  "claimed",
  "ready",
  "pending",
  "empty",
  "complete",
];

/** Display order of the counts: the story of a run, from done to not started. */
export const COUNT_ORDER: readonly Status[] = [
  "complete",
  "empty",
  "claimed",
  "ready",
  "pending",
  "suspended",
  "failed",
  "limited",
  "blocked",
  "cancelled",
];

/** The word a count of tickets in state `s` goes by: `empty` is never shown as done, it says what it is. */
export function countWord(s: Status): string {
  return s === "empty" ? "empty (ran, returned nothing)" : s;
}

/** Colours per state (fill, stroke) for light backgrounds; text is always dark on these. */
export const STATUS_COLOURS: Readonly<Record<Status, { fill: string; stroke: string }>> = {
  pending: { fill: "#eef1f4", stroke: "#8a94a0" },
  ready: { fill: "#e3ecfa", stroke: "#4a78c2" },
  claimed: { fill: "#d6e6ff", stroke: "#1f5fd1" },
  complete: { fill: "#d3f4dc", stroke: "#2b8a3e" },
  empty: { fill: "#f4f1dc", stroke: "#9c8f3a" },
  failed: { fill: "#ffd8d8", stroke: "#c92a2a" },
  blocked: { fill: "#ffe6cc", stroke: "#d9480f" },
  suspended: { fill: "#efe0ff", stroke: "#7b3fc4" },
  limited: { fill: "#fff0b3", stroke: "#b08800" },
  cancelled: { fill: "#e2e2e2", stroke: "#5c5c5c" },
};

/** A duration as the rest of the tool prints it (`850ms`, `3m4s`), `—` when unknown. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  return formatBoundDuration(ms);
}

/** Sum of the durations of a ticket's attempts, or undefined when none is known. */
export function totalDuration(
  attempts: ReadonlyArray<{ duration_ms?: number }>,
): number | undefined {
  const known = attempts.flatMap((a) => a.duration_ms ?? []);
  return known.length ? known.reduce((a, b) => a + b) : undefined;
}

/** `ticket` or `tickets`, `is` or `are`: the word that goes with `n` of a thing. */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `1 ticket`, `2 tickets`, `0 tickets`: a count and its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${noun(n, one, many)}`;
}

/** Only http(s) links are ever rendered; anything else (javascript:, data:) is dropped. */
export function safeUrl(url: string | undefined): string | undefined {
  const parsed = url && URL.canParse(url) ? new URL(url) : undefined;
  return parsed?.protocol === "https:" || parsed?.protocol === "http:" ? parsed.href : undefined;
}

/** At most `max` items joined by `sep`, then how many more: `a · b · … and 3 more`. */
export function clipList(items: readonly string[], max: number, sep: string): string {
  if (items.length <= max) return items.join(sep);
  return `${items.slice(0, max).join(sep)}${sep}… and ${formatInt(items.length - max)} more`;
}

/** The time between two instants in ms, when both are known and in order. */
export function durationMs(start: string | undefined, end: string | undefined): number | undefined {
  if (!start || !end) return undefined;
  const d = Date.parse(end) - Date.parse(start);
  return Number.isFinite(d) && d >= 0 ? d : undefined;
}

/** A usage amount as people read it: 2000000 → 2,000,000, 0.8999999 → 0.9. */
export function formatAmount(v: number): string {
  return Number.isInteger(v)
    ? formatInt(v)
    : v.toLocaleString("en-US", { maximumFractionDigits: 4 });
}

/** Each usage total against its bound, when the run has one: `tokens 1,200 of 2,000,000`. */
export function usageText(r: Receipt, key: (k: string) => string): string {
  const limits = r.bound?.usage ?? {};
  return [...new Set([...Object.keys(r.usage ?? {}), ...Object.keys(limits)])]
    .map(
      (k) =>
        `${key(k)} ${formatAmount(r.usage?.[k] ?? 0)}${limits[k] !== undefined ? ` of ${formatAmount(limits[k])}` : ""}`,
    )
    .join(", ");
}
