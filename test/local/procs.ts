/** Test helpers: which processes of a group are still alive (zombies count as gone). */
import { readdirSync, readFileSync } from "node:fs";

export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …; comm may contain spaces, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    const group = Number(fields[2]);
    if (group === pgid && state !== "Z" && state !== "X") members.push(Number(name));
  }
  return members;
}

/** Wait (briefly) until a group has no live member; returns the members still alive. */
export async function groupGone(pgid: number, withinMs = 3000): Promise<number[]> {
  const until = Date.now() + withinMs;
  for (;;) {
    const live = liveGroupMembers(pgid);
    if (live.length === 0 || Date.now() > until) return live;
    await new Promise((r) => setTimeout(r, 25));
  }
}
