export const id = 934;
export const ids = [934];
export const modules = {

/***/ 4934:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  agentStep: () => (/* binding */ agentStep)
});

// EXTERNAL MODULE: external "node:stream"
var external_node_stream_ = __webpack_require__(7075);
// EXTERNAL MODULE: ./node_modules/@actions/core/lib/core.js + 19 modules
var core = __webpack_require__(9433);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(6760);
// EXTERNAL MODULE: external "node:stream/consumers"
var consumers_ = __webpack_require__(8321);
// EXTERNAL MODULE: ./src/core/bound.ts
var bound = __webpack_require__(4831);
// EXTERNAL MODULE: ./src/core/errors.ts
var errors = __webpack_require__(4296);
// EXTERNAL MODULE: ./src/core/executor.ts
var executor = __webpack_require__(9774);
// EXTERNAL MODULE: ./src/core/settle.ts
var settle = __webpack_require__(7448);
// EXTERNAL MODULE: ./src/tickets/fields.ts
var fields = __webpack_require__(7764);
// EXTERNAL MODULE: ./src/tickets/problems.ts
var problems = __webpack_require__(1261);
// EXTERNAL MODULE: ./src/tickets/read-optional.ts
var read_optional = __webpack_require__(2114);
// EXTERNAL MODULE: ./src/tickets/settings-load.ts
var settings_load = __webpack_require__(5021);
// EXTERNAL MODULE: ./src/core/json.ts
var json = __webpack_require__(6153);
// EXTERNAL MODULE: ./src/report/escape.ts
var report_escape = __webpack_require__(6412);
;// CONCATENATED MODULE: ./src/agent/protocol.ts
/**
 * What the built-in agent says to a chat-completions model and how it reads the answer.
 * Pure: no request is made here (call.ts makes them).
 *
 * The model is asked for one JSON object — the ticket's outcome — by a JSON schema
 * (`response_format: json_schema`, strict) where the endpoint takes one, and by the
 * instructions alone where it refuses the format (the same shape is spelled out in the
 * system message, and the answer is checked the same way). Every answer is checked
 * against the shape before anything is written: a malformed answer fails the attempt,
 * and nothing the model did not say is ever passed off as its result.
 */


/** The outcomes a model may report (`limited` is the runner's word, not the model's). */
const MODEL_STATUSES = ["complete", "empty", "failed", "suspended"];
/** A property that may be null (strict structured outputs require every one). */
const orNull = (type, description) => ({ type: [type, "null"], description });
/**
 * The answer's JSON schema, strict as OpenAI's structured outputs want it: every property
 * required, unused ones `null`, nothing else allowed. The coding-agent recipes ask for the
 * same shape (examples/agents/), so one reader takes them all.
 */
const OUTCOME_SCHEMA = {
    type: "object",
    properties: {
        status: {
            type: "string",
            enum: [...MODEL_STATUSES],
            description: "complete: the task is done (result). empty: done, and there is nothing to report. failed: it cannot be done (reason). suspended: a decision only a maintainer can make is needed (question).",
        },
        result: orNull("string", "with complete: the work (what was found, or what was done) in markdown; else null"),
        question: orNull("string", "with suspended: one specific question for a maintainer; else null"),
        reason: orNull("string", "with failed: why, and what would make it possible; else null"),
    },
    required: ["status", "result", "question", "reason"],
    additionalProperties: false,
};
/** A coding ticket's answer: the outcome, and the whole files it writes and deletes. */
const CODING_SCHEMA = {
    ...OUTCOME_SCHEMA,
    properties: {
        ...OUTCOME_SCHEMA.properties,
        writes: {
            ...orNull("array", "files to write, each whole: repository-relative path and its full new text"),
            items: {
                type: "object",
                properties: { path: { type: "string" }, content: { type: "string" } },
                required: ["path", "content"],
                additionalProperties: false,
            },
        },
        deletes: {
            ...orNull("array", "repository-relative paths of files to delete"),
            items: { type: "string" },
        },
    },
    required: [...OUTCOME_SCHEMA.required, "writes", "deletes"],
};
/** The instructions; a coding ticket's say how to change files and add them to the shape. */
const systemPrompt = (coding) => `You are the agent of one ticket in a Ticket Frontier run: a graph of tickets, each a task, where a ticket runs once the tickets it depends on are done. The user message is the ticket's context: its task, the results of the tickets it depends on, any earlier questions with their maintainers' answers (those answers are final: act on them), and any review feedback on earlier attempts (do what the reviewer asks).

${coding ? CODING_PROMPT : "You have no tools and no access to files, the network or the repository: work only from the context."} Do the task and report its outcome as one JSON object, with no other text:

{"status": "complete" | "empty" | "failed" | "suspended", "result": string | null, "question": string | null, "reason": string | null${coding ? ', "writes": [{"path": string, "content": string}] | null, "deletes": [string] | null' : ""}}

- "complete": the task is done; "result" is the work itself (markdown), complete enough for the tickets that depend on this one.
- "empty": the task ran and there is nothing to report; "result" is null.
- "failed": the task cannot be done from this context; "reason" says why and what would make it possible.
- "suspended": a decision only a maintainer can make is needed before the task can be done; "question" is one specific question they can answer in a sentence. Ask only when guessing would be wrong; never ask again what an earlier answer settled.

Fields that do not apply are null.`;
/** What a coding ticket's instructions say instead of "you have no tools". */
const CODING_PROMPT = `You change files by answering with them: the user message ends with the ticket's write scope and the current text of the files in it. Put in "writes" each file you change, whole, as it should be after your change, and in "deletes" the files to remove, each path relative to the repository's top; both null when you change nothing. Write only inside the write scope: a path outside it fails the ticket. Say in "result" what you changed and why.`;
/** The request of one attempt; `structured`: with the JSON schema response format. */
function chatRequest(model, context, structured, ask = { coding: false }) {
    return {
        model,
        messages: [
            { role: "system", content: systemPrompt(ask.coding) },
            { role: "user", content: context },
        ],
        ...(ask.maxTokens !== undefined && { [ask.tokensKey ?? "max_tokens"]: ask.maxTokens }),
        ...(structured && {
            response_format: {
                type: "json_schema",
                json_schema: {
                    name: "ticket_outcome",
                    strict: true,
                    schema: ask.coding ? CODING_SCHEMA : OUTCOME_SCHEMA,
                },
            },
        }),
    };
}
const failed = (reason) => ({ status: "failed", reason });
/** A short, one-line excerpt of text the model or endpoint sent, for a reason. */
function excerpt(text, max = 160) {
    return (0,report_escape/* clip */.$Q)((0,report_escape/* oneLine */.TN)(text), max);
}
/** The token counts of a completion as the outcome's `usage` (`tokens` is the total). */
function usageOf(body) {
    const u = body?.usage;
    if (u === null || typeof u !== "object")
        return undefined;
    const count = (v) => typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
    const counts = {};
    for (const key of ["prompt_tokens", "completion_tokens"]) {
        const v = count(u[key]);
        if (v !== undefined)
            counts[key] = v;
    }
    const parts = Object.values(counts);
    const total = count(u.total_tokens) ?? (parts.length > 0 ? parts.reduce((a, b) => a + b) : undefined);
    return total === undefined ? undefined : { tokens: total, ...counts };
}
/** Answers the model did not finish, by their finish_reason. */
const STOPPED = {
    length: "the model's answer was cut off at its output limit (finish_reason: length): split the ticket into smaller ones, or choose a model with a larger output (or raise the run's usage bound, when it is nearly spent)",
    content_filter: "the endpoint's content filter stopped the model's answer (finish_reason: content_filter): reword the ticket",
};
/** What to change when a model will not keep to the shape. */
const KEEP_TO_SHAPE = "choose a model that answers in a JSON schema (structured outputs), e.g. openai/gpt-4.1-mini on GitHub Models";
/** An answer that does not keep to the shape: `what` is wrong with it. */
const offShape = (what) => failed(`the model's answer ${what}: ${KEEP_TO_SHAPE}`);
/**
 * The outcome of a chat completion's body (already parsed as JSON), or a failure that
 * says what was wrong with it. Usage is the caller's to add.
 */
