import { statSync } from "node:fs";
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

/** Whether `path` is a directory (false when it is anything else or nothing). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
