/**
 * The words of SPEC.md as types. zod is the source of every type that crosses a
 * boundary (files on disk, the receipt, the GitHub state snapshot); `z.infer` gives
 * the TypeScript types, and the receipt's JSON Schema is generated from here.
 */
import { z } from "zod";

import {
  BLOCK_KINDS,
  DEFAULTS,
  ENDPOINT_URL,
  ENV_NAME,
  ISOLATIONS,
  type Isolation,
  MODEL_NAME,
  RECEIPT_SCHEMA,
  SATISFIED,
  STATUSES,
  TICKET_ID,
} from "./constants.js";

export { DEFAULTS, RECEIPT_SCHEMA, SATISFIED, STATUSES, TICKET_ID };

export const Status = z.enum(STATUSES);
export type Status = z.infer<typeof Status>;

export const BlockKind = z.enum(BLOCK_KINDS);
export type BlockKind = z.infer<typeof BlockKind>;

export const BlockedBy = z.object({
  /** the direct dependency that can no longer complete */
  ticket: z.string(),
  kind: BlockKind,
  /** the ticket whose failure, limit or cancellation started the chain */
  root: z.string(),
});
export type BlockedBy = z.infer<typeof BlockedBy>;

/** What an executor may report for an attempt. */
export const Outcome = z.enum(["complete", "empty", "failed", "suspended", "limited"]);
export type Outcome = z.infer<typeof Outcome>;

/**
 * How an attempt ended. Beyond the executor's outcomes: `cancelled` (the run was
 * cancelled while it ran) and `interrupted` (Ctrl-C locally: re-readied without
 * counting against `retries`).
 */
export const AttemptOutcome = z.enum([...Outcome.options, "cancelled", "interrupted"]);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;

export const Usage = z.record(z.string(), z.number());
export type Usage = z.infer<typeof Usage>;

/** One path an attempt changed (SPEC §4b), as its record keeps it. */
export const ChangedPathRecord = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted", "renamed"]),
  /** a rename's old path */
  from: z.string().optional(),
  /** git mode now: 100644, 100755 (executable), 120000 (symlink); absent for a deletion */
  mode: z.string().optional(),
  /** the blob id now; absent for a deletion */
  blob: z.string().optional(),
  /** lines added and removed; absent for a binary file */
  added: z.number().int().nonnegative().optional(),
  removed: z.number().int().nonnegative().optional(),
});
export type ChangedPathRecord = z.infer<typeof ChangedPathRecord>;

/** What became of an attempt's changes to the repository. */
export const AttemptChanges = z.object({
  /** the commit the attempt started from */
  start: z.string(),
  /**
   * `integrated`: one commit of the ticket on the integration branch; `breach`,
   * `conflict`: its attempt failed and nothing was integrated; `kept`: the attempt did
   * not complete, so its changes were kept as evidence and not integrated
   */
  verdict: z.enum(["integrated", "breach", "conflict", "kept"]),
  paths: z.array(ChangedPathRecord),
  /** the commit that integrated them, once known */
  commit: z.string().optional(),
  /** the changes as a patch among the results (relative to the ticket directory), when not integrated */
  patch_file: z.string().optional(),
});
export type AttemptChanges = z.infer<typeof AttemptChanges>;

/**
 * One attempt. Immutable once it has an outcome: written once to
 * `DIR/.frontier/<ticket>/attempt-<n>.json`, never overwritten. The live attempt
 * (no outcome yet) is mirrored in the ticket's front matter instead.
 */
