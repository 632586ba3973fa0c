import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  type Stats,
  statSync,
} from "node:fs";
import { errnoCode } from "../core/errors.js";

/**
 * `use` a file opened with `flags`, never waited on: a FIFO or a device where a record or a
 * setting should be (an executor's, say) is an error that says so, not an open or a read
 * that blocks or never ends, nor a write that goes to whoever reads it.
 */
export function withRegular<T>(path: string, flags: number, use: (fd: number) => T): T {
  const fd = openSync(path, flags | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (st.isFile()) return use(fd);
    throw new Error(`${path} is ${kindOf(st)}, not a regular file`);
  } finally {
    closeSync(fd);
  }
}

/** A file's text, never waited on (`withRegular`). */
export const readRegular = (path: string): string =>
  withRegular(path, constants.O_RDONLY, (fd) => readFileSync(fd, "utf8"));

/** What a file that is not a regular one is, as messages name it. */
export function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "a device";
}

/** A file's text, or undefined when there is no such file (any other error is thrown). */
export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return readRegular(path);
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return undefined;
    throw e;
  }
}

/** A file's text, or undefined when it cannot be read: for a hint or a record, never for a decision that must be right. */
export function tryReadText(path: string): string | undefined {
  try {
    return readRegular(path);
  } catch {
    return undefined;
  }
}

/** A JSON file's value, or undefined when it cannot be read or parsed: a record that may be missing, or not ours. */
export function tryReadJson<T>(path: string): Partial<T> | undefined {
  try {
    return JSON.parse(readRegular(path)) ?? undefined;
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
