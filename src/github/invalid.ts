/**
 * A push whose tickets do not hold together starts nothing, and says why where people
 * look: the job summary and the report comment (on the branch's pull request, else a
 * tracking issue) list every problem with its file and line. When the tickets are fixed,
 * the run that starts takes the same comment over.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as core from "@actions/core";
import { escapeMarkdown } from "../report/escape.js";
import { GITHUB_COMMENT_MAX } from "../report/markdown.js";
import { defaultRunName } from "../tickets/settings-load.js";
import type { UserError } from "./errors.js";
import { placeReport, reportMarker } from "./report-comment.js";
import { type ActionContext, runBranch } from "./run-context.js";

/** The run's name as frontier.yml gives it (read loosely: the file may be what is broken). */
async function runName(ctx: ActionContext): Promise<string> {
  const dir = join(ctx.settings.env.workspace, ctx.settings.tickets);
  const text = await readFile(join(dir, "frontier.yml"), "utf8").catch(() => "");
  const m = /^run:\s*["']?([^"'#\n]+?)["']?\s*(?:#.*)?$/m.exec(text);
  // no frontier.yml, or no run in it: the run is named after its directory
  return m?.[1] ? m[1].trim() : defaultRunName(dir);
}

export function invalidGraphMarkdown(run: string, error: UserError, marker: string): string {
  const head = [
    `<!-- ${marker} -->`,
    "## Ticket Frontier: nothing was started",
    "",
    `The tickets of **${escapeMarkdown(run)}** do not hold together. ${escapeMarkdown(error.message)}`,
    "",
  ];
  const lines: string[] = [];
  let size = head.join("\n").length + 200;
  for (const problem of error.details) {
    const line = `- ${escapeMarkdown(problem)}`;
    if (size + line.length + 1 > GITHUB_COMMENT_MAX - 200) {
      lines.push(`- … and ${error.details.length - lines.length} more (run \`frontier validate\`)`);
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return [
    ...head,
    ...lines,
    "",
    "Fix them and push again; `frontier validate` lists the same problems locally.",
  ].join("\n");
}

export async function reportInvalidGraph(ctx: ActionContext, error: UserError): Promise<void> {
  const run = await runName(ctx);
  const body = invalidGraphMarkdown(run, error, reportMarker(run));
  const { env } = ctx.settings;
  if (env.stepSummary) await core.summary.addRaw(body).write({ overwrite: true });
  if (!["push", "workflow_dispatch"].includes(env.eventName)) return;
  const report = await placeReport(ctx.runContext(runBranch(ctx)), run, () => body);
  if (!report.posted)
    await ctx.gh.rest.issues.updateComment({
      ...ctx.repo,
      comment_id: report.record.comment_id,
      body,
    });
  core.info(`the problems are listed on #${report.record.issue_number}`);
}
