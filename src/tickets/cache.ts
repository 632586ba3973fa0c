/**
 * The ticket cache: each ticket file's parsed result, kept in DIR/.frontier/cache/tickets
 * beside the keys of the file it came from — like git's index. A file whose size,
 * mtime, ctime, inode and device all match its entry is not read again: its parsed
 * result (spec, engine fields, per-file problems and warnings) is taken from the cache.
 *
 * It serves loads that show no ticket's body (`validate`, `status`): it stores no
 * bodies, and a load through it gives every spec an empty body, warm or cold. A load
 * that needs the bodies (a run, a report, `status --json`) neither reads nor writes it.
 *
 * Never trusted beyond what it can prove:
 * - the whole file is ignored unless its format, the build of the parser (the files it
 *   is made of) and the setting that changes parsing (max_file_bytes) match;
 *   a file that is corrupt, truncated, foreign, unreadable or not a file is ignored;
 * - an entry is used only when every key of its file matches;
 * - racily clean: an entry whose file changed (mtime or ctime) at or after the moment
 *   the cache's load began — less a margin for coarse file-system clocks — or at or
 *   after the cache file's own mtime is read again. A file modified in the same clock
 *   tick as it was read would keep its keys; it is never trusted.
 *
 * Safe to delete at any time, never required: a write that fails (a read-only
 * directory, a full disk) is ignored. Written whole to a temporary file and renamed.
 *
 * The file (a compact array form of the entries was tried: on 10k tickets it saved 2–5% of a
 * warm load, not worth its code):
 *   a line of JSON: the header (format, build, settings, counts, byte lengths)
 *   the file names, UTF-8, one per line
 *   each file's keys: KEY_FIELDS float64s a file, native byte order
 *   one JSON array (ASCII: every other character escaped), an element `{p: parse}` a file
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { errnoCode } from "../core/errors.js";
import type { ParsedTicket } from "./fields.js";
import { CACHE_DIR, CACHE_FILE } from "./layout.js";
import { namesIn, statOf, tryReadJson } from "./read-optional.js";
import { makeDirectory, removeTemp } from "./store.js";

/** Bump when what is stored, or how a ticket is parsed, changes. */
export const CACHE_FORMAT = "ticket-frontier/ticket-cache@4";

/**
 * Files modified this long before the load began are still re-read next time: the
 * coarsest file-system clock in use (FAT's two seconds) cannot place them before it.
 */
export const RACY_MARGIN_MS = 2000;

/** What the last load did with the cache: for the tests and the bench. */
export const lastLoad = { reused: 0, read: 0, written: false };

/** size, mtimeMs, ctimeMs, ino, dev: the keys of a file, KEY_FIELDS numbers in a key array */
export const KEY_FIELDS = 5;

interface Header {
  format: string;
  build: string;
  endian: string;
  /** the one setting a ticket's parse depends on */
  maxFileBytes: number;
  /** entries whose file changed (mtime or ctime) at or after this are re-read */
  racyFrom: number;
  count: number;
  namesBytes: number;
  entriesBytes: number;
}

export interface OpenCache {
  /** in file order */
  names: string[];
  /** name → index, made only when a name is not where it was */
  index: Map<string, number> | undefined;
  keys: Float64Array;
  entries: unknown[];
  racyFrom: number;
}

export function cachePath(dir: string): string {
  return join(dir, CACHE_FILE);
}

let buildKey: string | undefined;

/**
 * The build of the parser: the size and mtime of every module of tickets/ and core/ (a
 * new version, a rebuild or an edit changes them; a module added is in the list by
 * itself), and the versions of the parser libraries, `yaml` and `gray-matter` (npm
 * gives every installed file the same mtime, so their own files say nothing), read
 * once per process. In a bundle the one file is the bundle itself.
 */
