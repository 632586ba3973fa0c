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
import { z } from "zod";
import { graphqlStore } from "./branch.js";
import {
  type CommandOutcome,
  type Done,
  failed,
  type Here,
  react,
  reply,
  runCommand,
} from "./command-actions.js";
import { parseCommands, parseQuestionMarker, parseRunMarker } from "./command-parse.js";
import { closeIssue } from "./effects.js";
import { describeApiError } from "./octokit.js";
import { isBot, steeringPermission } from "./permissions.js";
import { failedToApply, permissionUnknown, refusal } from "./replies.js";
import { type ActionContext, type RunContext, runBranch } from "./run-context.js";
import { livePath, statePath } from "./state.js";
import { namesBranch } from "./sweep.js";

/* ------------------------------------------------------------------------- */
/* The event payload, read defensively: it is input like any other.          */
/* ------------------------------------------------------------------------- */

const User = z
  .object({ login: z.string(), type: z.string().nullable().catch(null) })
  .nullable()
  .catch(null);

/** The fields of an `issue_comment` payload the bot reads. */
const IssueCommentPayload = z.object({
  action: z.string(),
  comment: z.object({
    id: z.number(),
    body: z.string().catch(""),
    user: User,
    html_url: z.string().optional().catch(undefined),
  }),
  issue: z.object({
    number: z.number(),
    body: z.string().nullable().catch(null),
    user: User,
    /** present (not null) when the issue is a pull request */
    pull_request: z.unknown().optional(),
  }),
});
type IssueCommentPayload = z.infer<typeof IssueCommentPayload>;

export type CommentResult =
  | { kind: "ignored"; reason: string }
  | { kind: "refused"; login: string; role: string }
  | { kind: "handled"; ok: boolean; outcomes: CommandOutcome[]; branch?: string };

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
  const read = IssueCommentPayload.safeParse(actx.payload);
  if (!read.success) return ignored(ctx, "the event is not an issue comment");
  const ev = read.data;
  if (ev.action !== "created")
    return ignored(ctx, `the comment was ${ev.action}; only new comments carry commands`);
  if (isBot(ev.comment.user)) return ignored(ctx, "the comment is by a bot");
  const login = ev.comment.user!.login;

  // Only an issue the action opened can say which ticket it asks about: a marker in
  // anybody else's issue is just text.
  const markers = isBot(ev.issue.user) ? ev.issue.body : null;
  const marker = parseQuestionMarker(markers);
  const commands = parseCommands(ev.comment.body, marker ? { questionTicket: marker.ticket } : {});
  if (commands.length === 0) return ignored(ctx, "no command in the comment");
  const pr =
    ev.issue.pull_request != null ? await pullRequestBranch(ctx, ev.issue.number) : undefined;
  if (pr && "ignore" in pr) return ignored(ctx, pr.ignore);

  await react(ctx, ev.comment.id, "eyes");
  const refused = await refuse(ctx, ev, login);
  if (refused) return refused;

  const finish = (done: Done[], branch?: string) => respond(ctx, ev, login, done, branch);
  const runAll = async (run: RunContext, here: Here) => {
    const done: Done[] = [];
    for (const c of commands) done.push(await runCommand(run, c, login, here));
    return done;
  };
  // Only malformed commands: say how to write them, without looking for the run.
  if (commands.every((c) => c.kind === "error"))
    return finish(await runAll(ctx, { issue: ev.issue.number }));

  const candidates = [pr?.branch, marker?.branch, parseRunMarker(markers), defaultBranch];
  let branch: string | undefined;
  try {
    branch = await findRunBranch(ctx, candidates);
  } catch (error) {
    return finish([failed(commands[0]!.kind, failedToApply(describeApiError(error)))]);
  }
  if (!branch) {
    const tried = [...new Set(candidates.filter((b): b is string => !!b))].map((b) => `\`${b}\``);
    const text = `There is no Ticket Frontier run here: no ${statePath(ctx.dir)} on ${
      tried.length > 0 ? tried.join(" or ") : "this branch"
    }. A run starts when tickets are pushed (or the workflow is run by hand).`;
    return finish([failed(commands[0]!.kind, text)]);
  }
  const run = branch === ctx.branch ? ctx : actx.runContext(branch);
  const here = { issue: ev.issue.number, commentUrl: ev.comment.html_url, question: marker };
  return finish(await runAll(run, here), branch);
}

