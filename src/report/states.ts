/**
 * How each state is shown. Every renderer pairs the glyph with the word, so neither
 * colour nor glyph is ever the only signal (a reader on a screen reader, in print or
 * colour-blind still tells `failed` from `blocked`).
 */
import { formatDuration as formatBoundDuration } from "../core/bound.js";
import type { AttemptOutcome, RunState, Status } from "../core/model.js";

export const STATUS_ICON: Readonly<Record<Status, string>> = {
  pending: "○",
  ready: "○",
  claimed: "●",
  complete: "✓",
  // `empty` ran and returned nothing: deliberately not a tick, never shown as done.
  empty: "◌",
  failed: "✗",
  blocked: "⊘",
  suspended: "⏸",
  limited: "⧗",
  cancelled: "–",
};

/** How an attempt ended: the state icons, plus `interrupted` (Ctrl-C, re-readied). */
export const ATTEMPT_ICON: Readonly<Record<AttemptOutcome, string>> = {
  complete: "✓",
  empty: "◌",
  failed: "✗",
  suspended: "⏸",
  limited: "⧗",
  cancelled: "–",
  interrupted: "↺",
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

export const RUN_STATE_ICON: Readonly<Record<RunState, string>> = {
  "not started": "○",
  running: "●",
  complete: "✓",
  failed: "✗",
  suspended: "⏸",
  limited: "⧗",
  cancelled: "–",
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
  let total: number | undefined;
  for (const a of attempts) {
    if (a.duration_ms !== undefined) total = (total ?? 0) + a.duration_ms;
  }
  return total;
}

export function formatInt(n: number): string {
  // the same text as toLocaleString("en-US") for whole numbers, without starting ICU's
  // number formatting (~15 ms, the first time, at the end of every run)
  if (Number.isSafeInteger(n) && !Object.is(n, -0))
    return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
  return n.toLocaleString("en-US");
}

/** Only http(s) links are ever rendered; anything else (javascript:, data:) is dropped. */
export function safeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  return parsed.href;
}
