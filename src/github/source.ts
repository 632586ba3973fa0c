/**
 * Where the tickets of a run come from. A run is pinned to its `base`: its tickets are
 * the ticket directory there. When the run starts, the authored files are snapshotted
 * into `.frontier/base.json` (once), with one digest of them recorded in the state.
 *
 * An event whose checkout has that digest (a push that changed no ticket) uses the
 * checkout and reads nothing more. Any other event (a comment on a run on another branch,
 * the sweep) uses the snapshot, read in the same query as the state: no request per
 * ticket file, however large the graph. A job's steps (context, settle) always use the
 * snapshot: their checkout is where an agent runs, and nothing that decides is read there
 * (record.ts may take base.json from it, once its id is the branch's).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { readJson } from "../core/json.js";
import type { Settings, TicketSpec } from "../core/model.js";
import { noun, plural } from "../report/states.js";
import { ENGINE_FIELDS } from "../tickets/field-table.js";
import { idFromFile } from "../tickets/fields.js";
import { STATE_DIR } from "../tickets/layout.js";
import { listTickets, loadDirectory, ticketFileNames } from "../tickets/load.js";
import { formatProblem, isError, type Problem } from "../tickets/problems.js";
import { SETTINGS_FILE } from "../tickets/setting-keys.js";
import { CLEARED_FIELDS, editFrontMatter } from "../tickets/writeback.js";
import type { BranchRead } from "./branch.js";
import { UserError } from "./errors.js";
import { addedLater, freshHint } from "./fresh-words.js";
import { type GitHubState, snapshotPath } from "./state.js";

const SNAPSHOT_SCHEMA = "ticket-frontier/base@1";

export interface Loaded {
  settings: Settings;
  specs: readonly TicketSpec[];
  /** what the author should look at but that starts nothing wrong (a misspelled field) */
  warnings: readonly Problem[];
}

export interface RunSource extends Loaded {
  /** a ticket file's text as at the run's base (path relative to the ticket directory) */
  read(file: string): string;
  /** the authored files, when this source is the checkout (for a run that starts now) */
  files?: ReadonlyMap<string, string>;
  /** their authored digest, recorded when the run starts */
  digest?: string;
}

/** The ticket directory's files on disk: ticket files and frontier.yml; undefined when absent. */
async function directoryFiles(dir: string): Promise<Map<string, string> | undefined> {
  const names = listTickets(dir);
  // unreadable, or no frontier.yml: left out (loadDirectory says what is unreadable)
  return Array.isArray(names) ? readTexts(dir, [...names, SETTINGS_FILE]) : undefined;
}

/** The texts of the files `names` in `dir`, by name: those that can be read. */
export async function readTexts(dir: string, names: readonly string[]) {
  const files = new Map<string, string>();
  for (const name of names) {
    const text = await readFile(join(dir, name), "utf8").catch(() => undefined);
    if (text !== undefined) files.set(name, text);
  }
  return files;
}

const MAY_HOLD_ENGINE_FIELD = new RegExp(`\\b(?:${ENGINE_FIELDS.join("|")})\\s*:`);

