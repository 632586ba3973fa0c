/**
 * Temporary files a killed run left behind. Every file frontier writes whole goes to a
 * temporary name first (`.a.md.<pid>.<hex>.tmp` beside a ticket, `receipt.json.<pid>.tmp`,
 * `lock.<pid>.<hex>.tmp`), and each run's scratch directories are `frontier-run-<pid>-…`
 * and `frontier-index-<pid>-…` in the system's temporary directory. A run killed mid-write leaves one; the next run,
 * holding the lock, removes those whose process is gone.
 */

import { tmpdir } from "node:os";
import { join } from "node:path";
import { sweepDead } from "../tickets/cache.js";
import { STATE_DIR } from "../tickets/layout.js";

/** in `.frontier/`, frontier's own directory: any of its temporary names */
const TEMP = /\.(\d+)(?:\.[0-9a-f]{8})?\.tmp$/;
/** beside the tickets, where the author's files live: only the store's exact shape */
export const TICKET_TEMP = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;
const SCRATCH = /^frontier-(?:run|index)-(\d+)-/;

/** Remove leftovers in the ticket directory and the system's temporary directory; returns how many. */
export function removeLeftovers(dir: string): number {
  let removed = sweepDead(dir, TICKET_TEMP);
  for (const sub of ["", "/attempts", "/results", "/answers", "/integrating"]) {
    removed += sweepDead(join(dir, `${STATE_DIR}${sub}`), TEMP);
  }
  sweepDead(tmpdir(), SCRATCH);
  return removed;
}
