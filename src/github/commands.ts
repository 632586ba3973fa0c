/**
 * The bot: `issue_comment` events carry `/answer`, `/retry` (with a reviewer's feedback for
 * the next attempt, or without), `/cancel` and `/status`.
 *
 * In order, cheapest first, so a comment that is not for us costs no request:
 *   not a new comment, a bot's comment, or no command in it → ignored, no API call;
 *   a pull request from a fork → ignored (a run never lives on a fork's branch);
 *   👀 — then the permission endpoint decides: write, maintain or admin, or a polite
 *   refusal and nothing changes;
 *   each command runs through the same event loop as every other event (advance()),
 *   so an answer is recorded, re-readies its ticket and dispatches it in one commit;
 *   one reply with what happened, and 👍 or 😕.
 *
 * Everything a comment says is data: an answer goes into the engine as a string and
 * from there into its own JSON file. Nothing from a comment reaches a shell, a YAML
 * document, a ticket's front matter or a workflow input.
 */
import type { Status } from "../core/model.js";
import { graphqlStore } from "./branch.js";
import {
  type CommandOutcome,
  closeIssue,
  type Here,
  react,
  reply,
  runCommand,
} from "./command-actions.js";
import { parseCommands, parseQuestionMarker } from "./command-parse.js";
import { describeApiError } from "./octokit.js";
import { isBot, steeringPermission } from "./permissions.js";
import { failedToApply, permissionUnknown, refusal } from "./replies.js";
import { type ActionContext, type RunContext, runBranch } from "./run-context.js";
import { livePath, statePath } from "./state.js";

export type { CommandOutcome } from "./command-actions.js";

/* ------------------------------------------------------------------------- */
/* The event payload, read defensively: it is input like any other.          */
/* ------------------------------------------------------------------------- */

export interface PayloadUser {
  login: string;
  type?: string | null;
}

