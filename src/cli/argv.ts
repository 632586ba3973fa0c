/** The command lines `frontier` reads without commander (see quickCommand). */

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
