/** Reading many ticket files fast, each within the file cap, with its cache keys. */
import { constants as bufferConstants, isAscii } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { errorText } from "../core/errors.js";
import { putKeys } from "./cache.js";
import { kindOf } from "./read-optional.js";

/**
 * The keys of the open file `fd` into `keys` at `i`, and its size (-1 when it is not a
 * regular file, whose size says nothing); left NaN (not stored) if fstat fails.
 */
function keyOf(keys: Float64Array, i: number, fd: number): number {
  try {
    const st = fstatSync(fd);
    putKeys(keys, i, st);
    return st.isFile() ? st.size : -1;
  } catch {
    // no keys: the file is read, not cached
    return -1;
  }
}

export type Read =
  | { kind: "ok"; text: string }
  | { kind: "too-large"; bytes: number }
  | { kind: "unreadable"; message: string };

/**
 * What a read that ended past the cap found: a file too large, or one that is no regular
 * file (a device has no size). Files are opened without waiting, so a FIFO (or a link to
 * one), read to nothing, is named here too, as a device is: no ticket's text.
 */
function readEnded(fd: number): Read {
  const st = fstatSync(fd);
  if (st.isFile()) return { kind: "too-large", bytes: st.size };
  return { kind: "unreadable", message: `it is ${kindOf(st)}, not a regular file` };
}

const WHOLE_STRING_BYTES = 64 * 1024 * 1024;
const MAX_STRING_LENGTH = bufferConstants.MAX_STRING_LENGTH;
/** the read buffer: filled with file after file, decoded when full */
const BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Reads every file unless it is over the cap, one after another into one buffer: a
 * file that does not fit in cap + 1 bytes is too large, and is never read further (or
 * parsed). The texts are then made from that buffer: a file of ASCII only is a slice
 * of one string of the whole buffer (kept outside the JS heap, so 10k ticket texts
 * are not copied by every young-generation GC), any other file is decoded on its own
 * as UTF-8 — for ASCII the two decodings are the same text.
 */
export function readFiles(
  paths: readonly string[],
  cap: number,
  chunkBytes = WHOLE_STRING_BYTES,
  bufferBytes = BUFFER_BYTES,
  keys?: Float64Array,
): Read[] {
  const out: Read[] = new Array(paths.length);
  const starts = new Float64Array(paths.length);
  const ends = new Float64Array(paths.length);
  let buf = Buffer.allocUnsafe(Math.max(1, bufferBytes));
  let used = 0;
  // files read into buf and not decoded yet: from `first` on
  let first = 0;
  const decode = (upTo: number, bytes: number) => {
    decodeTexts(buf, bytes, { out, starts, ends }, first, upTo);
    first = upTo;
  };
  for (let i = 0; i < paths.length; i++) {
    // a string has a maximum length: decode in chunks (of 64 MB at most)
    if (used > chunkBytes) {
      decode(i, used);
      used = 0;
    }
    let fd: number;
    try {
      fd = openSync(paths[i]!, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (e) {
      out[i] = { kind: "unreadable", message: errorText(e) };
      continue;
    }
    let start = used;
    try {
      // the file's keys for the ticket cache: of the file read, before it is read
      // with the file's keys, its size: a read that reaches it is the last (no read of
      // nothing after it). A file that grew since is read as it was then; its keys, taken
      // before, no longer match it next time.
      const size = keys === undefined ? -1 : keyOf(keys, i, fd);
      for (;;) {
        if (used - start > cap) {
          out[i] = readEnded(fd);
          break;
        }
        if (used === buf.length) {
          if (start > 0) {
            // full: decode the files before this one, and move its bytes to the front
            decode(i, start);
            buf.copyWithin(0, start, used);
            used -= start;
            start = 0;
          } else {
            // one file larger than the buffer
            const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, cap + 1));
            buf.copy(bigger, 0, 0, used);
            buf = bigger;
          }
        }
        const room = Math.min(buf.length - used, cap + 1 - (used - start));
        const n = readSync(fd, buf, used, room, null);
        if (n === 0 && used === start && !fstatSync(fd).isFile()) out[i] = readEnded(fd);
        if (n === 0) break;
        used += n;
        // (a file of cap + 1 bytes has reached its size too: the cap check above says so)
        if (used - start === size && size <= cap) break;
      }
    } catch (e) {
      out[i] = { kind: "unreadable", message: errorText(e) };
    } finally {
      closeSync(fd);
    }
    if (out[i] === undefined) {
      starts[i] = start;
      ends[i] = used;
    } else {
      used = start;
    }
  }
  decode(paths.length, used);
  return out;
}

/**
 * The texts of files `from`..`upTo`-1 not yet settled in `out`, which are in buf[0, bytes);
 * the texts are copies, so buf can be filled again afterwards.
 */
function decodeTexts(
  buf: Buffer,
  bytes: number,
  { out, starts, ends }: { out: Read[]; starts: Float64Array; ends: Float64Array },
  from: number,
  upTo: number,
): void {
  // past a string's maximum length (a file of over 512 MB, with max_file_bytes raised
  // that far) there is no string of the whole buffer: each file is decoded on its own
  const whole = bytes <= MAX_STRING_LENGTH ? buf.toString("latin1", 0, bytes) : undefined;
  for (let i = from; i < upTo; i++) {
    if (out[i] !== undefined) continue;
    const s = starts[i]!;
    const e = ends[i]!;
    try {
      const text = !isAscii(buf.subarray(s, e))
        ? buf.toString("utf8", s, e)
        : whole !== undefined
          ? whole.slice(s, e)
          : buf.toString("latin1", s, e);
      out[i] = { kind: "ok", text };
    } catch (err) {
      // a file too long for one string: unreadable, as a file that fails to read is
      out[i] = { kind: "unreadable", message: errorText(err) };
    }
  }
}
