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
import { readJson } from "../core/json.js";
import type { OutcomeFile } from "../core/outcome.js";
import { clip, oneLine } from "../report/escape.js";

/** The outcomes a model may report (`limited` is the runner's word, not the model's). */
export const MODEL_STATUSES = ["complete", "empty", "failed", "suspended"] as const;

/** A property that may be null (strict structured outputs require every one). */
const orNull = <T extends string>(type: T, description: string) =>
  ({ type: [type, "null"], description }) as const;

/**
 * The answer's JSON schema, strict as OpenAI's structured outputs want it: every property
 * required, unused ones `null`, nothing else allowed. The coding-agent recipes ask for the
 * same shape (examples/agents/), so one reader takes them all.
 */
export const OUTCOME_SCHEMA = {
  type: "object",
  properties: {
    status: {
      type: "string",
      enum: [...MODEL_STATUSES],
      description:
        "complete: the task is done (result). empty: done, and there is nothing to report. failed: it cannot be done (reason). suspended: a decision only a maintainer can make is needed (question).",
    },
    result: orNull(
      "string",
      "with complete: the work (what was found, or what was done) in markdown; else null",
    ),
    question: orNull("string", "with suspended: one specific question for a maintainer; else null"),
    reason: orNull("string", "with failed: why, and what would make it possible; else null"),
  },
  required: ["status", "result", "question", "reason"],
  additionalProperties: false,
} as const;

