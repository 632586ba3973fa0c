/**
 * Every file a test run writes under the system's temporary directory goes into one
 * folder made for the run and removed when it ends, so `npm test` leaves nothing behind
 * (before, each run left some 400 folders and 100 MB in /tmp). The workers and every
 * process a test spawns inherit TMPDIR, which is where `os.tmpdir()` looks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "frontier-tests-"));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
