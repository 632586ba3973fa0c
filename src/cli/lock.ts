/** The run's lock, for the commands that change a ticket directory. */
import { existsSync } from "node:fs";
import { acquireLock } from "../local/lock.js";
import { type CliIo, line } from "../terminal/io.js";

/**
 * Take the run's lock for a command that changes the directory; undefined (and said
 * why) when a run holds it. Returns the release.
 */
export async function takeLock(
  dir: string,
  io: CliIo,
  what: string,
  now: number,
): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(dir)) return async () => {}; // openDirectory says what is wrong
  const lock = await acquireLock(dir, now);
  if (lock.kind === "ok") return lock.release;
  line(io.stderr, `error: ${lock.message}; \`frontier ${what}\` after it stops`);
  return undefined;
}
