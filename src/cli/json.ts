/**
 * `--json` of the commands that change something: one `ticket-frontier/command@1` object on
 * stdout (its schema: schema/command.schema.json) and nothing else there; what goes wrong
 * is still said in words on stderr.
 */
import { COMMAND_SCHEMA, type CommandResult } from "../report/command-result.js";
import type { CliIo } from "../terminal/io.js";

export type Said = Omit<CommandResult, "schema" | "command" | "dir">;

export function printResult(
  io: CliIo,
  command: CommandResult["command"],
  dir: string,
  said: Said,
): void {
  const result: CommandResult = { schema: COMMAND_SCHEMA, command, dir, ...said };
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