function readCompletion(body) {
    const choice = body?.choices?.[0];
    if (typeof choice !== "object" || choice === null)
        return failed("the endpoint's answer is not a chat completion (it has no choices): check that --endpoint is the base URL of an OpenAI-compatible API");
    const message = choice.message ?? {};
    if (typeof message.refusal === "string" && message.refusal.trim() !== "")
        return failed(`the model refused the task: "${excerpt(message.refusal, 300)}" — reword the ticket, or choose another model`);
    const stopped = STOPPED[String(choice.finish_reason)];
    if (stopped !== undefined)
        return failed(stopped);
    const content = message.content;
    if (typeof content !== "string" || content.trim() === "")
        return offShape("is empty, not an outcome");
    return readAnswer(content);
}
/** The model's text as an outcome: one JSON object of the shape, else a failure. */
function readAnswer(content) {
    // a model without the schema format may still fence its JSON
    const text = content
        .trim()
        .replace(/^```(?:json)?\s*\n?/i, "")
        .replace(/\n?```$/, "")
        .trim();
    const read = (0,json/* readJson */.V)(text);
    if (!read.ok)
        return offShape(`is not JSON (it began "${excerpt(content, 80)}")`);
    const value = read.value;
    if (value === null || typeof value !== "object" || Array.isArray(value))
        return offShape("is JSON but not an object");
    const o = value;
    if (!MODEL_STATUSES.includes(o.status))
        return offShape(`has status ${JSON.stringify(o.status) ?? "undefined"}, not one of ${MODEL_STATUSES.join(", ")}`);
    for (const field of ["result", "question", "reason"]) {
        const v = o[field];
        if (v !== undefined && v !== null && typeof v !== "string")
            return offShape(`has a ${field} that is not text (${typeof v})`);
    }
    const edits = editsOf(o.writes, o.deletes);
    if (typeof edits === "string")
        return offShape(`has ${edits}`);
    const outcome = outcomeOf(o, o.status);
    return edits === undefined || outcome.status !== "complete" ? outcome : { ...outcome, edits };
}
/** The edits of an answer; undefined for none; a string says what is wrong with them. */
function editsOf(writes, deletes) {
    const w = writes ?? [];
    const d = deletes ?? [];
    if (!Array.isArray(w) ||
        !w.every((x) => typeof x?.path === "string" && typeof x?.content === "string"))
        return "writes that are not a list of {path, content}";
    if (!Array.isArray(d) || !d.every((x) => typeof x === "string"))
        return "deletes that are not a list of paths";
    return w.length + d.length === 0 ? undefined : { writes: w, deletes: d };
}
function outcomeOf(o, status) {
    const given = (field) => {
        const v = o[field];
        return typeof v === "string" && v.trim() !== "" ? v : undefined;
    };
    const [result, question, reason] = [given("result"), given("question"), given("reason")];
    // a complete without a result is empty: the runners' rule (core/settle.ts) decides it
    if (status === "complete" && result !== undefined)
        return { status, result };
    if (status === "failed")
        return {
            status,
            reason: reason
                ? `the model reported: ${reason}`
                : "the model reported failed and gave no reason",
        };
    if (status !== "suspended")
        return { status };
    return question === undefined
        ? failed(`the model asked to suspend the ticket but gave no question: ${KEEP_TO_SHAPE}`)
        : { status, question: question.trim() };
}

