/**
 * Attempts left running by a runner that died (SIGKILL, a crash, a closed laptop lid).
 *
 * Each attempt runs in its own process group, so killing the runner does not kill it.
 * While it runs, `DIR/.frontier/_live/<ticket>.json` names its process group and claim
 * token; when the next `frontier run` reclaims that claim, it first ends the group —
 * but only after checking, in /proc, that a process of the group still carries the
 * claim token in its environment (FRONTIER_CLAIM), so a recycled pid is never touched.
 * (`_live` cannot collide with a ticket's folder: ticket ids never start with `_`.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

interface LiveFile {
  ticket: string;
  attempt: number;
  claim: string;
  pgid: number;
  holder: string;
}

function liveDir(dir: string): string {
  return join(dir, ".frontier", "_live");
}

export async function recordLive(dir: string, entry: LiveFile): Promise<void> {
  await mkdir(liveDir(dir), { recursive: true });
  await writeFile(join(liveDir(dir), `${entry.ticket}.json`), `${JSON.stringify(entry)}\n`);
}

export async function forgetLive(dir: string, ticket: string): Promise<void> {
  await rm(join(liveDir(dir), `${ticket}.json`), { force: true });
}

/** Processes of group `pgid` whose environment carries `FRONTIER_CLAIM=<claim>`. */
function groupCarriesClaim(pgid: number, claim: string): boolean {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return false;
  }
  const needle = `FRONTIER_CLAIM=${claim}\0`;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid || fields[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/environ`, "utf8").includes(needle)) return true;
    } catch {
      // gone, or not ours to read
    }
  }
  return false;
}

/**
 * End the groups of attempts whose runner is gone (`isDead(holder)`), and forget their
 * records. Returns the tickets whose leftover processes were stopped.
 */
export async function stopOrphans(
  dir: string,
  isDead: (holder: string) => boolean,
): Promise<string[]> {
  let files: string[];
  try {
    files = await readdir(liveDir(dir));
  } catch {
    return [];
  }
  const stopped: string[] = [];
  for (const file of files) {
    const path = join(liveDir(dir), file);
    let entry: LiveFile;
    try {
      entry = JSON.parse(await readFile(path, "utf8")) as LiveFile;
    } catch {
      await rm(path, { force: true });
      continue;
    }
    if (!isDead(entry.holder)) continue;
    if (groupCarriesClaim(entry.pgid, entry.claim)) {
      try {
        process.kill(-entry.pgid, "SIGKILL");
        stopped.push(entry.ticket);
      } catch {
        // already gone
      }
    }
    await rm(path, { force: true });
  }
  return stopped;
}
