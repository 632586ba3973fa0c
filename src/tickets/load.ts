/**
 * A ticket directory → checked specs, settings and the saved state, or every
 * problem with it at once. Nothing here decides what runs; it only reads.
 */
import { constants as bufferConstants, isAscii } from "node:buffer";
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type CheckNode, checkCaps, checkGraph } from "../core/checks.js";
import { DEFAULTS } from "../core/constants.js";
import { readJson } from "../core/json.js";
import type {
  AnswerRecord,
  AttemptRecord,
  RunRecord,
  SavedState,
  Settings,
  TicketSpec,
  TicketState,
} from "../core/model.js";
import { closest } from "../core/near.js";
import {
  cached,
  KEY_FIELDS,
  lastLoad,
  type OpenCache,
  openCache,
  putKeys,
  statKeys,
  writeCache,
} from "./cache.js";
import type { EngineFields, ParsedTicket } from "./fields.js";
import { graphProblem } from "./graph-problems.js";
import { RUN_FILE, STATE_DIR } from "./layout.js";
import { isError, type Problem, problem, quoted, sortProblems } from "./problems.js";
import { readOptional } from "./read-optional.js";
import { SETTINGS_FILE } from "./setting-keys.js";
import { loadSettings } from "./settings-load.js";

export type Loaded =
  | {
      kind: "ok";
      dir: string;
      settings: Settings;
      /** in file order */
      specs: TicketSpec[];
      saved: SavedState | undefined;
      /**
       * attempts known only from their result file (a run was killed between writing
       * the result and its record): the next write creates their records
       */
      unrecorded: Array<{ ticket: string; n: number }>;
      warnings: Problem[];
    }
  | {
      kind: "invalid";
      /** errors and warnings, by file and line */
      problems: Problem[];
    };

export {
  answerFile,
  attemptFile,
  RUN_FILE,
  resultFile,
  STATE_DIR,
  WORKLOG_FILE,
} from "./layout.js";

/** Ticket files in `dir`, in file order: `*.md` directly in it, not starting with `.` or `_`. */
export function ticketFileNames(names: Iterable<string>): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (name.endsWith(".md") && !name.startsWith(".") && !name.startsWith("_")) out.push(name);
  }
  // the default order of strings: by UTF-16 code units, as `<` compares them
  return out.sort();
}

/**
 * Read and check every ticket in `dir`. Problems come back all together: caps,
 * front matter, field types, ids, dependencies, cycles, settings and saved state.
 */
export interface LoadOptions {
  /**
   * Check what `frontier run` needs on this machine too: every executor a ticket
   * names is defined in frontier.yml. `validate` and `run` both ask for it, so the
   * one passes exactly what the other accepts.
   */
  localExecutors?: boolean;
  /**
   * false: every spec's body is "" — for what shows no body (`validate`, `status`), and
   * what lets the ticket cache serve the load. Default true.
   */
  bodies?: boolean;
  /**
   * With `bodies: false`, use and update the ticket cache in DIR/.frontier/cache/
   * (tickets/cache.ts): files whose keys match their entry are not read again. On unless
   * false; a load with bodies never touches it.
   */
  cache?: boolean;
  /** The cache's racily-clean margin (tests only: the default suits every file system). */
  cacheMarginMs?: number;
  /**
   * The directory's files in memory (file name → text: ticket files and frontier.yml),
   * read instead of the disk; `dir` then only names the directory (its run name, the
   * problems' paths). Never cached.
   */
  files?: ReadonlyMap<string, string>;
}

