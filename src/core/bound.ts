/**
 * `bound` values: a duration (`45s`, `30m`, `2h`, `1h30m`, `1h 30 min`, `1.5s`, `1200ms`) is a
 * ticket's timeout and lease; any other text (`5 tool calls`) is passed to the executor
 * untouched, and the claim then holds for the default lease. The one parser of durations:
 * ticket fields, frontier.yml and the runner all read them here.
 */
import { DEFAULTS } from "./constants.js";
import type { Bound } from "./model.js";

/** Each unit's length, by every spelling of it. */
const UNIT_MS: Record<string, number> = Object.fromEntries(
  (
    [
      [1, ["ms", "msec", "msecs", "millisecond", "milliseconds"]],
      [1000, ["s", "sec", "secs", "second", "seconds"]],
      [60_000, ["m", "min", "mins", "minute", "minutes"]],
      [3_600_000, ["h", "hr", "hrs", "hour", "hours"]],
      [86_400_000, ["d", "day", "days"]],
    ] as const
  ).flatMap(([ms, names]) => names.map((name) => [name, ms])),
);

const PART = /(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gy;

/**
 * Milliseconds of a duration such as `45s`, `30m`, `2h`, `1h30m`, `1h 30 min` or `1200ms`;
 * undefined when the text is not a duration (then it is an effort budget in words,
 * such as `5 tool calls`, passed on to the executor as written).
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (s === "") return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let m = PART.exec(s); m !== null; m = PART.exec(s)) {
    const unit = UNIT_MS[m[2]!];
    if (unit === undefined) return undefined;
    total += Number(m[1]) * unit;
    end = PART.lastIndex;
  }
  return end === s.length ? Math.round(total) : undefined;
}

const NUMBER_WORD =
  "a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|forty-five|fifty|sixty|ninety|half|few|couple of|several";
const UNIT_WORD =
  "milliseconds?|msecs?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?";
const SPELLED = new RegExp(
  `(?:^|[^a-z0-9])(\\d+(?:\\.\\d+)?|${NUMBER_WORD})[\\s-]*(${UNIT_WORD})(?![a-z])`,
);
/** `1h30`, `2m30`: a number after the last unit, whose unit is left to guess. */
const UNITLESS_TAIL = /^(?:\d+(?:\.\d+)?\s*[a-z]+\s*)+\d+$/;

/**
 * What to write instead of text that is not a duration but reads like one: `1h30` is
 * missing its last `unit` (`write` it whole); `about 10 minutes` holds a duration to
 * write alone; `half an hour`, `2 weeks` are to be written in `digits` and units.
 */
export type DurationHint =
  | { kind: "unit" | "duration"; write: string }
  | { kind: "digits"; write?: undefined };

/**
 * For text that is not a duration but reads like one: what to write instead (the
 * tickets layer words it). Such a `bound` would otherwise set no timeout without a word.
 * Undefined for text that is a duration, and for a budget that names no time (`5 tool calls`).
 */
export function durationHint(text: string): DurationHint | undefined {
  const s = text.trim().toLowerCase();
  if (s === "" || parseDuration(s) !== undefined) return undefined;
  if (UNITLESS_TAIL.test(s))
    return { kind: "unit", write: `${s}${/h\s*\d+$/.test(s) ? "m" : "s"}` };
  const m = SPELLED.exec(s);
  if (m === null) return undefined;
  const [, amount, unit] = m as unknown as [string, string, string];
  const ms = /^\d/.test(amount) ? parseDuration(`${amount} ${unit}`) : undefined;
  return ms !== undefined && ms > 0
    ? { kind: "duration", write: formatDuration(ms) }
    : { kind: "digits" };
}

/**
 * The longest duration a bound may be: a year. Longer is refused where it is written
 * (a ticket's `bound`, `ticket_bound`, `bound.duration`), never found out mid-run.
 */
export const MAX_DURATION_MS = 365 * 86_400_000;
export const MAX_DURATION_TEXT = "365d";

/**
 * What is wrong with a bound's text, wherever it is written (a ticket's `bound`,
 * `ticket_bound`, `bound.duration`): a duration of zero, one past MAX_DURATION_MS, or —
 * where only a duration will do (`durationOnly`: `bound.duration`) — text that is none.
 */
export type BoundProblem = "zero" | "too-long" | "not-a-duration";

export function boundProblem(text: string, durationOnly = false): BoundProblem | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) return durationOnly ? "not-a-duration" : undefined;
  if (ms === 0) return "zero";
  return ms > MAX_DURATION_MS ? "too-long" : undefined;
}

/** A ticket's (or the run's default) `bound`: a duration is its timeout and lease. */
export function parseBound(raw: string, defaultLeaseMs: number = DEFAULTS.leaseMs): Bound {
  const ms = parseDuration(raw);
  if (ms !== undefined && ms > 0) return { raw, timeoutMs: ms, leaseMs: ms };
  return { raw, leaseMs: defaultLeaseMs };
}

/**
 * The bound a ticket runs under: its own, else the run's `ticket_bound` (the engine's rule,
 * for a runner that has the ticket files but no engine).
 */
export function ticketBoundOf(
  spec: { bound?: Bound } | undefined,
  ticketBound: string | undefined,
): Bound | undefined {
  return spec?.bound ?? (ticketBound === undefined ? undefined : parseBound(ticketBound));
}

/** `90000` → `1m30s`, for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return [h ? `${h}h` : "", m ? `${m}m` : "", sec || (!h && !m) ? `${sec}s` : ""].join("");
}
