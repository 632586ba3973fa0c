/**
 * `bound` values: a duration (`45s`, `30m`, `2h`, `1h30m`) is a ticket's timeout and
 * lease; any other text (`5 tool calls`) is passed to the executor untouched, and the
 * claim then holds for the default lease.
 */
import { type Bound, DEFAULTS } from "./model.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Milliseconds of a duration such as `90s` or `1h30m`; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const compact = text.trim().replace(/\s+/g, "");
  if (!DURATION.test(compact)) return undefined;
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(PART)) {
    total += Number(amount) * (UNIT_MS[unit as string] ?? 0);
  }
  return total > 0 ? Math.round(total) : undefined;
}

export function parseBound(raw: string, defaultLeaseMs: number = DEFAULTS.leaseMs): Bound {
  const timeoutMs = parseDuration(raw);
  return timeoutMs === undefined
    ? { raw, leaseMs: defaultLeaseMs }
    : { raw, timeoutMs, leaseMs: timeoutMs };
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
