/**
 * A ticket directory → checked specs, settings and the saved state, or every
 * problem with it at once. Nothing here decides what runs; it only reads.
 */
import { readdirSync } from "node:fs";
import { type CheckNode, checkGraph, checkScopes } from "../core/checks.js";
import { DEFAULTS, runsIsolated } from "../core/constants.js";
import { errorText } from "../core/errors.js";
import type { SavedState, Settings, TicketSpec } from "../core/model.js";
import { closest } from "../core/near.js";
import { cached, KEY_FIELDS, lastLoad, openCache, statKeys, writeCache } from "./cache.js";
import type { EngineFields, ParsedTicket } from "./fields.js";
import { graphProblem } from "./graph-problems.js";
import { STATE_DIR } from "./layout.js";
import { isError, type Problem, problem, quoted, sortProblems } from "./problems.js";
import { type Read, readFiles } from "./read-files.js";
import { isDirectory, tryReadText } from "./read-optional.js";
import { readSaved } from "./saved-load.js";
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
  // sorted in the default order of strings: by UTF-16 code units, as `<` compares them
  return [...names]
    .filter((name) => name.endsWith(".md") && !name.startsWith(".") && !name.startsWith("_"))
    .sort();
}

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

/**
 * Read and check every ticket in `dir`. Problems come back all together: caps,
 * front matter, field types, ids, dependencies, cycles, settings and saved state.
 */
