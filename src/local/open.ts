/**
 * Opening a local ticket directory: load and check it, open the run at its saved state
 * (core/event.ts), and write back what an event changed. The one way in for every
 * command that reads or changes a directory, the local runner included.
 *
 * The first write after opening also finishes what a killed run left half-done: an
 * attempt known only from its result file gets its record, and the lines the load
 * derived again (tickets promoted or settled once more from their records) are not
 * written when the worklog already says them (tickets/worklog.ts).
 */
import { hostname, userInfo } from "node:os";
import type { RunFlags } from "../core/config.js";
import type { Changes, Frontier } from "../core/engine.js";
import { openRun } from "../core/event.js";
import { type CliIo, EXIT } from "../terminal/io.js";
import { printProblems } from "../terminal/problems.js";
import { type Loaded, type LoadOptions, loadDirectory } from "../tickets/load.js";
import { withoutRepeats } from "../tickets/worklog.js";

/** A loaded directory (its `unrecorded` attempts: the first write records them) and its run. */
export type Opened = Pick<
  Extract<Loaded, { kind: "ok" }>,
  "dir" | "settings" | "specs" | "warnings" | "unrecorded"
> & { frontier: Frontier };

type OpenResult = { kind: "ok"; opened: Opened } | { kind: "exit"; code: number };

/**
 * Load `dir`, print its problems (files named under `shown`, the path the user typed)
 * and open its run; warnings are the caller's to print.
 */
export async function openDirectory(
  dir: string,
  flags: RunFlags,
  io: CliIo,
  now: number,
  load: LoadOptions = {},
  shown: string = dir,
): Promise<OpenResult> {
  const loaded = await loadDirectory(dir, load);
  if (loaded.kind === "invalid") {
    const problems = loaded.problems.map((p) => (p.file === dir ? { ...p, file: shown } : p));
    printProblems(problems, io, shown);
    return { kind: "exit", code: EXIT.usage };
  }
  const { specs, settings, saved, warnings, unrecorded } = loaded;
  const frontier = openRun({ specs, settings, saved, flags, now });
  return {
    kind: "ok",
    opened: { dir, settings, specs, frontier, warnings, unrecorded },
  };
}

/**
 * The first write after opening: `changes` with the records of the attempts known only
 * from their result file, and without the worklog lines the log already has.
 */
export function firstWrite(opened: Opened, changes: Changes): Changes {
  const { frontier } = opened;
  const records: Changes["attempts"] = [];
  for (const { ticket, n } of opened.unrecorded) {
    const record = frontier.state(ticket)?.attempts.find((a) => a.n === n);
    if (record !== undefined) records.push({ ticket, record });
  }
  return {
    ...changes,
    attempts: [...records, ...changes.attempts],
    log: withoutRepeats(opened.dir, changes.log),
  };
}

/**
 * Write what an event changed (its step's changes): ticket files, attempts, answers,
 * worklog. A ticket file is replaced only as it was read (local/edits.ts): one an author
 * saved meanwhile is planned again from the saved text. Returns what could not be written
 * of ticket files (each the problem of its ticket alone; the rest is written).
 */
export async function writeChanges(opened: Opened, changes: Changes): Promise<string[]> {
  const { dir, frontier } = opened;
  // Loaded on demand: read-only commands never pay for the YAML document editor.
  const [{ planWrites }, { TicketWatch }] = await Promise.all([
    import("../tickets/writeback.js"),
    import("./edits.js"),
  ]);
  const unwritable: string[] = [];
  const watch = new TicketWatch(dir, []);
  const plan = (part: Changes) =>
    planWrites(part, frontier, watch.read, (problem) => unwritable.push(problem.message));
  const lost = watch.write(plan(firstWrite(opened, changes)), (file) =>
    plan(ticketFiles(frontier.specs().flatMap((s) => (s.file === file ? [s.id] : [])))),
  );
  for (const file of lost) {
    unwritable.push(
      `${file}: changed twice while it was being written, so its state is in .frontier/ only — run the command again once it is saved`,
    );
  }
  return unwritable;
}

/** The changes that write these tickets' files and nothing else. */
export function ticketFiles(tickets: string[]): Changes {
  return { tickets, attempts: [], answers: [], log: [], run: false };
}

/** Who a local command acts as, for the record. */
export function localUser(env: NodeJS.ProcessEnv): string {
  let name = env.USER ?? env.LOGNAME;
  if (!name) {
    try {
      name = userInfo().username;
    } catch {
      name = "someone";
    }
  }
  return `${name}@${hostname()}`;
}
