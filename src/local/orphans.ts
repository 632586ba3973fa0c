/**
 * Attempts left running by a runner that died (SIGKILL, a crash, a closed laptop lid).
 *
 * Each attempt runs in its own process group with its claim token in its environment
 * (`FRONTIER_CLAIM`), so killing the runner does not kill it. Before the next
 * `frontier run` reclaims a dead runner's claims, it looks in /proc for processes that
 * still carry one of those tokens and ends their process groups — so a re-run never
 * runs beside the attempt it replaces, and a recycled pid is never touched (it would
 * not carry the token). Where there is no /proc (macOS), nothing is found and nothing
 * is killed.
 */
import type { Frontier } from "../core/engine.js";
import { namesIn, tryReadText } from "../tickets/read-optional.js";
import { signalGroup } from "./launch.js";
import { isDeadLocalHolder } from "./lock.js";

/** The attempts of `frontier`'s claims of runners that are gone, stopped: their tickets. */
export function stopDeadRunners(frontier: Frontier): string[] {
  const dead = new Map<string, string>(); // claim token → ticket
  for (const id of frontier.claimedIds()) {
    const state = frontier.state(id);
    if (state?.claim && isDeadLocalHolder(state.claimed_by ?? "")) dead.set(state.claim, id);
  }
  if (dead.size === 0) return [];
  // the process groups of processes whose environment carries one of those tokens
  const found = new Set<string>();
  const groups = new Set<number>();
  const ownGroup = groupOf(process.pid);
  for (const name of namesIn("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const environ = tryReadText(`/proc/${name}/environ`);
    if (environ === undefined) continue; // gone, or not ours to read
    const at = environ.indexOf("FRONTIER_CLAIM=");
    if (at === -1) continue;
    const end = environ.indexOf("\0", at);
    const token = environ.slice(at + "FRONTIER_CLAIM=".length, end === -1 ? undefined : end);
    const ticket = dead.get(token);
    if (ticket === undefined) continue;
    const group = groupOf(Number(name));
    if (group === undefined || group <= 1 || group === ownGroup) continue;
    groups.add(group);
    found.add(ticket);
  }
  for (const group of groups) signalGroup(group, "SIGKILL");
  return [...found];
}

function groupOf(pid: number): number | undefined {
  const stat = tryReadText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // pid (comm) state ppid pgrp …; comm may hold spaces, so split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z") return undefined;
  return Number(fields[2]);
}