export async function loadDirectory(dir: string, options: LoadOptions = {}): Promise<Loaded> {
  const inMemory = options.files;
  if (inMemory === undefined && !isDirectory(dir)) {
    return invalid([
      problem(
        "no-ticket-directory",
        dir,
        undefined,
        `no ticket directory at ${dir}`,
        "create it, or pass the directory that holds the tickets as DIR",
      ),
    ]);
  }
  const loaded = await loadSettings(
    dir,
    inMemory ? { text: inMemory.get(SETTINGS_FILE) } : undefined,
  );
  const { settings, warnings } = loaded;
  const problems: Problem[] = [...loaded.problems];
  const maxTickets = settings.max_tickets ?? DEFAULTS.maxTickets;
  const maxFileBytes = settings.max_file_bytes ?? DEFAULTS.maxFileBytes;

  const names = listTickets(dir, inMemory);
  if (!Array.isArray(names)) return invalid([names]);
  problems.push(...names.filter((name) => name.includes("\\")).map(backslashProblem));
  // past the ticket cap nothing else is worth reading (a file past its byte cap: as it is read)
  if (names.length > maxTickets) {
    const count = names.length;
    const tooMany = graphProblem({ kind: "too-many-tickets", dir, count, cap: maxTickets });
    return invalid([...problems, tooMany, ...warnings]);
  }

  const base = dir.endsWith("/") ? dir : `${dir}/`;
  const { parsed, nodes } = await parseTickets(base, names, maxFileBytes, options, problems);
  const specs: TicketSpec[] = [];
  const fields = new Map<string, EngineFields>();
  for (const p of parsed) {
    if (p === undefined) continue;
    nodes[p.node.order] = p.node;
    warnings.push(...p.warnings);
    if (p.kind === "invalid") {
      problems.push(...p.problems);
      continue;
    }
    specs.push(p.spec);
    if (Object.keys(p.fields).length > 0) fields.set(p.spec.id, p.fields);
  }
  problems.push(
    ...checkGraph(nodes).map(graphProblem),
    ...scopeProblems(base, specs, settings, options.localExecutors),
  );
  if (options.localExecutors) problems.push(...checkExecutors(base, specs, settings));
  if (problems.some(isError)) return invalid([...problems, ...warnings]);

  // files in memory: nothing is read from the disk, not even a directory's records there
  const state = inMemory
    ? { saved: undefined, unrecorded: [], problems: [] }
    : await readState(dir, settings, specs, fields);
  if (state.problems.length > 0) return invalid([...state.problems, ...warnings]);
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

/** The ticket files of `dir` (see ticketFileNames), or the problem that it cannot be listed. */
export function listTickets(dir: string, files?: ReadonlyMap<string, string>): string[] | Problem {
  try {
    // the directory entries are dropped at once: 10k of them would outlive every GC
    return ticketFileNames(
      files
        ? files.keys()
        : readdirSync(dir, { withFileTypes: true })
            .filter((e) => e.isFile() || e.isSymbolicLink())
            .map((e) => e.name),
    );
  } catch (e) {
    return problem(
      "unreadable-file",
      dir,
      undefined,
      `could not list the ticket directory: ${errorText(e)}`,
      "make the directory readable",
    );
  }
}

/**
 * A backslash is a path separator on Windows and in many tools, and a ticket's file name
 * travels as a path (on GitHub inside .frontier/base.json): refused everywhere.
 */
function backslashProblem(file: string): Problem {
  return problem(
    "invalid-file-name",
    file,
    undefined,
    "a ticket file's name may not contain a backslash (\\): it reads as a path separator",
    `rename it without one, e.g. ${file.replace(/\\+/g, "-")}`,
  );
}

/** The saved state of the tickets (saved-load.ts), or the problem that it cannot be read. */
async function readState(...args: Parameters<typeof readSaved>): ReturnType<typeof readSaved> {
  try {
    return await readSaved(...args);
  } catch (e) {
    return {
      saved: undefined,
      unrecorded: [],
      problems: [
        problem(
          "unreadable-file",
          STATE_DIR,
          undefined,
          `could not read the saved state: ${errorText(e)}`,
          `make ${STATE_DIR}/ readable, or move it aside to start the run afresh`,
        ),
      ],
    };
  }
}

function invalid(problems: Problem[]): Loaded {
  return { kind: "invalid", problems: sortProblems(problems) };
}

/**
 * Every ticket file parsed, in file order: taken from the ticket cache where it can answer
 * (LoadOptions.cache), else read — plain front matter parsed at once, the rest by the YAML
 * parser — and the cache written again when that changed it. A file that cannot be read
 * is a problem, and a node the graph checks hold uncertain.
 */
async function parseTickets(
  base: string,
  names: readonly string[],
  maxFileBytes: number,
  options: LoadOptions,
  problems: Problem[],
): Promise<{ parsed: Array<ParsedTicket | undefined>; nodes: CheckNode[] }> {
  const parsed: Array<ParsedTicket | undefined> = new Array(names.length);
  // in file order: the first file of a loop or a duplicate is the one named first
  const nodes: CheckNode[] = new Array(names.length);
  const bodies = options.bodies !== false;
  const useCache = !bodies && options.cache !== false && options.files === undefined;
  const loadStart = performance.now();
  const cache = useCache ? openCache(base, maxFileBytes) : undefined;
  // each file's keys (when the cache is in use), taken before it is read or its entry
  // used: a change after that is seen next time. With a cache, from a stat of every
  // file; the files read take theirs from the open file, as they are read.
  const keys = !useCache
    ? undefined
    : cache !== undefined
      ? statKeys(names.map((file) => `${base}${file}`))
      : new Float64Array(names.length * KEY_FIELDS).fill(Number.NaN);
  // files whose entry is as it was: taken from the cache, or (a parse it cannot store) read
  let reused = 0;
  let unchanged = 0;
  const toRead: number[] = [];
  for (let order = 0; order < names.length; order++) {
    const hit = cache === undefined ? undefined : cached(cache, names[order]!, keys!, order);
    if (hit === "unchanged") unchanged++;
    else if (hit !== undefined) {
      parsed[order] = hit;
      reused++;
      continue;
    }
    toRead.push(order);
  }
  const reads = readTickets(base, names, toRead, maxFileBytes, options.files, keys);
  const full: Array<{ order: number; text: string }> = [];
  const parseQuick =
    toRead.length === 0 ? undefined : (await import("./fields.js")).parseTicketQuick;
  toRead.forEach((order, k) => {
    const read = reads[k]!;
    const file = names[order]!;
    if (read.kind === "problem") {
      problems.push(read.problem);
      nodes[order] = { id: file.slice(0, -3), file, order, certain: false, dependsOn: [] };
      return;
    }
    parsed[order] = parseQuick!(read.text, file, order, options);
    if (parsed[order] === undefined) full.push({ order, text: read.text });
  });
  if (full.length > 0) {
    // loaded only when some front matter is not plain: most directories never need it
    const { parseTicketFull } = await import("./parse.js");
    for (const { order, text } of full)
      parsed[order] = parseTicketFull(text, names[order]!, order, options);
  }
  if (keys !== undefined) {
    lastLoad.reused = reused;
    lastLoad.read = toRead.length;
    lastLoad.written = false;
    // written only when something changed since: of the files parsed, with keys, one was
    // read afresh, or a file of the cache is gone
    let storable = 0;
    for (let order = 0; order < names.length; order++) {
      if (parsed[order] !== undefined && !Number.isNaN(keys[order * KEY_FIELDS]!)) storable++;
    }
    const same = reused + unchanged;
    // (none is written for a directory with no tickets: validating it leaves nothing there)
    if (storable > same || (cache !== undefined && same !== cache.names.length)) {
      writeCache(base, maxFileBytes, names, parsed, keys, loadStart, options.cacheMarginMs);
    }
  }
  return { parsed, nodes };
}

/**
 * The texts of the files `toRead` (orders into `names`), or the problem of one that cannot
 * be read or is over the cap: from memory, or from the disk with the keys of each open
 * file put into `keys` (replacing those of a stat before).
 */
function readTickets(
  base: string,
  names: readonly string[],
  toRead: readonly number[],
  cap: number,
  inMemory: ReadonlyMap<string, string> | undefined,
  keys: Float64Array | undefined,
): Array<{ kind: "ok"; text: string } | { kind: "problem"; problem: Problem }> {
  let reads: Read[];
  if (inMemory !== undefined) {
    reads = toRead.map((order): Read => {
      const text = inMemory.get(names[order]!)!;
      const bytes = Buffer.byteLength(text, "utf8");
      return bytes > cap ? { kind: "too-large", bytes } : { kind: "ok", text };
    });
  } else {
    const readKeys = keys && new Float64Array(toRead.length * KEY_FIELDS).fill(Number.NaN);
    const paths = toRead.map((order) => `${base}${names[order]}`);
    reads = toRead.length === 0 ? [] : readFiles(paths, cap, undefined, undefined, readKeys);
    toRead.forEach((order, k) => {
      keys?.set(readKeys!.subarray(k * KEY_FIELDS, (k + 1) * KEY_FIELDS), order * KEY_FIELDS);
    });
  }
  return reads.map((read, k) => {
    if (read.kind === "ok") return read;
    const file = names[toRead[k]!]!;
    return {
      kind: "problem",
      problem:
        read.kind === "too-large"
          ? graphProblem({ kind: "file-too-large", file, bytes: read.bytes, cap })
          : problem(
              "unreadable-file",
              file,
              undefined,
              `could not read the file: ${read.message}`,
              "make it a readable file, or rename it to start with _ so it is not a ticket",
            ),
    };
  });
}

/** An executor named like this is a GitHub workflow file (dispatched as it is there). */
const WORKFLOW_FILE = /\.ya?ml$/;

/**
 * Each executor a ticket names must be defined under `executors:` in frontier.yml, for
 * `frontier run` (on GitHub a workflow file name is dispatched as that workflow).
 */
function checkExecutors(base: string, specs: readonly TicketSpec[], settings: Settings): Problem[] {
  const problems: Problem[] = [];
  const defined = Object.keys(settings.executors ?? {});
  for (const spec of specs) {
    const name = spec.executor;
    if (name === undefined || Object.hasOwn(settings.executors ?? {}, name)) continue;
    const workflow = WORKFLOW_FILE.test(name);
    const near = workflow ? undefined : closest(name, defined);
    const found = problem(
      "unknown-executor",
      spec.file,
      fieldLine(`${base}${spec.file}`, "executor"),
      workflow
        ? `executor ${quoted(name)} is a GitHub workflow file, which a local run cannot start (it is not defined in frontier.yml)`
        : `executor ${quoted(name)} is not defined in frontier.yml${near === undefined ? "" : ` (did you mean ${quoted(near)}?)`}`,
      workflow
        ? `to run this directory locally too, define it under executors: in frontier.yml (e.g. executors: {${name}: "CMD"}); on GitHub it is dispatched as it is (frontier validate --for github checks only that)`
        : near === undefined
          ? `define it under executors: in frontier.yml (e.g. executors: {${name}: "CMD"}), or remove executor: from the ticket`
          : `write executor: ${near}, or define ${quoted(name)} under executors: in frontier.yml`,
    );
    // a workflow file is dispatched as it is on GitHub; only a local run needs a command
    problems.push(workflow ? { ...found, runner: "local" } : found);
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
      isolated: local && runsIsolated(s, settings),
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

/** The line of a top-level field in a file's front matter, or (`frontMatter` false) in frontier.yml: read again, only for a problem. */
export function fieldLine(path: string, name: string, frontMatter = true): number | undefined {
  const lines = tryReadText(path)?.split("\n") ?? [];
  const field = new RegExp(`^${name}\\s*:`);
  const end = frontMatter ? /^---\r?$/ : /(?!)/;
  for (let i = frontMatter ? 1 : 0; i < lines.length && !end.test(lines[i]!); i++) {
    if (field.test(lines[i]!)) return i + 1;
  }
  return undefined;
}
