/**
 * Applying FileEdits to a local ticket directory. A replaced file is written to a
 * temporary file beside it and renamed over it, so a reader (or a run killed
 * mid-write) sees the old file or the new one, never half of one. Records are
 * created once and never overwritten; the worklog is only appended to.
 *
 * Synchronous on purpose: the local runner writes after every event, a handful of
 * small files each time, and nothing else happens on its thread meanwhile. Async fs
 * calls cost a thread-pool round trip each, and on a busy machine those round trips —
 * not the bytes — were most of a run of quick tickets (400 `echo ok` tickets: ~35 ms
 * per event asynchronously, well under 1 ms synchronously).
 */
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { resultFile, STATE_DIR } from "./layout.js";
import type { FileEdit } from "./writeback.js";

/** Thrown when a record that must never be overwritten exists with other content. */
export class RecordExistsError extends Error {
  constructor(readonly path: string) {
    super(
      `${path} already exists with different content; records are never overwritten — ` +
        `if it is left from another run, move ${STATE_DIR}/ aside and start again`,
    );
    this.name = "RecordExistsError";
  }
}

/**
 * A file that could not be written, named: a full disk or a refused write says which
 * file it was and what to do, never a bare system error.
 */
export class WriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    cause: string,
  ) {
    super(`could not write ${path}: ${cause}`);
    this.name = "WriteError";
  }
}

/** `error` (from writing `path`) as a WriteError that names the file and the fix. */
export function writeError(path: string, error: unknown): Error {
  if (error instanceof WriteError || error instanceof RecordExistsError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const cause =
    code === "ENOSPC" || code === "EDQUOT"
      ? "the disk is full (no space left on the device, or over quota) — free some space"
      : code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? `writing is not allowed there (${code}) — make it writable`
        : (error as Error).message;
  return new WriteError(path, code, cause);
}

/** Apply edits in order (records first, then what points at them, then the log). */
export function applyEdits(dir: string, edits: readonly FileEdit[]): void {
  const made = new Set<string>();
  for (const edit of edits) {
    const path = join(dir, edit.path);
    try {
      applyEdit(path, edit, made);
    } catch (error) {
      throw writeError(path, error);
    }
  }
}

function applyEdit(path: string, edit: FileEdit, made: Set<string>): void {
  const parent = dirname(path);
  if (!made.has(parent)) {
    mkdirSync(parent, { recursive: true });
    made.add(parent);
  }
  switch (edit.kind) {
    case "replace":
      replaceAtomically(path, edit.bytes ?? edit.content);
      break;
    case "create":
      createRecord(path, edit.content, edit.path);
      break;
    case "append":
      appendFileSync(path, edit.content, "utf8");
      break;
    default: {
      const never: never = edit.kind;
      throw new Error(`unknown edit kind ${String(never)}`);
    }
  }
}

/** Write a temporary file in the same directory, then rename it over `path`. */
export function replaceAtomically(path: string, content: string | Uint8Array): void {
  const tmp = tempBeside(path);
  try {
    writeFileSync(tmp, content, "utf8");
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Create `path` with `content`, never overwriting. An existing file with the same
 * content is fine: a redelivered event writes the same record again. The content is
 * written to a temporary file first and hard-linked into place, so a record is
 * never seen half-written; where hard links are refused, an exclusive open does it.
 * `shown` is the path named in the error.
 */
export function createRecord(path: string, content: string, shown: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempBeside(path);
  try {
    writeFileSync(tmp, content, "utf8");
    try {
      linkSync(tmp, path);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") {
        sameOrThrow(path, content, shown);
        return;
      }
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "ENOSYS") throw e;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    sameOrThrow(path, content, shown);
    return;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
}

function sameOrThrow(path: string, content: string, shown: string): void {
  if (readFileSync(path, "utf8") !== content) throw new RecordExistsError(shown);
}

function tempBeside(path: string): string {
  // starts with "." so a half-written temporary file is never taken for a ticket
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
}

/** Store an attempt's result text; returns its path relative to `dir`. Never overwrites. */
export function writeResult(dir: string, ticket: string, attempt: number, text: string): string {
  const rel = resultFile(ticket, attempt);
  createRecord(join(dir, rel), text, rel);
  return rel;
}
