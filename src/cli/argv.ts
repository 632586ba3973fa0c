/** The command lines `frontier` reads without commander (see quickCommand), and `[dir]` words. */
import { plural } from "../terminal/text.js";
import { isDirectory } from "../tickets/read-optional.js";

/**
 * `DIR` for every command, also where a ticket id follows it: `frontier retry a` and
 * `frontier retry tickets a` both work.
 */
export const DEFAULT_DIR = "tickets";

/**
 * `validate [dir] [--json]` and `status [dir] [--json]`, the commands meant to be quick,
 * read without loading commander: only these plain forms, each word once. Anything else
 * (help, an unknown option, a second directory) goes to commander, which says what is
 * wrong exactly as before.
 */
export function quickCommand(
  argv: readonly string[],
): { command: "validate" | "status"; dir: string; json: boolean } | undefined {
  const [command, ...rest] = argv;
  if (command !== "validate" && command !== "status") return undefined;
  let dir: string | undefined;
  let json = false;
  for (const arg of rest) {
    if (arg === "--json" && !json) json = true;
    else if (arg === "" || arg.startsWith("-") || dir !== undefined) return undefined;
    else dir = arg;
  }
  return { command, dir: dir ?? DEFAULT_DIR, json };
}

type DirArgs = { kind: "ok"; dir: string; rest: string[] } | { kind: "bad"; message: string };

/**
 * `[DIR] TICKET` (`count` 1) or `[DIR] TICKET DEP` (2): `count` words, or the directory
 * and then them. `usage` is the command's usage line for the message.
 */
export function dirAnd(count: number, words: readonly string[], usage: string): DirArgs {
  if (words.length === count) return { kind: "ok", dir: DEFAULT_DIR, rest: [...words] };
  if (words.length === count + 1) return { kind: "ok", dir: words[0]!, rest: words.slice(1) };
  return { kind: "bad", message: `expected ${usage}, got ${plural(words.length, "word")}` };
}

/**
 * `[DIR] TICKET TEXT…`: the first word is the directory when it names one (and a
 * ticket and an answer follow it); otherwise the directory is `tickets`.
 */
export function dirTicketAndText(words: readonly string[], usage: string): DirArgs {
  if (words.length >= 3 && isDirectory(words[0]!)) {
    return { kind: "ok", dir: words[0]!, rest: words.slice(1) };
  }
  if (words.length >= 2) return { kind: "ok", dir: DEFAULT_DIR, rest: [...words] };
  return { kind: "bad", message: `expected ${usage}: the ticket and the answer` };
}