export async function loadDirectory(
  dir: string,
  overrides: Partial<Settings> = {},
  options: LoadOptions = {},
): Promise<Loaded> {
  const inMemory = options.files;
  try {
    if (inMemory === undefined) {
      const s = await stat(dir);
      if (!s.isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    }
  } catch {
    return {
      kind: "invalid",
      problems: [
        problem(
          "no-ticket-directory",
          dir,
          undefined,
          `no ticket directory at ${dir}`,
          "create it, or pass the directory that holds the tickets as DIR",
        ),
      ],
    };
  }

  const {
    settings,
    problems: settingsProblems,
    warnings,
  } = await loadSettings(
    dir,
    overrides,
    inMemory ? { text: inMemory.get(SETTINGS_FILE) } : undefined,
  );
  const problems: Problem[] = [...settingsProblems];
  const maxTickets = settings.max_tickets ?? DEFAULTS.maxTickets;
  const maxFileBytes = settings.max_file_bytes ?? DEFAULTS.maxFileBytes;
  const leaseMs = DEFAULTS.leaseMs;

  let names: string[];
  try {
    // the directory entries are dropped at once: 10k of them would outlive every GC
    names = ticketFileNames(
      inMemory
        ? inMemory.keys()
        : readdirSync(dir, { withFileTypes: true })
            .filter((e) => e.isFile() || e.isSymbolicLink())
            .map((e) => e.name),
    );
  } catch (e) {
    return {
      kind: "invalid",
      problems: [
        problem(
          "unreadable-file",
          dir,
          undefined,
          `could not list the ticket directory: ${(e as Error).message}`,
          "make the directory readable",
        ),
      ],
    };
  }
  // A backslash is a path separator on Windows and in many tools, and a ticket's file
  // name travels as a path (on GitHub inside .frontier/base.json): refused everywhere.
  for (const file of names) {
    if (file.includes("\\")) {
      problems.push(
        problem(
          "invalid-file-name",
          file,
          undefined,
          "a ticket file's name may not contain a backslash (\\): it reads as a path separator",
          `rename it without one, e.g. ${file.replace(/\\+/g, "-")}`,
        ),
      );
    }
  }
  const capProblems = checkCaps(
    names.length > maxTickets ? names.map((file) => ({ file, bytes: 0 })) : [],
    { maxTickets, maxFileBytes },
    dir,
  ).map(graphProblem);
  if (capProblems.length > 0) {
    // past the ticket cap nothing else is worth reading
    return { kind: "invalid", problems: sortProblems([...problems, ...capProblems, ...warnings]) };
  }

  // read every file the cache cannot answer for; plain ones are parsed at once, the
  // rest wait for the YAML parser
  const parsed: Array<ParsedTicket | undefined> = new Array(names.length);
  const texts: Array<string | undefined> = new Array(names.length);
  // in file order: the first file of a loop or a duplicate is the one named first
  const nodes: CheckNode[] = new Array(names.length);
  const base = dir.endsWith("/") ? dir : `${dir}/`;
  const bodies = options.bodies !== false;
  const useCache = !bodies && options.cache !== false && inMemory === undefined;
  const loadStart = performance.now();
  const params = { maxFileBytes, leaseMs };
  const cache = useCache ? openCache(base, params) : undefined;
  // each file's keys (when the cache is in use), taken before it is read or its entry
  // used: a change after that is seen next time. With a cache, from a stat of every
  // file; the files read take theirs from the open file, as they are read.
  const keys = !useCache
    ? undefined
    : cache !== undefined
      ? statKeys(names.map((file) => `${base}${file}`))
      : new Float64Array(names.length * KEY_FIELDS).fill(Number.NaN);
  let toRead: number[] | undefined;
  // files whose entry is as it was: taken from the cache, or (a parse it cannot store) read
  let reused = 0;
  let unchanged = 0;
  if (cache !== undefined && keys !== undefined) {
    toRead = [];
    for (let order = 0; order < names.length; order++) {
      const hit = cached(cache, names[order]!, keys, order);
      if (hit === "unchanged") unchanged++;
      else if (hit !== undefined) {
        parsed[order] = hit;
        reused++;
        continue;
      }
      toRead.push(order);
    }
  }
  const readCount = toRead === undefined ? names.length : toRead.length;
  const readKeys =
    keys === undefined
      ? undefined
      : toRead === undefined
        ? keys
        : new Float64Array(readCount * KEY_FIELDS).fill(Number.NaN);
  const reads: Read[] =
    readCount === 0
      ? []
      : inMemory
        ? names.map((file): Read => {
            const text = inMemory.get(file) as string;
            const bytes = Buffer.byteLength(text, "utf8");
            return bytes > maxFileBytes ? { kind: "too-large", bytes } : { kind: "ok", text };
          })
        : readFiles(
            toRead === undefined
              ? names.map((file) => `${base}${file}`)
              : toRead.map((order) => `${base}${names[order]}`),
            maxFileBytes,
            undefined,
            undefined,
            readKeys,
          );
  if (toRead !== undefined && keys !== undefined && readKeys !== undefined) {
    // the keys of the open file replace those of the stat before it
    for (let k = 0; k < toRead.length; k++) {
      keys.set(readKeys.subarray(k * KEY_FIELDS, (k + 1) * KEY_FIELDS), toRead[k]! * KEY_FIELDS);
    }
  }
  let needFull = false;
  const parseQuick = readCount === 0 ? undefined : (await import("./fields.js")).parseTicketQuick;
  for (let k = 0; k < readCount; k++) {
    const order = toRead === undefined ? k : toRead[k]!;
    const file = names[order]!;
    const read = reads[k]!;
    if (read.kind === "too-large") {
      problems.push(
        graphProblem({ kind: "file-too-large", file, bytes: read.bytes, cap: maxFileBytes }),
      );
      nodes[order] = { id: file.slice(0, -3), file, order, certain: false, dependsOn: [] };
      continue;
    }
    if (read.kind === "unreadable") {
      problems.push(
        problem(
          "unreadable-file",
          file,
          undefined,
          `could not read the file: ${read.message}`,
          "make it a readable file, or rename it to start with _ so it is not a ticket",
        ),
      );
      nodes[order] = { id: file.slice(0, -3), file, order, certain: false, dependsOn: [] };
      continue;
    }
    const quick = parseQuick!(read.text, file, order, { leaseMs });
    if (quick === undefined) {
      texts[order] = read.text;
      needFull = true;
    } else {
      if (!bodies && quick.kind === "ok") quick.spec.body = "";
      parsed[order] = quick;
    }
  }
  if (needFull) {
    // loaded only when some front matter is not plain: most directories never need it
    const { parseTicketFull } = await import("./parse.js");
    texts.forEach((text, order) => {
      if (text === undefined) return;
      const p = parseTicketFull(text, names[order]!, order, { leaseMs });
      if (!bodies && p.kind === "ok") p.spec.body = "";
      parsed[order] = p;
    });
  }

  const specs: TicketSpec[] = [];
  const fields = new Map<string, EngineFields>();
  for (const p of parsed) {
    if (p === undefined) continue;
    nodes[p.node.order] = p.node;
    if (p.warnings.length > 0) warnings.push(...p.warnings);
    if (p.kind === "invalid") {
      problems.push(...p.problems);
      continue;
    }
    specs.push(p.spec);
    if (hasKeys(p.fields)) fields.set(p.spec.id, p.fields);
  }
  const graph = checkGraph(nodes);
  problems.push(...graph.map(graphProblem));
  if (keys !== undefined) {
    lastLoad.reused = reused;
    lastLoad.read = readCount;
    lastLoad.written = false;
    // written only when something changed since: a file read again, or one gone
    let storable = 0;
    for (let order = 0; order < names.length; order++) {
      if (parsed[order] !== undefined && !Number.isNaN(keys[order * KEY_FIELDS]!)) storable++;
    }
    if (cacheChanged(cache, storable, reused, unchanged)) {
      writeCache(base, params, names, parsed, keys, loadStart, options.cacheMarginMs);
    }
  }
  if (options.localExecutors) problems.push(...checkExecutors(base, specs, settings));

  if (problems.some(isError)) {
    return { kind: "invalid", problems: sortProblems([...problems, ...warnings]) };
  }
  let state: Awaited<ReturnType<typeof readSaved>>;
  try {
    state = await readSaved(dir, settings, specs, fields);
  } catch (e) {
    state = {
      saved: undefined,
      unrecorded: [],
      problems: [
        problem(
          "unreadable-file",
          STATE_DIR,
          undefined,
          `could not read the saved state: ${(e as Error).message}`,
          `make ${STATE_DIR}/ readable, or move it aside to start the run afresh`,
        ),
      ],
    };
  }
  if (state.problems.length > 0) {
    return { kind: "invalid", problems: sortProblems([...state.problems, ...warnings]) };
  }
  return {
    kind: "ok",
    dir,
    settings,
    specs,
    saved: state.saved,
    unrecorded: state.unrecorded,
    warnings: sortProblems(warnings),
  };
}

/**
 * Whether the cache must be written again: of the `storable` files (parsed, with keys),
 * one was read afresh, or a file of the cache is gone.
 */
function cacheChanged(
  cache: OpenCache | undefined,
  storable: number,
  reused: number,
  unchanged: number,
): boolean {
  if (cache === undefined) return true;
  const same = reused + unchanged;
  return storable > same || same !== cache.names.length;
}

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
  // the texts of files first..upTo-1, which are in buf[0, bytes); the texts are copies,
  // so buf can be filled again afterwards
  const decode = (upTo: number, bytes: number) => {
    // past a string's maximum length (a file of over 512 MB, with max_file_bytes raised
    // that far) there is no string of the whole buffer: each file is decoded on its own
    const whole = bytes <= MAX_STRING_LENGTH ? buf.toString("latin1", 0, bytes) : undefined;
    for (let i = first; i < upTo; i++) {
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
        out[i] = { kind: "unreadable", message: (err as Error).message };
      }
    }
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
      fd = openSync(paths[i]!, "r");
    } catch (e) {
      out[i] = { kind: "unreadable", message: (e as Error).message };
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
          out[i] = { kind: "too-large", bytes: fstatSync(fd).size };
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
        if (n === 0) break;
        used += n;
        // (a file of cap + 1 bytes has reached its size too: the cap check above says so)
        if (used - start === size && size <= cap) break;
      }
    } catch (e) {
      out[i] = { kind: "unreadable", message: (e as Error).message };
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
 * The saved state: each ticket's engine fields from its front matter, its ended
 * attempts and answers from `.frontier/`, and the run record. The live attempt is
 * only in the front matter (attempt, claimed_by, claimed_at, claim) and is rebuilt
 * from there. Undefined when nothing has run yet.
 */
async function readSaved(
  dir: string,
  settings: Settings,
  specs: readonly TicketSpec[],
  fields: ReadonlyMap<string, EngineFields>,
): Promise<{
  saved: SavedState | undefined;
  unrecorded: Array<{ ticket: string; n: number }>;
  problems: Problem[];
}> {
  const problems: Problem[] = [];
  let ids: Set<string> | undefined;
  // made only when there are records to match against the tickets
  const known = () => {
    ids ??= new Set(specs.map((s) => s.id));
    return ids;
  };

  let run: RunRecord | undefined;
  const runText = await readOptional(join(dir, RUN_FILE));
  if (runText !== undefined) {
    const parsed = parseJson(runText, (await schemas()).RunRecord);
    if (parsed === undefined) problems.push(corrupt(RUN_FILE));
    else run = parsed;
  }

  const attempts = await readRecords(dir, "attempts", known, problems);
  const answers = await readRecords(dir, "answers", known, problems);
  const unrecorded = await recoverResults(dir, attempts, known, fields);

  const tickets: Record<string, TicketState> = {};
  let dispatched = 0;
  // nothing saved anywhere: no ticket has state (the loop below would skip every one)
  const anySaved = fields.size > 0 || attempts.size > 0 || answers.size > 0;
  for (const spec of anySaved ? specs : []) {
    const f = fields.get(spec.id);
    const ended = attempts.get(spec.id) ?? [];
    const answered = answers.get(spec.id) ?? [];
    if (f === undefined && ended.length === 0 && answered.length === 0) continue;
    const attempt = f?.attempt ?? ended.reduce((m, a) => Math.max(m, a.n), 0);
    const history = [...ended];
    if (
      f?.claim !== undefined &&
      f.claimed_by !== undefined &&
      f.claimed_at !== undefined &&
      attempt > 0 &&
      !history.some((a) => a.n === attempt)
    ) {
      history.push({
        n: attempt,
        claim: f.claim,
        claimed_by: f.claimed_by,
        started_at: f.claimed_at,
      });
    }
    history.sort((a, b) => a.n - b.n);
    answered.sort((a, b) => a.n - b.n);
    const state: TicketState = {
      status: f?.status ?? "pending",
      attempt,
      attempts: history,
      answers: answered,
    };
    if (f?.claimed_by !== undefined) state.claimed_by = f.claimed_by;
    if (f?.claimed_at !== undefined) state.claimed_at = f.claimed_at;
    if (f?.claim !== undefined) state.claim = f.claim;
    if (f?.blocked_by !== undefined) state.blocked_by = f.blocked_by;
    if (f?.reason !== undefined) state.reason = f.reason;
    if (f?.updated_at !== undefined) state.updated_at = f.updated_at;
    tickets[spec.id] = state;
    // an attempt recorded past the file's (its file could not be written) was dispatched too
    dispatched += Math.max(attempt, ...ended.map((a) => a.n));
  }
  if (problems.length > 0) return { saved: undefined, unrecorded: [], problems };
  if (run === undefined && Object.keys(tickets).length === 0)
    return { saved: undefined, unrecorded: [], problems };
  // state in the tickets without a run record: the dispatches are the attempts made;
  // with one, never fewer than those (every dispatch is on disk first as the claim in
  // its ticket file, or as its attempt record)
  if (run !== undefined && run.dispatched < dispatched) run = { ...run, dispatched };
  run ??= { schema: "ticket-frontier/run@1", run: settings.run, dispatched };
  return { saved: { run, tickets }, unrecorded, problems };
}

/**
 * A result on disk is never discarded. A result file is written just before its
 * attempt's record; a run killed between the two (or stopped by a full disk) leaves a
 * result with no record. Only a complete attempt has a result file, so that attempt is
 * read back as complete, with its result — never reclaimed and run again — and its
 * record is written by the next write (returned here), so no finished attempt is ever
 * left known only from its result.
 */
async function recoverResults(
  dir: string,
  attempts: Map<string, AttemptRecord[]>,
  known: () => ReadonlySet<string>,
  fields: ReadonlyMap<string, EngineFields>,
): Promise<Array<{ ticket: string; n: number }>> {
  const recovered: Array<{ ticket: string; n: number }> = [];
  let names: string[];
  try {
    names = await readdir(join(dir, STATE_DIR, "results"));
  } catch {
    return recovered;
  }
  for (const name of names) {
    const m = /^(.+)@(\d+)\.md$/.exec(name);
    if (m === null || !known().has(m[1]!)) continue;
    const id = m[1]!;
    const n = Number(m[2]);
    const list = attempts.get(id) ?? [];
    if (list.some((a) => a.n === n)) continue;
    const file = `${STATE_DIR}/results/${name}`;
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(join(dir, file));
    } catch {
      continue;
    }
    const f = fields.get(id);
    const live = f?.attempt === n ? f : undefined;
    const ended = info.mtime.toISOString();
    list.push({
      n,
      claim: live?.claim ?? "",
      claimed_by: live?.claimed_by ?? "",
      started_at: live?.claimed_at ?? ended,
      ended_at: ended,
      outcome: "complete",
      result_file: file,
      result_bytes: info.size,
      settled_by: "frontier, from its result file (the run stopped before recording it)",
    });
    attempts.set(id, list);
    recovered.push({ ticket: id, n });
  }
  return recovered;
}

