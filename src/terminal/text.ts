/**
 * Small pieces of wording every command shares, so the same thing is said the same way:
 * counts with their plurals, paths as seen from where the user stands, commands a user
 * can paste, and text from records squeezed onto one line.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { singleLine } from "../core/text.js";
import { clip } from "../report/escape.js";

export { noun, plural } from "../report/states.js";

/**
 * A path as the user should see it: relative to the working directory (`tickets`,
 * `../other/tickets`), `.` for the directory itself. A path that would climb out of
 * the working directory further than it goes down is clearer absolute.
 */
export function shownPath(path: string, cwd: string = process.cwd()): string {
  const absolute = resolve(cwd, path);
  // from the root (a working directory that was deleted: see cli.ts), absolute is clearer
  if (cwd === sep) return absolute;
  const rel = relative(cwd, absolute);
  if (rel === "") return ".";
  const climbs = rel.split(sep).filter((part) => part === "..").length;
  return isAbsolute(rel) || climbs > 1 ? absolute : rel;
}

/** Text from a record (a reason, a question) on one line, cut at `max`: the record keeps it whole. */
export function oneLine(text: string, max = 200): string {
  return clip(singleLine(text), max);
}

/** A word for `sh`: left bare when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
