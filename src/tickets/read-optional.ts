import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** A file's text, or undefined when there is no such file (any other error is thrown). */
export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if (errorCode(e) === "ENOENT") return undefined;
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

/** The code of a system error (`ENOENT`, `EACCES`, …); undefined for any other value. */
export function errorCode(e: unknown): string | undefined {
  return e instanceof Error && "code" in e && typeof e.code === "string" ? e.code : undefined;
}

/** What a thrown value says: an error's message, anything else as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