/** A coding ticket's answer: the outcome, and the whole files it writes and deletes. */
export const CODING_SCHEMA = {
  ...OUTCOME_SCHEMA,
  properties: {
    ...OUTCOME_SCHEMA.properties,
    writes: {
      ...orNull(
        "array",
        "files to write, each whole: repository-relative path and its full new text",
      ),
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
} as const;

/** The instructions; a coding ticket's say how to change files and add them to the shape. */
const systemPrompt = (
  coding: boolean,
) => `You are the agent of one ticket in a Ticket Frontier run: a graph of tickets, each a task, where a ticket runs once the tickets it depends on are done. The user message is the ticket's context: its task, the results of the tickets it depends on, any earlier questions with their maintainers' answers (those answers are final: act on them), and any review feedback on earlier attempts (do what the reviewer asks).

${coding ? CODING_PROMPT : "You have no tools and no access to files, the network or the repository: work only from the context."} Do the task and report its outcome as one JSON object, with no other text:

{"status": "complete" | "empty" | "failed" | "suspended", "result": string | null, "question": string | null, "reason": string | null${coding ? ', "writes": [{"path": string, "content": string}] | null, "deletes": [string] | null' : ""}}

- "complete": the task is done; "result" is the work itself (markdown), complete enough for the tickets that depend on this one.
- "empty": the task ran and there is nothing to report; "result" is null.
- "failed": the task cannot be done from this context; "reason" says why and what would make it possible.
- "suspended": a decision only a maintainer can make is needed before the task can be done; "question" is one specific question they can answer in a sentence. Ask only when guessing would be wrong; never ask again what an earlier answer settled.

Fields that do not apply are null.`;

/** What a coding ticket's instructions say instead of "you have no tools". */
const CODING_PROMPT = `You change files by answering with them: the user message ends with the ticket's write scope and the current text of the files in it. Put in "writes" each file you change, whole, as it should be after your change, and in "deletes" the files to remove, each path relative to the repository's top; both null when you change nothing. Write only inside the write scope: a path outside it fails the ticket. Say in "result" what you changed and why.`;

/** What one attempt asks: a coding ticket's answer carries files; at most `maxTokens` of output. */
export interface Ask {
  coding: boolean;
  maxTokens?: number;
  /** the endpoint's name for the output cap (`max_completion_tokens` where `max_tokens` is refused) */
  tokensKey?: "max_tokens" | "max_completion_tokens";
}

/** The request of one attempt; `structured`: with the JSON schema response format. */
export function chatRequest(
  model: string,
  context: string,
  structured: boolean,
  ask: Ask = { coding: false },
): Record<string, unknown> {
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

/** The outcome the agent reports: the outcome file's shape (core/outcome.ts). */
export type AgentOutcome = OutcomeFile;

/** Whole-file writes and deletions a coding ticket's model asked for (repository-relative). */
export interface Edits {
  writes: Array<{ path: string; content: string }>;
  deletes: string[];
}

/** The model's outcome, with the edits it asked for (applied by edits.ts, never written out). */
export type ModelOutcome = AgentOutcome & { edits?: Edits };

const failed = (reason: string): AgentOutcome => ({ status: "failed", reason });

/** A short, one-line excerpt of text the model or endpoint sent, for a reason. */
export function excerpt(text: string, max = 160): string {
  return clip(oneLine(text), max);
}

/** The token counts of a completion as the outcome's `usage` (`tokens` is the total). */
export function usageOf(body: unknown): Record<string, number> | undefined {
  const u = (body as { usage?: Record<string, unknown> } | null)?.usage;
  if (u === null || typeof u !== "object") return undefined;
  const count = (v: unknown) =>
    typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
  const counts: Record<string, number> = {};
  for (const key of ["prompt_tokens", "completion_tokens"] as const) {
    const v = count(u[key]);
    if (v !== undefined) counts[key] = v;
  }
  const parts = Object.values(counts);
  const total =
    count(u.total_tokens) ?? (parts.length > 0 ? parts.reduce((a, b) => a + b) : undefined);
  return total === undefined ? undefined : { tokens: total, ...counts };
}

/** Answers the model did not finish, by their finish_reason. */
const STOPPED: Record<string, string> = {
  length:
    "the model's answer was cut off at its output limit (finish_reason: length): split the ticket into smaller ones, or choose a model with a larger output (or raise the run's usage bound, when it is nearly spent)",
  content_filter:
    "the endpoint's content filter stopped the model's answer (finish_reason: content_filter): reword the ticket",
};

/** What to change when a model will not keep to the shape. */
const KEEP_TO_SHAPE =
  "choose a model that answers in a JSON schema (structured outputs), e.g. openai/gpt-4.1-mini on GitHub Models";
/** An answer that does not keep to the shape: `what` is wrong with it. */
const offShape = (what: string) => failed(`the model's answer ${what}: ${KEEP_TO_SHAPE}`);

/**
 * The outcome of a chat completion's body (already parsed as JSON), or a failure that
 * says what was wrong with it. Usage is the caller's to add.
 */
export function readCompletion(body: unknown): ModelOutcome {
  const choice = (body as { choices?: unknown[] } | null)?.choices?.[0] as
    | { finish_reason?: unknown; message?: { content?: unknown; refusal?: unknown } }
    | undefined;
  if (typeof choice !== "object" || choice === null)
    return failed(
      "the endpoint's answer is not a chat completion (it has no choices): check that --endpoint is the base URL of an OpenAI-compatible API",
    );
  const message = choice.message ?? {};
  if (typeof message.refusal === "string" && message.refusal.trim() !== "")
    return failed(
      `the model refused the task: "${excerpt(message.refusal, 300)}" — reword the ticket, or choose another model`,
    );
  const stopped = STOPPED[String(choice.finish_reason)];
  if (stopped !== undefined) return failed(stopped);
  const content = message.content;
  if (typeof content !== "string" || content.trim() === "")
    return offShape("is empty, not an outcome");
  return readAnswer(content);
}

/** The model's text as an outcome: one JSON object of the shape, else a failure. */
export function readAnswer(content: string): ModelOutcome {
  // a model without the schema format may still fence its JSON
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*\n?/i, "")
    .replace(/\n?```$/, "")
    .trim();
  const read = readJson(text);
  if (!read.ok) return offShape(`is not JSON (it began "${excerpt(content, 80)}")`);
  const value = read.value;
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return offShape("is JSON but not an object");
  const o = value as Record<string, unknown>;
  if (!(MODEL_STATUSES as readonly unknown[]).includes(o.status))
    return offShape(
      `has status ${JSON.stringify(o.status) ?? "undefined"}, not one of ${MODEL_STATUSES.join(", ")}`,
    );
  for (const field of ["result", "question", "reason"] as const) {
    const v = o[field];
    if (v !== undefined && v !== null && typeof v !== "string")
      return offShape(`has a ${field} that is not text (${typeof v})`);
  }
  const edits = editsOf(o.writes, o.deletes);
  if (typeof edits === "string") return offShape(`has ${edits}`);
  const outcome = outcomeOf(o, o.status as (typeof MODEL_STATUSES)[number]);
  return edits === undefined || outcome.status !== "complete" ? outcome : { ...outcome, edits };
}

/** The edits of an answer; undefined for none; a string says what is wrong with them. */
function editsOf(writes: unknown, deletes: unknown): Edits | undefined | string {
  const w = writes ?? [];
  const d = deletes ?? [];
  if (
    !Array.isArray(w) ||
    !w.every((x) => typeof x?.path === "string" && typeof x?.content === "string")
  )
    return "writes that are not a list of {path, content}";
  if (!Array.isArray(d) || !d.every((x) => typeof x === "string"))
    return "deletes that are not a list of paths";
  return w.length + d.length === 0 ? undefined : { writes: w, deletes: d };
}

function outcomeOf(
  o: Record<string, unknown>,
  status: (typeof MODEL_STATUSES)[number],
): AgentOutcome {
  const given = (field: "result" | "question" | "reason") => {
    const v = o[field];
    return typeof v === "string" && v.trim() !== "" ? v : undefined;
  };
  const [result, question, reason] = [given("result"), given("question"), given("reason")];
  // a complete without a result is empty: the runners' rule (core/settle.ts) decides it
  if (status === "complete" && result !== undefined) return { status, result };
  if (status === "failed")
    return {
      status,
      reason: reason
        ? `the model reported: ${reason}`
        : "the model reported failed and gave no reason",
    };
  if (status !== "suspended") return { status };
  return question === undefined
    ? failed(`the model asked to suspend the ticket but gave no question: ${KEEP_TO_SHAPE}`)
    : { status, question: question.trim() };
}
