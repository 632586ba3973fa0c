/**
 * Every file a test run writes under the system's temporary directory goes into one
 * folder made for the run and removed when it ends, so `npm test` leaves nothing behind
 * (before, each run left some 400 folders and 100 MB in /tmp). The workers and every
 * process a test spawns inherit TMPDIR, which is where `os.tmpdir()` looks.
 *
 * They also inherit an environment without NODE_EXTRA_CA_CERTS: every test talks to
 * servers on localhost over plain http, and a machine that sets it for all programs (as
 * this project's CI machines do) makes each of the run's 650 `node` processes parse a
 * whole CA bundle as it starts: 45 ms of CPU each, half a minute of the run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  // each project of the config runs its global setup in the one main process: the first
  // makes the folder, the others keep it (a folder in a folder made Chromium's socket
  // path too long)
  if (process.env.FRONTIER_TESTS_SCRATCH) return () => {};
  const root = mkdtempSync(join(tmpdir(), "frontier-tests-"));
  process.env.TMPDIR = root;
  process.env.FRONTIER_TESTS_SCRATCH = root;
  delete process.env.NODE_EXTRA_CA_CERTS;
  return () => {
    rmSync(root, { recursive: true, force: true });
    delete process.env.FRONTIER_TESTS_SCRATCH;
  };
}
