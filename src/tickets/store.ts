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
  constants,
  fstatSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  open,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
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
        "if it is left from another run, move .frontier/ aside and start again",
    );
    this.name = "RecordExistsError";
  }
}

/** Apply edits in order (records first, then what points at them, then the log). */
export function applyEdits(dir: string, edits: readonly FileEdit[]): void {
  const made = new Set<string>();
  for (const edit of edits) {
    const path = join(dir, edit.path);
    const parent = dirname(path);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    switch (edit.kind) {
      case "replace":
        replaceAtomically(path, edit.content);
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
}

/** Write a temporary file in the same directory, then rename it over `path`. */
export function replaceAtomically(path: string, content: string): void {
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

/* --------------------------- the runner's recycling store --------------------------- */

/** Where a RecyclingStore keeps its spare files: one folder per process, inside it. */
export const SPARE_DIR = `${STATE_DIR}/.spare`;

/** A retired file is written again only after this many newer ones were retired. */
const SPARE_MIN_DEPTH = 32;
/** Retired files kept beyond that; older ones are removed. */
const SPARE_MAX = 96;
/** Empty files made ahead, off the main thread, for new records. */
const FRESH_TARGET = 16;
const FRESH_IN_FLIGHT = 2;
/** link/rename refused here (another file system, no hard links): write the plain way. */
const NO_LINKS = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/**
 * The same edits as `applyEdits`, with the same guarantees, for one long-lived writer
 * that replaces the same small files over and over and creates many small records (the
 * local runner: every ticket's file is rewritten when it is claimed and again when it
 * settles, and every attempt leaves a record and a result).
 *
 * Why: on Linux, creating a file and deleting one are the expensive parts of a small
 * write, and on ext4 (the default `auto_da_alloc`) a rename over an existing file
 * starts the new file's disk write at once; deleting the replaced file a moment later
 * then waits for that write to finish. Measured on a busy 2-core VM: ~150–200 µs per
 * write-temp-and-rename of a ticket that was just rewritten, ~35 µs this way; creating
 * an empty file ~300 µs.
 *
 * How: the replaced file is not deleted. Before the new version is renamed over a
 * file, the old version is hard-linked into this store's spare folder (so the rename
 * only drops a name) and later written again, in place, as the temporary file of a
 * later write — a ticket's new version, or a new record, which is hard-linked into
 * place from its spare. New records need new files: those are made ahead, empty, on
 * the thread pool, while the runner waits for its children. Every guarantee of
 * `applyEdits` holds: a file is replaced by one rename (a reader or a killed run sees
 * the old file or the new one, whole), a record is complete before its name appears
 * and is never overwritten, the worklog is only appended to.
 *
 * What differs: a reader that opened a ticket file and reads it only after
 * SPARE_MIN_DEPTH more files were replaced may read other content (the old version's
 * file is reused; a fresh file would have kept it); a spare whose file has another
 * link (someone hard-linked a ticket), is not a plain file (a ticket that was a
 * symbolic link), or has another owner or mode than a new file (a read-only or
 * executable ticket) is never written, only dropped. The spare root holds a
 * `.gitignore` of `*`, so `git add` and `git clean` leave it alone. A process killed
 * mid-run leaves its spare folder behind — names only: removing them never changes a
 * ticket or a record. `clearSpares` removes them; call it only while holding the run
 * lock, so no live store is using them.
 */
export class RecyclingStore {
  private readonly spareDir: string;
  private spareDirMade = false;
  /** names of retired files in spareDir, oldest first; each is ours alone */
  private readonly spares: string[] = [];
  /** empty files made ahead of time, ours alone */
  private readonly fresh: string[] = [];
  private making = 0;
  private madeAll: (() => void) | undefined;
  private closed = false;
  private seq = 0;
  private readonly madeDirs = new Set<string>();
  /** hard links or cross-folder renames are refused here: every edit goes the plain way */
  private plain = false;
  /**
   * A spare is written only if it is a file as this process would create it: its
   * owner, and the mode of a new file (a retired read-only, executable or someone
   * else's ticket would hand its mode or owner to another ticket or a record).
   */
  private readonly uid = process.getuid?.();
  private readonly mode = 0o666 & ~process.umask();

  constructor(private readonly dir: string) {
    this.spareDir = join(dir, SPARE_DIR, `${process.pid}-${randomBytes(4).toString("hex")}`);
  }

  /** Remove the spare folders of stores that are gone (see the class comment). */
  static clearSpares(dir: string): void {
    rmSync(join(dir, SPARE_DIR), { recursive: true, force: true });
  }

  /** Make this store's spare folder, and keep the spare root out of git (`git add`, `git clean`). */
  private makeSpareDir(): void {
    mkdirSync(this.spareDir, { recursive: true });
    try {
      writeFileSync(join(dirname(this.spareDir), ".gitignore"), "*\n", { flag: "wx" });
    } catch {
      // already there (or not writable: it only keeps git away)
    }
    this.spareDirMade = true;
  }

  /** Start making empty files for records ahead of time (see `prefill`). */
  warm(): void {
    this.prefill();
  }

  /** Apply edits in order, like `applyEdits`. */
  apply(edits: readonly FileEdit[]): void {
    for (const edit of edits) {
      const path = join(this.dir, edit.path);
      this.makeParent(path);
      switch (edit.kind) {
        case "replace":
          this.replace(path, edit.content);
          break;
        case "create":
          this.create(path, edit.content, edit.path);
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
  }

  /** Create a record (see `createRecord`): complete before its name appears, never overwritten. */
  create(path: string, content: string, shown: string): void {
    if (this.plain) {
      createRecord(path, content, shown);
      return;
    }
    this.makeParent(path);
    const spare = this.spareWith(content);
    try {
      this.again(path, () => linkSync(spare, path));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "";
      if (code === "EEXIST") {
        this.retire(spare);
        sameOrThrow(path, content, shown);
        return;
      }
      this.drop(spare);
      if (!NO_LINKS.has(code)) throw e;
      this.plain = true;
      createRecord(path, content, shown);
      return;
    }
    // the record's file is the record's alone from here on
    unlinkSync(spare);
  }

  /** Replace `path` whole with one rename (see `replaceAtomically`). */
  replace(path: string, content: string): void {
    if (this.plain) {
      replaceAtomically(path, content);
      return;
    }
    const spare = this.spareWith(content);
    const retired = this.nextName();
    let kept = true;
    try {
      linkSync(path, retired);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "";
      if (code === "ENOENT") kept = false;
      else {
        this.drop(spare);
        if (!NO_LINKS.has(code)) throw e;
        this.plain = true;
        replaceAtomically(path, content);
        return;
      }
    }
    try {
      this.again(path, () => renameSync(spare, path));
    } catch (e) {
      // the old file stays where it was: its second name must never be written
      if (kept) this.drop(retired);
      this.drop(spare);
      const code = (e as NodeJS.ErrnoException).code ?? "";
      if (!NO_LINKS.has(code)) throw e;
      this.plain = true;
      replaceAtomically(path, content);
      return;
    }
    if (kept) this.retire(retired);
  }

  /** Remove this store's spare folder (the end of the run), once nothing is being made in it. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.making > 0) {
      await new Promise<void>((resolve) => {
        this.madeAll = resolve;
      });
    }
    this.spares.length = 0;
    this.fresh.length = 0;
    if (!this.spareDirMade) return;
    rmSync(this.spareDir, { recursive: true, force: true });
    this.spareDirMade = false;
    const root = dirname(this.spareDir);
    try {
      // only when no other store's folder is left in it
      const left = readdirSync(root);
      if (left.length === 1 && left[0] === ".gitignore") rmSync(join(root, ".gitignore"));
      rmdirSync(root);
    } catch {
      // not empty, or gone
    }
  }

  /**
   * `put` (a link or rename to `path`), made again once if `path`'s folder is gone: a
   * folder made earlier in the run (`.frontier/results`) may have been removed since.
   */
  private again(path: string, put: () => void): void {
    try {
      put();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      const parent = dirname(path);
      this.madeDirs.delete(parent);
      mkdirSync(parent, { recursive: true });
      this.madeDirs.add(parent);
      put();
    }
  }

  private makeParent(path: string): void {
    const parent = dirname(path);
    if (this.madeDirs.has(parent)) return;
    mkdirSync(parent, { recursive: true });
    this.madeDirs.add(parent);
  }

  private nextName(): string {
    if (!this.spareDirMade) this.makeSpareDir();
    return join(this.spareDir, String(this.seq++));
  }

  /**
   * Keep FRESH_TARGET empty files ready, made on the thread pool: nothing waits for
   * them (a write that finds none makes its own), so their cost leaves the main thread.
   */
  private prefill(): void {
    if (this.plain) return;
    while (
      !this.closed &&
      this.making < FRESH_IN_FLIGHT &&
      this.fresh.length + this.making < FRESH_TARGET
    ) {
      const name = this.nextName();
      this.making++;
      open(name, "wx", (error, fd) => {
        this.making--;
        if (!error) {
          closeSync(fd);
          if (this.closed) rmSync(name, { force: true });
          else this.fresh.push(name);
        }
        if (this.closed) {
          if (this.making === 0) this.madeAll?.();
        } else if (!error) this.prefill();
      });
    }
  }

  /** A file of ours in the spare folder holding exactly `content`. */
  private spareWith(content: string): string {
    const bytes = Buffer.from(content, "utf8");
    while (this.spares.length > SPARE_MIN_DEPTH || this.fresh.length > 0) {
      const name =
        this.spares.length > SPARE_MIN_DEPTH ? this.spares.shift()! : this.fresh.shift()!;
      // Written in place, never truncated to zero first (ext4 would start writing it
      // to disk on close, as for a rename over a file).
      // never through a symbolic link (a ticket that was one): its target is not ours
      let fd: number;
      try {
        fd = openSync(name, constants.O_RDWR | constants.O_NOFOLLOW);
      } catch {
        this.drop(name);
        continue;
      }
      let reused = false;
      try {
        const st = fstatSync(fd);
        if (
          st.isFile() &&
          st.nlink === 1 &&
          (this.uid === undefined || st.uid === this.uid) &&
          (st.mode & 0o7777) === this.mode
        ) {
          writeAll(fd, bytes);
          if (st.size > bytes.length) ftruncateSync(fd, bytes.length);
          reused = true;
        }
      } finally {
        closeSync(fd);
      }
      if (this.fresh.length < FRESH_TARGET / 2) this.prefill();
      if (reused) return name;
      unlinkSync(name); // not a plain file of ours alone: never ours to write
    }
    this.prefill();
    let name = this.nextName();
    let fd: number;
    try {
      fd = openSync(name, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      // the spare folder was removed under us (rm -rf, git clean -x): make it again
      this.makeSpareDir();
      name = this.nextName();
      fd = openSync(name, "wx");
    }
    try {
      writeAll(fd, bytes);
    } finally {
      closeSync(fd);
    }
    return name;
  }

  private retire(name: string): void {
    this.spares.push(name);
    if (this.spares.length > SPARE_MAX) this.drop(this.spares.shift()!);
  }

  private drop(name: string): void {
    rmSync(name, { force: true });
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off, off);
}
