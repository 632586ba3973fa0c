/**
 * Opening a ticket directory for a command: load and check it, open the run at its
 * saved state (core/event.ts), and write back what an event changed. Shared by every
 * command that reads or changes a directory; the local runner opens it the same way.
 */
import { readFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import type { RunFlags } from "../core/config.js";
import type { Changes, Frontier } from "../core/engine.js";
import { openRun } from "../core/event.js";
import { type CliIo, EXIT } from "../core/io.js";
import type { Settings, TicketSpec } from "../core/model.js";
import { errorLine } from "../local/colour.js";
import { printProblems } from "../local/problems.js";
import { type LoadOptions, loadDirectory } from "../tickets/load.js";
import type { Problem } from "../tickets/problems.js";

export interface Opened {
  dir: string;
  settings: Settings;
  specs: readonly TicketSpec[];
  frontier: Frontier;
  warnings: Problem[];
}

export type OpenResult = { kind: "ok"; opened: Opened } | { kind: "exit"; code: number };

export async function openDirectory(
  dir: string,
  flags: RunFlags,
  io: CliIo,
  now: number,
  load: LoadOptions = {},
): Promise<OpenResult> {
  const loaded = await loadDirectory(dir, {}, load);
  if (loaded.kind === "invalid") {
    printProblems(loaded.problems, io, dir);
    return { kind: "exit", code: EXIT.usage };
  }
  const run = openRun({
    specs: loaded.specs,
    settings: loaded.settings,
    saved: loaded.saved,
    flags,
    now,
  });
  if (run.kind === "bad") {
    errorLine(io, run.message);
    return { kind: "exit", code: EXIT.usage };
  }
  const { frontier } = run;
  return {
    kind: "ok",
    opened: {
      dir,
      settings: loaded.settings,
      specs: loaded.specs,
      frontier,
      warnings: loaded.warnings,
    },
  };
}

/**
 * Write what an event changed (its step's changes): ticket files, attempts, answers,
 * worklog. Returns what could not be written of ticket files (each the problem of its
 * ticket alone; the rest is written).
 */
export async function writeChanges(
  dir: string,
  frontier: Frontier,
  changes: Changes,
): Promise<string[]> {
  // Loaded on demand: read-only commands never pay for the YAML document editor.
  const [{ planWrites }, { applyEdits }] = await Promise.all([
    import("../tickets/writeback.js"),
    import("../tickets/store.js"),
  ]);
  const unwritable: string[] = [];
  const edits = planWrites(
    changes,
    frontier,
    (file) => readFileSync(join(dir, file)),
    (problem) => unwritable.push(problem.message),
  );
  applyEdits(dir, edits);
  return unwritable;
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
