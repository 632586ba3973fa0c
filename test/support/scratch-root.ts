/**
 * Every file a test run writes under the system's temporary directory goes into one
 * folder made for the run (in memory when there is room, below) and removed when it ends,
 * so `npm test` leaves nothing behind (before, each run left some 400 folders and 100 MB
 * in /tmp). The workers and every
 * process a test spawns inherit TMPDIR, which is where `os.tmpdir()` looks.
 *
 * They also inherit an environment without NODE_EXTRA_CA_CERTS: every test talks to
 * servers on localhost over plain http, and a machine that sets it for all programs (as
 * this project's CI machines do) makes each of the run's 650 `node` processes parse a
 * whole CA bundle as it starts: 45 ms of CPU each, half a minute of the run.
 */
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  // each project of the config runs its global setup in the one main process: the first
  // makes the folder, the others keep it (a folder in a folder made Chromium's socket
  // path too long)
  if (process.env.FRONTIER_TESTS_SCRATCH) return () => {};
  const root = mkdtempSync(join(roomyMemory() ?? tmpdir(), "frontier-tests-"));
  process.env.TMPDIR = root;
  process.env.FRONTIER_TESTS_SCRATCH = root;
  delete process.env.NODE_EXTRA_CA_CERTS;
  return () => {
    rmSync(root, { recursive: true, force: true });
    delete process.env.FRONTIER_TESTS_SCRATCH;
  };
}

/**
 * /dev/shm when it is memory with room for the run: the suite's git makes thousands of small
 * files and its processes write temporary ones, which cost less there than on a disk (on
 * an idle 2-core machine, the two heaviest files took 63 s against 73 s, a whole run 6m01s
 * against 6m20s). A container's /dev/shm (64 MB) is too small: then the system's.
 */
function roomyMemory(): string | undefined {
  try {
    const fs = statfsSync("/dev/shm");
    return fs.type === TMPFS && fs.bavail * fs.bsize > 4 * 1024 ** 3 ? "/dev/shm" : undefined;
  } catch {
    return undefined;
  }
}
const TMPFS = 0x01021994;
