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
  userAgent?: string;
}

/** Each retry of a secondary rate limit or a primary limit waits as GitHub says. */
const MAX_RATE_LIMIT_RETRIES = 4;

export function createGitHub(options: ClientOptions): GitHub {
  const log = options.log ?? (() => {});
  const fast = options.fast === true;
  const onLimit =
    (what: string) =>
    (
      retryAfter: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      log(
        `GitHub ${what} on ${request.method} ${request.url}: waiting ${retryAfter}s (retry ${retryCount + 1})`,
      );
      return retryCount < MAX_RATE_LIMIT_RETRIES;
    };
  const throttle: ThrottlingOptions = {
    onRateLimit: onLimit("rate limit"),
    onSecondaryRateLimit: onLimit("secondary rate limit"),
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
    userAgent: options.userAgent ?? "ticket-frontier",
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
  status: number;
  message: string;
}

export function apiFailure(error: unknown): ApiFailure | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as { status?: unknown; message?: unknown; response?: { data?: unknown } };
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

/** The named answers the action acts on. */
export const API_ERRORS = {
  /** PATCH git/refs with force:false when the branch moved: re-read and re-apply */
  notFastForward: "not-fast-forward",
  /** the ref named does not exist (first commit to a branch that is gone) */
  refMissing: "ref-missing",
  /** POST …/dispatches answered 4xx: the attempt fails with GitHub's message */
  dispatchRefused: "dispatch-refused",
  /** an older server refuses `return_run_details`: retry once without it */
  returnRunDetailsUnsupported: "return-run-details-unsupported",
} as const;
export type ApiErrorName = (typeof API_ERRORS)[keyof typeof API_ERRORS];

/** A ref update refused because the branch moved on (422 "Update is not a fast forward"). */
export function isNotFastForward(error: unknown): boolean {
  const f = apiFailure(error);
  return (
    f !== undefined && (f.status === 422 || f.status === 409) && /fast[ -]forward/i.test(f.message)
  );
}

/** A dispatch refused because the server does not know `return_run_details`. */
export function isReturnRunDetailsUnsupported(error: unknown): boolean {
  const f = apiFailure(error);
  return (
    f !== undefined &&
    (f.status === 400 || f.status === 422) &&
    /return_run_details|unexpected|not (a )?(permitted|allowed)|invalid (request|input)/i.test(
      f.message,
    )
  );
}

/** 4xx other than rate limits: GitHub refused, and will refuse again. */
export function isRefusal(error: unknown): boolean {
  const f = apiFailure(error);
  return f !== undefined && f.status >= 400 && f.status < 500 && f.status !== 429;
}

/** GitHub's message for the log and for a failed attempt's reason. */
export function describeApiError(error: unknown): string {
  const f = apiFailure(error);
  if (f) return `GitHub answered ${f.status}: ${f.message}`;
  return error instanceof Error ? error.message : String(error);
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
    const found = await existing();
    if (found !== undefined) return found;
    return await create();
  }
}
