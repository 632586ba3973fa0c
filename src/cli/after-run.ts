/**
 * What `frontier run` says after the runner has finished: how to go on. The runner
 * prints the run's outcome and its open tickets; a run that stopped on questions also
 * gets the exact commands that answer them and continue, `--exec` included.
 */

import { openDirectory } from "../local/open.js";
import { remainderOf } from "../report/remainder.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { noun, shellWord } from "../terminal/text.js";
import { continueCommand, rememberExec } from "./continue.js";

export async function afterRun(
  dir: string,
  exec: string | undefined,
  code: number,
  io: CliIo,
): Promise<void> {
  // a run refused before it started (no executor, a bad graph, a held lock) used no
  // command: what the last real run used stays remembered
  if (code === EXIT.usage) return;
  rememberExec(dir, exec);
  if (code !== EXIT.suspended && code !== EXIT.failed && code !== EXIT.limited) return;
  const now = Date.now();
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return;
  const open = remainderOf(opened.opened.frontier, now);
  const waiting = open.filter((r) => r.status === "suspended").map((r) => r.id);
  // what `frontier retry` takes in a live run: a blocked ticket is retried through its root
  const failed = open
    .filter((r) => r.status === "failed" || r.status === "limited")
    .map((r) => r.id);
  if (waiting.length === 0 && failed.length === 0) return;
  const steps = [
    waiting.length > 0 && `answer ${noun(waiting.length, "it", "them")}`,
    failed.length > 0 && "retry what failed",
  ].filter(Boolean);
  const out = [`${steps.join(" and ")}, then continue:`];
  for (const id of failed) out.push(`  frontier retry ${shellWord(dir)} ${shellWord(id)}`);
  for (const id of waiting) {
    out.push(`  frontier answer ${shellWord(dir)} ${shellWord(id)} "YOUR ANSWER"`);
  }
  out.push(`  ${continueCommand(dir, opened.opened, open, exec)}`);
  line(io.stderr, out.join("\n"));
}
