/**
 * An OpenAI-compatible chat-completions API on 127.0.0.1 (node:http, a random port), for
 * the built-in agent's tests: GitHub Models' shape (`POST <base>/chat/completions`, a
 * bearer token that needs the models permission, `retry-after` and `x-ratelimit-type` on a
 * 429), with each model's behaviour scripted by the test.
 *
 *   const models = new FakeModels();
 *   await models.start();                       // models.baseUrl: http://127.0.0.1:P/inference
 *   models.addToken("ghs_job");                 // may use models; addToken(t, {models: false}): 403
 *   models.model("fake/x", (req, n) => answer({status: "complete", result: "…"}));
 *   …; await models.stop();
 *
 * Requests are checked (a model name, messages of roles and text, a response_format of
 * the json_schema kind, an output cap that is a positive whole number) and recorded in
 * `models.requests`.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

export interface ModelRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: {
    type: string;
    json_schema?: { name?: string; strict?: boolean; schema?: unknown };
  };
  token: string;
  headers: IncomingHttpHeaders;
  /** the whole request body as sent (max_tokens, response_format, …) */
  body: Record<string, unknown>;
}

export type Reply =
  /** 200, a completion whose message is `content` (an object is sent as its JSON) */
  | {
      kind: "answer";
      content: string | null;
      usage?: { prompt_tokens: number; completion_tokens: number };
      finish?: string;
      refusal?: string;
    }
  /** an error answer */
  | { kind: "error"; status: number; body: unknown; headers?: Record<string, string> }
  /** never answers while the client waits */
  | { kind: "hang" };

export function answer(
  outcome: Record<string, unknown> | string,
  usage: { prompt_tokens: number; completion_tokens: number } = {
    prompt_tokens: 120,
    completion_tokens: 30,
  },
): Reply {
  const full =
    typeof outcome === "string"
      ? outcome
      : JSON.stringify({ result: null, question: null, reason: null, ...outcome });
  return { kind: "answer", content: full, usage };
}

export function rateLimited(retryAfterSeconds: number, type: string): Reply {
  return {
    kind: "error",
    status: 429,
    headers: { "retry-after": String(retryAfterSeconds), "x-ratelimit-type": type },
    body: {
      error: {
        code: "RateLimitReached",
        message: `Rate limit of 15 per 60s exceeded for ${type}. Please wait ${retryAfterSeconds} seconds before retrying.`,
      },
    },
  };
}

type Handler = (req: ModelRequest, n: number) => Reply | Promise<Reply>;

interface ModelEntry {
  handler: Handler;
  /** takes `response_format: json_schema` (default true) */
  jsonSchema: boolean;
  calls: number;
}

export class FakeModels {
  baseUrl = "";
  readonly requests: ModelRequest[] = [];
  /** every request to the completions endpoint, refused or not, with the token it carried */
  readonly hits: Array<{ token: string | undefined }> = [];
  private server: Server | undefined;
  private readonly tokens = new Map<string, { models: boolean }>();
  private readonly models = new Map<string, ModelEntry>();

  constructor(private readonly basePath = "/inference") {}

  addToken(token: string, opts: { models?: boolean } = {}): this {
    this.tokens.set(token, { models: opts.models ?? true });
    return this;
  }

  model(name: string, handler: Handler, opts: { jsonSchema?: boolean } = {}): this {
    this.models.set(name, { handler, jsonSchema: opts.jsonSchema ?? true, calls: 0 });
    return this;
  }

