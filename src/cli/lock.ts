/** The run's lock, for the commands that change a ticket directory. */
import { existsSync } from "node:fs";
import { acquireLock } from "../local/lock.js";
import { type CliIo, line } from "../terminal/io.js";

/** What `--json` says when the run's lock turned the command away (stderr said why). */
export const LOCK_HELD = "a frontier run holds the directory";

/**
 * `change` under the run's lock, released after it. The live runner holds the graph in
 * memory and would not see a change made beside it: when a run holds the lock, the
 * command says so and which command to run after it stops, and answers `refuse(LOCK_HELD)`.
 */
export async function underLock(
  dir: string,
  io: CliIo,
  what: string,
  now: number,
  refuse: (message: string, said: boolean) => number,
  change: () => Promise<number>,
): Promise<number> {
  // a directory that is not there has no lock: what opens it says what is wrong
  const lock = existsSync(dir) ? await acquireLock(dir, now) : undefined;
  if (lock?.kind === "held") {
    line(io.stderr, `error: ${lock.message}; \`frontier ${what}\` after it stops`);
    return refuse(LOCK_HELD, true);
  }
  try {
    return await change();
  } finally {
    await lock?.release();
  }
}
