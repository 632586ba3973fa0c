/**
 * What a command that changes something prints with `--json` (`answer`, `retry`,
 * `cancel`, `new`, `reset`, `dep add`, `dep rm`) and what `ready --json` prints: one
 * versioned object, `ticket-frontier/command@1`, whose JSON Schema ships as
 * schema/command.schema.json beside the receipt's. Fields may be added; none of these
 * may change meaning without a new version.
 */
import { z } from "zod";

export const COMMAND_SCHEMA = "ticket-frontier/command@1";

export const CommandResult = z.object({
  schema: z.literal(COMMAND_SCHEMA),
  command: z
    .enum(["answer", "retry", "cancel", "new", "reset", "dep add", "dep rm", "ready"])
    .describe("the command that ran"),
  dir: z.string().describe("the ticket directory, as the command was given it"),
  ok: z
    .boolean()
    .describe("false when nothing was changed: refused, or already so (the exit code says which)"),
  message: z.string().describe("what the command said, in words"),
  ticket: z.string().optional().describe("the ticket it acted on"),
  file: z.string().optional().describe("the ticket file it wrote or edited"),
  depends_on: z
    .array(z.string())
    .optional()
    .describe("new, dep add, dep rm: the ticket's depends_on as it now is"),
  changed: z
    .array(z.string())
    .optional()
    .describe("answer, retry, cancel: the tickets whose state changed"),
  ready: z
    .array(
      z.object({
        id: z.string(),
        title: z.string(),
        priority: z.number().int(),
      }),
    )
    .optional()
    .describe("ready: the tickets that may be dispatched now, in dispatch order"),
  archive: z.string().optional().describe("reset: where the old run's records were moved"),
  next: z.string().optional().describe("the command that continues the run"),
});
export type CommandResult = z.infer<typeof CommandResult>;
