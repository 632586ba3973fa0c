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
  accessSync,
  appendFileSync,
  closeSync,
  constants,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";

import { basename, dirname, join } from "node:path";
import { errnoCode, errorText } from "../core/errors.js";
import { STATE_DIR } from "./layout.js";
import { isDirectory, statOf, withRegular } from "./read-optional.js";
import type { FileEdit } from "./writeback.js";

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** Thrown when a record that must never be overwritten exists with other content. */
export class RecordExistsError extends Error {
  override name = "RecordExistsError";
  constructor(path: string) {
    super(
      `${path} already exists with different content; records are never overwritten — ` +
        `if it is left from another run, move ${STATE_DIR}/ aside and start again`,
    );
  }
}

/**
 * A file that could not be written, named: a full disk or a refused write says which
 * file it was and what to do, never a bare system error.
 */
export class WriteError extends Error {
  override name = "WriteError";
  constructor(path: string, cause: string, message = `could not write ${path}: ${cause}`) {
    super(message);
  }
}

/** `error` (from writing `path`) as a WriteError that names the file and the fix. */
export function writeError(path: string, error: unknown): Error {
  if (error instanceof WriteError || error instanceof RecordExistsError) return error;
  const code = errnoCode(error);
  const cause =
    code === "ENOSPC" || code === "EDQUOT"
      ? "the disk is full (no space left on the device, or over quota) — free some space"
      : code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? `writing is not allowed there (${code}) — make it writable`
        : code === "ENXIO"
          ? "it is a FIFO or a device, never waited on — make it a plain file"
          : errorText(error);
  return new WriteError(path, cause);
}

/** `write()`, what it throws as a WriteError that names `path` and the fix. */
export function writing<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw writeError(path, error);
  }
}

/**
 * Make `dir/.frontier/`, where the run's state lives, or throw a WriteError that says
 * why it cannot be: a file in its place, a read-only file system, a refused write.
 */
export function ensureStateDir(dir: string): void {
  const path = join(dir, STATE_DIR);
  try {
    makeDirectory(path);
  } catch (error) {
    const code = errnoCode(error);
    const keeps = `frontier keeps the run's state in ${path}/`;
    if (code === "EEXIST" || code === "ENOTDIR") {
      throw new WriteError(
        path,
        `it is a file, not a directory — ${keeps}; move the file aside (e.g. mv ${path} ${path}.bak) and run again`,
      );
    }
    // mkdir -p on a read-only file system says ENOENT: ask the directory itself
    let cause = code;
    try {
      accessSync(dir, constants.W_OK);
    } catch (access) {
      cause = errnoCode(access) ?? cause;
    }
    const why =
      cause === "EROFS"
        ? `the file system is read-only (EROFS) — ${keeps}; run on a writable copy of the ticket directory`
        : cause === "EACCES" || cause === "EPERM"
          ? `writing in ${dir} is not allowed (${cause}) — ${keeps}; make the directory writable, or run on a copy`
          : undefined;
    throw why === undefined ? writeError(path, error) : new WriteError(path, why);
  }
}

/**
 * What identifies one version of a file: inode, size and modification time. A file
 * whose signature is not the one this process wrote was changed by someone else.
 */
export type FileSignature = string;

export function signatureOf(st: { ino: number; size: number; mtimeMs: number }): FileSignature {
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** The signature of `path` now; undefined when it is gone. */
export function currentSignature(path: string): FileSignature | undefined {
  const st = statOf(path);
  return st === undefined ? undefined : signatureOf(st);
}

/**
 * Apply edits in order (records first, then what points at them, then the log).
 * `replaced` hears the signature of each file replaced (its path relative to `dir`).
 */
export function applyEdits(
  dir: string,
  edits: readonly FileEdit[],
  replaced?: (file: string, signature: FileSignature) => void,
): void {
  for (const edit of edits) {
    const path = join(dir, edit.path);
    const signature = writing(path, () => applyEdit(path, edit));
    if (signature !== undefined) replaced?.(edit.path, signature);
  }
}

function applyEdit(path: string, edit: FileEdit): FileSignature | undefined {
  switch (edit.kind) {
    case "replace":
      return replaceAtomically(path, edit.bytes ?? edit.content);
    case "create":
      createRecord(path, edit.content, edit.path);
      return undefined;
    case "append":
      inDirectory(path, () => withRegular(path, APPEND, (fd) => appendFileSync(fd, edit.content)));
      return undefined;
    default:
      return edit.kind satisfies never;
  }
}

/**
 * `mkdir -p`, answering whether it made `path`. Never Node's own (`recursive`): on a mkdir
 * that says ENOENT where the parent is there (a directory of /proc, some FUSE mounts) it
 * makes the parent and tries again, for ever.
 */
export function makeDirectory(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EEXIST" && isDirectory(path)) return false;
    if (code !== "ENOENT" || statOf(dirname(path)) !== undefined) throw error;
    makeDirectory(dirname(path));
    return makeDirectory(path);
  }
}

