/**
 * The ticket cache: each ticket file's parsed result, kept in DIR/.frontier/cache/tickets
 * beside the keys of the file it came from — like git's index. A file whose size,
 * mtime, ctime, inode and device all match its entry is not read again: its parsed
 * result (spec, engine fields, per-file problems and warnings) is taken from the cache.
 * The graph checks (duplicates, unknown dependencies, cycles) always run afresh.
 *
 * Never trusted beyond what it can prove:
 * - the whole file is ignored unless its format, the build of the parser (the files it
 *   is made of) and the settings that change parsing (max_file_bytes, the lease) match;
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
 * The file, made to be read back fast (a JSON.parse of the specs alone would cost more
 * than the stat of every file):
 *   a line of JSON: the header (format, build, settings, counts, byte lengths)
 *   the file names, UTF-8, one per line
 *   each file's keys and body length: KEY_FIELDS float64s a file, native byte order
 *   one JSON array (ASCII: every other character escaped), an element a file (see plainOf)
 *   the bodies, UTF-8, one after another
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { endianness } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TicketSpec } from "../core/model.js";
import type { EngineFields, ParsedTicket } from "./fields.js";
import { CACHE_DIR, CACHE_FILE } from "./layout.js";

/** Bump when what is stored, or how a ticket is parsed, changes. */
export const CACHE_FORMAT = "ticket-frontier/ticket-cache@1";

/**
 * Files modified this long before the load began are still re-read next time: the
 * coarsest file-system clock in use (FAT's two seconds) cannot place them before it.
 */
export const RACY_MARGIN_MS = 2000;

/** What the last load did with the cache: for the tests and the bench. */
export const lastLoad = { reused: 0, read: 0, written: false };

/** The settings a ticket's parse depends on. */
export interface CacheParams {
  maxFileBytes: number;
  leaseMs: number;
}

/** size, mtimeMs, ctimeMs, ino, dev, body bytes, body is ASCII (1/0) */
const KEY_FIELDS = 7;

interface Header {
  format: string;
  build: string;
  endian: string;
  params: CacheParams;
  /** entries whose file changed (mtime or ctime) at or after this are re-read */
  racyFrom: number;
  count: number;
  namesBytes: number;
  entriesBytes: number;
  bodyBytes: number;
}

export interface OpenCache {
  /** name → index */
  index: Map<string, number>;
  keys: Float64Array;
  /** where each file's body starts in `whole` */
  bodyAt: Float64Array;
  entries: unknown[];
  /** the bodies, latin1-decoded (an ASCII body is a slice of it) */
  bodies: string;
  racyFrom: number;
}

export function cachePath(dir: string): string {
  return join(dir, CACHE_FILE);
}

let buildKey: string | undefined;

/**
 * The build of the parser: the size and mtime of each file it is made of (a new
 * version, a rebuild or an edit changes them), read once per process. In a bundle the
 * one file is the bundle itself.
 */
function build(): string {
  if (buildKey !== undefined) return buildKey;
  const here = fileURLToPath(import.meta.url);
  const at = dirname(here);
  const parts = [CACHE_FORMAT];
  const files = [
    here,
    "load.js",
    "fields.js",
    "fast.js",
    "frontmatter.js",
    "parse.js",
    "yaml-fields.js",
    "field-types.js",
    "../core/bound.js",
    "../core/checks.js",
    "../core/constants.js",
  ];
  for (const f of files) {
    let s: Stats | undefined;
    try {
      s = statSync(f === here ? f : [at, f].join("/"), { throwIfNoEntry: false });
    } catch {
      s = undefined;
    }
    parts.push(s === undefined ? "-" : `${s.size}:${s.mtimeMs}`);
  }
  buildKey = parts.join(" ");
  return buildKey;
}