  /** requests for one model, in order */
  requestsFor(model: string): ModelRequest[] {
    return this.requests.filter((r) => r.model === model);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => {
        raw += c;
      });
      req.on("end", () => {
        void this.handle(req.method ?? "", req.url ?? "", req.headers, raw, res).catch((e) =>
          send(res, 500, { error: { message: String(e) } }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}${this.basePath}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(
    method: string,
    url: string,
    headers: IncomingHttpHeaders,
    raw: string,
    res: ServerResponse,
  ): Promise<void> {
    if (method !== "POST" || url.split("?")[0] !== `${this.basePath}/chat/completions`) {
      return send(res, 404, { error: { code: "not_found", message: "Not Found" } });
    }
    const auth = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
    this.hits.push({ token: auth });
    const grant = auth === undefined ? undefined : this.tokens.get(auth);
    if (auth === undefined || grant === undefined) {
      return send(res, 401, { error: { code: "unauthorized", message: "Bad credentials" } });
    }
    if (!grant.models) {
      return send(res, 403, {
        error: {
          code: "no_access",
          message: "The 'models' permission is required to access this endpoint",
        },
      });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(res, 400, { error: { code: "invalid_json", message: "The body is not JSON" } });
    }
    const problem = requestProblem(body);
    if (problem !== undefined)
      return send(res, 400, { error: { code: "invalid_request", message: problem } });
    const request: ModelRequest = {
      model: body.model as string,
      messages: body.messages as ModelRequest["messages"],
      token: auth,
      headers,
      body,
      ...(body.response_format !== undefined && {
        response_format: body.response_format as ModelRequest["response_format"],
      }),
    };
    this.requests.push(request);
    const entry = this.models.get(request.model);
    if (entry === undefined) {
      return send(res, 404, {
        error: { code: "unknown_model", message: `Unknown model: ${request.model}` },
      });
    }
    if (request.response_format !== undefined && !entry.jsonSchema) {
      return send(res, 400, {
        error: {
          code: "invalid_request_body",
          message:
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        },
      });
    }
    entry.calls++;
    const reply = await entry.handler(request, entry.calls);
    switch (reply.kind) {
      case "hang":
        return; // the socket stays open until the client gives up or the server stops
      case "error":
        return send(res, reply.status, reply.body, reply.headers);
      case "answer": {
        const usage = reply.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
        return send(res, 200, {
          id: `chatcmpl-${this.requests.length}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: request.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: reply.content,
                refusal: reply.refusal ?? null,
              },
              finish_reason: reply.finish ?? "stop",
            },
          ],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        });
      }
    }
  }
}

function requestProblem(body: Record<string, unknown>): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "model is required";
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "messages is required";
  for (const m of messages) {
    const { role, content } = (m ?? {}) as Record<string, unknown>;
    if (!["system", "user", "assistant"].includes(role as string) || typeof content !== "string")
      return "each message needs a role and text content";
  }
  for (const key of ["max_tokens", "max_completion_tokens"]) {
    const cap = body[key];
    if (cap !== undefined && !(Number.isInteger(cap) && (cap as number) > 0))
      return `${key} must be a positive integer`;
  }
  const format = body.response_format as Record<string, unknown> | undefined;
  if (format !== undefined) {
    const schema = (format.json_schema ?? {}) as Record<string, unknown>;
    if (
      format.type !== "json_schema" ||
      typeof schema.name !== "string" ||
      typeof schema.schema !== "object"
    )
      return "response_format must be {type: json_schema, json_schema: {name, schema}}";
  }
  return undefined;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The user message (the ticket's context) of a request. */
export function contextOf(req: ModelRequest): string {
  return req.messages.find((m) => m.role === "user")?.content ?? "";
}

/**
 * The models the local and GitHub proofs share, one per case: a ticket names its case
 * with `model:`.
 */
export function scriptedModels(models: FakeModels): FakeModels {
  return models
    .model("fake/complete", (req) =>
      answer(
        { status: "complete", result: `Done: ${/^# (.+)$/m.exec(contextOf(req))?.[1] ?? "?"}` },
        { prompt_tokens: 200, completion_tokens: 40 },
      ),
    )
    .model("fake/empty", () =>
      answer({ status: "empty" }, { prompt_tokens: 90, completion_tokens: 8 }),
    )
    .model("fake/ask", (req) => {
      const context = contextOf(req);
      const given = /Answer \(by [^\n]*\):\n\n(.+)/.exec(context)?.[1];
      return given === undefined
        ? answer({ status: "suspended", question: "Which region should the cache live in?" })
        : answer({ status: "complete", result: `Cache placed in ${given.trim()}.` });
    })
    .model("fake/busy", (_req, n) =>
      n === 1
        ? rateLimited(1, "UserByModelByMinute")
        : answer(
            { status: "complete", result: "Done after the rate limit." },
            {
              prompt_tokens: 150,
              completion_tokens: 25,
            },
          ),
    )
    .model("fake/garbled", () =>
      answer("Sure! Here is what I found: the retry policy looks fine.", {
        prompt_tokens: 110,
        completion_tokens: 15,
      }),
    )
    .model("fake/slow", () => ({ kind: "hang" }));
}

/** The ticket a request is for: its id, from the context's "Ticket `id`" line. */
export function ticketOf(req: ModelRequest): string {
  return /^Ticket `([^`]+)`/m.exec(contextOf(req))?.[1] ?? "?";
}

/** A coding answer: the outcome, and whole-file writes and deletions. */
export function edits(
  result: string,
  writes: Record<string, string>,
  deletes: string[] = [],
  usage = { prompt_tokens: 300, completion_tokens: 100 },
): Reply {
  return answer(
    {
      status: "complete",
      result,
      writes: Object.entries(writes).map(([path, content]) => ({ path, content })),
      deletes: deletes.length > 0 ? deletes : null,
    },
    usage,
  );
}

/**
 * `fake/coder`, a coding model for the api → ui → docs chain (examples/coding-graph's
 * tickets): it writes each ticket's file, and only once the context says its dependencies
 * changed what it builds on — the UI needs the API's file, the docs both. A ticket whose
 * body names `write: PATH` files writes those (outside the scope, `..`, absolute paths).
 */
export function codingModels(models: FakeModels): FakeModels {
  return models.model("fake/coder", (req) => {
    const context = contextOf(req);
    const asked = [...context.matchAll(/^write: (.+)$/gm)].map((m) => m[1] as string);
    if (asked.length > 0) {
      return edits(`Wrote ${asked.join(", ")}.`, Object.fromEntries(asked.map((p) => [p, "x\n"])));
    }
    const changed = (path: string) => new RegExp(`^Changed: .*${path}`, "m").test(context);
    switch (ticketOf(req)) {
      case "api":
        return edits("Added the todo API.", {
          "app/api/todos.js":
            "const todos = [];\nexport function addTodo(title) {\n  todos.push({ title, done: false });\n}\nexport function listTodos() {\n  return todos;\n}\n",
        });
      case "ui":
        if (!changed("app/api/todos.js"))
          return answer({ status: "failed", reason: "the API is not there yet" });
        return edits("Added the list.", {
          "app/ui/list.js":
            'import { listTodos } from "../api/todos.js";\nexport function renderList() {\n  return listTodos().map((t) => "- [ ] " + t.title).join("\\n");\n}\n',
        });
      case "docs":
        if (!changed("app/api/todos.js") || !changed("app/ui/list.js"))
          return answer({ status: "failed", reason: "the API or the UI is not there yet" });
        return edits("Documented both.", {
          "docs/todos.md":
            "# Todos\n\n- `addTodo` (from app/api/todos.js)\n- `listTodos` (from app/api/todos.js)\n- `renderList` (from app/ui/list.js)\n",
        });
      default:
        return answer({ status: "failed", reason: `no script for ${ticketOf(req)}` });
    }
  });
}