/** Run `write` (which writes into `path`'s directory), making the directory when it is missing. */
function inDirectory<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (errnoCode(e) !== "ENOENT") throw e;
    makeDirectory(dirname(path));
    return write();
  }
}

/**
 * Write a temporary file in the same directory (made when missing), then rename it over
 * `path`. Returns the new file's signature (a rename keeps inode, size and modification time).
 */
export function replaceAtomically(path: string, content: string | Uint8Array): FileSignature {
  const tmp = tempBeside(path);
  try {
    const fd = inDirectory(tmp, () => openSync(tmp, "w"));
    let signature: FileSignature;
    try {
      const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      signature = signatureOf(fstatSync(fd));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    return signature;
  } catch (e) {
    removeTemp(tmp);
    throw e;
  }
}

/** What `link` answers where the file system has no hard links. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EXDEV", "ENOSYS"]);

/**
 * Replace `path` with `content` only while it is the version whose signature is
 * `expected` (compare-and-swap); undefined, with nothing changed, when it is not (or is
 * gone). The version checked is held by a hard link until the rename is made, so an
 * author who saves into that file in the instant between the check and the rename (an
 * editor writing in place) is seen after it, and their version is put back.
 */
export function replaceIfUnchanged(
  path: string,
  content: string | Uint8Array,
  expected: FileSignature,
): FileSignature | undefined {
  const held = tempBeside(path);
  let linked = true;
  try {
    try {
      linkSync(path, held);
    } catch (e) {
      const code = errnoCode(e);
      if (code === "ENOENT") return undefined;
      if (!NO_HARD_LINKS.has(code ?? "")) throw e;
      linked = false; // no hard links here: the check and the rename, as close together as they go
    }
    if (currentSignature(path) !== expected) return undefined; // deleted, replaced or saved
    const signature = replaceAtomically(path, content);
    if (!linked || currentSignature(held) === expected) return signature;
    if (currentSignature(path) === signature) renameSync(held, path);
    return undefined;
  } finally {
    removeTemp(held);
  }
}

/**
 * Create `path` with `content`, never overwriting. An existing file with the same
 * content is fine: a redelivered event writes the same record again. The content is
 * written to a temporary file first and hard-linked into place, so a record is
 * never seen half-written; where hard links are refused, an exclusive open does it.
 * `shown` is the path named in the error.
 */
export function createRecord(path: string, content: string | Uint8Array, shown: string): void {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content);
  const tmp = tempBeside(path);
  try {
    inDirectory(tmp, () => writeFileSync(tmp, bytes));
    try {
      linkSync(tmp, path);
      return;
    } catch (e) {
      const code = errnoCode(e);
      if (code === "EEXIST") {
        sameOrThrow(path, bytes, shown);
        return;
      }
      if (!NO_HARD_LINKS.has(code ?? "")) throw e;
    }
  } finally {
    removeTemp(tmp);
  }
  try {
    writeFileSync(path, bytes, { flag: "wx" });
  } catch (e) {
    if (errnoCode(e) !== "EEXIST") throw e;
    sameOrThrow(path, bytes, shown);
  }
}

function sameOrThrow(path: string, bytes: Buffer, shown: string): void {
  const now = withRegular(path, constants.O_RDONLY, (fd) => readFileSync(fd));
  if (!now.equals(bytes)) throw new RecordExistsError(shown);
}

/** Remove a temporary file that may not exist (it was never made, or was renamed). */
export function removeTemp(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch {
    // never made, or already gone: the next run's sweep takes anything left
  }
}

/** This process's pid (`process.pid` is a system call each time) and a random start. */
const PID = process.pid;
let tempSeq = randomBytes(4).readUInt32BE(0);

function tempBeside(path: string): string {
  // starts with "." so a half-written temporary file is never taken for a ticket; the
  // pid and a counter from a random start make it unique (8 hex digits: the shape the
  // next run's sweep of leftovers knows)
  tempSeq = (tempSeq + 1) >>> 0;
  return join(
    dirname(path),
    `.${basename(path)}.${PID}.${tempSeq.toString(16).padStart(8, "0")}.tmp`,
  );
}