function parseJson<T>(
  text: string,
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
): T | undefined {
  const json = readJson(text);
  if (!json.ok) return undefined;
  const parsed = schema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}

function corrupt(file: string): Problem {
  return problem(
    "corrupt-state",
    file,
    undefined,
    "saved state is not valid (not the JSON the engine writes)",
    "restore the file from version control, or delete it to forget what it recorded",
  );
}

/** The schemas of the saved state: zod is loaded only when there is saved state to check. */
const schemas = () => import("../core/model.js");

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

type RecordOf<K extends "attempts" | "answers"> = K extends "attempts"
  ? AttemptRecord
  : AnswerRecord;

/** `<id>@<n>.json` records of one kind, for known tickets only: one readdir for the whole kind. */
async function readRecords<K extends "attempts" | "answers">(
  dir: string,
  kind: K,
  known: () => ReadonlySet<string>,
  problems: Problem[],
): Promise<Map<string, RecordOf<K>[]>> {
  type T = RecordOf<K>;
  const out = new Map<string, T[]>();
  let names: string[];
  try {
    names = await readdir(join(dir, STATE_DIR, kind));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return out;
    throw e;
  }
  const wanted: Array<{ id: string; n: number; file: string }> = [];
  for (const name of names) {
    const m = /^(.+)@(\d+)\.json$/.exec(name);
    if (m === null || !known().has(m[1]!)) continue;
    wanted.push({ id: m[1]!, n: Number(m[2]), file: `${STATE_DIR}/${kind}/${name}` });
  }
  if (wanted.length === 0) return out;
  const texts = await Promise.all(wanted.map((w) => readFile(join(dir, w.file), "utf8")));
  const model = await schemas();
  const schema = (kind === "attempts" ? model.AttemptRecord : model.AnswerRecord) as {
    safeParse(v: unknown): { success: boolean; data?: T };
  };
  wanted.forEach((w, i) => {
    const record = parseJson(texts[i]!, schema);
    if (record === undefined || record.n !== w.n) {
      problems.push(corrupt(w.file));
      return;
    }
    const list = out.get(w.id);
    if (list === undefined) out.set(w.id, [record]);
    else list.push(record);
  });
  return out;
}

