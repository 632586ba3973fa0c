/**
 * Gathering what an executor is given from a Frontier and the ticket directory:
 * the result file of each input's last complete (or empty) attempt.
 */
import { join } from "node:path";
import { DEFAULTS } from "../core/constants.js";
import type { Settings } from "../core/model.js";
import { buildContext, type ContextArgs, type ContextInput } from "./context.js";
import { readOptional, statOf, tryReadText } from "./read-optional.js";
import type { EngineView } from "./writeback.js";

/**
 * Where an input's result file is read: a ticket directory on disk, or a reader (path
 * relative to the ticket directory → text) — the GitHub context step reads the run's
 * branch, with no files on disk.
 */
export type Results = string | ((file: string) => Promise<string | undefined>);

/** The arguments of buildContext for `ticket`, with every input's result read from `results`. */
export async function gatherContext(
  results: Results,
  frontier: EngineView,
  ticket: string,
  settings: Pick<Settings, "goal"> = {},
): Promise<ContextArgs> {
  const spec = frontier.spec(ticket);
  if (spec === undefined) throw new Error(`no ticket "${ticket}"`);
  const state = frontier.state(ticket);
  // the inputs' results, in order, while they fit the cap; the rest by their file (the
  // size is in each attempt's record, so a result left out is never read)
  let room = DEFAULTS.maxContextResultBytes;
  let leftOut = false;
  // one after the other, in the ticket's order: the first inputs get the room
  const inputs: ContextInput[] = [];
  for (const id of spec.inputs) {
    const s = frontier.state(id);
    const title = frontier.spec(id)?.title ?? id;
    const status = s?.status ?? "pending";
    const last = s?.attempts
      .filter((a) => a.outcome === "complete" || a.outcome === "empty")
      .sort((a, b) => b.n - a.n)[0];
    let result: string | undefined;
    const changes = last?.changes?.verdict === "integrated" ? last.changes.paths : [];
    const changed = changes.length > 0 ? { changed: changes.map((p) => p.path) } : {};
    if (last?.outcome === "complete" && last.result_file !== undefined) {
      // where a person or an agent finds it: on disk, or in the ticket directory of the branch
      const path = typeof results === "string" ? join(results, last.result_file) : last.result_file;
      const read = () =>
        typeof results === "string" ? readOptional(path) : results(last.result_file as string);
      let bytes = last.result_bytes;
      if (bytes === undefined && typeof results === "string") bytes = statOf(path)?.size ?? 0;
      if (bytes === undefined) {
        // an old record without its size: read it to know (only such records are read early)
        result = await read();
        bytes = result === undefined ? 0 : Buffer.byteLength(result, "utf8");
      }
      if (bytes > room) {
        leftOut = true;
        inputs.push({ id, title, status, result: undefined, omitted: { bytes, path }, ...changed });
        continue;
      }
      room -= bytes;
      result ??= await read();
    }
    inputs.push({ id, title, status, result, ...changed });
  }
  // the live attempt while claimed, the last one once done; otherwise the one that would come next
  const attempt =
    state === undefined || state.attempt === 0
      ? 1
      : state.status === "claimed" || state.status === "complete" || state.status === "empty"
        ? state.attempt
        : state.attempt + 1;
  return {
    spec,
    ...(leftOut ? { resultCap: DEFAULTS.maxContextResultBytes } : {}),
    run: frontier.runRecord().run,
    inputs,
    answers: state?.answers ?? [],
    attempt,
    ...(settings.goal !== undefined ? { goal: settings.goal } : {}),
  };
}

/** The text an executor of `ticket` is given. */
export async function readContext(...args: Parameters<typeof gatherContext>): Promise<string> {
  return buildContext(await gatherContext(...args));
}

/** Reads result files of a directory for the reports; a missing file reads as undefined. */
export function resultReader(dir: string): (file: string) => string | undefined {
  return (file) => tryReadText(join(dir, file));
}
