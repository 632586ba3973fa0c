/**
 * The runner's hot path for writing state: src/tickets/store.ts `applyEdits`, with the
 * same rules (a replaced file is written beside and renamed over; a record is created
 * once, and an existing record with the same content is fine; the worklog is appended
 * to), done with synchronous calls.
 *
 * Why a synchronous twin: the runner writes after every event, a handful of small
 * files each time. Asynchronous fs calls cost a thread-pool round trip each (writeFile
 * alone is three), and on a busy machine those round trips, not the bytes, were most
 * of a run of quick tickets (400 `echo ok` tickets: ~35 ms per event asynchronously,
 * well under 1 ms synchronously). Nothing else happens on the runner's thread while it
 * writes, so blocking it costs nothing. If store.ts gains a synchronous variant, this
 * file should go.
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
import { RecordExistsError } from "../tickets/store.js";
import type { FileEdit } from "../tickets/writeback.js";

export class SyncWriter {
  private readonly made = new Set<string>();

  constructor(private readonly dir: string) {}

  /** Apply edits in order: records first, then what points at them, then the log. */
  apply(edits: readonly FileEdit[]): void {
    for (const edit of edits) {
      const path = join(this.dir, edit.path);
      this.ensureDir(path);
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

  /** A record written once (a result file, an attempt); the same content again is fine. */
  create(path: string, content: string, shown: string): void {
    this.ensureDir(path);
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
        if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "ENOSYS")
          throw e;
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

  private replace(path: string, content: string): void {
    const tmp = tempBeside(path);
    try {
      writeFileSync(tmp, content, "utf8");
      renameSync(tmp, path);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  }

  private ensureDir(path: string): void {
    const d = dirname(path);
    if (this.made.has(d)) return;
    mkdirSync(d, { recursive: true });
    this.made.add(d);
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
