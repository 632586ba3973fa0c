/**
 * The run's state on GitHub: `DIR/.frontier/state.json` at the head of the run's branch —
 * the engine's SavedState plus the action's own bookkeeping (where the report comment
 * lives and when it was last shown, which question issues are open, the dispatch outbox,
 * the ids of the events that landed). One blob read per event, however large the graph.
 *
 * The tickets' engine state is sharded: `state.json` holds the bookkeeping and the run
 * record, `state/NNN.json` the tickets whose id hashes to shard NNN, one a line. An event
 * rewrites only the shards of the tickets it changed, so the bytes it sends stay flat as
 * the run's history grows; one query reads them all (the directory's entries).
 *
 * What grows with history lives elsewhere and is never rewritten whole: the worklog in
 * `worklog.jsonl` (the newest lines) and sealed chunks under `worklog/`, the authored
 * tickets of the run in `base.json` (written once when the run starts).
 */
import { z } from "zod";
import { readJson } from "../core/json.js";
import { RunRecord, SavedState, TicketState } from "../core/model.js";
import { STATE_DIR, WORKLOG_FILE } from "../tickets/layout.js";
import type { BranchRead } from "./branch.js";
import { UserError } from "./errors.js";
import {
  History,
  headOf,
  historyOf,
  INDEXED_SHARDS,
  IndexEntry,
  ticketOf,
} from "./status-index.js";

export const GITHUB_STATE_SCHEMA = "ticket-frontier/github-state@3";
/** Sharded (or inline) state before the status index: read, never written. */
const GITHUB_STATE_SCHEMA_V2 = "ticket-frontier/github-state@2";
/** State written before the worklog moved out of it; read, never written. */
const GITHUB_STATE_SCHEMA_V1 = "ticket-frontier/github-state@1";

/** Where the sticky report comment lives, and whose it is (the token's own login). */
export const ReportRecord = z.object({
  /** the PR or tracking issue the comment is on */
  issue_number: z.number().int().positive(),
  /** `pr` when it is the run branch's pull request, `issue` for a tracking issue */
  on: z.enum(["pr", "issue"]),
  comment_id: z.number().int().positive(),
  /** the login that created the comment: only its comments with the marker count */
  login: z.string(),
});
export type ReportRecord = z.infer<typeof ReportRecord>;

/** When the report comment was last brought up to date, and with which headline. */
export const ReportShown = z.object({
  at: z.string(),
  seq: z.number().int().nonnegative(),
  headline: z.string(),
});

/** The question issue of one suspended attempt; `issue_number` once it has been opened. */
export const QuestionRecord = z.object({
  issue_number: z.number().int().positive().optional(),
  attempt: z.number().int().positive(),
  /** set once the issue has been answered or closed */
  closed: z.boolean().optional(),
});
export type QuestionRecord = z.infer<typeof QuestionRecord>;

/**
 * A claim in the dispatch outbox: committed before it is dispatched, and kept until its
 * attempt ends. `pending`: the event that committed it dispatches it right after the
 * commit, but nothing on record says it did; `sent`: a workflow run carrying its token
 * was seen; `unsent`: GitHub said no run was made (a rate limit) — the next event sends
 * it without looking; `resent`: nothing carried its token long after it was committed,
 * so it was sent again, and the run that starts first takes it (`taken_by`).
 */
export const OutboxEntry = z.object({
  claim: z.string(),
  attempt: z.number().int().positive(),
  workflow: z.string(),
  /** when the claim was committed */
  at: z.string(),
  /** the event that committed it */
  event: z.string().optional(),
  status: z.enum(["pending", "sent", "unsent", "resent"]),
  sends: z.number().int().nonnegative(),
  run_id: z.number().int().positive().optional(),
  /** the workflow run that took the claim at its context step */
  taken_by: z.number().int().positive().optional(),
});
export type OutboxEntry = z.infer<typeof OutboxEntry>;

