/**
 * A ticket directory → checked specs, settings and the saved state, or every
 * problem with it at once. Nothing here decides what runs; it only reads.
 */
import { readdirSync, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { type CheckNode, checkCaps, checkGraph, checkScopes } from "../core/checks.js";
import { DEFAULTS, ticketIsolation } from "../core/constants.js";
import type { SavedState, Settings, TicketSpec } from "../core/model.js";
import { closest } from "../core/near.js";
import {
  cached,
  KEY_FIELDS,
  lastLoad,
  type OpenCache,
  openCache,
  statKeys,
  writeCache,
} from "./cache.js";
import type { EngineFields, ParsedTicket } from "./fields.js";
import { graphProblem } from "./graph-problems.js";
import { STATE_DIR } from "./layout.js";
import { isError, type Problem, problem, quoted, sortProblems } from "./problems.js";
import { type Read, readFiles } from "./read-files.js";
import { hasKeys, readSaved } from "./saved-load.js";
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
  problems.push(
    ...graph.map(graphProblem),
    ...scopeProblems(base, specs, settings, options.localExecutors),
  );
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
    // files in memory: nothing is read from the disk, not even a directory's records there
    state = inMemory
      ? { saved: undefined, unrecorded: [], problems: [] }
      : await readSaved(dir, settings, specs, fields);
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

/**
 * The write_scope and isolation checks (core/checks.ts), each at its field's line;
 * isolation only for a local run (on GitHub every ticket has a checkout of its own).
 */
function scopeProblems(
  base: string,
  specs: readonly TicketSpec[],
  settings: Settings,
  local = false,
): Problem[] {
  const found = checkScopes(
    specs.map((s) => ({
      id: s.id,
      file: s.file,
      isolated: local && ticketIsolation(s.isolation, settings.isolation) === "worktree",
      writeScope: s.writeScope,
      dependsOn: s.dependsOn,
    })),
  );
  const FIELD = {
    "unreachable-scope": "write_scope",
    "isolated-without-scope": "isolation",
    "depends-on-isolated": "depends_on",
  } as const;
  return found.map((p) => {
    const line = fieldLine(`${base}${p.at.file}`, FIELD[p.kind]);
    return graphProblem(line === undefined ? p : { ...p, at: { ...p.at, line } });
  });
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
