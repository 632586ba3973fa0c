/**
 * `frontier status`: loads the tickets, the engine and the receipt builder only — not
 * the report renderers, the runner or the YAML writer — so it stays fast on 10k tickets.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { STATUSES } from "../core/constants.js";
import type { Frontier } from "../core/engine.js";
import type { RemainderEntry } from "../core/model.js";
import { isDeadLocalHolder } from "../local/lock.js";
import { openDirectory } from "../local/open.js";
import {
  branchCommits,
  localReceipt,
  type ReceiptOptions,
  receiptJson,
} from "../report/receipt.js";
import { type Held, remainderOf } from "../report/remainder.js";
import { clipList, STATUS_ICON } from "../report/states.js";
import { boundHint } from "../terminal/bound-hint.js";
import { type Paint, painter, STATUS_STYLE } from "../terminal/colour.js";
import { type CliIo, EXIT } from "../terminal/io.js";
import { remainderTable } from "../terminal/table.js";
import { oneLine, plural, shellWord, shownPath } from "../terminal/text.js";
import { BRANCH_FILE } from "../tickets/layout.js";
import { continueCommand } from "./continue.js";

export async function statusCommand(
  typed: string,
  opts: { json: boolean },
  io: CliIo,
  now: number,
) {
  const dir = shownPath(typed);
  // the text shows no ticket's body: the ticket cache can serve it (the receipt has them)
  const opened = await openDirectory(dir, {}, io, now, { bodies: opts.json });
  if (opened.kind === "exit") return opened.code;
  const frontier = opened.opened.frontier;
  // isolated tickets ran: the run has a branch (its module is loaded only then)
  const isolated = existsSync(join(dir, BRANCH_FILE));
  const worktree = isolated ? await import("../local/worktree.js") : undefined;
  const { branch, held } = worktree?.isolatedReceipt(dir, frontier) ?? {};
  if (opts.json) {
    io.stdout.write(receiptJson(localReceipt(opened.opened, now, { branch, held })));
    return EXIT.complete;
  }
  const paint = painter(io.stdout, io.env);
  // The text shows a few fields of the receipt: read them from the engine, not the whole
  // receipt (waves, critical path and a copy of every ticket's record, unused here).
  // Every ticket it names is open, so the remainder (file order) lists them all.
  const remainder = remainderOf(frontier, now, held);
  // one write: at 10k tickets a write per line was a tenth of the command
  const out: string[] = [];
  const all = frontier.counts();
  const counts = STATUSES.filter((s) => (all[s] ?? 0) > 0)
    .map((s) => paint(STATUS_STYLE[s], `${STATUS_ICON[s]} ${all[s]} ${s}`))
    .join(", ");
  out.push(
    `${paint("bold", `run ${frontier.runRecord().run}`)}: ${frontier.runState(now)} — ${plural(frontier.specs().length, "ticket")}: ${counts}`,
  );
  if (branch) out.push(...branchLines(frontier, branch));
  out.push(...openLines(frontier, remainder, dir, now, paint, held));
  const hint = boundHint(frontier, dir, now, continueCommand(dir, opened.opened, remainder));
  if (hint !== undefined) out.push(hint);
  if (remainder.length > 0) {
    out.push(`open remainder (${plural(remainder.length, "ticket")}):`);
    out.push(...remainderTable(remainder, paint));
  }
  io.stdout.write(`${out.join("\n")}\n`);
  return EXIT.complete;
}

/** What is ready, running, blocked, to retry or to answer, with the command for each. */
function openLines(
  frontier: Frontier,
  remainder: readonly RemainderEntry[],
  dir: string,
  now: number,
  paint: Paint,
  held?: Held,
): string[] {
  const out: string[] = [];
  const ready = remainder.filter((r) => r.status === "ready").map((r) => r.id);
  if (ready.length > 0) out.push(`ready: ${ready.join(", ")}`);
  for (const r of remainder) {
    if (r.status !== "claimed" || held?.has(r.id)) continue;
    const state = frontier.state(r.id);
    const by = state?.claimed_by ?? "";
    // a runner killed with -9 leaves its claims: the next `frontier run` reclaims them
    if (isDeadLocalHolder(by, -1)) {
      out.push(
        `${paint("yellow", "interrupted")}: ${r.id} (attempt ${state?.attempt ?? 0}) claimed by ${by}, a process that is gone: \`frontier run ${shellWord(dir)}\` reclaims it and runs it again`,
      );
    } else out.push(`running: ${r.id} (attempt ${state?.attempt ?? 0}, ${by})`);
  }
  for (const group of frontier.blockerGroups()) {
    const why = group.reason ? ` (${oneLine(group.reason)})` : "";
    out.push(
      `${paint("red", "blocked")}: ${group.root} ${group.root_status}${why}: blocks ${group.tickets.length} — ${group.tickets.join(", ")}`,
    );
  }
  if (frontier.runState(now) !== "cancelled") {
    for (const r of remainder) {
      if (r.status !== "failed" && r.status !== "limited") continue;
      out.push(`  retry with: frontier retry ${shellWord(dir)} ${shellWord(r.id)}`);
    }
  }
  for (const r of remainder) {
    if (r.status !== "suspended") continue;
    // as in the receipt: the question of the last attempt that asked one
    const asked = frontier.state(r.id)?.attempts.findLast((a) => a.outcome === "suspended");
    if (asked?.question === undefined) continue;
    out.push(`${paint("yellow", "question")} from ${r.id}: ${oneLine(asked.question)}`);
    out.push(`  answer with: frontier answer ${shellWord(dir)} ${shellWord(r.id)} "YOUR ANSWER"`);
  }
  return out;
}

/** Commits listed one a line; past this, `git log` shows the rest. */
const COMMITS_SHOWN = 10;

/** The run's branch, its commits and how to merge it, from the attempts' records. */
function branchLines(frontier: Frontier, branch: NonNullable<ReceiptOptions["branch"]>): string[] {
  const from = (branch.base ?? "").slice(0, 10);
  const commits = branchCommits(
    frontier.specs().map((s) => ({ id: s.id, attempts: frontier.state(s.id)?.attempts ?? [] })),
  );
  if (commits.length === 0)
    return [`changes: none integrated yet — ${branch.name} is still at ${from}, where it started`];
  const out = [`changes: ${plural(commits.length, "commit")} on ${branch.name} (from ${from})`];
  for (const c of commits.slice(0, COMMITS_SHOWN)) {
    const attempt = frontier.state(c.ticket)?.attempts.find((a) => a.n === c.attempt);
    const paths = (attempt?.changes?.paths ?? []).map((p) => p.path);
    out.push(`  ${c.commit.slice(0, 10)} ${c.ticket}: ${clipList(paths, 5, ", ")}`);
  }
  if (commits.length > COMMITS_SHOWN)
    out.push(`  … and ${commits.length - COMMITS_SHOWN} more: git log ${from}..${branch.name}`);
  if (branch.merge) out.push(`  merge: ${branch.merge}`);
  return out;
}
