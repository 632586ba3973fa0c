/**
 * Octokit options that make the retry and throttling plugins fast in tests without
 * switching them off: waits are scaled from seconds to milliseconds and the write and
 * notification queues lose their 1 s / 3 s spacing. Behaviour (what is retried, when
 * the handlers are called) is unchanged.
 */
// plugin-throttling's dependency (it uses the light build; the Group API is the same).
import Bottleneck from "bottleneck";

export interface RateLimitEvent {
  kind: "primary" | "secondary";
  retryAfter: number;
  method: string;
  url: string;
  retryCount: number;
}

export function fastClientOptions(
  options: {
    /** how many times a rate-limited request is retried; default 3 */
    retries?: number;
    /** called on every rate-limit hit, to count them */
    onLimit?: (event: RateLimitEvent) => void;
  } = {},
) {
  const retries = options.retries ?? 3;
  const handler =
    (kind: RateLimitEvent["kind"]) =>
    (
      retryAfter: number,
      req: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      options.onLimit?.({ kind, retryAfter, method: req.method, url: req.url, retryCount });
      return retryCount < retries;
    };
  return {
    throttle: {
      retryAfterBaseValue: 1,
      fallbackSecondaryRateRetryAfter: 1,
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
      onRateLimit: handler("primary"),
      onSecondaryRateLimit: handler("secondary"),
    },
    retry: { retryAfterBaseValue: 1 },
  };
}

/** An Octokit `log` that stays silent (Octokit warns on every 4xx by default). */
export const quietLog = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
