/**
 * The one client factory: Octokit with the retry and throttling plugins, pointed at
 * GITHUB_API_URL. Every function that talks to GitHub takes the client it returns, so
 * the tests point the same code at a local fake.
 *
 * Known API answers are matched to named constants here, once; everything else is
 * reported with GitHub's own message.
 */
import { retry } from "@octokit/plugin-retry";
import { type ThrottlingOptions, throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import Bottleneck from "bottleneck";
import { errnoCode, errorText } from "../core/errors.js";

const FrontierOctokit = Octokit.plugin(retry, throttling);
export type GitHub = InstanceType<typeof FrontierOctokit>;

export interface ClientOptions {
  token: string;
  /** GITHUB_API_URL; https://api.github.com when unset */
  baseUrl?: string;
  /**
   * Tests only: no 1 s spacing between writes and millisecond back-offs, so a test
   * against a local fake does not sleep. GitHub's own limits are honoured either way.
   */
  fast?: boolean;
  /** called for every rate-limit wait, so the log says why a step paused */
  log?: (message: string) => void;
}

/** Each retry of a secondary rate limit or a primary limit waits as GitHub says. */
const MAX_RATE_LIMIT_RETRIES = 4;
/** A primary budget that comes back within a minute is waited for; a longer one is not. */
const MAX_PRIMARY_WAIT_S = 60;
/** GitHub asks for a minute or so after a secondary limit: honoured, up to five. */
const MAX_SECONDARY_WAIT_S = 300;

export function createGitHub(options: ClientOptions): GitHub {
  const log = options.log ?? (() => {});
  const fast = options.fast === true;
  const onLimit =
    (what: string, longestWaitS: number) =>
    (
      retryAfter: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      if (retryAfter > longestWaitS) {
        // An hour's budget spent: waiting for it would hold the runner for up to an hour.
        // The step says so plainly and the run resumes on the next event or sweep.
        log(`GitHub ${what} on ${request.method} ${request.url}: resets in ${retryAfter}s`);
        return false;
      }
      log(
        `GitHub ${what} on ${request.method} ${request.url}: waiting ${retryAfter}s (retry ${retryCount + 1})`,
      );
      return retryCount < MAX_RATE_LIMIT_RETRIES;
    };
  const throttle: ThrottlingOptions = {
    onRateLimit: onLimit("rate limit", MAX_PRIMARY_WAIT_S),
    onSecondaryRateLimit: onLimit("secondary rate limit", MAX_SECONDARY_WAIT_S),
  };
  if (fast) {
    // Own limiter groups, so no module-wide 1 s / 3 s spacing between writes in tests.
    throttle.retryAfterBaseValue = 5;
    throttle.fallbackSecondaryRateRetryAfter = 1;
    throttle.write = new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 });
    throttle.notifications = new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 });
  }
  return new FrontierOctokit({
    auth: options.token,
    baseUrl: (options.baseUrl ?? "https://api.github.com").replace(/\/+$/, ""),
    userAgent: "ticket-frontier",
    throttle,
    // 429 is left to the throttling plugin, which waits as `retry-after` says.
    retry: {
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
      ...(fast ? { retryAfterBaseValue: 5 } : {}),
    },
    log: {
      debug: () => {},
      info: () => {},
      warn: (m: string) => log(m),
      error: (m: string) => log(m),
    },
  });
}

/** An error from GitHub as the action reports it: status and GitHub's own message. */
export interface ApiFailure {
  /** the HTTP status; 200 for a GraphQL answer that carries errors */
  status: number;
  message: string;
  /** GraphQL error types (STALE_DATA, RATE_LIMITED, NOT_FOUND, FORBIDDEN, …) */
  types?: string[];
}

