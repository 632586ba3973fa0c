/**
 * `DIR/.frontier/lock`: one live `frontier run` per ticket directory.
 *
 * The file holds `{"pid", "host", "started_at"}` as JSON and is created with O_EXCL.
 * A lock whose process is gone (same host, pid not alive or not a frontier process) is
 * stale and taken over; a live one is refused, naming its pid. The same liveness test
 * decides whether a claim `local:<host>:<pid>` is dead and can be reclaimed at once.
 */
import { readFileSync } from "node:fs";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";

export interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
}

export function lockPath(dir: string): string {
  return join(dir, ".frontier", "lock");
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
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but someone else's — not ours to judge dead.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return true; // no /proc (macOS): alive is all we can tell
  }
  return /frontier|cli\.js/.test(cmdline);
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

/** Who holds the lock, if a live process does; undefined when free or stale. */
export function liveLockHolder(dir: string): LockInfo | undefined {
  let info: LockInfo;
  try {
    info = JSON.parse(readFileSync(lockPath(dir), "utf8")) as LockInfo;
  } catch {
    return undefined;
  }
  if (info.host !== hostname()) return info; // cannot tell: treat as held
  if (info.pid === process.pid) return info;
  return isLiveFrontierProcess(info.pid) ? info : undefined;
}

export type LockResult =
  | { kind: "ok"; release: () => Promise<void> }
  | { kind: "held"; holder: LockInfo; message: string };

export async function acquireLock(dir: string, now: number): Promise<LockResult> {
  const path = lockPath(dir);
  await mkdir(join(dir, ".frontier"), { recursive: true });
  const info: LockInfo = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date(now).toISOString(),
  };
  for (let tries = 0; tries < 3; tries++) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(`${JSON.stringify(info)}\n`);
      await handle.close();
      return {
        kind: "ok",
        release: async () => {
          // Only remove the lock if it is still ours.
          try {
            const held = JSON.parse(await readFile(path, "utf8")) as LockInfo;
            if (held.pid === info.pid && held.host === info.host) await rm(path, { force: true });
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = liveLockHolder(dir);
    if (holder) {
      const where =
        holder.host === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.host}`;
      return {
        kind: "held",
        holder,
        message: `another frontier run (${where}, since ${holder.started_at}) is running ${dir} — wait for it to finish or stop it; if it is gone, delete ${path}`,
      };
    }
    await rm(path, { force: true }); // stale: its process is gone
  }
  return {
    kind: "held",
    holder: info,
    message: `could not take ${path}: it keeps reappearing — is another frontier run starting on ${dir}?`,
  };
}
