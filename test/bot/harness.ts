/**
 * The bot end to end, in process: a FakeGitHub on 127.0.0.1, a repository with a
 * ticket directory committed to `main` (and the same files in a temporary checkout,
 * as the runner's workspace), the action's own advance() to start the run, and a
 * fake runner: every orch-task run the action dispatches is settled through the same
 * settle event the orch-task job's last step uses, with a scripted outcome.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Outcome } from "../../src/core/model.js";
import { type AdvanceOutcome, advance } from "../../src/github/advance.js";
import { type CommentResult, handleComment } from "../../src/github/commands.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import type { ActionSettings } from "../../src/github/inputs.js";
import { createGitHub, type GitHub } from "../../src/github/octokit.js";
import { REPLY_MARKER } from "../../src/github/replies.js";
import { type ActionContext, createActionContext } from "../../src/github/run-context.js";
import type { GitHubState } from "../../src/github/state.js";
import {
  FakeGitHub,
  type FakeRepo,
  type FakeRun,
  makeIssueCommentPayload,
  type Role,
} from "../fake-github/server.js";
import { readRunState } from "../support/run-state.js";

export const OWNER = "acme";
export const NAME = "app";
export const DIR = "tickets";
export const BOT = "github-actions[bot]";

/** What the fake runner does with one dispatched attempt. */
export type Script =
  | { outcome: Outcome; result?: string; question?: string; reason?: string }
  /** stay in progress until the run is cancelled through the API (or released) */
  | { hold: true };

export interface BotWorld {
  fake: FakeGitHub;
  repo: FakeRepo;
  gh: GitHub;
  workspace: string;
  log: string[];
  /** outcome per ticket, attempt (1-based); the last entry repeats */
  script: Record<string, Script[]>;
  /** every attempt the fake runner saw, in order */
  ran: Array<{ ticket: string; attempt: number; runId: number }>;
  /** hooks waiting on `hold` */
  release(): void;
  start(): Promise<AdvanceOutcome>;
  /** post a comment as `user` on issue `number` and run the bot on it */
  comment(
    number: number,
    body: string,
    user: string,
    options?: {
      action?: "created" | "edited";
      mutate?: (payload: Record<string, unknown>) => void;
    },
  ): Promise<CommentResult>;
  /** run the bot again on the last comment's event (a re-run job) */
  again(): Promise<CommentResult>;
  state(): GitHubState;
  file(path: string): string | undefined;
  settle(): Promise<void>;
  stop(): Promise<void>;
}

function settings(
  fake: FakeGitHub,
  workspace: string,
  eventName: string,
  head: string,
): ActionSettings {
  return {
    command: "auto",
    tickets: DIR,
    workflow: "orch-task.yml",
    token: "ghs_test",
    settle: {},
    env: {
      apiUrl: fake.baseUrl,
      serverUrl: "https://github.com",
      owner: OWNER,
      repo: NAME,
      eventName,
      sha: head,
      ref: "refs/heads/main",
      workspace,
      runnerTemp: join(workspace, ".runner-temp"),
      runId: 777,
      fastApi: true,
    },
  };
}

