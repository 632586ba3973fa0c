/**
 * `DIR` defaults to `tickets` for every command, also where a ticket id follows it:
 * `frontier retry a` and `frontier retry tickets a` both work.
 */
import { plural } from "../terminal/text.js";
import { isDirectory } from "../tickets/read-optional.js";
import { DEFAULT_DIR } from "./argv.js";

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