/** The cache of `dir`, if there is one that can be trusted at all for `params`. */
export function openCache(dir: string, params: CacheParams): OpenCache | undefined {
  let buf: Buffer;
  let mtimeMs: number;
  try {
    const fd = openSync(cachePath(dir), "r");
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return undefined;
      mtimeMs = st.mtimeMs;
      buf = Buffer.allocUnsafe(st.size);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, null);
        if (n === 0) return undefined;
        got += n;
      }
    } finally {
      closeSync(fd);
    }
    const nl = buf.indexOf(10);
    if (nl < 0 || nl > 64 * 1024) return undefined;
    const header = JSON.parse(buf.toString("latin1", 0, nl)) as Header;
    if (
      header === null ||
      typeof header !== "object" ||
      header.format !== CACHE_FORMAT ||
      header.build !== build() ||
      header.endian !== endianness() ||
      header.params?.maxFileBytes !== params.maxFileBytes ||
      header.params?.leaseMs !== params.leaseMs ||
      typeof header.racyFrom !== "number" ||
      !Number.isSafeInteger(header.count) ||
      !Number.isSafeInteger(header.namesBytes) ||
      !Number.isSafeInteger(header.entriesBytes) ||
      !Number.isSafeInteger(header.bodyBytes)
    ) {
      return undefined;
    }
    const n = header.count;
    const namesAt = nl + 1;
    const keysAt = namesAt + header.namesBytes;
    const entriesAt = keysAt + n * KEY_FIELDS * 8;
    const bodiesAt = entriesAt + header.entriesBytes;
    if (n < 0 || bodiesAt + header.bodyBytes !== buf.length) return undefined;
    const names = n === 0 ? [] : buf.toString("utf8", namesAt, keysAt - 1).split("\n");
    if (names.length !== n) return undefined;
    const keys = new Float64Array(n * KEY_FIELDS);
    buf.copy(new Uint8Array(keys.buffer), 0, keysAt, entriesAt);
    const entries = JSON.parse(buf.toString("latin1", entriesAt, bodiesAt)) as unknown[];
    if (!Array.isArray(entries) || entries.length !== n) return undefined;
    const index = new Map<string, number>();
    const bodyAt = new Float64Array(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      index.set(names[i]!, i);
      bodyAt[i] = at;
      at += keys[i * KEY_FIELDS + 5]!;
    }
    if (at !== header.bodyBytes) return undefined;
    return {
      index,
      keys,
      bodyAt,
      entries,
      bodies: buf.toString("latin1", bodiesAt),
      racyFrom: Math.min(header.racyFrom, mtimeMs),
    };
  } catch {
    return undefined;
  }
}

/** size, mtimeMs, ctimeMs, ino, dev: the keys of a file, in statKeys' array */
export const STAT_FIELDS = 5;

/**
 * The keys of every path, STAT_FIELDS numbers a path (NaN where it cannot be stat'ed).
 * Kept as numbers, not Stats objects: 10k of those (each with four Dates) outlive
 * every young-generation GC that runs while the cache is read.
 */
