/**
 * `DIR/.frontier/lock`: one live `frontier run` per ticket directory.
 *
 * The file holds `{"pid", "host", "started_at"}` as JSON and appears whole (see
 * acquireLock). A lock whose process is gone (same host, pid not alive or not a
 * frontier process) is stale and taken over; a live one, or one that cannot be read,
 * is refused. The same liveness test
 * decides whether a claim `local:<host>:<pid>` is dead and can be reclaimed at once.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { link, rename, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { errnoCode, errorText } from "../core/errors.js";
import { readJson } from "../core/json.js";
import { isAlive } from "../tickets/cache.js";
import { LOCK_FILE, RUN_FILE } from "../tickets/layout.js";
import { readRegular, tryReadJson, tryReadText } from "../tickets/read-optional.js";
import { ensureStateDir } from "../tickets/store.js";

interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
}

/** The claim holder name of this process: `local:<host>:<pid>`. */
export function localHolder(pid: number = process.pid): string {
  return `local:${hostname()}:${pid}`;
}

/**
 * Is `pid` on this host a live frontier process? Where /proc tells us the command line,
 * a recycled pid that now belongs to something else counts as gone.
 */
export function isLiveFrontierProcess(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  const cmdline = tryReadText(`/proc/${pid}/cmdline`);
  // no /proc (macOS): alive is all we can tell
  return cmdline === undefined || /frontier|cli\.js/.test(cmdline);
}

/**
 * Is a claim holder dead? Only claims made by `frontier run` on this host can be judged
 * here; anything else (a GitHub job, another machine) waits for its lease.
 */
export function isDeadLocalHolder(claimedBy: string, self: number = process.pid): boolean {
  const match = /^local:(.+):(\d+)$/.exec(claimedBy);
  if (!match || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  // A claim in our own name from before we started is a previous process that had our pid.
  if (pid === self) return true;
  return !isLiveFrontierProcess(pid);
}

/** What the lock file says, as far as it can be read. */
type LockRead =
  | { kind: "free" }
  | { kind: "holder"; info: LockInfo; text: string }
  | { kind: "unreadable"; message: string };

function readLock(path: string): LockRead {
  let text: string;
  try {
    text = readRegular(path); // a FIFO there is said, never waited on
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return { kind: "free" };
    return { kind: "unreadable", message: errorText(error) };
  }
  const read = readJson(text);
  const info = read.ok ? (read.value as Partial<LockInfo> | null) : null;
  if (typeof info?.pid === "number" && typeof info.host === "string") {
    return {
      kind: "holder",
      info: { pid: info.pid, host: info.host, started_at: String(info.started_at ?? "") },
      text,
    };
  }
  return { kind: "unreadable", message: "it does not hold a frontier lock record" };
}

/** A holder that is certainly gone: same host, and its process is not a live frontier. */
function isDeadHolder(info: LockInfo): boolean {
  if (info.host !== hostname()) return false; // another machine: cannot tell
  if (info.pid === process.pid) {
    // our own pid: ours (another command of this process holds it), unless it was taken
    // before this process started — an earlier process that had our pid (a container's
    // runner often gets the same small pid every time)
    const taken = Date.parse(info.started_at);
    return Number.isFinite(taken) && taken < PROCESS_STARTED - 1000;
  }
  return !isLiveFrontierProcess(info.pid);
}

const PROCESS_STARTED = Date.now() - process.uptime() * 1000;

type LockResult = { kind: "ok"; release: () => Promise<void> } | { kind: "held"; message: string };

/**
 * Take `DIR/.frontier/lock`. The lock file appears whole or not at all: its record is
 * written to a temporary file first and hard-linked into place (link fails if the lock
 * exists). A lock that cannot be read is never taken for a dead one. A lock whose
 * holder is certainly gone is replaced by one process only: the one that first creates
 * `lock.takeover` (again by link), which checks the lock is still the dead one and
 * renames its own record over it.
 */
export async function acquireLock(dir: string, now: number): Promise<LockResult> {
  const path = join(dir, LOCK_FILE);
  ensureStateDir(dir);
  const info: LockInfo = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date(now).toISOString(),
  };
  const record = `${JSON.stringify(info)}\n`;
  const ours = (): { kind: "ok"; release: () => Promise<void> } => ({
    kind: "ok",
    release: async () => {
      // only the lock that is still ours is removed
      const held = readLock(path);
      if (held.kind === "holder" && held.text === record) await rm(path, { force: true });
    },
  });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, record, { flag: "wx" });
  try {
    for (let tries = 0; tries < 20; tries++) {
      try {
        await link(tmp, path);
        return ours();
      } catch (error) {
        if (errnoCode(error) !== "EEXIST") throw error;
      }
      const read = readLock(path);
      if (read.kind === "free") continue; // released meanwhile: try again
      if (read.kind === "unreadable") {
        return {
          kind: "held",
          message: `${path} exists but cannot be read (${read.message}); another frontier run may hold it — if none is running on ${dir}, delete ${path}`,
        };
      }
      if (!isDeadHolder(read.info)) return held(read.info, path, dir);
      // its holder is gone: one process replaces it
      const takeover = `${path}.takeover`;
      try {
        await link(tmp, takeover);
      } catch (error) {
        if (errnoCode(error) !== "EEXIST") throw error;
        // one left by a process that died in the middle of a takeover (microseconds wide)
        const left = readLock(takeover);
        if (left.kind === "holder" && isDeadHolder(left.info)) rmSync(takeover, { force: true });
        await new Promise((r) => setTimeout(r, 10 + Math.random() * 20));
        continue;
      }
      try {
        const again = readLock(path);
        if (again.kind === "holder" && again.text === read.text) {
          await rename(tmp, path);
          return ours();
        }
      } finally {
        await rm(takeover, { force: true });
      }
    }
  } finally {
    await rm(tmp, { force: true });
  }
  return {
    kind: "held",
    message: `could not take ${path}: it keeps changing hands — is another frontier run starting on ${dir}?`,
  };
}

function held(holder: LockInfo, path: string, dir: string): LockResult {
  const where =
    holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
  const name = recordedRun(dir);
  return {
    kind: "held",
    message: `another frontier run${name === undefined ? "" : ` of run ${name}`} (${where}, since ${holder.started_at}) is running ${dir} — wait for it to finish or stop it; if it is gone, delete ${path}`,
  };
}

/** The name in the run record, if one can be read (which run holds the lock, or is reset). */
export function recordedRun(dir: string): string | undefined {
  const run = tryReadJson<{ run: unknown }>(join(dir, RUN_FILE))?.run;
  return typeof run === "string" && run !== "" ? run : undefined;
}