;// CONCATENATED MODULE: ./src/agent/refusals.ts
/**
 * An endpoint's refusal, in words that say what to change. Pure: the status, the
 * headers and the body text of an answer in, a reason (or, for a rate limit, how long
 * to wait and which limit) out.
 */



/** The endpoint's own words: `error.message` (OpenAI, GitHub Models), `message`, else the text. */
function endpointMessage(bodyText) {
    const read = (0,json/* readJson */.V)(bodyText);
    const body = read.ok
        ? read.value
        : undefined;
    const e = body?.error;
    for (const said of [e, typeof e === "object" ? e?.message : undefined, body?.message])
        if (typeof said === "string" && said.trim() !== "")
            return excerpt(said, 300);
    // not JSON: its text, if any
    return excerpt(bodyText, 300);
}
/**
 * Whether a 400 refuses the JSON schema response format (some models and endpoints do):
 * then the same request goes again with the shape in the instructions only.
 */
function refusesSchemaFormat(status, bodyText) {
    return ((status === 400 || status === 422) &&
        /response_format|json_schema|structured output|response format/i.test(bodyText));
}
/** Transient: worth another try within the ticket's bound. */
function isTransient(status) {
    return status === 408 || status === 409 || status >= 500;
}
/** Why an attempt has no answer to read, in words that say what to change. */
const noAnswer = {
    timeout: (c, b, unboundedMs) => `timeout: no answer from ${c.endpoint} (model ${c.model}) within ${b.bounded
        ? `the ticket's bound (${b.boundText})`
        : `${(0,bound/* formatDuration */.a3)(unboundedMs)} (the ticket has no duration bound)`} — raise the bound, or choose a faster model`,
    unreachable: (c, code, words) => `could not reach ${c.endpoint} (${words ? `${code}: ${words}` : code}): check the endpoint's URL (--endpoint, or model_endpoint in frontier.yml) and that this machine can reach it`,
    tooLarge: (c, status, max) => `${c.endpoint} answered ${status} with more than ${max / 1024 / 1024} MiB: check that --endpoint is the base URL of an OpenAI-compatible API`,
    tooMany: (c, requests) => `${c.endpoint} kept asking to try again (${requests} requests for model ${c.model}): retry the ticket later`,
};
/** The reason a refusal fails the attempt with (not for 429: see rateLimit). */
function refusalReason(status, bodyText, c) {
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
        return `model ${JSON.stringify(c.model)} (from ${c.modelFrom}) was not found at ${c.endpoint} (${what}): check its name${c.githubModels
            ? " — GitHub Models names models publisher/name, e.g. openai/gpt-4.1-mini (its catalog lists them)"
            : ", and that --endpoint is the API's base URL (requests go to <endpoint>/chat/completions)"}`;
    }
    if (status === 413 ||
        /tokens?_limit|context.length|too (many|large)|maximum context/i.test(what)) {
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
/** When to try again, from `retry-after` (seconds or a date) or `retry-after-ms`. */
function retryAfterMs(headers, now) {
    const count = (v, ms) => v != null && /^\d+(\.\d+)?$/.test(v.trim()) ? Math.ceil(Number(v) * ms) : undefined;
    const after = headers.get("retry-after")?.trim() ?? "";
    const at = Date.parse(after);
    return (count(headers.get("retry-after-ms"), 1) ??
        count(after, 1000) ??
        (Number.isNaN(at) ? undefined : Math.max(0, at - now)));
}
function rateLimit(headers, bodyText, now) {
    const waitMs = retryAfterMs(headers, now);
    // GitHub Models names it (UserByModelByMinute, UserByModelByDay, …); OpenAI says which
    // budget is spent by its remaining counts
    const spent = (what) => headers.get(`x-ratelimit-remaining-${what}`)?.trim() === "0";
    const limit = headers.get("x-ratelimit-type")?.trim() ||
        (spent("tokens") && "tokens per minute") ||
        (spent("requests") && "requests per minute") ||
        endpointMessage(bodyText) ||
        "a rate limit";
    return waitMs === undefined ? { limit } : { waitMs, limit };
}
/** Why a rate limit fails the attempt: it asks for a wait the ticket's bound does not allow. */
function rateLimitReason(r, c, budget) {
    const who = c.githubModels ? "GitHub Models" : c.endpoint;
    const wait = r.waitMs === undefined
        ? "it did not say when to try again"
        : `it asks to wait ${(0,bound/* formatDuration */.a3)(r.waitMs)}`;
    const room = budget.bounded
        ? `the ticket's bound (${budget.boundText}) leaves ${(0,bound/* formatDuration */.a3)(Math.max(0, budget.leftMs))}`
        : `without a duration bound frontier agent waits at most ${(0,bound/* formatDuration */.a3)(budget.leftMs)}`;
    return `rate limited by ${who} for model ${c.model} (limit: ${r.limit}): ${wait}, and ${room} — retry the ticket later, raise its bound, or choose a model with another limit (\`model:\`)`;
}

;// CONCATENATED MODULE: ./src/agent/call.ts
/**
 * One attempt's model call: `POST <endpoint>/chat/completions`, once — again only when
 * the endpoint answered nothing usable yet (a rate limit's `retry-after`, a transient
 * 5xx or network reset, a model that refuses the JSON schema format), and only within
 * the ticket's bound. Every way it can go wrong ends in an outcome whose reason says
 * what to change; nothing here throws.
 */




/** Without a duration bound, the agent gives its call at most this long. */
const UNBOUNDED_MS = 10 * 60_000;
/** A wait is taken only if at least this much of the bound is left after it. */
const MIN_REQUEST_MS = 1000;
/** Transient failures (5xx, a reset connection) tried again, at most. */
const TRANSIENT_TRIES = 2;
/** Requests in all, at most (rate limits that keep asking for a wait of 0). */
const MAX_REQUESTS = 12;
/** The most of an answer that is read: a completion is far smaller; more is not kept in memory. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** The body's text, or undefined when it is larger than MAX_ANSWER_BYTES (then it is not read on). */
async function boundedText(res) {
    const chunks = [];
    let bytes = 0;
    for await (const value of res.body ?? []) {
        bytes += value.byteLength;
        // leaving the loop cancels the rest of the body
        if (bytes > MAX_ANSWER_BYTES)
            return undefined;
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
function budgetOf(boundMs, boundText, startedAt, deadline) {
    if (boundMs === undefined || boundMs <= 0) {
        return { deadline: startedAt + UNBOUNDED_MS, bounded: false, boundText };
    }
    const at = deadline === undefined || deadline === "" ? Number.NaN : Date.parse(deadline);
    const end = Number.isNaN(at) ? startedAt + boundMs : at;
    return { deadline: end - Math.min(5000, boundMs / 5), bounded: true, boundText };
}
/** Network errors in words; `again`: worth a second try (the rest are configuration). */
const NETWORK = {
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
async function post(config, body, ms, deps) {
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
    }
    catch (error) {
        if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
            return { kind: "timeout" };
        const cause = error instanceof Error ? error.cause : undefined;
        const said = (0,errors/* errorText */.k)(cause instanceof Error ? cause : error);
        return { kind: "network", code: (0,errors/* errnoCode */.U)(cause) ?? (0,errors/* errnoCode */.U)(error) ?? excerpt(said, 120) };
    }
}
/** A 2xx answer as the ticket's outcome, with the completion's usage. */
function answered(config, status, text) {
    const body = (0,json/* readJson */.V)(text);
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
async function callModel(config, context, ask, budget, deps) {
    let structured = true;
    let tokensKey = "max_tokens";
    let transient = 0;
    let requests = 0;
    const failed = (reason) => ({ status: "failed", reason });
    // whatever an endpoint echoes back, no reason, result or question holds the key, whole or
    // cut short; files are written from the answer as sent (a key under 8 characters is left alone)
    const redact = (t) => (config.key.length < 8 ? t : t.split(config.key).join("***"));
    /** waits `ms` if the bound leaves room for a request after it */
    const waitFits = async (ms) => {
        if (deps.now() + ms + MIN_REQUEST_MS > budget.deadline)
            return false;
        await deps.sleep(ms);
        return true;
    };
    const backoff = () => 1000 * 2 ** transient;
    /** another try after a back-off, when a transient failure has tries left and the bound room */
    const again = async () => {
        if (transient >= TRANSIENT_TRIES || !(await waitFits(backoff())))
            return false;
        transient++;
        return true;
    };
    for (;;) {
        if (requests >= MAX_REQUESTS)
            return failed(noAnswer.tooMany(config, requests));
        const left = budget.deadline - deps.now();
        requests++;
        const request = chatRequest(config.model, context, structured, { ...ask, tokensKey });
        const sent = left <= 0 ? { kind: "timeout" } : await post(config, request, left, deps);
        if (sent.kind === "timeout")
            return failed(noAnswer.timeout(config, budget, UNBOUNDED_MS));
        if (sent.kind === "network") {
            const known = NETWORK[sent.code];
            if (known?.again && (await again()))
                continue;
            return failed(noAnswer.unreachable(config, sent.code, known?.words));
        }
        const { status } = sent;
        if (sent.text === undefined)
            return failed(noAnswer.tooLarge(config, status, MAX_ANSWER_BYTES));
        const text = redact(sent.text);
        if (status >= 200 && status < 300) {
            const o = answered(config, status, sent.text);
            if (o.status === "failed")
                return answered(config, status, text);
            for (const k of ["result", "question"])
                if (o[k] !== undefined)
                    o[k] = redact(o[k]);
            return o;
        }
        if (status === 429) {
            const limit = rateLimit(sent.headers, text, deps.now());
            if (await waitFits(limit.waitMs ?? backoff())) {
                if (limit.waitMs === undefined)
                    transient++;
                continue;
            }
            return failed(rateLimitReason(limit, config, { ...budget, leftMs: budget.deadline - deps.now() }));
        }
        if (ask.maxTokens !== undefined &&
            tokensKey === "max_tokens" &&
            /max_completion_tokens/.test(text)) {
            // a model that takes only the newer name for the output cap (OpenAI's reasoning models)
            tokensKey = "max_completion_tokens";
            continue;
        }
        if (structured && refusesSchemaFormat(status, text)) {
            // the same request, with the shape in the instructions only: one answer still
            structured = false;
            continue;
        }
        if (isTransient(status) && (await again()))
            continue;
        return failed(refusalReason(status, text, config));
    }
}

// EXTERNAL MODULE: ./src/core/constants.ts
var constants = __webpack_require__(6214);
;// CONCATENATED MODULE: ./src/agent/config.ts
/**
 * Which model the built-in agent asks, where, and with which key — decided once, from the
 * command line (or the action's inputs), the ticket's `model:`, frontier.yml and the
 * defaults. Pure: the environment is passed in.
 *
 *   model     the ticket's `model:`, else --model, else frontier.yml `model`, else the
 *             default (GitHub Models only: another endpoint has no model we could guess)
 *   endpoint  --endpoint, else frontier.yml `model_endpoint`, else GitHub Models
 *   key       the variable --key-env names, else frontier.yml `model_key_env`, else
 *             GITHUB_TOKEN for GitHub Models and OPENAI_API_KEY for any other endpoint
 */

/** GitHub Models' OpenAI-compatible API: the job's GITHUB_TOKEN is its key. */
const GITHUB_MODELS = "https://models.github.ai/inference";
/**
 * The default model on GitHub Models: in the catalog's low tier (the most free requests a
 * day), it answers with a JSON schema (structured outputs), and it is quick and cheap.
 */
const DEFAULT_MODEL = "openai/gpt-4.1-mini";
/**
 * Tests only: the URL GitHub Models is served at (a fake on 127.0.0.1), so the default
 * endpoint's own path — its key, its refusals' advice — is what the tests run.
 */
const TEST_MODELS_URL = "FRONTIER_TEST_MODELS_URL";
/** A flag's value, checked: undefined when it is fine, else what is wrong with it. */
function flagProblem(flags) {
    if (flags.model !== undefined && !constants/* MODEL_NAME */.Ub.test(flags.model))
        return `--model ${JSON.stringify(flags.model)} is not a model's name (no spaces), e.g. --model ${DEFAULT_MODEL}`;
    if (flags.endpoint !== undefined && !constants/* ENDPOINT_URL */.mZ.test(flags.endpoint))
        return `--endpoint ${JSON.stringify(flags.endpoint)} is not the http(s) base URL of an OpenAI-compatible API, e.g. --endpoint https://api.openai.com/v1`;
    if (flags.keyEnv !== undefined && !constants/* ENV_NAME */.G1.test(flags.keyEnv))
        return `--key-env ${JSON.stringify(flags.keyEnv)} is not the name of an environment variable, e.g. --key-env OPENAI_API_KEY`;
    return undefined;
}
function resolveConfig(s) {
    const bad = flagProblem(s.flags);
    if (bad !== undefined)
        return { kind: "bad", reason: bad };
    const bare = (url) => url.replace(/\/+$/, "");
    const endpoint = bare(s.flags.endpoint ?? s.settings.model_endpoint ?? GITHUB_MODELS);
    // GitHub Models, also its organization-attributed endpoints (/orgs/ORG/inference)
    const githubModels = /^https:\/\/models\.github\.ai\//.test(`${endpoint}/`);
    const testUrl = s.env[TEST_MODELS_URL];
    const served = endpoint === GITHUB_MODELS && testUrl ? bare(testUrl) : endpoint;
    let model;
    let modelFrom = "the default";
    if (s.ticketModel !== undefined)
        [model, modelFrom] = [s.ticketModel, "the ticket"];
    else if (s.flags.model !== undefined)
        [model, modelFrom] = [s.flags.model, "--model"];
    else if (s.settings.model !== undefined)
        [model, modelFrom] = [s.settings.model, "frontier.yml"];
    else if (githubModels)
        model = DEFAULT_MODEL;
    if (model === undefined) {
        return {
            kind: "bad",
            reason: `no model named for ${endpoint}: name one with --model, \`model:\` in frontier.yml or \`model:\` in the ticket (only GitHub Models has a default, ${DEFAULT_MODEL})`,
        };
    }
    const keyEnv = s.flags.keyEnv ??
        s.settings.model_key_env ??
        (githubModels ? "GITHUB_TOKEN" : "OPENAI_API_KEY");
    const key = s.env[keyEnv] ?? "";
    if (key.trim() === "") {
        return {
            kind: "bad",
            reason: githubModels && keyEnv === "GITHUB_TOKEN"
                ? "no key for GitHub Models: $GITHUB_TOKEN is empty — on GitHub the agent step uses the job's token (keep `permissions: models: read` in the orch-task workflow); locally export a token that may use GitHub Models, e.g. `export GITHUB_TOKEN=$(gh auth token)`"
                : `no key for ${endpoint}: $${keyEnv} is empty — set it to the endpoint's API key, or name the variable that holds it with --key-env (or model_key_env in frontier.yml)`,
        };
    }
    return {
        kind: "ok",
        config: {
            endpoint,
            url: `${served}/chat/completions`,
            githubModels,
            model,
            modelFrom,
            keyEnv,
            key: key.trim(),
        },
    };
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: ./src/core/changes.ts
var changes = __webpack_require__(1490);
// EXTERNAL MODULE: ./src/core/scope.ts
var core_scope = __webpack_require__(3203);
// EXTERNAL MODULE: ./src/workspace/git.ts + 1 modules
var git = __webpack_require__(7848);
;// CONCATENATED MODULE: ./src/agent/edits.ts
/**
 * A coding ticket's files (a ticket with a `write_scope`): what its request shows of the
 * workspace — the files its scope matches, within a cap, the rest named with their sizes —
 * and the model's whole-file writes and deletions applied to it before the agent ends.
 *
 * Every path is checked before anything is written: one that would leave the workspace
 * (absolute, `..`, through a symlink, into `.git`) or land where no change is taken (a run's
 * records, `.frontier`; a path git ignores: dropped, the work claimed would be lost) refuses
 * the whole answer, naming the path, and nothing is written anywhere. A path outside the
 * write_scope is written: the runners judge it as they judge any agent's change, a scope
 * breach that fails the attempt.
 */









/**
 * The most of the scope's files one request carries, in bytes (about 4,000 tokens): with
 * the context it fits the 8,000 tokens GitHub Models' free tier takes in a request.
 */
const MAX_SCOPE_BYTES = 16 * 1024;
/** Files past the cap named at most, by path and size. */
const MAX_NAMED = 200;
/**
 * The top of the workspace the paths are relative to: the repository's that holds `cwd`
 * (the ticket's worktree; on GitHub the job's checkout, where the step runs), else `cwd`.
 */
async function workspaceRoot(cwd) {
    const top = await (0,git/* gitText */.q_)(["rev-parse", "--show-toplevel"], { cwd }).catch(() => undefined);
    return (0,promises_.realpath)(top ?? cwd);
}
/** The request's part about files: the write scope, and the text of the files it matches. */
async function scopeFiles(root, patterns) {
    const scope = (0,core_scope/* compileScope */.o4)(patterns);
    // tracked and untracked files, not the ignored ones (build output, node_modules)
    const listing = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"];
    const out = [
        "",
        "## Files",
        "",
        `Write scope: ${patterns.map((p) => `\`${p}\``).join(", ")}. The current text of the files in it:`,
    ];
    // none when git fails; each once (an unmerged file is listed once a stage)
    const listed = await (0,git/* git */.$Y)(listing, { cwd: root }).catch(() => Buffer.alloc(0));
    const names = new Set(listed.toString("utf8").split("\0").filter(Boolean));
    const inScope = [...names].filter((p) => (0,core_scope/* pathInScope */.lF)(p, scope)).sort();
    const left = [];
    let room = MAX_SCOPE_BYTES;
    for (const path of inScope) {
        // a symlink is never followed out of the workspace into the request
        const stat = await (0,promises_.lstat)((0,external_node_path_.join)(root, path)).catch(() => undefined);
        if (!stat?.isFile())
            continue;
        const text = stat.size > room ? undefined : await (0,promises_.readFile)((0,external_node_path_.join)(root, path), "utf8");
        if (text === undefined || text.includes("\0")) {
            left.push(`- ${path} (${stat.size} bytes${text === undefined ? "" : ", binary"})`);
            continue;
        }
        room -= stat.size;
        const fence = (0,report_escape/* fenceFor */.Lt)(text);
        out.push("", `### ${path}`, "", fence, text.replace(/\n$/, ""), fence);
    }
    if (inScope.length === 0)
        out.push("", "(no file matches it yet)");
    if (left.length > 0) {
        out.push("", `Not shown (past the ${MAX_SCOPE_BYTES} bytes of files a request carries, or binary):`, ...left.slice(0, MAX_NAMED));
        if (left.length > MAX_NAMED)
            out.push(`- and ${left.length - MAX_NAMED} more`);
    }
    return `${out.join("\n")}\n`;
}
/** Why `path` may not be written or deleted in `root`; undefined when it may. */
async function escapes(root, path) {
    if ((0,external_node_path_.isAbsolute)(path) || /^([A-Za-z]:)?[\\/]/.test(path))
        return "an absolute path";
    const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
    if (parts.includes(".."))
        return "it climbs out of the workspace with ..";
    if (parts.length === 0 || path.includes("\0") || /[\\/]$/.test(path))
        return "not a file's path";
    if (parts.some((p) => p.toLowerCase() === ".git"))
        return "inside .git";
    if (parts.some((p) => p.toLowerCase() === ".frontier"))
        return "inside a run's .frontier";
    // part of a name here, a separator elsewhere: no check walks what a write would
    if (path.includes("\\"))
        return "a backslash: write / between directories";
    let at = root;
    for (const [i, name] of parts.entries()) {
        at = (0,external_node_path_.join)(at, name);
        const stat = await (0,promises_.lstat)(at).catch(() => undefined);
        if (stat === undefined)
            return undefined; // the rest is made new
        const here = parts.slice(0, i + 1).join("/");
        if (stat.isSymbolicLink())
            return `${here} is a symlink`;
        if (i < parts.length - 1 && !stat.isDirectory())
            return `${here} is not a directory`;
        if (i === parts.length - 1 && !stat.isFile())
            return "not a file";
    }
    return undefined;
}
/** Those of `paths` git ignores, worded as refused; or that git could not say. */
async function ignoredOf(root, paths) {
    // an untracked path a .gitignore or info/exclude matches is no runner's change (as they
    // read it: no core.excludesFile); each given as ./path, never read as pathspec magic
    const checkIgnore = ["-c", "core.excludesFile=", "check-ignore", "-z", "--stdin"];
    try {
        const out = await (0,git/* git */.$Y)(checkIgnore, { cwd: root, input: paths.map((p) => `./${p}\0`).join("") });
        const ignored = new Set(out.toString("utf8").split("\0"));
        const why = "git ignores it: never a change, the runner would drop it";
        return paths
            .filter((p) => ignored.has(`./${p}`))
            .map((p) => `${excerpt(JSON.stringify(p), 200)} (${why})`);
    }
    catch (error) {
        // exit 1: it ignores none of them (nor does any outside a repository)
        if ((error instanceof git/* GitError */.XS && error.code === 1) || !(0,external_node_fs_.existsSync)((0,external_node_path_.join)(root, ".git")))
            return [];
        return [`git could not say which paths it ignores (${(0,errors/* errorText */.k)(error)})`];
    }
}
/**
 * The model's outcome with its edits applied in `root`: every path checked first (one that
 * escapes fails the attempt and nothing is written), then the writes and deletions, all
 * undone when git ignores one of them. A complete answer that changed files but said
 * nothing gets a result naming them.
 */
async function applyEdits(root, outcome) {
    const { edits, ...plain } = outcome;
    if (edits === undefined)
        return plain;
    const paths = [...edits.writes.map((w) => w.path), ...edits.deletes];
    const failed = (reason) => ({
        status: "failed",
        reason,
        ...(plain.usage && { usage: plain.usage }),
    });
    const refuse = (refused) => failed(`the model's answer writes outside the workspace or where no change is taken, so none of it was written: ${(0,changes/* named */.KT)(refused)} — paths are relative to the repository's top (${root}), inside it, out of .git, .frontier and the paths git ignores`);
    const escaping = [];
    for (const path of paths) {
        const why = await escapes(root, path);
        if (why !== undefined)
            escaping.push(`${excerpt(JSON.stringify(path), 200)} (${why})`);
    }
    if (escaping.length > 0)
        return refuse(escaping);
    const read = () => Promise.all(paths.map((p) => (0,promises_.readFile)((0,external_node_path_.join)(root, p)).catch(() => undefined)));
    const before = await read();
    const stats = await Promise.all(paths.map((p) => (0,promises_.lstat)((0,external_node_path_.join)(root, p)).catch(() => undefined)));
    let path = "";
    try {
        for (const w of edits.writes) {
            path = w.path;
            await (0,promises_.mkdir)((0,external_node_path_.dirname)((0,external_node_path_.join)(root, path)), { recursive: true });
            await (0,promises_.writeFile)((0,external_node_path_.join)(root, path), w.content);
        }
        for (const d of edits.deletes) {
            path = d;
            await (0,promises_.rm)((0,external_node_path_.join)(root, path), { force: true });
        }
    }
    catch (error) {
        const code = (0,errors/* errnoCode */.U)(error) ?? String(error);
        return failed(`could not write ${excerpt(path, 200)} in ${root} (${code}): the files before it were written`);
    }
    // a path git ignores, by a .gitignore of the answer's own too, is no change: all of it is undone
    const ignored = await ignoredOf(root, paths);
    if (ignored.length > 0) {
        const undo = (p, b, mode) => b === undefined ? (0,promises_.rm)((0,external_node_path_.join)(root, p), { force: true }) : (0,promises_.writeFile)((0,external_node_path_.join)(root, p), b, { mode });
        await Promise.all(paths.map((p, i) => undo(p, before[i], stats[i]?.mode)));
        return refuse(ignored);
    }
    // a write of the text already there, or undone by a deletion, changed nothing: no result says it did
    const after = (await read()).map((b) => b?.toString("hex"));
    const changed = new Set(paths.filter((_, i) => before[i]?.toString("hex") !== after[i]));
    if (plain.result !== undefined || changed.size === 0)
        return plain;
    return { ...plain, result: `Changed ${(0,changes/* named */.KT)([...changed])}.` };
}

;// CONCATENATED MODULE: ./src/agent/run.ts
/**
 * `frontier agent`, and the action's `command: agent`: the built-in executor. It reads the
 * ticket's context ($FRONTIER_CONTEXT_FILE, else stdin), asks one model, and writes the
 * outcome to $FRONTIER_OUTCOME_FILE — the protocol both runners interpret (core/settle.ts).
 * Without an outcome file (run by hand, `frontier context … | frontier agent`) it speaks
 * the exit-code protocol instead: the result on stdout and 0, the question on stdout and
 * 75, the reason on stderr and 1.
 *
 * Its settings come from the ticket directory ($FRONTIER_DIR/frontier.yml) and the
 * ticket's own `model:` ($FRONTIER_TICKET_FILE), as the runner that started it read them.
 */














/** Exit codes of `frontier agent` without an outcome file: the executor protocol's. */
const EXIT = { ok: 0, failed: 1, usage: 2 };
const defaultDeps = {
    fetch: (...args) => fetch(...args),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
async function runAgent(flags, io, options) {
    const outcomeFile = io.env.FRONTIER_OUTCOME_FILE || undefined;
    const context = await readContextText(io);
    if (context.kind === "none") {
        io.stderr.write("error: frontier agent reads the ticket's context from $FRONTIER_CONTEXT_FILE or stdin: run it as an executor (frontier run --exec 'frontier agent'), or pipe a context in (frontier context tickets TICKET | frontier agent)\n");
        return { code: EXIT.usage, summary: "no context" };
    }
    const decided = await decide(flags, io.env, context);
    const outcome = decided.kind === "bad"
        ? { status: "failed", reason: decided.reason }
        : await attempt(decided, io, options);
    const summary = summarize(decided.kind === "ok" ? decided.config : undefined, outcome);
    if (outcomeFile !== undefined) {
        try {
            await (0,promises_.writeFile)(outcomeFile, `${JSON.stringify(outcome)}\n`);
        }
        catch (error) {
            io.stderr.write(`error: could not write the outcome to $FRONTIER_OUTCOME_FILE (${outcomeFile}): ${(0,errors/* errorText */.k)(error)}\n`);
            return { code: EXIT.failed, outcome, summary };
        }
        return { code: EXIT.ok, outcome, summary, outcomeFile };
    }
    switch (outcome.status) {
        case "complete":
            io.stdout.write(outcome.result?.endsWith("\n") ? outcome.result : `${outcome.result ?? ""}\n`);
            return { code: EXIT.ok, outcome, summary };
        case "suspended":
            io.stdout.write(`${outcome.question ?? ""}\n`);
            return { code: settle/* EXIT_SUSPEND */.US, outcome, summary };
        case "failed":
            io.stderr.write(`${outcome.reason ?? "failed"}\n`);
            return { code: EXIT.failed, outcome, summary };
        default:
            return { code: EXIT.ok, outcome, summary };
    }
}
/**
 * The model's outcome for a decided call: none when the run's usage bound has no tokens
 * left; a coding ticket's request with the files of its scope, and its answer's edits applied.
 */
async function attempt(decided, io, options) {
    const env = io.env;
    // the output a request may ask for: what the run's usage bound has left of its tokens
    const left = (0,executor/* parseRunBound */.Z7)(env.FRONTIER_RUN_BOUND);
    const tokensLeft = left.kind === "ok" ? left.bound.usage?.tokens : undefined;
    if (tokensLeft !== undefined && tokensLeft < 1) {
        return {
            status: "limited",
            reason: `the run's usage bound has no tokens left ($FRONTIER_RUN_BOUND: ${env.FRONTIER_RUN_BOUND}), so no request was sent — raise the run's bound (bound: {usage: {tokens: N}})`,
        };
    }
    const root = decided.scope.length > 0 ? await workspaceRoot(io.cwd ?? process.cwd()) : undefined;
    const called = await callModel(decided.config, root === undefined ? decided.text : decided.text + (await scopeFiles(root, decided.scope)), {
        coding: root !== undefined,
        ...(tokensLeft !== undefined && { maxTokens: Math.floor(tokensLeft) }),
    }, budgetOf((0,bound/* parseDuration */.E9)(env.FRONTIER_BOUND ?? ""), env.FRONTIER_BOUND ?? "", options.startedAt, env.FRONTIER_DEADLINE), options.deps ?? defaultDeps);
    const { edits, ...plain } = called;
    return root === undefined ? plain : applyEdits(root, called);
}
async function readContextText(io) {
    const file = io.env.FRONTIER_CONTEXT_FILE;
    if (file) {
        try {
            return { kind: "text", text: await (0,promises_.readFile)(file, "utf8") };
        }
        catch (error) {
            return {
                kind: "bad",
                reason: `could not read the ticket's context ($FRONTIER_CONTEXT_FILE, ${file}): ${(0,errors/* errnoCode */.U)(error) ?? (0,errors/* errorText */.k)(error)}`,
            };
        }
    }
    const stdin = io.stdin;
    if (stdin === undefined || stdin.isTTY)
        return { kind: "none" };
    const text = await (0,consumers_.text)(stdin);
    return text.trim() === "" ? { kind: "none" } : { kind: "text", text };
}
/** The context, the settings of the ticket directory and the ticket's model: which call to make. */
async function decide(flags, env, context) {
    if (context.kind === "bad")
        return context;
    let settings = {};
    const dir = env.FRONTIER_DIR;
    if (dir) {
        const loaded = await (0,settings_load/* loadSettings */.M5)(dir);
        const errors = loaded.problems.filter((p) => p.severity === "error");
        if (errors.length > 0) {
            return {
                kind: "bad",
                reason: errors.map((p) => (0,problems/* formatProblem */.Vw)(p, dir)).join("; "),
            };
        }
        settings = loaded.settings;
    }
    const ticket = await ticketOf(env.FRONTIER_TICKET_FILE);
    const resolved = resolveConfig({
        flags,
        settings,
        env,
        ...(ticket?.model !== undefined && { ticketModel: ticket.model }),
    });
    if (resolved.kind === "bad")
        return resolved;
    return {
        kind: "ok",
        config: resolved.config,
        text: context.text,
        scope: ticket?.writeScope ?? [],
    };
}
/** The ticket's `model:` and `write_scope`, when its file is there. */
async function ticketOf(file) {
    if (!file)
        return undefined;
    const text = (0,read_optional/* tryReadText */.Bw)(file);
    if (text === undefined)
        return undefined;
    // most tickets take the quick path; the YAML parser and zod (~150 ms to load, on every
    // attempt) only for the rest
    const parsed = (0,fields.parseTicketQuick)(text, (0,external_node_path_.basename)(file), 0) ??
        (await Promise.resolve(/* import() */).then(__webpack_require__.bind(__webpack_require__, 985))).parseTicket(text, (0,external_node_path_.basename)(file), 0);
    return parsed.kind === "ok" ? parsed.spec : undefined;
}
function summarize(config, outcome) {
    const who = config ? `${config.model} at ${config.endpoint}` : "no model asked";
    const tokens = outcome.usage?.tokens;
    const used = tokens === undefined ? "" : `, ${tokens} tokens`;
    const why = outcome.status === "failed"
        ? `: ${outcome.reason}`
        : outcome.status === "suspended"
            ? `: ${outcome.question}`
            : "";
    return `frontier agent: ${who} → ${outcome.status}${used}${why}`;
}

;// CONCATENATED MODULE: ./src/agent/step.ts
/**
 * The action's `command: agent`: the built-in executor as the orch-task job's agent step,
 * from the bundle that is already on the runner (the same version as the action, nothing
 * to install). The context step before it exported $FRONTIER_CONTEXT_FILE,
 * $FRONTIER_OUTCOME_FILE and the rest of the executor's variables; the settle step after it
 * reads the outcome file. GitHub Models' key is the job's token (the `token` input).
 *
 * The step succeeds whenever it wrote an outcome — a refusal is a failed attempt the settle
 * step records, with its reason — and fails only when it could not write one.
 */



async function agentStep(flags, token, env) {
    if (!env.FRONTIER_CONTEXT_FILE || !env.FRONTIER_OUTCOME_FILE) {
        core/* setFailed */.C1("command: agent runs after the context step (command: context) of the orch-task job, which gives it $FRONTIER_CONTEXT_FILE and $FRONTIER_OUTCOME_FILE: put that step before it");
        return;
    }
    const log = new external_node_stream_.Writable({
        write(chunk, _encoding, done) {
            for (const line of chunk.toString("utf8").trimEnd().split("\n"))
                core/* info */.pq(line);
            done();
        },
    });
    const run = await runAgent(flags, { env: { ...env, GITHUB_TOKEN: env.GITHUB_TOKEN || token }, stdout: log, stderr: log }, { startedAt: Math.round(performance.timeOrigin) });
    if (run.outcomeFile === undefined) {
        core/* setFailed */.C1(`${run.summary} — and the outcome could not be written (see the line above)`);
        return;
    }
    core/* setOutput */.uH("agent-outcome", run.outcome?.status ?? "");
    if (run.outcome?.status === "failed")
        core/* warning */.$e(run.summary);
    else
        core/* info */.pq(run.summary);
}


/***/ })

};