/**
 * Each executor a ticket names must be defined under `executors:` in frontier.yml, for
 * `frontier run` (on GitHub a workflow file name is dispatched as that workflow).
 */
/** An executor named like this is a GitHub workflow file (dispatched as it is there). */
export const WORKFLOW_FILE = /\.ya?ml$/;

function checkExecutors(base: string, specs: readonly TicketSpec[], settings: Settings): Problem[] {
  const problems: Problem[] = [];
  const defined = Object.keys(settings.executors ?? {});
  for (const spec of specs) {
    const name = spec.executor;
    if (name === undefined || Object.hasOwn(settings.executors ?? {}, name)) continue;
    if (WORKFLOW_FILE.test(name)) {
      // a workflow file is dispatched as it is on GitHub; only a local run needs a command
      problems.push({
        ...problem(
          "unknown-executor",
          spec.file,
          fieldLine(`${base}${spec.file}`, "executor"),
          `executor ${quoted(name)} is a GitHub workflow file, which a local run cannot start (it is not defined in frontier.yml)`,
          `to run this directory locally too, define it under executors: in frontier.yml (e.g. executors: {${name}: "CMD"}); on GitHub it is dispatched as it is (frontier validate --for github checks only that)`,
        ),
        runner: "local",
      });
      continue;
    }
    const near = closest(name, defined);
    problems.push(
      problem(
        "unknown-executor",
        spec.file,
        fieldLine(`${base}${spec.file}`, "executor"),
        `executor ${quoted(name)} is not defined in frontier.yml${near === undefined ? "" : ` (did you mean ${quoted(near)}?)`}`,
        near === undefined
          ? `define it under executors: in frontier.yml (e.g. executors: {${name}: "CMD"}), or remove executor: from the ticket`
          : `write executor: ${near}, or define ${quoted(name)} under executors: in frontier.yml`,
      ),
    );
  }
  return problems;
}

/** The line of a top-level field in a file's front matter (read again: rare, only for a problem). */
export function fieldLine(path: string, name: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  const field = new RegExp(`^${name}\\s*:`);
  for (let i = 1; i < lines.length && !/^---\r?$/.test(lines[i]!); i++) {
    if (field.test(lines[i]!)) return i + 1;
  }
  return undefined;
}