export function apiFailure(error: unknown): ApiFailure | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as {
    status?: unknown;
    message?: unknown;
    errors?: unknown;
    response?: { data?: unknown };
  };
  // A GraphQL answer with errors (HTTP 200): GraphqlResponseError carries them
  const dataErrors = (e.response?.data as { errors?: unknown } | undefined)?.errors;
  const gqlErrors = [e.errors, dataErrors].find(Array.isArray);
  if (typeof e.status !== "number" && gqlErrors) {
    const list = gqlErrors as Array<{ type?: unknown; message?: unknown }>;
    return {
      status: 200,
      message: list.map((x) => String(x.message ?? "")).join("; "),
      types: list.map((x) => String(x.type ?? "")).filter(Boolean),
    };
  }
  if (typeof e.status !== "number") return undefined;
  const data = e.response?.data as { message?: unknown; errors?: unknown } | undefined;
  let message = typeof data?.message === "string" ? data.message : String(e.message ?? "");
  if (Array.isArray(data?.errors) && data.errors.length > 0) {
    const details = data.errors
      .map((x) => (typeof x === "string" ? x : typeof x?.message === "string" ? x.message : ""))
      .filter(Boolean);
    if (details.length > 0) message = `${message}: ${details.join("; ")}`;
  }
  return { status: e.status, message };
}

/**
 * Every answer GitHub gives when a compare-and-swap write lost its race: the branch
 * moved (422 "Update is not a fast forward"), the ref was being written by someone else
 * (422 "Reference cannot be updated", "Reference update failed"), or GraphQL's
 * expected-head check failed (STALE_DATA, "Expected branch to point to …"). Each means:
 * re-read and re-apply, never "give up".
 */
const CONFLICT =
  /fast[ -]forward|reference cannot be updated|reference update failed|expected branch to point to|head (?:oid|sha) .*(?:did not match|mismatch)/i;

export const isConflict = (error: unknown): boolean =>
  answered(error, [422, 409, 200], CONFLICT, "STALE_DATA");

/** GitHub answered with a GraphQL error of `type`, or one of `statuses` with a message `pattern` matches. */
function answered(error: unknown, statuses: number[], pattern: RegExp, type?: string): boolean {
  const f = apiFailure(error);
  if (!f) return false;
  if (type !== undefined && f.types?.includes(type)) return true;
  return statuses.includes(f.status) && pattern.test(f.message);
}

/**
 * An answer that says nothing about whether the request took effect: a 5xx, a timeout or a
 * connection that died. A write that got one may have landed.
 */
export function isUnclear(error: unknown): boolean {
  const f = apiFailure(error);
  if (f) return f.status >= 500 || (f.status === 200 && UNCLEAR_GRAPHQL.test(f.message));
  if (!(error instanceof Error)) return false;
  const code = errnoCode(error) ?? errnoCode(error.cause) ?? "";
  return (
    error.name === "AbortError" ||
    /^(ECONNRESET|ETIMEDOUT|ECONNREFUSED|EPIPE|EAI_AGAIN|UND_ERR_)/.test(code) ||
    /fetch failed|socket hang up|network|timed? ?out/i.test(error.message)
  );
}

/** GraphQL answers (HTTP 200) that say the operation may not have finished. */
const UNCLEAR_GRAPHQL = /something went wrong|timeout|timed out|try again later|internal/i;

/** Which budget ran out, and when it comes back. */
export interface RateLimitSpent {
  /** "core" (REST) or "graphql" */
  resource: string;
  /** when GitHub restores it (ms since the epoch), when it said */
  resetAt?: number;
  secondary: boolean;
}