/** A ticket's text without the engine-written fields (as authored); unparseable text as it is. */
function authoredText(text: string): string {
  // the YAML parse only for text that may hold an engine field: most authored files do not
  if (!MAY_HOLD_ENGINE_FIELD.test(text)) return text;
  try {
    // every engine field removed: what is left is the author's part
    return editFrontMatter(text, CLEARED_FIELDS);
  } catch {
    return text;
  }
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * One digest of a ticket directory as authored: every ticket file without the engine's
 * fields, and frontier.yml. The same at the run's base and on its branch however many
 * commits of state the run made; different when a ticket or the settings changed.
 */
function authoredDigest(files: ReadonlyMap<string, string>): string {
  const hash = createHash("sha256");
  for (const name of [...files.keys()].sort()) {
    const text = files.get(name) as string;
    hash.update(`${name}\0${sha256(name === SETTINGS_FILE ? text : authoredText(text))}\n`);
  }
  return `sha256:${hash.digest("hex")}`;
}

/** The tickets in directory `path` (shown as `dir`); a graph that does not hold together starts nothing. */
export async function loadTickets(
  path: string,
  dir: string,
  where = "",
  files?: ReadonlyMap<string, string>,
): Promise<Loaded> {
  // with bodies, so no ticket cache: each event's checkout is fresh anyway
  const loaded = await loadDirectory(path, files ? { files } : {});
  if (loaded.kind === "invalid") {
    const errors = loaded.problems.filter(isError).length;
    throw new UserError(
      `${plural(errors, "problem")} in ${dir}${where}: nothing was started. Fix ${noun(errors, "it", "them")} and push again.`,
      loaded.problems.map((p) => formatProblem(p, dir)),
      "invalid-graph",
    );
  }
  return { settings: loaded.settings, specs: loaded.specs, warnings: loaded.warnings };
}

/** The checkout's tickets, with their files and digest, once per process. */
export class Checkout {
  private loaded?: Promise<Loaded>;
  private files?: Promise<Map<string, string> | undefined>;
  private digestOf?: Promise<string | undefined>;
  constructor(
    readonly workspace: string,
    readonly dir: string,
  ) {}
  get path(): string {
    return join(this.workspace, this.dir);
  }
  tickets(): Promise<Loaded> {
    this.loaded ??= loadTickets(this.path, this.dir);
    return this.loaded;
  }
  /** How many ticket files the directory lists (nothing read): a guess of the run's size. */
  async ticketCount(): Promise<number> {
    return ticketFileNames(await readdir(this.path).catch(() => [] as string[])).length;
  }
  authoredFiles(): Promise<Map<string, string> | undefined> {
    this.files ??= directoryFiles(this.path);
    return this.files;
  }
  digest(): Promise<string | undefined> {
    this.digestOf ??= this.authoredFiles().then((f) => (f ? authoredDigest(f) : undefined));
    return this.digestOf;
  }
  async source(): Promise<RunSource> {
    const loaded = await this.tickets();
    const files = await this.authoredFiles();
    return {
      ...loaded,
      read: (file) => readFileSync(join(this.path, file), "utf8"),
      ...(files ? { files, digest: await this.digest() } : {}),
    };
  }
}

/** base.json: the authored files of the run's ticket directory at its base. */
export function snapshotText(base: string, files: ReadonlyMap<string, string>): string {
  const sorted = Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${JSON.stringify({ schema: SNAPSHOT_SCHEMA, base, files: sorted })}\n`;
}

/** base.json as it is read: the authored files (name → text) of the run at its base. */
const Snapshot = z.object({
  schema: z.literal(SNAPSHOT_SCHEMA),
  base: z.string().catch(""),
  files: z.record(z.string(), z.string()),
});

/** The run's tickets from its snapshot, parsed exactly as the checkout's would be. */
async function sourceFromSnapshot(
  text: string,
  dir: string,
  workspace: string,
): Promise<RunSource> {
  const json = readJson(text);
  const parsed = json.ok ? Snapshot.safeParse(json.value) : undefined;
  if (!parsed?.success) {
    throw new UserError(
      `${dir}/${STATE_DIR}/base.json: ${json.ok ? `not a ${SNAPSHOT_SCHEMA} file` : json.error}. It is written by Ticket Frontier when a run starts; restore it from git history, or delete ${dir}/${STATE_DIR}/state.json to start a new run.`,
    );
  }
  const { base, files } = parsed.data;
  // the same directory name as the checkout's, so a run named after it keeps its name
  const path = join(tmpdir(), basename(resolve(workspace, dir)) || "frontier");
  const map = new Map(
    Object.entries(files).filter(([name]) => !/[/\\]/.test(name) && !name.startsWith(".")),
  );
  const loaded = await loadTickets(path, dir, ` at the run's base ${base.slice(0, 12)}`, map);
  return {
    ...loaded,
    read: (file) => {
      const content = map.get(file);
      if (content === undefined) throw new Error(`${file}: not in the run's base.json`);
      return content;
    },
  };
}

/** Ticket ids of the checkout that the run (started at `base`) does not have. */
function addedSince(
  run: readonly TicketSpec[],
  checkout: ReadonlyMap<string, string> | undefined,
): string[] {
  const ids = new Set(run.map((s) => s.id));
  const files = new Set(run.map((s) => s.file));
  return [...(checkout?.keys() ?? [])]
    .filter((n) => n !== SETTINGS_FILE && !files.has(n))
    .map(idFromFile)
    .filter((id) => !ids.has(id));
}

/** The snapshot parsed last: a lost race's next try decides from the same base.json. */
let parsedSnapshot: { key: string; source: Promise<RunSource> } | undefined;

/** sourceFromSnapshot, parsed once for the same text (a job's step parses it before its read). */
export function snapshotSource(text: string, dir: string, workspace: string): Promise<RunSource> {
  const key = `${dir}\0${workspace}\0${text}`;
  if (parsedSnapshot?.key !== key) {
    parsedSnapshot = { key, source: sourceFromSnapshot(text, dir, workspace) };
  }
  return parsedSnapshot.source;
}

/**
 * The run's tickets for this event: the checkout's when it is the run's base (its
 * authored digest is the one recorded), else base.json, read in the same query as the
 * state (`need-snapshot`: read again with it).
 */
export async function runSource(
  ctx: {
    checkout: Checkout;
    /** the ticket directory, relative to the repository root */
    dir: string;
    /** the commit this job runs at */
    sha: string;
    branch: string;
    log: (line: string) => void;
    jobCheckout?: boolean;
  },
  state: GitHubState | undefined,
  read: BranchRead,
  askedSnapshot: boolean,
): Promise<RunSource | "need-snapshot"> {
  if (!state) return ctx.checkout.source();
  // a job's checkout is never taken for the run's: an agent ran there (or at `ref`, before it)
  const recorded = state.authored_digest;
  if (
    !ctx.jobCheckout &&
    (recorded !== undefined
      ? (await ctx.checkout.digest()) === recorded
      : ctx.sha === state.run.base)
  ) {
    return ctx.checkout.source();
  }
  const snapshot = read.files.get(snapshotPath(ctx.dir));
  if (snapshot === undefined) {
    if (!askedSnapshot) return "need-snapshot";
    throw new UserError(
      `the checkout's ${ctx.dir} is not the run's (started at ${state.run.base?.slice(0, 12) ?? "an unknown commit"} on ${ctx.branch}), and the run has no ${snapshotPath(ctx.dir)} to read its tickets from (it was started by an older version): run this on the run's branch, or ${freshHint(ctx.branch)} to start a new run`,
    );
  }
  const source = await snapshotSource(snapshot, ctx.dir, ctx.checkout.workspace);
  if (ctx.jobCheckout) return source;
  const added = addedSince(source.specs, await ctx.checkout.authoredFiles());
  if (added.length > 0 && ctx.sha !== state.run.base) {
    ctx.log(addedLater(added, state.run.base, ctx.branch));
  }
  return source;
}

/**
 * The run's ticket files that the author changed or deleted since the run's base, as
 * the checkout (the branch's head) shows them: writing state back never touches them
 * again — the ticket's state lives on in the run's records (state.json and its shards).
 */
export function authoredChanges(
  run: RunSource,
  checkout: ReadonlyMap<string, string> | undefined,
): string[] {
  if (!checkout) return [];
  return run.specs
    .map((s) => s.file)
    .filter((file) => {
      const now = checkout.get(file);
      return now === undefined || authoredText(now) !== authoredText(run.read(file));
    });
}