export async function botWorld(
  tickets: Record<string, string>,
  options: {
    roles?: Record<string, Role>;
    frontierYml?: string;
    gh?: (gh: GitHub) => GitHub;
    /** the clock of the fake and of every event (default Date.now) */
    clock?: () => number;
  } = {},
): Promise<BotWorld> {
  const clock = options.clock ?? Date.now;
  const fake = new FakeGitHub({ now: clock });
  await fake.start();
  const repo = fake.createRepo(`${OWNER}/${NAME}`);
  for (const [login, role] of Object.entries(options.roles ?? {})) repo.setPermission(login, role);
  repo.addWorkflow("orch-task.yml", {
    runName: (inputs) => `frontier ${inputs.ticket}#${inputs.attempt} ${inputs.claim}`,
  });

  const workspace = mkdtempSync(join(tmpdir(), "frontier-bot-"));
  mkdirSync(join(workspace, DIR), { recursive: true });
  const files: Record<string, string> = {
    [`${DIR}/frontier.yml`]: options.frontierYml ?? "run: demo\n",
  };
  for (const [id, text] of Object.entries(tickets)) files[`${DIR}/${id}.md`] = text;
  for (const [p, text] of Object.entries(files)) writeFileSync(join(workspace, p), text);
  repo.commit("main", files, { message: "tickets" });

  const log: string[] = [];
  const base = createGitHub({
    token: "ghs_test",
    baseUrl: fake.baseUrl,
    fast: true,
    log: (l) => log.push(l),
  });
  const gh = options.gh ? options.gh(base) : base;
  const context = (eventName: string, payload: Record<string, unknown>): ActionContext =>
    createActionContext(
      settings(fake, workspace, eventName, repo.head("main")!),
      payload,
      (l) => log.push(l),
      clock,
      gh,
    );

  const script: Record<string, Script[]> = {};
  const ran: BotWorld["ran"] = [];
  const holds = new Set<() => void>();
  let lastPayload: Record<string, unknown> | undefined;

  fake.onDispatch(async (run: FakeRun) => {
    const ticket = run.inputs.ticket!;
    const attempt = Number(run.inputs.attempt);
    ran.push({ ticket, attempt, runId: run.id });
    const list = script[ticket] ?? [{ outcome: "complete", result: `${ticket} done` }];
    const step = list[Math.min(attempt, list.length) - 1]!;
    if ("hold" in step) {
      await new Promise<void>((resolve) => {
        if (run.signal.aborted) return resolve();
        holds.add(resolve);
        run.signal.addEventListener("abort", () => resolve());
      });
      if (!run.signal.aborted) return;
      // A cancelled job's settle step still runs (if: always()) and is told the attempt
      // is no longer live.
      await advance(
        context("workflow_dispatch", {}).runContext("main"),
        settleEvent({
          ticket,
          attempt,
          claim: run.inputs.claim!,
          outcome: "failed",
          reason: "cancelled",
          by: "orch-task",
        }),
        `settle ${ticket}#${attempt}`,
      );
      return;
    }
    await advance(
      context("workflow_dispatch", {}).runContext("main"),
      settleEvent({
        ticket,
        attempt,
        claim: run.inputs.claim!,
        outcome: step.outcome,
        ...(step.result !== undefined ? { result: step.result } : {}),
        ...(step.question !== undefined ? { question: step.question } : {}),
        ...(step.reason !== undefined ? { reason: step.reason } : {}),
        by: `orch-task run ${run.id}`,
        runUrl: `https://github.com/${OWNER}/${NAME}/actions/runs/${run.id}`,
      }),
      `settle ${ticket}#${attempt} ${step.outcome}`,
    );
  });

  const world: BotWorld = {
    fake,
    repo,
    gh,
    workspace,
    log,
    script,
    ran,
    release() {
      for (const h of holds) h();
      holds.clear();
    },
    async start() {
      const out = await advance(
        context("push", {}).runContext("main"),
        advanceOnly,
        "advance (push)",
      );
      await world.settle();
      return out;
    },
    async comment(number, body, user, opts = {}) {
      const issue = repo.issues.get(number);
      if (!issue) throw new Error(`no issue #${number}`);
      const c = repo.addComment(number, body, user);
      const payload = makeIssueCommentPayload({
        repo,
        issue,
        comment: c,
        action: opts.action ?? "created",
      });
      opts.mutate?.(payload);
      lastPayload = payload;
      const result = await handleComment(context("issue_comment", payload));
      await world.settle();
      return result;
    },
    async again() {
      if (!lastPayload) throw new Error("no comment yet");
      const result = await handleComment(context("issue_comment", lastPayload));
      await world.settle();
      return result;
    },
    state() {
      const state = readRunState(repo, DIR, "main");
      if (state === undefined) throw new Error("no state.json on main");
      return state;
    },
    file(path) {
      return repo.readFile(path, "main");
    },
    async settle() {
      await fake.idle();
    },
    async stop() {
      world.release();
      await fake.idle();
      await fake.stop();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
  return world;
}

/** A ticket file. */
export function ticket(
  fields: { depends_on?: string[]; title?: string } = {},
  body = "Do the work.",
): string {
  const lines = ["---"];
  if (fields.title) lines.push(`title: ${JSON.stringify(fields.title)}`);
  if (fields.depends_on) lines.push(`depends_on: [${fields.depends_on.join(", ")}]`);
  lines.push("---", "", body, "");
  return lines.join("\n");
}

/** The open question issues (label frontier:question) of the repository. */
export function questionIssues(repo: FakeRepo) {
  return [...repo.issues.values()].filter((i) => i.labels.includes("frontier:question"));
}

export function reactionsOn(repo: FakeRepo, commentId: number): string[] {
  return repo.comments.get(commentId)?.reactions.map((r) => r.content) ?? [];
}

/** The bot's replies on an issue (its own comments carrying the reply marker). */
export function botReplies(repo: FakeRepo, issue: number): string[] {
  return repo
    .commentsOn(issue)
    .filter((c) => c.user === BOT && c.body.startsWith(REPLY_MARKER))
    .map((c) => c.body);
}
