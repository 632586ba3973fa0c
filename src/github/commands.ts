/**
 * PLACEHOLDER until the bot lands (issue 6): the bot engineer replaces this file with
 * `/answer`, `/retry`, `/cancel` and `/status`. The action routes `issue_comment` here.
 */
import type { ActionContext } from "./run-context.js";

export async function handleIssueComment(ctx: ActionContext): Promise<void> {
  ctx.log("issue_comment: the Ticket Frontier bot is not wired into this build yet; nothing was changed.");
}