function build(): string {
  if (buildKey !== undefined) return buildKey;
  const here = fileURLToPath(import.meta.url);
  const at = dirname(here);
  const parts = [CACHE_FORMAT];
  const files = [here];
  for (const folder of [at, join(at, "..", "core")]) {
    // none in a bundle: no folder of modules beside it
    const names = namesIn(folder).filter((n) => /\.(js|ts)$/.test(n) && !n.endsWith(".d.ts"));
    for (const n of names.sort()) {
      const f = join(folder, n);
      if (f !== here) files.push(f);
    }
  }
  for (const f of files) {
    const s = statOf(f);
    parts.push(s === undefined ? "-" : `${s.size}:${s.mtimeMs}`);
  }
  const require = createRequire(import.meta.url);
  for (const lib of ["yaml", "gray-matter"]) {
    let version: unknown;
    try {
      version = tryReadJson<{ version: unknown }>(require.resolve(`${lib}/package.json`))?.version;
    } catch {
      // bundled: the bundle's own size and mtime cover the library
    }
    parts.push(`${lib}@${String(version ?? "-")}`);
  }
  buildKey = parts.join(" ");
  return buildKey;
}

/** The cache of `dir`, if there is one that can be trusted at all for `maxFileBytes`. */
export function openCache(dir: string, maxFileBytes: number): OpenCache | undefined {
  let buf: Buffer;
  let mtimeMs: number;
  try {
    const fd = openSync(cachePath(dir), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return undefined;
      mtimeMs = st.mtimeMs;
      // a file that changed size since its stat fails the length check below
      buf = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
    const nl = buf.indexOf(10);
    if (nl < 0) return undefined;
    const header = JSON.parse(buf.toString("latin1", 0, nl)) as Header;
    if (
      header === null ||
      typeof header !== "object" ||
      header.format !== CACHE_FORMAT ||
      header.build !== build() ||
      header.endian !== endianness() ||
      header.maxFileBytes !== maxFileBytes ||
      typeof header.racyFrom !== "number" ||
      !Number.isSafeInteger(header.count) ||
      !Number.isSafeInteger(header.namesBytes) ||
      !Number.isSafeInteger(header.entriesBytes)
    ) {
      return undefined;
    }
    const n = header.count;
    const namesAt = nl + 1;
    const keysAt = namesAt + header.namesBytes;
    const entriesAt = keysAt + n * KEY_FIELDS * 8;
    if (n < 0 || entriesAt + header.entriesBytes !== buf.length) return undefined;
    const names = n === 0 ? [] : buf.toString("utf8", namesAt, keysAt - 1).split("\n");
    if (names.length !== n) return undefined;
    const keys = new Float64Array(n * KEY_FIELDS);
    buf.copy(new Uint8Array(keys.buffer), 0, keysAt, entriesAt);
    const entries = JSON.parse(buf.toString("latin1", entriesAt)) as unknown[];
    if (!Array.isArray(entries) || entries.length !== n) return undefined;
    return {
      names,
      index: undefined,
      keys,
      entries,
      racyFrom: Math.min(header.racyFrom, mtimeMs),
    };
  } catch {
    return undefined;
  }
}

/**
 * The keys of every path, KEY_FIELDS numbers a path (NaN where it cannot be stat'ed).
 * Kept as numbers, not Stats objects: 10k of those (each with four Dates) outlive
 * every young-generation GC that runs while the cache is read.
 */
export function statKeys(paths: readonly string[]): Float64Array {
  const out = new Float64Array(paths.length * KEY_FIELDS).fill(Number.NaN);
  for (let i = 0; i < paths.length; i++) {
    const st = statOf(paths[i]!);
    if (st !== undefined) putKeys(out, i, st);
  }
  return out;
}

/** A file's keys into `keys` at `i`: from the stat of its path or of the open file. */
export function putKeys(keys: Float64Array, i: number, st: Stats): void {
  const at = i * KEY_FIELDS;
  keys[at] = st.size;
  keys[at + 1] = st.mtimeMs;
  keys[at + 2] = st.ctimeMs;
  keys[at + 3] = st.ino;
  keys[at + 4] = st.dev;
}

/** Where `name` (file order `order`) is in the cache: at the same place, or looked up. */
function slotOf(cache: OpenCache, name: string, order: number): number | undefined {
  if (cache.names[order] === name) return order;
  if (cache.index === undefined) {
    cache.index = new Map();
    for (let i = 0; i < cache.names.length; i++) cache.index.set(cache.names[i]!, i);
  }
  return cache.index.get(name);
}

/**
 * The cached parse of `name` (file order `order`) when the keys of its file (at
 * `keys[order * KEY_FIELDS]`) match its entry and it is not racily clean; undefined
 * otherwise, or "unchanged" when the file is as it was but its parse is not stored.
 */
export function cached(
  cache: OpenCache,
  name: string,
  keys: Float64Array,
  order: number,
): ParsedTicket | "unchanged" | undefined {
  const i = slotOf(cache, name, order);
  if (i === undefined) return undefined;
  const s = order * KEY_FIELDS;
  for (let j = 0; j < KEY_FIELDS; j++)
    if (cache.keys[i * KEY_FIELDS + j] !== keys[s + j]) return undefined;
  // racily clean (its mtime or ctime not before the cache's load began): read again
  if (!(keys[s + 1]! < cache.racyFrom && keys[s + 2]! < cache.racyFrom)) return undefined;
  // a parse JSON cannot give back exactly: the file is unchanged, and read again
  if (cache.entries[i] === null) return "unchanged";
  try {
    return fromEntry(cache.entries[i], name, order);
  } catch {
    // not what this code writes: read the file
    return undefined;
  }
}

function fromEntry(e: unknown, file: string, order: number): ParsedTicket | undefined {
  // JSON.parse made it, for this load alone: it is used as it is (a shape it cannot have
  // throws, and is caught by the caller)
  const p = (e as { p: ParsedTicket }).p;
  if (
    typeof p !== "object" ||
    p === null ||
    !Array.isArray(p.warnings) ||
    p.node.file !== file ||
    !(p.kind === "ok" ? p.spec.body === "" : p.kind === "invalid" && Array.isArray(p.problems))
  ) {
    return undefined;
  }
  if (p.kind === "ok") p.spec.order = order;
  p.node.order = order;
  return p;
}

/**
 * Write the cache of `dir`: every file of `names` that was parsed (`parsed[order]`, its
 * body empty) with its keys (`keys[order * KEY_FIELDS]`, not NaN), in file order.
 * Whole, to a temporary file renamed into place. `loadStart` is
 * `performance.now()` when the load began, before any file's keys were taken. Any
 * failure leaves the old cache (or none) and is not reported.
 */
export function writeCache(
  dir: string,
  maxFileBytes: number,
  names: readonly string[],
  parsed: ReadonlyArray<ParsedTicket | undefined>,
  keys: Float64Array,
  loadStart: number,
  marginMs = RACY_MARGIN_MS,
): void {
  let tmp: string | undefined;
  try {
    const { stored, entries, keyBytes } = toStore(names, parsed, keys);
    const namesText = stored.length === 0 ? "" : `${stored.join("\n")}\n`;
    const entriesText = ascii(JSON.stringify(entries));

    const cacheDir = join(dir, CACHE_DIR);
    if (makeDirectory(cacheDir)) {
      // never committed by a `git add` of .frontier/
      writeFileSync(join(cacheDir, ".gitignore"), "*\n");
    }
    // node:crypto is not loaded for this: a name unique enough beside the exclusive open
    const hex = Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
    tmp = join(cacheDir, `tickets.${process.pid}.${hex}.tmp`);
    const fd = openSync(tmp, "wx");
    try {
      // temporary files of writers killed mid-write
      sweepDead(cacheDir, /^tickets\.(\d+)\.[0-9a-f]{8}\.tmp$/);
      // the file system's clock now, after every file's keys were taken: less the time the
      // load took, it is no later than when the first file's were
      const now = fstatSync(fd).mtimeMs;
      const racyFrom = now - (performance.now() - loadStart) - marginMs;
      const header: Header = {
        format: CACHE_FORMAT,
        build: build(),
        endian: endianness(),
        maxFileBytes,
        racyFrom,
        count: stored.length,
        namesBytes: Buffer.byteLength(namesText),
        entriesBytes: entriesText.length,
      };
      writeFileSync(fd, `${ascii(JSON.stringify(header))}\n${namesText}`);
      writeFileSync(fd, keyBytes);
      writeText(fd, entriesText);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, cachePath(dir));
    tmp = undefined;
    lastLoad.written = true;
  } catch {
    // a cache is never worth failing a command over
  } finally {
    if (tmp !== undefined) removeTemp(tmp);
  }
}

/** What the cache stores of the files parsed with keys: their names, keys and entries, in file order. */
function toStore(
  names: readonly string[],
  parsed: ReadonlyArray<ParsedTicket | undefined>,
  keys: Float64Array,
): { stored: string[]; entries: unknown[]; keyBytes: Uint8Array } {
  const stored: string[] = [];
  const entries: unknown[] = [];
  const out = new Float64Array(names.length * KEY_FIELDS);
  for (let order = 0; order < names.length; order++) {
    const p = parsed[order];
    const at = order * KEY_FIELDS;
    if (p === undefined || Number.isNaN(keys[at]!)) continue;
    out.set(keys.subarray(at, at + KEY_FIELDS), stored.length * KEY_FIELDS);
    stored.push(names[order]!);
    // null: the file's keys only, its parse read afresh each time
    entries.push(entryOf(names[order]!, p) ?? null);
  }
  return {
    stored,
    entries,
    keyBytes: new Uint8Array(out.buffer, 0, stored.length * KEY_FIELDS * 8),
  };
}

/**
 * Remove what processes that are gone left in `where`: the names `pattern` matches, its
 * first group the pid. Returns how many went; one that cannot be removed is left.
 */
export function sweepDead(where: string, pattern: RegExp): number {
  let removed = 0;
  for (const name of namesIn(where)) {
    const m = pattern.exec(name);
    if (m === null || isAlive(Number(m[1]))) continue;
    try {
      rmSync(join(where, name), { recursive: true, force: true });
      removed++;
    } catch {
      // not ours to remove: leave it
    }
  }
  return removed;
}

/** Whether process `pid` (this one included) is running. */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === "EPERM";
  }
}

