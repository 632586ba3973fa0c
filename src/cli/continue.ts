/**
 * The exact command that continues a local run, `--exec` included: printed after a run
 * stops on a question and after `answer` / `retry`, so the user pastes it and goes on.
 *
 * `frontier run` is told its command with `--exec` each time; nothing else records it.
 * So the command line's `--exec` is remembered in `DIR/.frontier/last-exec.json` when a
 * run ends, and read back by the hints. A directory whose tickets all have a command of
 * their own (frontier.yml `executor`, a ticket's named executor) needs no `--exec`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Opened } from "../local/open.js";
import { shellWord } from "../terminal/text.js";
import { LAST_EXEC_FILE, STATE_DIR } from "../tickets/layout.js";
import { tryReadJson } from "../tickets/read-optional.js";
import { replaceAtomically } from "../tickets/store.js";

/**
 * Remember the `--exec` of a run that has records (a run that never started leaves
 * nothing), or that it had none: then frontier.yml's executor ran, and so it will again.
 */
export function rememberExec(dir: string, exec: string | undefined): void {
  if (!existsSync(join(dir, STATE_DIR))) return;
  try {
    replaceAtomically(join(dir, LAST_EXEC_FILE), `${JSON.stringify({ exec: exec ?? null })}\n`);
  } catch {
    // a hint is not worth failing a run over: the hint then shows `--exec CMD`
  }
}

/**
 * `frontier run tickets --exec 'my-agent "$FRONTIER_CONTEXT_FILE"'`: `exec` when the run
 * was given one, else the remembered one, else none when every open ticket has a command
 * of its own, else a placeholder the user has to fill in.
 */
export function continueCommand(
  dir: string,
  { frontier, settings }: Pick<Opened, "frontier" | "settings">,
  open: readonly { id: string }[],
  given?: string,
): string {
  const base = `frontier run ${shellWord(dir)}`;
  // else the remembered one (null: the last run had none); any other value: none remembered
  const exec = given ?? tryReadJson<{ exec: unknown }>(join(dir, LAST_EXEC_FILE))?.exec;
  if (typeof exec === "string") return `${base} --exec ${shellWord(exec)}`;
  if (exec === null) return base;
  const needsExec =
    settings.executor === undefined &&
    open.some((t) => frontier.spec(t.id)?.executor === undefined);
  return needsExec ? `${base} --exec CMD` : base;
}
