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
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { text as streamText } from "node:stream/consumers";
import { parseDuration } from "../core/bound.js";
import { errnoCode, errorText } from "../core/errors.js";
import { parseRunBound } from "../core/executor.js";
import { EXIT_SUSPEND } from "../core/settle.js";
import { parseTicketQuick } from "../tickets/fields.js";
import { formatProblem } from "../tickets/problems.js";
import { tryReadText } from "../tickets/read-optional.js";
import { loadSettings } from "../tickets/settings-load.js";
import { budgetOf, type CallDeps, callModel } from "./call.js";
import { type AgentConfig, type AgentFlags, type AgentSources, resolveConfig } from "./config.js";
import { applyEdits, scopeFiles, workspaceRoot } from "./edits.js";
import type { AgentOutcome } from "./protocol.js";

export interface AgentIo {
  env: Readonly<Record<string, string | undefined>>;
  /** read when there is no $FRONTIER_CONTEXT_FILE; undefined or a terminal: there is no context */
  stdin?: (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** where the agent runs (the workspace a coding ticket edits); default the process's */
  cwd?: string;
}

export interface AgentRun {
  /** the process's exit code */
  code: number;
  /** the outcome, when there was a context to work on */
  outcome?: AgentOutcome;
  /** one line for the log: which model, what came of it */
  summary: string;
  /** where the outcome was written, when it was */
  outcomeFile?: string;
}

/** Exit codes of `frontier agent` without an outcome file: the executor protocol's. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export const defaultDeps: CallDeps = {
  fetch: (...args) => fetch(...args),
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export async function runAgent(
  flags: AgentFlags,
  io: AgentIo,
  options: { startedAt: number; deps?: CallDeps },
): Promise<AgentRun> {
  const outcomeFile = io.env.FRONTIER_OUTCOME_FILE || undefined;
  const context = await readContextText(io);
  if (context.kind === "none") {
    io.stderr.write(
      "error: frontier agent reads the ticket's context from $FRONTIER_CONTEXT_FILE or stdin: run it as an executor (frontier run --exec 'frontier agent'), or pipe a context in (frontier context tickets TICKET | frontier agent)\n",
    );
    return { code: EXIT.usage, summary: "no context" };
  }
  const decided = await decide(flags, io.env, context);
  const outcome =
    decided.kind === "bad"
      ? ({ status: "failed", reason: decided.reason } as const)
      : await attempt(decided, io, options);
  const summary = summarize(decided.kind === "ok" ? decided.config : undefined, outcome);

  if (outcomeFile !== undefined) {
    try {
      await writeFile(outcomeFile, `${JSON.stringify(outcome)}\n`);
    } catch (error) {
      io.stderr.write(
        `error: could not write the outcome to $FRONTIER_OUTCOME_FILE (${outcomeFile}): ${errorText(error)}\n`,
      );
      return { code: EXIT.failed, outcome, summary };
    }
    return { code: EXIT.ok, outcome, summary, outcomeFile };
  }
  switch (outcome.status) {
    case "complete":
      io.stdout.write(
        outcome.result?.endsWith("\n") ? outcome.result : `${outcome.result ?? ""}\n`,
      );
      return { code: EXIT.ok, outcome, summary };
    case "suspended":
      io.stdout.write(`${outcome.question ?? ""}\n`);
      return { code: EXIT_SUSPEND, outcome, summary };
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
async function attempt(
  decided: Extract<Decided, { kind: "ok" }>,
  io: AgentIo,
  options: { startedAt: number; deps?: CallDeps },
): Promise<AgentOutcome> {
  const env = io.env;
  // the output a request may ask for: what the run's usage bound has left of its tokens
  const left = parseRunBound(env.FRONTIER_RUN_BOUND);
  const tokensLeft = left.kind === "ok" ? left.bound.usage?.tokens : undefined;
  if (tokensLeft !== undefined && tokensLeft < 1) {
    return {
      status: "limited",
      reason: `the run's usage bound has no tokens left ($FRONTIER_RUN_BOUND: ${env.FRONTIER_RUN_BOUND}), so no request was sent — raise the run's bound (bound: {usage: {tokens: N}})`,
    };
  }
  const root = decided.scope.length > 0 ? await workspaceRoot(io.cwd ?? process.cwd()) : undefined;
  const called = await callModel(
    decided.config,
    root === undefined ? decided.text : decided.text + (await scopeFiles(root, decided.scope)),
    {
      coding: root !== undefined,
      ...(tokensLeft !== undefined && { maxTokens: Math.floor(tokensLeft) }),
    },
    budgetOf(
      parseDuration(env.FRONTIER_BOUND ?? ""),
      env.FRONTIER_BOUND ?? "",
      options.startedAt,
      env.FRONTIER_DEADLINE,
    ),
    options.deps ?? defaultDeps,
  );
  const { edits, ...plain } = called;
  return root === undefined ? plain : applyEdits(root, called);
}

type Context = { kind: "none" } | { kind: "text"; text: string } | { kind: "bad"; reason: string };

async function readContextText(io: AgentIo): Promise<Context> {
  const file = io.env.FRONTIER_CONTEXT_FILE;
  if (file) {
    try {
      return { kind: "text", text: await readFile(file, "utf8") };
    } catch (error) {
      return {
        kind: "bad",
        reason: `could not read the ticket's context ($FRONTIER_CONTEXT_FILE, ${file}): ${errnoCode(error) ?? errorText(error)}`,
      };
    }
  }
  const stdin = io.stdin;
  if (stdin === undefined || stdin.isTTY) return { kind: "none" };
  const text = await streamText(stdin);
  return text.trim() === "" ? { kind: "none" } : { kind: "text", text };
}

type Decided =
  | { kind: "ok"; config: AgentConfig; text: string; scope: readonly string[] }
  | { kind: "bad"; reason: string };

/** The context, the settings of the ticket directory and the ticket's model: which call to make. */
async function decide(
  flags: AgentFlags,
  env: AgentIo["env"],
  context: Exclude<Context, { kind: "none" }>,
): Promise<Decided> {
  if (context.kind === "bad") return context;
  let settings: AgentSources["settings"] = {};
  const dir = env.FRONTIER_DIR;
  if (dir) {
    const loaded = await loadSettings(dir);
    const errors = loaded.problems.filter((p) => p.severity === "error");
    if (errors.length > 0) {
      return {
        kind: "bad",
        reason: errors.map((p) => formatProblem(p, dir)).join("; "),
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
  if (resolved.kind === "bad") return resolved;
  return {
    kind: "ok",
    config: resolved.config,
    text: context.text,
    scope: ticket?.writeScope ?? [],
  };
}

/** The ticket's `model:` and `write_scope`, when its file is there. */
async function ticketOf(file: string | undefined) {
  if (!file) return undefined;
  const text = tryReadText(file);
  if (text === undefined) return undefined;
  // most tickets take the quick path; the YAML parser and zod (~150 ms to load, on every
  // attempt) only for the rest
  const parsed =
    parseTicketQuick(text, basename(file), 0) ??
    (await import("../tickets/parse.js")).parseTicket(text, basename(file), 0);
  return parsed.kind === "ok" ? parsed.spec : undefined;
}

function summarize(config: AgentConfig | undefined, outcome: AgentOutcome): string {
  const who = config ? `${config.model} at ${config.endpoint}` : "no model asked";
  const tokens = outcome.usage?.tokens;
  const used = tokens === undefined ? "" : `, ${tokens} tokens`;
  const why =
    outcome.status === "failed"
      ? `: ${outcome.reason}`
      : outcome.status === "suspended"
        ? `: ${outcome.question}`
        : "";
  return `frontier agent: ${who} → ${outcome.status}${used}${why}`;
}