/**
 * An integrated attempt whose commit is not named in its record yet (a commit cannot
 * hold its own id): a later event that commits finds it by its trailers and names it.
 */
const Unnamed = z.object({
  ticket: z.string(),
  attempt: z.number().int().positive(),
  claim: z.string(),
  /** the state's seq when it was integrated */
  seq: z.number().int().nonnegative(),
  /** its commit, found while its record was not read: written into it when it is */
  commit: z.string().optional(),
});
export type Unnamed = z.infer<typeof Unnamed>;

const Bookkeeping = z.object({
  /** the branch the run lives on: a copy of this file on another branch is not that branch's run */
  branch: z.string(),
  /** the ticket directory, relative to the repository root */
  dir: z.string(),
  /** commits recorded so far: orders report updates that race each other */
  seq: z.number().int().nonnegative(),
  report: ReportRecord.optional(),
  report_shown: ReportShown.optional(),
  /** ticket id → its question issue */
  questions: z.record(z.string(), QuestionRecord),
  /**
   * The ticket directory as authored at the run's base (every ticket without the engine's
   * fields, and frontier.yml), one sha256 digest, recorded when the run starts. An event
   * whose checkout has another digest reads the run's tickets from base.json instead.
   */
  authored_digest: z.string().optional(),
  /** ticket id → its live claim's dispatch (see OutboxEntry) */
  outbox: z.record(z.string(), OutboxEntry).optional(),
  /** when the runs listing was last searched for overdue claims */
  outbox_checked_at: z.string().optional(),
  /** the newest events that landed (their ids): a commit whose answer was lost is found here */
  events: z.array(z.string()).optional(),
  /** base.json (the run's tickets as authored at its base) has been written */
  base_snapshot: z.boolean().optional(),
  /** sealed worklog chunks under .frontier/worklog/ */
  worklog_chunks: z.number().int().nonnegative().optional(),
  /**
   * Ticket files the author changed or deleted on the branch since the run's base: state
   * is never written back into them (it lives on in the shards)
   */
  authored_changed: z.array(z.string()).optional(),
  /** Ticket files an integrated change rewrote: the engine's fields go into their text on the branch */
  rewritten: z.array(z.string()).optional(),
  /** the tickets live in this many shards under .frontier/state/ (absent: inline) */
  shards: z.number().int().positive().optional(),
  /** integrated attempts whose commit is not named in their record yet */
  unnamed: z.array(Unnamed).optional(),
  /** the user's CI workflow dispatched on the run's branch when the run ended (once) */
  ci: z
    .object({
      workflow: z.string(),
      /** when the run ended and the dispatch was recorded */
      at: z.string(),
      /** the run's end it was dispatched for */
      state: z.string(),
      /** what GitHub answered, once known */
      run_id: z.number().int().positive().optional(),
      refused: z.string().optional(),
    })
    .optional(),
});

export const GitHubState = SavedState.extend({
  schema: z.literal(GITHUB_STATE_SCHEMA),
  ...Bookkeeping.shape,
});
export type GitHubState = z.infer<typeof GitHubState>;

/** A whole state in one file, of any version (v1 carried the worklog, dropped on read). */
const WholeState = SavedState.extend({
  schema: z.enum([GITHUB_STATE_SCHEMA_V1, GITHUB_STATE_SCHEMA_V2, GITHUB_STATE_SCHEMA]),
  ...Bookkeeping.shape,
  worklog: z.array(z.unknown()).optional(),
});

/** state.json of a sharded state before the index: everything but the tickets. */
const ShardedHead = z.object({
  schema: z.literal(GITHUB_STATE_SCHEMA_V2),
  run: RunRecord,
  ...Bookkeeping.shape,
  shards: z.number().int().positive(),
});

/** state.json of an indexed state: everything but the tickets' histories (status-index.ts). */
const IndexedHead = ShardedHead.extend({
  schema: z.literal(GITHUB_STATE_SCHEMA),
  index: z.record(z.string(), IndexEntry),
});