export const AttemptRecord = z.object({
  n: z.number().int().positive(),
  /** the claim token: unique per dispatch, put in the GitHub run's run-name */
  claim: z.string(),
  claimed_by: z.string(),
  started_at: z.string(),
  ended_at: z.string().optional(),
  outcome: AttemptOutcome.optional(),
  /** why: `timeout`, `lease-expired`, the end of stderr, GitHub's refusal, … */
  reason: z.string().optional(),
  /** the question a suspended attempt asked */
  question: z.string().optional(),
  /** result file relative to the ticket directory, when the result was not blank */
  result_file: z.string().optional(),
  result_bytes: z.number().int().nonnegative().optional(),
  usage: Usage.optional(),
  /** who settled it (a user, a job, the sweep) */
  settled_by: z.string().optional(),
  /** link to the GitHub Actions run that ran it, when known */
  run_url: z.string().optional(),
  /** what it changed in the repository, when its changes were collected (SPEC §4b) */
  changes: AttemptChanges.optional(),
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;

/**
 * An answer to a suspended attempt's question, or a reviewer's feedback on a retry: a
 * new immutable input of the ticket's next attempt.
 */
export const AnswerRecord = z.object({
  /** 1-based sequence of answers (and feedback) for this ticket */
  n: z.number().int().positive(),
  /** the attempt whose question it answers, or that the feedback is about */
  attempt: z.number().int().positive(),
  /** `feedback`: a reviewer's note given with a retry (absent: an answer) */
  kind: z.enum(["answer", "feedback"]).optional(),
  /** the question answered; "" for feedback */
  question: z.string(),
  text: z.string(),
  by: z.string(),
  at: z.string(),
  /** answer file relative to the ticket directory */
  file: z.string().optional(),
});
export type AnswerRecord = z.infer<typeof AnswerRecord>;

/** A parsed `bound`: a duration is the timeout and the lease; other text is passed on. */
export interface Bound {
  raw: string;
  /** set when `raw` is a duration such as `45s`, `30m`, `2h` */
  timeoutMs?: number;
  /** how long a claim holds before it is reclaimed: the duration, else the run default (60m) */
  leaseMs: number;
}

/** A ticket as authored, checked and normalised. Never changed by the engine. */
export interface TicketSpec {
  id: string;
  title: string;
  /** path relative to the ticket directory, e.g. `plan.md` */
  file: string;
  dependsOn: string[];
  /** which of dependsOn pass their results downstream, in the author's order */
  inputs: string[];
  executor?: string;
  agent?: string;
  /** the model the built-in agent (`frontier agent`) uses for this ticket */
  model?: string;
  writeScope: string[];
  bound?: Bound;
  retries?: number;
  priority: number;
  /** `isolation:` as the ticket says it (`required` read as `worktree`); undefined: the run's */
  isolation?: Isolation;
  /** the markdown body: the task */
  body: string;
  /** position in file order (sorted file names), 0-based: the last tie-breaker */
  order: number;
}

/** The engine-written part of a ticket: its front matter fields plus its history. */
export const TicketState = z.object({
  status: Status,
  /** number of the live or last attempt; 0 before the first */
  attempt: z.number().int().nonnegative(),
  claimed_by: z.string().optional(),
  claimed_at: z.string().optional(),
  claim: z.string().optional(),
  blocked_by: BlockedBy.optional(),
  reason: z.string().optional(),
  updated_at: z.string().optional(),
  attempts: z.array(AttemptRecord),
  answers: z.array(AnswerRecord),
});
export type TicketState = z.infer<typeof TicketState>;

export const RunState = z.enum([
  "not started",
  "running",
  "cancelled",
  "limited",
  "suspended",
  "failed",
  "complete",
]);
export type RunState = z.infer<typeof RunState>;

/** The run bound: spent by dispatches, by the clock, and by the usage attempts report. */
export const RunBound = z.object({
  dispatches: z.number().int().nonnegative().optional(),
  /** ISO time after which nothing more is dispatched */
  deadline: z.string().optional(),
  /** totals of the attempts' `usage` (keys as the outcomes name them) the run may reach */
  usage: z.record(z.string(), z.number().nonnegative()).optional(),
});
export type RunBound = z.infer<typeof RunBound>;

/** Run-level state, kept in `DIR/.frontier/run.json` (and in the GitHub snapshot). */
export const RunRecord = z.object({
  schema: z.literal("ticket-frontier/run@1"),
  run: z.string(),
  /** the immutable commit a GitHub run is pinned to */
  base: z.string().optional(),
  started_at: z.string().optional(),
  /** dispatches made so far: what the run bound is spent by */
  dispatched: z.number().int().nonnegative(),
  bound: RunBound.optional(),
  cancelled: z.object({ by: z.string(), at: z.string() }).optional(),
});
export type RunRecord = z.infer<typeof RunRecord>;

/** Everything the engine needs to resume: run record plus every ticket's state. */
export const SavedState = z.object({
  run: RunRecord,
  tickets: z.record(z.string(), TicketState),
});
export type SavedState = z.infer<typeof SavedState>;

/** One line of the append-only `DIR/.frontier/worklog.jsonl`. */
export const WorklogEntry = z.object({
  at: z.string(),
  event: z.enum([
    "start",
    "claim",
    "settle",
    "stale",
    "block",
    "unblock",
    "promote",
    "expire",
    "answer",
    "retry",
    "cancel",
    "interrupt",
  ]),
  ticket: z.string().optional(),
  attempt: z.number().int().optional(),
  outcome: z.string().optional(),
  by: z.string().optional(),
  detail: z.string().optional(),
});
export type WorklogEntry = z.infer<typeof WorklogEntry>;

/** Run settings from `frontier.yml`, overridable by action inputs and CLI flags. */
export const Settings = z.object({
  schema: z.string().optional(),
  run: z.string(),
  goal: z.string().optional(),
  max_parallel: z.number().int().positive().optional(),
  /** run bound: a dispatch count, or {dispatches, duration, usage} */
  bound: z
    .union([
      z.number().int().nonnegative(),
      RunBound.omit({ deadline: true }).extend({ duration: z.string().optional() }),
    ])
    .optional(),
  /** default bound of each ticket, e.g. `30m` */
  ticket_bound: z.string().optional(),
  retries: z.number().int().nonnegative().optional(),
  /** the default executor: a shell command (local) or a workflow file (GitHub) */
  executor: z.string().optional(),
  /** named executors: name -> shell command (local) or workflow file (GitHub) */
  executors: z.record(z.string(), z.string()).optional(),
  max_tickets: z.number().int().positive().optional(),
  max_file_bytes: z.number().int().positive().optional(),
  max_result_bytes: z.number().int().positive().optional(),
  /** the default `isolation` of a ticket: `worktree` (or `required`), `none` */
  isolation: z.enum(ISOLATIONS).optional(),
  /** the built-in agent's model, endpoint and the variable holding its key */
  model: z.string().regex(MODEL_NAME).optional(),
  model_endpoint: z.string().regex(ENDPOINT_URL).optional(),
  model_key_env: z.string().regex(ENV_NAME).optional(),
});
export type Settings = z.infer<typeof Settings>;

/* ------------------------------------------------------------------------- */
/* The receipt: `ticket-frontier/receipt@1` (SPEC §7). Fields may be added;   */
/* none may change meaning without a new schema version.                     */
/* ------------------------------------------------------------------------- */

export const ReceiptAttempt = AttemptRecord.extend({
  /** ended_at - started_at, when ended */
  duration_ms: z.number().nonnegative().optional(),
  /** the result text, when the producer had it at hand (local reports) */
  result: z.string().optional(),
});
export type ReceiptAttempt = z.infer<typeof ReceiptAttempt>;

export const ReceiptTicket = z.object({
  id: z.string(),
  title: z.string(),
  file: z.string(),
  status: Status,
  depends_on: z.array(z.string()),
  inputs: z.array(z.string()),
  executor: z.string().optional(),
  agent: z.string().optional(),
  write_scope: z.array(z.string()),
  priority: z.number(),
  bound: z.string().optional(),
  /**
   * `worktree`: locally it ran in a git worktree of its own, and its changes were checked
   * and integrated (its own `isolation`, else the run's); absent when neither sets one
   */
  isolation: z.enum(["worktree", "none"]).optional(),
  /** the ticket's markdown body: the task as its author wrote it */
  task: z.string().optional(),
  ...TicketState.omit({ status: true, claim: true, attempts: true, answers: true }).shape,
  /** the open question, while suspended */
  question: z.string().optional(),
  attempts: z.array(ReceiptAttempt),
  answers: z.array(AnswerRecord),
});
export type ReceiptTicket = z.infer<typeof ReceiptTicket>;

export const RemainderEntry = z.object({
  id: z.string(),
  status: Status,
  /** what holds it, in words: "a failed", "question: …", "run bound spent", … */
  waiting_on: z.string(),
});
export type RemainderEntry = z.infer<typeof RemainderEntry>;

/** Blocked tickets grouped by the root cause that started their chain. */
export const BlockerGroup = z.object({
  root: z.string(),
  root_status: Status,
  reason: z.string().optional(),
  tickets: z.array(z.string()),
});
export type BlockerGroup = z.infer<typeof BlockerGroup>;

/** Where the run ran: its reports speak of `frontier` commands or of GitHub. */
export const RunPlace = z.enum(["local", "github"]);
export type RunPlace = z.infer<typeof RunPlace>;

/** The branch a run's changes land on (SPEC §4b), one commit per integrated attempt. */
export const ReceiptBranch = z.object({
  /** locally `frontier/<run>`, on GitHub the run's branch */
  name: z.string(),
  /** the commit it was made from (locally) */
  base: z.string().optional(),
  /** its commits in the order they landed, named by the attempts that integrated them */
  commits: z.array(z.object({ commit: z.string(), ticket: z.string(), attempt: z.number().int() })),
  /** how to merge it: locally the git command, on GitHub the page of its pull request */
  merge: z.string().optional(),
});
export type ReceiptBranch = z.infer<typeof ReceiptBranch>;

export const Receipt = z.object({
  schema: z.literal(RECEIPT_SCHEMA),
  run: z.string(),
  goal: z.string().optional(),
  state: RunState,
  /** where the run ran (absent in older receipts: read as `github`) */
  where: RunPlace.optional(),
  base: z.string().optional(),
  started_at: z.string().optional(),
  generated_at: z.string(),
  counts: z.partialRecord(Status, z.number().int().nonnegative()),
  bound: RunBound.extend({ dispatched: z.number().int().nonnegative() }).optional(),
  cancelled: z.object({ by: z.string(), at: z.string() }).optional(),
  usage: Usage.optional(),
  waves: z.array(z.array(z.string())),
  critical_path: z.array(z.string()),
  tickets: z.array(ReceiptTicket),
  blockers: z.array(BlockerGroup),
  questions: z.array(
    z.object({ ticket: z.string(), attempt: z.number().int(), question: z.string() }),
  ),
  remainder: z.array(RemainderEntry),
  /** the branch its changes land on, when it has one */
  branch: ReceiptBranch.optional(),
  /** where the full record lives, when known: HTML report, workflow run, repository */
  links: z
    .object({
      html_report: z.string().optional(),
      workflow_run: z.string().optional(),
      repository: z.string().optional(),
    })
    .optional(),
});
export type Receipt = z.infer<typeof Receipt>;
