/**
 * What `frontier run` says after the runner has finished: how to go on. The runner
 * prints the run's outcome and its open tickets; a run that stopped on questions also
 * gets the exact commands that answer them and continue, `--exec` included.
 */

import { type CliIo, EXIT, line } from "../core/io.js";
import { shellWord } from "../local/text.js";
import { remainderOf } from "../report/remainder.js";
import { continueCommand, rememberExec } from "./continue.js";
import { openDirectory } from "./open.js";

export async function afterRun(
  dir: string,
  exec: string | undefined,
  code: number,
  io: CliIo,
): Promise<void> {
  rememberExec(dir, exec);
  if (code !== EXIT.suspended) return;
  const now = Date.now();
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return;
  const { frontier, settings } = opened.opened;
  const open = remainderOf(frontier, now);
  const waiting = open.filter((r) => r.status === "suspended").map((r) => r.id);
  if (waiting.length === 0) return;
  const out = [`${waiting.length === 1 ? "answer it" : "answer them"}, then continue:`];
  for (const id of waiting) {
    out.push(`  frontier answer ${shellWord(dir)} ${shellWord(id)} "YOUR ANSWER"`);
  }
  out.push(
    `  ${continueCommand(dir, {
      ...(exec !== undefined ? { exec } : {}),
      settings,
      open: open.flatMap((r) => frontier.spec(r.id) ?? []),
    })}`,
  );
  line(io.stderr, out.join("\n"));
}