/** A primary or secondary rate limit GitHub answered with, after the client's own waits. */
export function rateLimitOf(error: unknown): RateLimitSpent | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as {
    status?: number;
    message?: string;
    response?: { headers?: Record<string, string | undefined>; data?: unknown };
  };
  const headers = e.response?.headers ?? {};
  const f = apiFailure(error);
  // a GraphQL answer's error types (`errors`, on the error or in its response) are apiFailure's
  const graphqlLimited =
    (f?.types ?? []).includes("RATE_LIMITED") ||
    /GraphQL Rate Limit Exceeded/i.test(e.message ?? "");
  const secondary = /secondary rate limit/i.test(`${f?.message ?? ""} ${e.message ?? ""}`);
  const primary =
    graphqlLimited ||
    ((e.status === 403 || e.status === 429) &&
      (headers["x-ratelimit-remaining"] === "0" ||
        /API rate limit exceeded/i.test(f?.message ?? "")));
  if (!primary && !secondary) return undefined;
  const reset = Number(headers["x-ratelimit-reset"]);
  const retryAfter = Number(headers["retry-after"]);
  const resetAt =
    Number.isFinite(reset) && reset > 0
      ? reset * 1000
      : Number.isFinite(retryAfter) && retryAfter > 0
        ? Date.now() + retryAfter * 1000
        : undefined;
  return {
    resource: headers["x-ratelimit-resource"] ?? (graphqlLimited ? "graphql" : "core"),
    ...(resetAt !== undefined ? { resetAt } : {}),
    secondary: secondary && !primary,
  };
}

/**
 * A write to the branch that GitHub will never take from this token: branch protection,
 * a ruleset, or a token without `contents: write`.
 */
export const isPushRefused = (error: unknown): boolean =>
  answered(
    error,
    [403, 422, 200, 409],
    /protected branch|rule violations?|repository rule|ruleset|resource not accessible by integration|push declined|not authorized to push|permission to .* denied|must not contain merge commits|changes must be made through a pull request/i,
    "FORBIDDEN",
  );

/** A dispatch refused because the server does not know `return_run_details`. */
export const isReturnRunDetailsUnsupported = (error: unknown): boolean =>
  answered(
    error,
    [400, 422],
    /return_run_details|unexpected|not (a )?(permitted|allowed)|invalid (request|input)/i,
  );

/** 4xx other than rate limits: GitHub refused, and will refuse again. */
export function isRefusal(error: unknown): boolean {
  const f = apiFailure(error);
  return f !== undefined && f.status >= 400 && f.status < 500 && f.status !== 429;
}

/** GitHub's message for the log and for a failed attempt's reason. */
export function describeApiError(error: unknown): string {
  const f = apiFailure(error);
  return f ? `GitHub answered ${f.status}: ${f.message}` : errorText(error);
}

/** "GitHub's REST rate limit for this token is spent (resets 10:42 UTC, in 18 min)" */
export function budgetWords(limit: RateLimitSpent | undefined, now: number): string {
  if (!limit) return "GitHub's rate limit is spent";
  if (limit.secondary)
    return "GitHub's secondary rate limit (content-creating requests) stopped it";
  const budget = limit.resource === "graphql" ? "GraphQL" : "REST";
  const when = limit.resetAt
    ? ` (resets ${new Date(limit.resetAt).toISOString().slice(11, 16)} UTC, in ${Math.max(1, Math.round((limit.resetAt - now) / 60_000))} min)`
    : "";
  return `GitHub's ${budget} rate limit for this token is spent${when}`;
}

/** An error in words for the log: a spent budget as the budget, else its message. */
export function describeError(error: unknown, now: number): string {
  const limit = rateLimitOf(error);
  return limit ? budgetWords(limit, now) : errorText(error);
}

/**
 * What GitHub refused or did not answer (an API failure, a lost answer), as opposed to
 * a bug in our own code: optional work that meets it is left for the next event.
 */
export function isTransient(error: unknown): boolean {
  return apiFailure(error) !== undefined || isUnclear(error);
}

/** Request option: the retry plugin must not send this request again. */
export const NO_RETRY = { request: { retries: 0 } } as const;

/**
 * A POST that creates something (a comment, an issue), never re-sent blindly: a 5xx or a
 * lost connection may come from a request that did take effect, and sending it again
 * would make a second one. On such an unclear answer `existing()` looks for what it
 * would have made; only when there is none is it sent once more. GitHub's refusals (4xx)
 * are thrown as they are.
 */
export async function createOnce<T>(
  create: () => Promise<T>,
  existing: () => Promise<T | undefined>,
): Promise<T> {
  try {
    return await create();
  } catch (error) {
    const status = apiFailure(error)?.status;
    if (status !== undefined && status < 500) throw error;
    return (await existing()) ?? (await create());
  }
}