const bad = (path: string, what: string) =>
  new UserError(
    `${path}: ${what}. It is written by Ticket Frontier; restore it from git history, or delete it to start the run afresh.`,
  );

/** A parse, or what is wrong and where. */
type Checked<T> = { ok: true; data: T } | { ok: false; what: string };

/** `json` as `schema` holds it, or its first issue (in `file`, when not state.json itself). */
function check<T>(schema: z.ZodType<T>, json: unknown, file?: string): Checked<T> {
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issue = parsed.error.issues[0];
  const where = `${file ? `${file}: ` : ""}${issue?.path.join(".") || "(top)"}`;
  return { ok: false, what: `${where}: ${issue?.message ?? "invalid"}` };
}

/** One shard file: ticket id → what `schema` holds of it. */
function readShard<T>(
  schema: z.ZodType<T>,
  name: string,
  text: string,
): Checked<Record<string, T>> {
  const entries = readJson(text);
  if (!entries.ok) return { ok: false, what: `state/${name} is not valid JSON (${entries.error})` };
  return check(z.record(z.string(), schema), entries.value, `state/${name}`);
}

/** An indexed state: every ticket's head from the index, with the histories of the shards read. */
function fromIndex(
  json: unknown,
  shards: ReadonlyMap<string, string>,
  asked: ReadonlySet<string> | undefined,
): Checked<z.infer<typeof WholeState>> {
  const head = check(IndexedHead, json);
  if (!head.ok) return head;
  const histories = new Map<string, z.infer<typeof History>>();
  for (const [name, text] of shards) {
    if (asked && !asked.has(name)) continue;
    const shard = readShard(History, name, text);
    if (!shard.ok) return shard;
    for (const [id, h] of Object.entries(shard.data)) histories.set(id, h);
  }
  const { index, ...rest } = head.data;
  const tickets: Record<string, TicketState> = {};
  for (const [id, entry] of Object.entries(index)) tickets[id] = ticketOf(entry, histories.get(id));
  return { ok: true, data: { ...rest, tickets } };
}

/** A sharded state from before the index: every shard holds its tickets whole. */
function fromShards(
  json: unknown,
  shards: ReadonlyMap<string, string>,
): Checked<z.infer<typeof WholeState>> {
  const head = check(ShardedHead, json);
  if (!head.ok) return head;
  const tickets: Record<string, TicketState> = {};
  for (let n = 0; n < head.data.shards; n++) {
    const text = shards.get(shardName(n));
    if (text === undefined)
      return { ok: false, what: `its shard state/${shardName(n)} is missing` };
    const shard = readShard(TicketState, shardName(n), text);
    if (!shard.ok) return shard;
    Object.assign(tickets, shard.data);
  }
  return { ok: true, data: { ...head.data, tickets } };
}

const shardName = (n: number) => `${String(n).padStart(3, "0")}.json`;

/** The shard a ticket's history lives in: FNV-1a of its id, so it never moves within a run. */
function shardOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % INDEXED_SHARDS;
}

/**
 * The files of a state (status-index.ts): state.json (bookkeeping, the run record and
 * every ticket's head in its index, one ticket a line) and the shards holding a history
 * (shard file name → text, one ticket a line), so a diff shows which tickets an event
 * touched. A shard no ticket has a history in is not a file.
 */
export function serializeState(state: GitHubState): { head: string; shards: Map<string, string> } {
  const { tickets, ...rest } = state;
  const lines: string[][] = Array.from({ length: INDEXED_SHARDS }, () => []);
  const index: string[] = [];
  for (const [id, t] of Object.entries(tickets)) {
    const key = JSON.stringify(id);
    index.push(`${key}:${JSON.stringify(headOf(t))}`);
    const history = historyOf(t);
    if (history !== undefined) lines[shardOf(id)]!.push(`${key}:${history}`);
  }
  const shards = new Map<string, string>();
  for (const [n, l] of lines.entries()) {
    if (l.length > 0) shards.set(shardName(n), `{\n${l.join(",\n")}\n}\n`);
  }
  const head = JSON.stringify({ ...rest, schema: GITHUB_STATE_SCHEMA, shards: INDEXED_SHARDS });
  return { head: `${head.slice(0, -1)},"index":{\n${index.join(",\n")}\n}}\n`, shards };
}