export interface IssueCommentPayload {
  action: string;
  comment: { id: number; body: string; user: PayloadUser | null; html_url?: string };
  issue: {
    number: number;
    body: string | null;
    user: PayloadUser | null;
    /** present when the issue is a pull request */
    pull_request?: unknown;
  };
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function user(v: unknown): PayloadUser | null {
  const u = obj(v);
  if (!u || typeof u.login !== "string") return null;
  return { login: u.login, type: typeof u.type === "string" ? u.type : null };
}

/** The fields of an `issue_comment` payload the bot reads, or undefined when it is not one. */
export function readIssueCommentPayload(payload: unknown): IssueCommentPayload | undefined {
  const p = obj(payload);
  const comment = obj(p?.comment);
  const issue = obj(p?.issue);
  if (!p || !comment || !issue || typeof p.action !== "string") return undefined;
  if (typeof comment.id !== "number" || typeof issue.number !== "number") return undefined;
  const out: IssueCommentPayload = {
    action: p.action,
    comment: {
      id: comment.id,
      body: typeof comment.body === "string" ? comment.body : "",
      user: user(comment.user),
      ...(typeof comment.html_url === "string" ? { html_url: comment.html_url } : {}),
    },
    issue: {
      number: issue.number,
      body: typeof issue.body === "string" ? issue.body : null,
      user: user(issue.user),
    },
  };
  if (issue.pull_request !== undefined && issue.pull_request !== null)
    out.issue.pull_request = issue.pull_request;
  return out;
}

/* ------------------------------------------------------------------------- */

export type CommentResult =
  | { kind: "ignored"; reason: string }
  | { kind: "refused"; login: string; role: string }
  | { kind: "handled"; ok: boolean; outcomes: CommandOutcome[]; branch?: string };

/** The router's entry for `issue_comment` events. */
export async function handleIssueComment(ctx: ActionContext): Promise<void> {
  await handleComment(ctx);
}

/** One `issue_comment` event, and what the bot did with it. */
export async function handleComment(actx: ActionContext): Promise<CommentResult> {
  let defaultBranch: string | undefined;
  try {
    defaultBranch = runBranch(actx);
  } catch {
    defaultBranch = undefined;
  }
  // Requests that are not about one run (reactions, replies, the permission check) go
  // through a context on the workflow's own branch.
  const ctx = actx.runContext(defaultBranch ?? "main");
  const ev = readIssueCommentPayload(actx.payload);
  if (!ev) return ignored(ctx, "the event is not an issue comment");
  if (ev.action !== "created")
    return ignored(ctx, `the comment was ${ev.action}; only new comments carry commands`);
  if (isBot(ev.comment.user)) return ignored(ctx, "the comment is by a bot");
  const login = ev.comment.user!.login;

  // Only an issue the action opened can say which ticket it asks about: a marker in
  // anybody else's issue is just text.
  const marker = isBot(ev.issue.user) ? parseQuestionMarker(ev.issue.body) : undefined;
  const commands = parseCommands(ev.comment.body, marker ? { questionTicket: marker.ticket } : {});
  if (commands.length === 0) return ignored(ctx, "no command in the comment");

  let prBranch: string | undefined;
  if (ev.issue.pull_request !== undefined) {
    let pr: Awaited<ReturnType<typeof ctx.gh.rest.pulls.get>>;
    try {
      pr = await ctx.gh.rest.pulls.get({ ...ctx.repo, pull_number: ev.issue.number });
    } catch (error) {
      // Without the pull request we cannot tell a fork's from our own: do nothing.
      return ignored(
        ctx,
        `could not read pull request #${ev.issue.number} (${describeApiError(error)})`,
      );
    }
    const head = pr.data.head.repo?.full_name ?? "";
    const base = `${ctx.repo.owner}/${ctx.repo.repo}`;
    if (head.toLowerCase() !== base.toLowerCase()) {
      return ignored(
        ctx,
        `#${ev.issue.number} is a pull request from a fork (${head || "a deleted repository"})`,
      );
    }
    prBranch = pr.data.head.ref;
  }

  await react(ctx, ev.comment.id, "eyes");

  const permission = await steeringPermission(ctx.gh, ctx.repo.owner, ctx.repo.repo, login);
  if (permission.kind !== "allowed") {
    const text =
      permission.kind === "refused"
        ? refusal(login, ctx.repo.owner, ctx.repo.repo, permission.role)
        : permissionUnknown(login, permission.message);
    await reply(ctx, ev.issue.number, [text]);
    await react(ctx, ev.comment.id, "confused");
    ctx.log(
      `${login} may not steer this run (${permission.kind === "refused" ? permission.role : permission.message}); nothing changed`,
    );
    return permission.kind === "refused"
      ? { kind: "refused", login, role: permission.role }
      : { kind: "refused", login, role: "unknown" };
  }

  // Only malformed commands: say how to write them, without looking for the run.
  if (commands.every((c) => c.kind === "error")) {
    const outcomes: CommandOutcome[] = [];
    const sections: string[] = [];
    for (const c of commands) {
      const done = await runCommand(ctx, c, login, {
        issue: ev.issue.number,
        commentUrl: undefined,
        question: undefined,
      });
      outcomes.push(done.outcome);
      sections.push(done.section);
    }
    await reply(ctx, ev.issue.number, sections);
    await react(ctx, ev.comment.id, "confused");
    return { kind: "handled", ok: false, outcomes };
  }

  const candidates = [prBranch, marker?.branch, trackedBranch(ev), defaultBranch];
  let branch: string | undefined;
  try {
    branch = await findRunBranch(ctx, candidates);
  } catch (error) {
    const text = failedToApply(describeApiError(error));
    await reply(ctx, ev.issue.number, [text]);
    await react(ctx, ev.comment.id, "confused");
    return {
      kind: "handled",
      ok: false,
      outcomes: [{ kind: "failed", command: commands[0]!.kind, message: text }],
    };
  }
  if (!branch) {
    const tried = [...new Set(candidates.filter((b): b is string => !!b))].map((b) => `\`${b}\``);
    const text = `There is no Ticket Frontier run here: no ${statePath(ctx.dir)} on ${
      tried.length > 0 ? tried.join(" or ") : "this branch"
    }. A run starts when tickets are pushed (or the workflow is run by hand).`;
    await reply(ctx, ev.issue.number, [text]);
    await react(ctx, ev.comment.id, "confused");
    return {
      kind: "handled",
      ok: false,
      outcomes: [{ kind: "failed", command: commands[0]!.kind, message: text }],
    };
  }
  const run: RunContext = branch === ctx.branch ? ctx : actx.runContext(branch);

  const here: Here = {
    issue: ev.issue.number,
    commentUrl: ev.comment.html_url,
    question: marker ? { issue: ev.issue.number, marker } : undefined,
  };
  const sections: string[] = [];
  const outcomes: CommandOutcome[] = [];
  let closeHere: number | undefined;
  for (const command of commands) {
    const done = await runCommand(run, command, login, here);
    outcomes.push(done.outcome);
    sections.push(done.section);
    if (done.outcome.kind === "answered" && done.outcome.closedIssue === ev.issue.number)
      closeHere = ev.issue.number;
  }
  const ok = outcomes.every((o) => o.kind !== "failed");
  await reply(ctx, ev.issue.number, sections);
  // The question issue this comment answered is closed after the reply, so the
  // reply (with its link to the run) is the last word on it.
  if (closeHere !== undefined) await closeIssue(ctx, closeHere);
  await react(ctx, ev.comment.id, ok ? "+1" : "confused");
  ctx.log(
    `comment by ${login} on #${ev.issue.number} (run on ${branch}): ${outcomes
      .map((o) =>
        o.kind === "failed" ? `/${o.command === "error" ? "?" : o.command} refused` : o.kind,
      )
      .join(", ")}`,
  );
  return { kind: "handled", ok, outcomes, branch };
}

function ignored(ctx: RunContext, reason: string): CommentResult {
  ctx.log(`comment ignored: ${reason}`);
  return { kind: "ignored", reason };
}

/** The branch a tracking issue names in its marker (written by the action). */
function trackedBranch(ev: IssueCommentPayload): string | undefined {
  if (!isBot(ev.issue.user)) return undefined;
  const m = /<!-- ticket-frontier:run run=\S+ branch=(\S+) -->/.exec(ev.issue.body ?? "");
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

function stateBranch(text: string): string | undefined {
  return liveBranch(text);
}

function liveBranch(text: string): string | undefined {
  try {
    const branch = (JSON.parse(text) as { branch?: unknown }).branch;
    return typeof branch === "string" ? branch : undefined;
  } catch {
    return undefined;
  }
}

/** The first candidate branch that holds a run's state: its own, not a copy. */
async function findRunBranch(
  ctx: RunContext,
  candidates: Array<string | undefined>,
): Promise<string | undefined> {
  const seen = new Set<string>();
  for (const branch of candidates) {
    if (!branch || seen.has(branch)) continue;
    seen.add(branch);
    // A branch cut from the run's branch carries a copy of its live.json; the run itself
    // lives on the branch it names. One small query per candidate branch.
    const read = await graphqlStore(ctx.gh, ctx.repo, branch)
      .read([livePath(ctx.dir), statePath(ctx.dir)])
      .catch(() => undefined);
    if (!read) continue;
    const live = read.files.get(livePath(ctx.dir))?.text;
    if (live !== undefined) {
      if (liveBranch(live) === branch) return branch;
      continue;
    }
    // a finished run has no live.json: its state.json names its branch
    const text = read.files.get(statePath(ctx.dir))?.text;
    if (text !== undefined && stateBranch(text) === branch) return branch;
  }
  return undefined;
}

export type { Status };
