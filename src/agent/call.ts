/**
 * One attempt's model call: `POST <endpoint>/chat/completions`, once — again only when
 * the endpoint answered nothing usable yet (a rate limit's `retry-after`, a transient
 * 5xx or network reset, a model that refuses the JSON schema format), and only within
 * the ticket's bound. Every way it can go wrong ends in an outcome whose reason says
 * what to change; nothing here throws.
 */

import { errnoCode, errorText } from "../core/errors.js";
import { readJson } from "../core/json.js";
import type { AgentConfig } from "./config.js";
import {
  type Ask,
  chatRequest,
  excerpt,
  type ModelOutcome,
  readCompletion,
  usageOf,
} from "./protocol.js";
import {
  isTransient,
  noAnswer,
  rateLimit,
  rateLimitReason,
  refusalReason,
  refusesSchemaFormat,
} from "./refusals.js";

export interface CallDeps {
  fetch: typeof fetch;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** How long the attempt may take, from the ticket's bound (FRONTIER_BOUND). */
export interface Budget {
  /** when the outcome must be written: the bound, less a margin for writing it */
  deadline: number;
  /** the bound was a duration */
  bounded: boolean;
  /** the bound as written, for messages */
  boundText: string;
}

/** Without a duration bound, the agent gives its call at most this long. */
export const UNBOUNDED_MS = 10 * 60_000;
/** A wait is taken only if at least this much of the bound is left after it. */
const MIN_REQUEST_MS = 1000;
/** Transient failures (5xx, a reset connection) tried again, at most. */
const TRANSIENT_TRIES = 2;
/** Requests in all, at most (rate limits that keep asking for a wait of 0). */
const MAX_REQUESTS = 12;
/** The most of an answer that is read: a completion is far smaller; more is not kept in memory. */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The body's text, or undefined when it is larger than MAX_ANSWER_BYTES (then it is not read on). */
async function boundedText(res: Response): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const value of res.body ?? []) {
    bytes += value.byteLength;
    // leaving the loop cancels the rest of the body
    if (bytes > MAX_ANSWER_BYTES) return undefined;
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The time an attempt has: until the ticket's bound runs out — at `deadline`
 * ($FRONTIER_DEADLINE: the claim's time plus the bound, which on GitHub is earlier than this
 * step's start by however long the job took to start), else `boundMs` from `startedAt` —
 * less min(5 s, a fifth of the bound) to write the outcome; without a duration bound,
 * UNBOUNDED_MS from `startedAt`.
 */
export function budgetOf(
  boundMs: number | undefined,
  boundText: string,
  startedAt: number,
  deadline?: string,
): Budget {
  if (boundMs === undefined || boundMs <= 0) {
    return { deadline: startedAt + UNBOUNDED_MS, bounded: false, boundText };
  }
  const at = deadline === undefined || deadline === "" ? Number.NaN : Date.parse(deadline);
  const end = Number.isNaN(at) ? startedAt + boundMs : at;
  return { deadline: end - Math.min(5000, boundMs / 5), bounded: true, boundText };
}

/** Network errors in words; `again`: worth a second try (the rest are configuration). */
const NETWORK: Record<string, { words?: string; again?: true }> = {
  ECONNREFUSED: { words: "connection refused" },
  ENOTFOUND: { words: "no such host" },
  EAI_AGAIN: { words: "the host's name could not be looked up", again: true },
  ECONNRESET: { words: "the connection was reset", again: true },
  ETIMEDOUT: { words: "the connection timed out", again: true },
  EPIPE: { again: true },
  UND_ERR_SOCKET: { again: true },
  UND_ERR_CLOSED: { again: true },
  CERT_HAS_EXPIRED: { words: "its certificate has expired" },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { words: "its certificate could not be verified" },
};

/** What a request came to: the endpoint's answer (its text undefined past MAX_ANSWER_BYTES), or why there is none. */
type Sent =
  | { kind: "answer"; status: number; headers: Headers; text: string | undefined }
  | { kind: "timeout" }
  | { kind: "network"; code: string };

async function post(config: AgentConfig, body: unknown, ms: number, deps: CallDeps): Promise<Sent> {
  try {
    const res = await deps.fetch(config.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${config.key}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    });
    const text = await boundedText(res);
    return { kind: "answer", status: res.status, headers: res.headers, text };
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
      return { kind: "timeout" };
    const cause = error instanceof Error ? error.cause : undefined;
    const said = errorText(cause instanceof Error ? cause : error);
    return { kind: "network", code: errnoCode(cause) ?? errnoCode(error) ?? excerpt(said, 120) };
  }
}

/** A 2xx answer as the ticket's outcome, with the completion's usage. */
function answered(config: AgentConfig, status: number, text: string): ModelOutcome {
  const body = readJson(text);
  if (!body.ok) {
    return {
      status: "failed",
      reason: `${config.endpoint} answered ${status} with something that is not JSON (it began "${excerpt(text, 80)}"): check that --endpoint is the base URL of an OpenAI-compatible API`,
    };
  }
  const outcome = readCompletion(body.value);
  const usage = usageOf(body.value);
  return usage === undefined ? outcome : { ...outcome, usage };
}

/** The attempt's outcome: one request, asked again only as the module's comment says. */
export async function callModel(
  config: AgentConfig,
  context: string,
  ask: Ask,
  budget: Budget,
  deps: CallDeps,
): Promise<ModelOutcome> {
  let structured = true;
  let tokensKey: Ask["tokensKey"] = "max_tokens";
  let transient = 0;
  let requests = 0;
  const failed = (reason: string): ModelOutcome => ({ status: "failed", reason });
  // whatever an endpoint echoes back, no reason, result or question holds the key, whole or
  // cut short; files are written from the answer as sent (a key under 8 characters is left alone)
  const redact = (t: string) => (config.key.length < 8 ? t : t.split(config.key).join("***"));
  /** waits `ms` if the bound leaves room for a request after it */
  const waitFits = async (ms: number): Promise<boolean> => {
    if (deps.now() + ms + MIN_REQUEST_MS > budget.deadline) return false;
    await deps.sleep(ms);
    return true;
  };
  const backoff = () => 1000 * 2 ** transient;
  /** another try after a back-off, when a transient failure has tries left and the bound room */
  const again = async (): Promise<boolean> => {
    if (transient >= TRANSIENT_TRIES || !(await waitFits(backoff()))) return false;
    transient++;
    return true;
  };

  for (;;) {
    if (requests >= MAX_REQUESTS) return failed(noAnswer.tooMany(config, requests));
    const left = budget.deadline - deps.now();
    requests++;
    const request = chatRequest(config.model, context, structured, { ...ask, tokensKey });
    const sent =
      left <= 0 ? ({ kind: "timeout" } as const) : await post(config, request, left, deps);
    if (sent.kind === "timeout") return failed(noAnswer.timeout(config, budget, UNBOUNDED_MS));
    if (sent.kind === "network") {
      const known = NETWORK[sent.code];
      if (known?.again && (await again())) continue;
      return failed(noAnswer.unreachable(config, sent.code, known?.words));
    }
    const { status } = sent;
    if (sent.text === undefined) return failed(noAnswer.tooLarge(config, status, MAX_ANSWER_BYTES));
    const text = redact(sent.text);
    if (status >= 200 && status < 300) {
      const o = answered(config, status, sent.text);
      if (o.status === "failed") return answered(config, status, text);
      for (const k of ["result", "question"] as const) if (o[k] !== undefined) o[k] = redact(o[k]);
      return o;
    }
    if (status === 429) {
      const limit = rateLimit(sent.headers, text, deps.now());
      if (await waitFits(limit.waitMs ?? backoff())) {
        if (limit.waitMs === undefined) transient++;
        continue;
      }
      return failed(
        rateLimitReason(limit, config, { ...budget, leftMs: budget.deadline - deps.now() }),
      );
    }
    if (
      ask.maxTokens !== undefined &&
      tokensKey === "max_tokens" &&
      /max_completion_tokens/.test(text)
    ) {
      // a model that takes only the newer name for the output cap (OpenAI's reasoning models)
      tokensKey = "max_completion_tokens";
      continue;
    }
    if (structured && refusesSchemaFormat(status, text)) {
      // the same request, with the shape in the instructions only: one answer still
      structured = false;
      continue;
    }
    if (isTransient(status) && (await again())) continue;
    return failed(refusalReason(status, text, config));
  }
}
