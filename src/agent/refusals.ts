/**
 * An endpoint's refusal, in words that say what to change. Pure: the status, the
 * headers and the body text of an answer in, a reason (or, for a rate limit, how long
 * to wait and which limit) out.
 */
import { formatDuration } from "../core/bound.js";
import { readJson } from "../core/json.js";
import type { AgentConfig } from "./config.js";
import { excerpt } from "./protocol.js";

/** The endpoint's own words: `error.message` (OpenAI, GitHub Models), `message`, else the text. */
export function endpointMessage(bodyText: string): string {
  const read = readJson(bodyText);
  const body = read.ok
    ? (read.value as { error?: { message?: unknown } | string; message?: unknown })
    : undefined;
  const e = body?.error;
  for (const said of [e, typeof e === "object" ? e?.message : undefined, body?.message])
    if (typeof said === "string" && said.trim() !== "") return excerpt(said, 300);
  // not JSON: its text, if any
  return excerpt(bodyText, 300);
}

/**
 * Whether a 400 refuses the JSON schema response format (some models and endpoints do):
 * then the same request goes again with the shape in the instructions only.
 */
export function refusesSchemaFormat(status: number, bodyText: string): boolean {
  return (
    (status === 400 || status === 422) &&
    /response_format|json_schema|structured output|response format/i.test(bodyText)
  );
}

/** Transient: worth another try within the ticket's bound. */
export function isTransient(status: number): boolean {
  return status === 408 || status === 409 || status >= 500;
}

/** Why an attempt has no answer to read, in words that say what to change. */
export const noAnswer = {
  timeout: (c: AgentConfig, b: { bounded: boolean; boundText: string }, unboundedMs: number) =>
    `timeout: no answer from ${c.endpoint} (model ${c.model}) within ${
      b.bounded
        ? `the ticket's bound (${b.boundText})`
        : `${formatDuration(unboundedMs)} (the ticket has no duration bound)`
    } — raise the bound, or choose a faster model`,
  unreachable: (c: AgentConfig, code: string, words: string | undefined) =>
    `could not reach ${c.endpoint} (${words ? `${code}: ${words}` : code}): check the endpoint's URL (--endpoint, or model_endpoint in frontier.yml) and that this machine can reach it`,
  tooLarge: (c: AgentConfig, status: number, max: number) =>
    `${c.endpoint} answered ${status} with more than ${max / 1024 / 1024} MiB: check that --endpoint is the base URL of an OpenAI-compatible API`,
  tooMany: (c: AgentConfig, requests: number) =>
    `${c.endpoint} kept asking to try again (${requests} requests for model ${c.model}): retry the ticket later`,
};

/** The reason a refusal fails the attempt with (not for 429: see rateLimit). */
export function refusalReason(status: number, bodyText: string, c: AgentConfig): string {
  // "403: <message>": what the endpoint said, shortly
  const message = endpointMessage(bodyText);
  const what = message === "" ? `${status}` : `${status}: ${message}`;
  if (status === 401 || status === 403) {
    if (c.githubModels) {
      return `GitHub Models refused the token in $${c.keyEnv} (${what}): on GitHub the orch-task workflow needs \`permissions: models: read\` (and GitHub Models allowed for the repository's owner); locally, use a token that may use GitHub Models — a fine-grained token with the Models: read permission, or \`gh auth token\``;
    }
    return status === 401
      ? `${c.endpoint} refused the key in $${c.keyEnv} (${what}): set $${c.keyEnv} to a valid API key for this endpoint, or name the variable that holds one with --key-env`
      : `${c.endpoint} refused the key in $${c.keyEnv} for model ${c.model} (${what}): give the key access to this model, or choose a model it may use`;
  }
  if (status === 404) {
    return `model ${JSON.stringify(c.model)} (from ${c.modelFrom}) was not found at ${c.endpoint} (${what}): check its name${
      c.githubModels
        ? " — GitHub Models names models publisher/name, e.g. openai/gpt-4.1-mini (its catalog lists them)"
        : ", and that --endpoint is the API's base URL (requests go to <endpoint>/chat/completions)"
    }`;
  }
  if (
    status === 413 ||
    /tokens?_limit|context.length|too (many|large)|maximum context/i.test(what)
  ) {
    return `the ticket's context is larger than model ${c.model} takes in one request (${what}): pass fewer results on (\`inputs:\`), split the ticket, or choose a model with a larger context`;
  }
  if (status === 400 || status === 422) {
    return `${c.endpoint} refused the request for model ${c.model} (${what}): check that the model takes chat completions`;
  }
  if (status >= 500) {
    return `${c.endpoint} failed to answer (${what}), also when asked again: retry the ticket later`;
  }
  return `${c.endpoint} refused the request for model ${c.model} (${what})`;
}

/** A 429's wait and the limit it names. */
export interface RateLimit {
  /** how long the endpoint asks to wait, when it says */
  waitMs?: number;
  /** which limit, in the endpoint's words when it names one */
  limit: string;
}

type Headers = { get(name: string): string | null };

/** When to try again, from `retry-after` (seconds or a date) or `retry-after-ms`. */
function retryAfterMs(headers: Headers, now: number): number | undefined {
  const count = (v: string | null | undefined, ms: number) =>
    v != null && /^\d+(\.\d+)?$/.test(v.trim()) ? Math.ceil(Number(v) * ms) : undefined;
  const after = headers.get("retry-after")?.trim() ?? "";
  const at = Date.parse(after);
  return (
    count(headers.get("retry-after-ms"), 1) ??
    count(after, 1000) ??
    (Number.isNaN(at) ? undefined : Math.max(0, at - now))
  );
}

export function rateLimit(headers: Headers, bodyText: string, now: number): RateLimit {
  const waitMs = retryAfterMs(headers, now);
  // GitHub Models names it (UserByModelByMinute, UserByModelByDay, …); OpenAI says which
  // budget is spent by its remaining counts
  const spent = (what: string) => headers.get(`x-ratelimit-remaining-${what}`)?.trim() === "0";
  const limit =
    headers.get("x-ratelimit-type")?.trim() ||
    (spent("tokens") && "tokens per minute") ||
    (spent("requests") && "requests per minute") ||
    endpointMessage(bodyText) ||
    "a rate limit";
  return waitMs === undefined ? { limit } : { waitMs, limit };
}

/** Why a rate limit fails the attempt: it asks for a wait the ticket's bound does not allow. */
export function rateLimitReason(
  r: RateLimit,
  c: AgentConfig,
  budget: { boundText: string; leftMs: number; bounded: boolean },
): string {
  const who = c.githubModels ? "GitHub Models" : c.endpoint;
  const wait =
    r.waitMs === undefined
      ? "it did not say when to try again"
      : `it asks to wait ${formatDuration(r.waitMs)}`;
  const room = budget.bounded
    ? `the ticket's bound (${budget.boundText}) leaves ${formatDuration(Math.max(0, budget.leftMs))}`
    : `without a duration bound frontier agent waits at most ${formatDuration(budget.leftMs)}`;
  return `rate limited by ${who} for model ${c.model} (limit: ${r.limit}): ${wait}, and ${room} — retry the ticket later, raise its bound, or choose a model with another limit (\`model:\`)`;
}
