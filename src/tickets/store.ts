/**
 * Applying FileEdits to a local ticket directory. A replaced file is written to a
 * temporary file beside it and renamed over it, so a reader (or a run killed
 * mid-write) sees the old file or the new one, never half of one. Records are
 * created once and never overwritten; the worklog is only appended to.
 */
import { randomBytes } from "node:crypto";
import { appendFile, link, mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { resultFile } from "./layout.js";
import type { FileEdit } from "./writeback.js";

/** Thrown when a record that must never be overwritten exists with other content. */
export class RecordExistsError extends Error {
  constructor(readonly path: string) {
    super(
      `${path} already exists with different content; records are never overwritten — ` +
        "if it is left from another run, move .frontier/ aside and start again",
    );
    this.name = "RecordExistsError";
  }
}

/** Apply edits in order. */
export async function applyEdits(dir: string, edits: readonly FileEdit[]): Promise<void> {
  const made = new Set<string>();
  const ensureDir = async (path: string) => {
    const d = dirname(path);
    if (made.has(d)) return;
    await mkdir(d, { recursive: true });
    made.add(d);
  };
  for (const edit of edits) {
    const path = join(dir, edit.path);
    await ensureDir(path);
    switch (edit.kind) {
      case "replace":
        await replaceAtomically(path, edit.content);
        break;
      case "create":
        await createOnce(path, edit.content, edit.path);
        break;
      case "append":
        await appendFile(path, edit.content, "utf8");
        break;
      default: {
        const never: never = edit.kind;
        throw new Error(`unknown edit kind ${String(never)}`);
      }
    }
  }
}

/** Write a temporary file in the same directory, then rename it over `path`. */
export async function replaceAtomically(path: string, content: string): Promise<void> {
  // starts with "." so a half-written temporary file is never taken for a ticket
  const tmp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    await writeFile(tmp, content, "utf8");
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Create `path` with `content`, never overwriting. An existing file with the same
 * content is fine: a redelivered event writes the same record again. The content is
 * written to a temporary file first and hard-linked into place, so a record is
 * never seen half-written; where hard links are refused, an exclusive open does it.
 */
async function createOnce(path: string, content: string, shown: string): Promise<void> {
  const tmp = tempBeside(path);
  try {
    await writeFile(tmp, content, "utf8");
    try {
      await link(tmp, path);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return await sameOrThrow(path, content, shown);
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "ENOSYS") throw e;
    }
  } finally {
    await rm(tmp, { force: true });
  }
  try {
    const handle = await open(path, "wx");
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    await sameOrThrow(path, content, shown);
  }
}

async function sameOrThrow(path: string, content: string, shown: string): Promise<void> {
  const existing = await readFile(path, "utf8");
  if (existing !== content) throw new RecordExistsError(shown);
}

function tempBeside(path: string): string {
  // starts with "." so a half-written temporary file is never taken for a ticket
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
}

/** Store an attempt's result text; returns its path relative to `dir`. Never overwrites. */
export async function writeResult(
  dir: string,
  ticket: string,
  attempt: number,
  text: string,
): Promise<string> {
  const rel = resultFile(ticket, attempt);
  const path = join(dir, rel);
  await mkdir(dirname(path), { recursive: true });
  await createOnce(path, text, rel);
  return rel;
}
