import { readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { errnoCode } from "../core/errors.js";

/** A file's text, or undefined when there is no such file (any other error is thrown). */
export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return undefined;
    throw e;
  }
}

/** A file's text, or undefined when it cannot be read: for a hint or a record, never for a decision that must be right. */
export function tryReadText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** A JSON file's value, or undefined when it cannot be read or parsed: a record that may be missing, or not ours. */
export function tryReadJson<T>(path: string): Partial<T> | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The names in a directory; none when it cannot be read (it is not there). */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A path's stat; undefined when there is nothing there or it cannot be stat'ed. */
export function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Whether `path` is a directory (false when it is anything else or nothing). */
export function isDirectory(path: string): boolean {
  return statOf(path)?.isDirectory() === true;
}