export function statKeys(paths: readonly string[]): Float64Array {
  const out = new Float64Array(paths.length * STAT_FIELDS).fill(Number.NaN);
  for (let i = 0; i < paths.length; i++) {
    let st: Stats | undefined;
    try {
      st = statSync(paths[i]!, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st === undefined) continue;
    const at = i * STAT_FIELDS;
    out[at] = st.size;
    out[at + 1] = st.mtimeMs;
    out[at + 2] = st.ctimeMs;
    out[at + 3] = st.ino;
    out[at + 4] = st.dev;
  }
  return out;
}

/**
 * The cached parse of `name` (file order `order`) when the keys of its file (at
 * `stats[order * STAT_FIELDS]`) match its entry and it is not racily clean; undefined
 * otherwise, or "unchanged" when the file is as it was but its parse is not stored.
 */
export function cached(
  cache: OpenCache,
  name: string,
  stats: Float64Array,
  order: number,
): ParsedTicket | "unchanged" | undefined {
  const i = cache.index.get(name);
  if (i === undefined) return undefined;
  const k = cache.keys;
  const at = i * KEY_FIELDS;
  const s = order * STAT_FIELDS;
  const mtimeMs = stats[s + 1]!;
  const ctimeMs = stats[s + 2]!;
  if (
    k[at] !== stats[s] ||
    k[at + 1] !== mtimeMs ||
    k[at + 2] !== ctimeMs ||
    k[at + 3] !== stats[s + 3] ||
    k[at + 4] !== stats[s + 4] ||
    !(mtimeMs < cache.racyFrom) ||
    !(ctimeMs < cache.racyFrom)
  ) {
    return undefined;
  }
  // a parse JSON cannot give back exactly: the file is unchanged, and read again
  if (cache.entries[i] === null) return "unchanged";
  try {
    return fromEntry(cache, i, name, order);
  } catch {
    // not what this code writes: read the file
    return undefined;
  }
}

function bodyOf(cache: OpenCache, i: number): string {
  const start = cache.bodyAt[i]!;
  const bytes = cache.keys[i * KEY_FIELDS + 5]!;
  const text = cache.bodies.slice(start, start + bytes);
  // decoded as latin1: a body with other characters is UTF-8 again
  return cache.keys[i * KEY_FIELDS + 6] === 1 ? text : Buffer.from(text, "latin1").toString("utf8");
}

function fromEntry(cache: OpenCache, i: number, file: string, order: number): ParsedTicket {
  const e = cache.entries[i];
  if (e === null || typeof e !== "object") throw new Error("not an entry");
  if (Array.isArray(e)) return fromPlain(e, file, order, () => bodyOf(cache, i));
  // JSON.parse made it, for this load alone: it is used as it is
  const p = (e as { p: ParsedTicket }).p;
  if (p.kind === "ok") {
    p.spec.body = bodyOf(cache, i);
    p.spec.order = order;
  } else if (p.kind !== "invalid") throw new Error("unknown entry");
  p.node.order = order;
  if (p.node.file !== file) throw new Error("another file's entry");
  return p;
}

/**
 * A plain entry: a valid ticket with no warnings and no engine fields, its node what the
 * spec says. [id, title, dependsOn, depLines, inputs, writeScope, priority, idLine,
 * executor, agent, bound, retries]: id 0 when it is the file's stem, depLines 0 when no
 * dependency has a line, inputs 0 when it is dependsOn, writeScope 0 when empty, idLine
 * 0 when there is none; the optional fields null (or left off the end) when unset.
 */
function fromPlain(e: unknown[], file: string, order: number, body: () => string): ParsedTicket {
  const id = e[0] === 0 ? file.slice(0, -3) : (e[0] as string);
  const title = e[1] as string;
  const dependsOn = e[2] as string[];
  const depLines = e[3] as number[] | 0;
  if (typeof id !== "string" || typeof title !== "string" || !Array.isArray(dependsOn))
    throw new Error("not a plain entry");
  const spec: TicketSpec = {
    id,
    title,
    file,
    dependsOn,
    inputs: e[4] === 0 ? dependsOn : (e[4] as string[]),
    writeScope: e[5] === 0 ? [] : (e[5] as string[]),
    priority: e[6] as number,
    body: body(),
    order,
  };
  if (e[8] != null) spec.executor = e[8] as string;
  if (e[9] != null) spec.agent = e[9] as string;
  if (e[10] != null) spec.bound = e[10] as TicketSpec["bound"];
  if (e[11] != null) spec.retries = e[11] as number;
  const deps: Array<{ id: string; line?: number }> = new Array(dependsOn.length);
  for (let i = 0; i < dependsOn.length; i++) {
    const line = depLines === 0 ? 0 : depLines[i]!;
    deps[i] = line === 0 ? { id: dependsOn[i]! } : { id: dependsOn[i]!, line };
  }
  const node: Extract<ParsedTicket, { kind: "ok" }>["node"] = {
    id,
    file,
    order,
    certain: true,
    dependsOn: deps,
  };
  if (e[7] !== 0) node.idLine = e[7] as number;
  return { kind: "ok", spec, fields: NO_FIELDS, node, warnings: [] };
}

const NO_FIELDS: EngineFields = {};

/** One file's parse, to be stored: its keys (at `stats[order * STAT_FIELDS]`) and its parsed ticket. */
export interface Stored {
  name: string;
  order: number;
  parsed: ParsedTicket;
}

/**
 * Write the cache of `dir` with `stored` (in file order), whole, to a temporary file
 * renamed into place. `loadStart` is `performance.now()` when the load began, before any
 * file was stat'ed. Any failure leaves the old cache (or none) and is not reported.
 */
export function writeCache(
  dir: string,
  params: CacheParams,
  stored: readonly Stored[],
  stats: Float64Array,
  loadStart: number,
  marginMs = RACY_MARGIN_MS,
): void {
  let tmp: string | undefined;
  let fd: number | undefined;
  try {
    const names: string[] = [];
    const entries: unknown[] = [];
    const bodies: string[] = [];
    const keys = new Float64Array(stored.length * KEY_FIELDS);
    let bodyBytes = 0;
    for (const s of stored) {
      // null: the file's keys only, its parse read afresh each time
      const entry = entryOf(s) ?? null;
      const body = entry !== null && s.parsed.kind === "ok" ? s.parsed.spec.body : "";
      const bytes = Buffer.byteLength(body);
      const at = s.order * STAT_FIELDS;
      const to = names.length * KEY_FIELDS;
      for (let f = 0; f < STAT_FIELDS; f++) keys[to + f] = stats[at + f]!;
      keys[to + 5] = bytes;
      keys[to + 6] = bytes === body.length ? 1 : 0;
      bodyBytes += bytes;
      names.push(s.name);
      bodies.push(body);
      entries.push(entry);
    }
    const namesText = names.length === 0 ? "" : `${names.join("\n")}\n`;
    const entriesText = JSON.stringify(entries).replace(NOT_ASCII, escapeChar);
    const keyBytes = new Uint8Array(keys.buffer, 0, names.length * KEY_FIELDS * 8);

    const cacheDir = join(dir, CACHE_DIR);
    if (mkdirSync(cacheDir, { recursive: true }) !== undefined) {
      // never committed by a `git add` of .frontier/
      writeFileSync(join(cacheDir, ".gitignore"), "*\n");
    }
    // node:crypto is not loaded for this: a name unique enough beside the exclusive open
    const hex = Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
    tmp = join(cacheDir, `tickets.${process.pid}.${hex}.tmp`);
    fd = openSync(tmp, "wx");
    removeStaleTemps(cacheDir);
    // the file system's clock now, after every file was stat'ed: less the time the load
    // took, it is no later than when the first file was
    const now = fstatSync(fd).mtimeMs;
    const racyFrom = now - (performance.now() - loadStart) - marginMs;
    const header: Header = {
      format: CACHE_FORMAT,
      build: build(),
      endian: endianness(),
      params: { maxFileBytes: params.maxFileBytes, leaseMs: params.leaseMs },
      racyFrom,
      count: names.length,
      namesBytes: Buffer.byteLength(namesText),
      entriesBytes: entriesText.length,
      bodyBytes,
    };
    const headerText = JSON.stringify(header).replace(NOT_ASCII, escapeChar);
    writeAll(fd, Buffer.from(`${headerText}\n${namesText}`, "utf8"));
    writeAll(fd, keyBytes);
    writeText(fd, entriesText, "latin1");
    writeText(fd, bodies.join(""), "utf8");
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, cachePath(dir));
    tmp = undefined;
    lastLoad.written = true;
  } catch {
    // a cache is never worth failing a command over
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    if (tmp !== undefined) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // left for the next run's sweep
      }
    }
  }
}

