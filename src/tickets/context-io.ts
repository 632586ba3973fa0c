/**
 * Gathering what an executor is given from a Frontier and the ticket directory:
 * the result file of each input's last complete (or empty) attempt.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { buildContext, type ContextArgs, type ContextInput } from "../core/context.js";
import type { RunRecord, Settings, TicketSpec, TicketState } from "../core/model.js";
import { readOptional } from "./read-optional.js";

export interface ContextSource {
  spec(id: string): TicketSpec | undefined;
  state(id: string): Readonly<TicketState> | undefined;
  runRecord(): RunRecord;
}

/** Where an input's result file is read: a ticket directory on disk, or a reader (path relative to it → text). */
export type Results = string | ((file: string) => Promise<string | undefined>);

/** The arguments of buildContext for `ticket`, with every input's result read from `results`. */
export async function gatherContext(
  results: Results,
  frontier: ContextSource,
  ticket: string,
  settings: Pick<Settings, "goal"> = {},
): Promise<ContextArgs> {
  const spec = frontier.spec(ticket);
  if (spec === undefined) throw new Error(`no ticket "${ticket}"`);
  const state = frontier.state(ticket);
  const inputs: ContextInput[] = await Promise.all(
    spec.inputs.map(async (id) => {
      const s = frontier.state(id);
      const title = frontier.spec(id)?.title ?? id;
      const status = s?.status ?? "pending";
      const last = s?.attempts
        .filter((a) => a.outcome === "complete" || a.outcome === "empty")
        .sort((a, b) => b.n - a.n)[0];
      let result: string | undefined;
      if (last?.outcome === "complete" && last.result_file !== undefined) {
        result =
          typeof results === "string"
            ? await readOptional(join(results, last.result_file))
            : await results(last.result_file);
      }
      return { id, title, status, result };
    }),
  );
  // the live attempt while claimed, the last one once done; otherwise the one that would come next
  const attempt =
    state === undefined || state.attempt === 0
      ? 1
      : state.status === "claimed" || state.status === "complete" || state.status === "empty"
        ? state.attempt
        : state.attempt + 1;
  const args: ContextArgs = {
    spec,
    run: frontier.runRecord().run,
    inputs,
    answers: state?.answers ?? [],
    attempt,
  };
  if (settings.goal !== undefined) args.goal = settings.goal;
  return args;
}

/** The text an executor of `ticket` is given. */
export async function readContext(
  results: Results,
  frontier: ContextSource,
  ticket: string,
  settings: Pick<Settings, "goal"> = {},
): Promise<string> {
  return buildContext(await gatherContext(results, frontier, ticket, settings));
}

/** Reads result files of a directory for the reports; a missing file reads as undefined. */
export function resultReader(dir: string): (file: string) => string | undefined {
  return (file) => {
    try {
      return readFileSync(join(dir, file), "utf8");
    } catch {
      return undefined;
    }
  };
}