/** The run's records directory (.frontier/) on the branch. */
export const frontierDirPath = (dir: string) => joinRepoPath(dir, STATE_DIR);
const frontierPath = (dir: string, file: string) => joinRepoPath(dir, `${STATE_DIR}/${file}`);
export const statePath = (dir: string) => frontierPath(dir, "state.json");
/** The directory of the state's shards. */
export const shardDirPath = (dir: string) => frontierPath(dir, "state");
export const worklogPath = (dir: string) => joinRepoPath(dir, WORKLOG_FILE);
export const worklogChunkPath = (dir: string, n: number) =>
  frontierPath(dir, `worklog/${String(n).padStart(6, "0")}.jsonl`);
/** The run's tickets as authored at its base, written once when it starts. */
export const snapshotPath = (dir: string) => frontierPath(dir, "base.json");
/** Present while the run is live: what the scheduled sweep looks for on every branch. */
export const livePath = (dir: string) => frontierPath(dir, "live.json");

/** Join repository paths with `/`, whatever the platform; `.` and `` mean the root. */
export function joinRepoPath(dir: string, file: string): string {
  const clean = dir
    .replace(/\\/g, "/")
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
  if (clean === "" || clean === ".") return file.replace(/^\/+/, "");
  return `${clean}/${file.replace(/^\/+/, "")}`;
}

/** The state a read found (state.json and its shards), or undefined when the branch has none. */
export function stateOfRead(dir: string, read: BranchRead): GitHubState | undefined {
  const found = partOfRead(dir, read, undefined);
  if (found === "need-all") throw new Error(`${statePath(dir)} was read without its shards`);
  return found;
}

/** The shard file a ticket's history lives in. */
export const shardFileOf = (ticket: string) => shardName(shardOf(ticket));

/** The shard files a read holds (name → text): the whole directory, or the ones read by path. */
export function shardTexts(read: BranchRead, dir: string): Map<string, string> {
  const shardDir = shardDirPath(dir);
  const out = new Map(read.dirs.get(shardDir));
  for (const [path, text] of read.files) {
    if (path.startsWith(`${shardDir}/`)) out.set(path.slice(shardDir.length + 1), text);
  }
  return out;
}

/**
 * The state a read found, read in part: state.json, and the shard files `asked` (names; one
 * the read lacks is empty; undefined: the whole shard directory, read as `dirs`). `need-all`: a state from before
 * the index, which is read whole.
 */
export function partOfRead(
  dir: string,
  read: BranchRead,
  asked: ReadonlySet<string> | undefined,
): GitHubState | "need-all" | undefined {
  const path = statePath(dir);
  const text = read.files.get(path);
  if (text === undefined) return undefined;
  const shards = shardTexts(read, dir);
  const raw = readJson(text);
  if (!raw.ok) throw bad(path, `not valid JSON (${raw.error})`);
  const json = raw.value as { schema?: unknown; index?: unknown; shards?: unknown } | null;
  const indexed = json?.schema === GITHUB_STATE_SCHEMA && json.index !== undefined;
  const sharded = json?.schema !== GITHUB_STATE_SCHEMA && typeof json?.shards === "number";
  if (asked && sharded) return "need-all";
  const parsed = indexed
    ? fromIndex(json, shards, asked)
    : sharded
      ? fromShards(json, shards)
      : check(WholeState, json);
  if (!parsed.ok) throw bad(path, parsed.what);
  const { worklog: _old, ...state } = { ...parsed.data, schema: GITHUB_STATE_SCHEMA } as const;
  return state;
}
