/**
 * `--json` of the commands that change something: one `ticket-frontier/command@1` object on
 * stdout (its schema: schema/command.schema.json) and nothing else there; what goes wrong
 * is still said in words on stderr.
 */
import { COMMAND_SCHEMA, type CommandResult } from "../report/command-result.js";
import { errorLine } from "../terminal/colour.js";
import { type CliIo, EXIT } from "../terminal/io.js";

type Said = Omit<CommandResult, "schema" | "command" | "dir">;

export function printResult(
  io: CliIo,
  command: CommandResult["command"],
  dir: string,
  said: Said,
): void {
  const result: CommandResult = { schema: COMMAND_SCHEMA, command, dir, ...said };
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/**
 * A refusal of a command that changes something: `error: …` on stderr (unless `said`
 * already: the lock's refusal says why) and, with --json, the object with `ok: false` (and `extra`)
 * on stdout; exit code 2.
 */
export function refusal(
  io: CliIo,
  command: CommandResult["command"],
  dir: string,
  json: boolean | undefined,
  extra: Omit<Said, "ok" | "message"> = {},
) {
  return (message: string, said = false): number => {
    if (!said) errorLine(io, message);
    if (json) printResult(io, command, dir, { ok: false, message, ...extra });
    return EXIT.usage;
  };
}