/** An ASCII string written whole, encoded as it is written (no copy of it in a Buffer first). */
function writeText(fd: number, text: string): void {
  const done = writeSync(fd, text, null, "latin1");
  // a short write (rare: a full disk, a signal) writes the rest from a Buffer
  if (done < text.length) writeFileSync(fd, Buffer.from(text, "latin1").subarray(done));
}

/** JSON text in ASCII: every other character escaped. */
const ascii = (json: string) =>
  json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The stored form of one parse, or undefined when it would not read back exactly. */
function entryOf(name: string, parsed: ParsedTicket): unknown | undefined {
  // names are stored one a line
  if (name.includes("\n") || !name.endsWith(".md")) return undefined;
  // the cache keeps no bodies: a load through it has none
  if (parsed.kind === "ok" && parsed.spec.body !== "") return undefined;
  // only when JSON gives it back exactly (no -0, no undefined values)
  const copy = parsed.kind === "ok" ? { ...parsed, spec: { ...parsed.spec, order: 0 } } : parsed;
  if (!roundTrips(copy)) return undefined;
  return { p: copy };
}

/** Whether JSON gives `v` back exactly: no -0, NaN or infinities, no undefined in objects. */
function roundTrips(v: unknown): boolean {
  if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v === "string" || typeof v === "boolean" || v === null) return true;
  if (Array.isArray(v)) return v.every(roundTrips);
  if (typeof v === "object") {
    for (const k in v as Record<string, unknown>) {
      if (!roundTrips((v as Record<string, unknown>)[k])) return false;
    }
    return Object.getPrototypeOf(v) === Object.prototype;
  }
  return false;
}
