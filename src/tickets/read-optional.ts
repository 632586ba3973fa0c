import { readFile } from "node:fs/promises";

/** A file's text, or undefined when there is no such file (any other error is thrown). */
export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}