/** Temporary files of writers killed mid-write: their process is gone. */
function removeStaleTemps(cacheDir: string): void {
  for (const name of readdirSync(cacheDir)) {
    const m = /^tickets\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name);
    if (m === null || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    rmSync(join(cacheDir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A string written whole, encoded as it is written (no copy of it in a Buffer first). */
function writeText(fd: number, text: string, encoding: "latin1" | "utf8"): void {
  const bytes = Buffer.byteLength(text, encoding);
  const done = writeSync(fd, text, null, encoding);
  // a short write (rare: a full disk, a signal) writes the rest from a Buffer
  if (done < bytes) writeAll(fd, Buffer.from(text, encoding).subarray(done));
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

const NOT_ASCII = /[\u007f-\uffff]/g;
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The stored form of one parse, or undefined when it would not read back exactly. */
function entryOf(s: Stored): unknown | undefined {
  const { name, parsed } = s;
  // names are stored one a line
  if (name.includes("\n") || !name.endsWith(".md")) return undefined;
  if (parsed.kind === "ok") {
    const body = parsed.spec.body;
    if (body.length !== Buffer.byteLength(body) && LONE_SURROGATE.test(body)) return undefined;
  }
  const plain = plainOf(parsed, name);
  if (plain !== undefined) return plain;
  // as JSON: only when JSON gives it back exactly (no -0, no undefined values)
  const copy =
    parsed.kind === "ok" ? { ...parsed, spec: { ...parsed.spec, body: "", order: 0 } } : parsed;
  if (!roundTrips(copy)) return undefined;
  return { p: copy };
}

function plainOf(p: ParsedTicket, name: string): unknown[] | undefined {
  if (p.kind !== "ok" || p.warnings.length > 0) return undefined;
  for (const _ in p.fields) return undefined;
  const { spec, node } = p;
  if (!node.certain || node.id !== spec.id || node.file !== spec.file || spec.file !== name)
    return undefined;
  if (node.dependsOn.length !== spec.dependsOn.length) return undefined;
  let anyLine = false;
  const depLines: number[] = [];
  for (let i = 0; i < spec.dependsOn.length; i++) {
    const d = node.dependsOn[i]!;
    if (d.id !== spec.dependsOn[i]) return undefined;
    if (d.line !== undefined) {
      if (!(d.line > 0)) return undefined;
      anyLine = true;
    }
    depLines.push(d.line ?? 0);
  }
  if (!roundTrips(spec.priority) || !roundTrips(spec.retries ?? 0) || !roundTrips(spec.bound ?? 0))
    return undefined;
  if (node.idLine !== undefined && !(node.idLine > 0)) return undefined;
  // only the fields this form knows: anything else is stored as JSON
  for (const k in spec) if (!SPEC_KEYS.has(k)) return undefined;
  for (const k in node) if (!NODE_KEYS.has(k)) return undefined;
  const sameInputs =
    spec.inputs.length === spec.dependsOn.length &&
    spec.inputs.every((x, i) => x === spec.dependsOn[i]);
  const out: unknown[] = [
    spec.id === name.slice(0, -3) ? 0 : spec.id,
    spec.title,
    spec.dependsOn,
    anyLine ? depLines : 0,
    sameInputs ? 0 : spec.inputs,
    spec.writeScope.length === 0 ? 0 : spec.writeScope,
    spec.priority,
    node.idLine ?? 0,
    spec.executor ?? null,
    spec.agent ?? null,
    spec.bound ?? null,
    spec.retries ?? null,
  ];
  while (out.length > 8 && out[out.length - 1] === null) out.pop();
  return out;
}

const NODE_KEYS = new Set(["id", "file", "order", "certain", "dependsOn", "idLine"]);
const SPEC_KEYS = new Set([
  "id",
  "title",
  "file",
  "dependsOn",
  "inputs",
  "writeScope",
  "priority",
  "body",
  "order",
  "executor",
  "agent",
  "bound",
  "retries",
]);

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
