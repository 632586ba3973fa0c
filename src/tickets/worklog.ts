/**
 * A resumed run says nothing twice in its worklog.
 *
 * A local run appends a batch's worklog lines with the records they describe, before
 * the files of the tickets they promote, block or settle are rewritten (those follow
 * the attempts' start). A run killed between the two leaves tickets whose file is
 * behind the log: the next load derives their state again (a ticket whose dependencies
 * are complete is ready; a claimed ticket whose attempt record has its outcome is
 * settled from it) and says so in its own lines. Those lines are repeats when the log
 * already has them, and are dropped here — the one place that knows what the log on
 * disk says. A line is a repeat when:
 *
 * - `promote`, `block`, `unblock`: the log's last line about that ticket is the same
 *   event (nothing happened to it since);
 * - `settle`, `expire`, `interrupt` of attempt N: the log already has a line ending
 *   attempt N of that ticket.
 *
 * Only the first write after a load can hold such lines, so only it is checked; the
 * log is read (once) only when that write has a line that could be a repeat.
 */
import { join } from "node:path";
import { readJson } from "../core/json.js";
import type { WorklogEntry } from "../core/model.js";
import { WORKLOG_FILE } from "./layout.js";
import { tryReadText } from "./read-optional.js";

const DERIVED = new Set<WorklogEntry["event"]>(["promote", "block", "unblock"]);
const ENDS = new Set<WorklogEntry["event"]>(["settle", "expire", "interrupt"]);

/** `lines` less those the worklog of `dir` already says. */
export function withoutRepeats(dir: string, lines: readonly WorklogEntry[]): WorklogEntry[] {
  const candidate = (l: WorklogEntry) =>
    l.ticket !== undefined &&
    (DERIVED.has(l.event) || (ENDS.has(l.event) && l.attempt !== undefined));
  if (!lines.some(candidate)) return [...lines];
  const text = tryReadText(join(dir, WORKLOG_FILE));
  if (text === undefined) return [...lines];
  const wanted = new Set(lines.filter(candidate).map((l) => l.ticket!));
  const last = new Map<string, WorklogEntry["event"]>();
  const ended = new Set<string>();
  const note = (ticket: string, event: WorklogEntry["event"], attempt: number | undefined) => {
    last.set(ticket, event);
    if (ENDS.has(event) && attempt !== undefined) ended.add(`${ticket}#${attempt}`);
  };
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    const read = readJson(raw);
    if (!read.ok) continue; // a line cut short by a kill says nothing
    const entry = read.value as Partial<WorklogEntry>;
    if (typeof entry.ticket !== "string" || !wanted.has(entry.ticket) || !entry.event) continue;
    note(entry.ticket, entry.event, entry.attempt);
  }
  return lines.filter((l) => {
    if (l.ticket === undefined) return true;
    if (DERIVED.has(l.event) && last.get(l.ticket) === l.event) return false;
    if (ENDS.has(l.event) && ended.has(`${l.ticket}#${l.attempt}`)) return false;
    note(l.ticket, l.event, l.attempt);
    return true;
  });
}