function ignored(ctx: RunContext, reason: string): CommentResult {
  ctx.log(`comment ignored: ${reason}`);
  return { kind: "ignored", reason };
}

/** The branch of the pull request a comment is on, or why the comment is not for us. */
async function pullRequestBranch(
  ctx: RunContext,
  number: number,
): Promise<{ branch: string } | { ignore: string }> {
  try {
    const { head } = (await ctx.gh.rest.pulls.get({ ...ctx.repo, pull_number: number })).data;
    const from = head.repo?.full_name ?? "";
    if (from.toLowerCase() !== `${ctx.repo.owner}/${ctx.repo.repo}`.toLowerCase())
      return {
        ignore: `#${number} is a pull request from a fork (${from || "a deleted repository"})`,
      };
    return { branch: head.ref };
  } catch (error) {
    // Without the pull request we cannot tell a fork's from our own: do nothing.
    return { ignore: `could not read pull request #${number} (${describeApiError(error)})` };
  }
}

/** A polite refusal when `login` may not steer the run, and nothing changes. */
async function refuse(
  ctx: RunContext,
  ev: IssueCommentPayload,
  login: string,
): Promise<CommentResult | undefined> {
  const permission = await steeringPermission(ctx.gh, ctx.repo.owner, ctx.repo.repo, login);
  if (permission.kind === "allowed") return undefined;
  const [text, why] =
    permission.kind === "refused"
      ? [refusal(login, ctx.repo.owner, ctx.repo.repo, permission.role), permission.role]
      : [permissionUnknown(login, permission.message), permission.message];
  await reply(ctx, ev.issue.number, [text]);
  await react(ctx, ev.comment.id, "confused");
  ctx.log(`${login} may not steer this run (${why}); nothing changed`);
  return { kind: "refused", login, role: permission.kind === "refused" ? why : "unknown" };
}

/** One reply with what each command did, and 👍 or 😕; the branch when a run was found. */
async function respond(
  ctx: RunContext,
  ev: IssueCommentPayload,
  login: string,
  done: readonly Done[],
  branch?: string,
): Promise<CommentResult> {
  const outcomes = done.map((d) => d.outcome);
  const ok = outcomes.every((o) => o.kind !== "failed");
  await reply(
    ctx,
    ev.issue.number,
    done.map((d) => d.section),
  );
  // The question issue this comment answered is closed after the reply, so the
  // reply (with its link to the run) is the last word on it.
  if (outcomes.some((o) => o.kind === "answered" && o.closedIssue === ev.issue.number))
    await closeIssue(ctx, ev.issue.number);
  await react(ctx, ev.comment.id, ok ? "+1" : "confused");
  if (branch === undefined) return { kind: "handled", ok, outcomes };
  ctx.log(
    `comment by ${login} on #${ev.issue.number} (run on ${branch}): ${outcomes
      .map((o) =>
        o.kind === "failed" ? `/${o.command === "error" ? "?" : o.command} refused` : o.kind,
      )
      .join(", ")}`,
  );
  return { kind: "handled", ok, outcomes, branch };
}

/** The first candidate branch that holds a run's state: its own, not a copy. */
async function findRunBranch(ctx: RunContext, candidates: Array<string | undefined>) {
  for (const branch of new Set(candidates)) {
    if (!branch) continue;
    // A branch cut from the run's branch carries a copy of its live.json; the run itself
    // lives on the branch it names. One small query per candidate branch.
    const read = await graphqlStore(ctx.gh, ctx.repo, branch)
      .read([livePath(ctx.dir), statePath(ctx.dir)])
      .catch(() => undefined);
    // a finished run has no live.json: its state.json names its branch
    const text = read?.files.get(livePath(ctx.dir)) ?? read?.files.get(statePath(ctx.dir));
    if (text !== undefined && namesBranch(text, branch)) return branch;
  }
  return undefined;
}
