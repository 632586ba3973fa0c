/**
 * The plain values of SPEC.md's words — ids, statuses, block kinds, defaults — with
 * no zod: what a command that only reads tickets needs, without loading the schema
 * library. src/core/model.ts builds its schemas from these and re-exports them.
 */

export const TICKET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const STATUSES = [
  "pending",
  "ready",
  "claimed",
  "suspended",
  "complete",
  "empty",
  "failed",
  "blocked",
  "limited",
  "cancelled",
] as const;
export type Status = (typeof STATUSES)[number];

/** Statuses that satisfy dependents. `empty` satisfies but is never reported as done. */
export const SATISFIED: ReadonlySet<Status> = new Set(["complete", "empty"]);

/**
 * A model's name as an OpenAI-compatible API takes it (`openai/gpt-4.1-mini`, `gpt-4o`):
 * no whitespace, at most 200 characters. Checked in `model:` of a ticket and of frontier.yml.
 */
export const MODEL_NAME = /^\S{1,200}$/;
/** The base URL of an OpenAI-compatible API: http(s), a host, a path; no query or fragment. */
export const ENDPOINT_URL = /^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/;
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const BLOCK_KINDS = ["dep-failed", "dep-limited", "dep-cancelled", "dep-blocked"] as const;

/**
 * How a ticket's workspace is kept apart (`isolation:`): `worktree` — locally, in a git
 * worktree of its own whose changes are checked and integrated; `required` is
 * orchflows' spelling of the same; `none` — in the directory the run was started in,
 * where nothing checks or integrates what it changes.
 */
export const ISOLATIONS = ["worktree", "required", "none"] as const;
export type IsolationName = (typeof ISOLATIONS)[number];
/** What an `isolation:` means, once orchflows' spelling is read as ours. */
export type Isolation = "worktree" | "none";

/** `required` is `worktree`; undefined when the value is not an isolation at all. */
export function isolationOf(value: string | undefined): Isolation | undefined {
  if (value === "worktree" || value === "required") return "worktree";
  if (value === "none") return "none";
  return undefined;
}

/**
 * Whether a ticket runs isolated (SPEC §4b): its own `isolation`, else the run's
 * (frontier.yml), else `none`. The one place that decides it, for validate, the runner
 * and the receipt.
 */
export function ticketIsolation(own: Isolation | undefined, runDefault: IsolationName | undefined) {
  return own ?? isolationOf(runDefault) ?? "none";
}

/** Whether ticket `s` runs isolated in a run with settings `run` (ticketIsolation). */
export const runsIsolated = (s: { isolation?: Isolation }, run: { isolation?: IsolationName }) =>
  ticketIsolation(s.isolation, run.isolation) === "worktree";

/** The receipt's schema name (SPEC §7). */
export const RECEIPT_SCHEMA = "ticket-frontier/receipt@1";

export const DEFAULTS = {
  leaseMs: 60 * 60 * 1000,
  maxTickets: 20_000,
  maxFileBytes: 256 * 1024,
  maxResultBytes: 1024 * 1024,
  /**
   * The most input results one context carries (8 MiB): inputs past it are named with
   * the file to read them from, so a wide fan-in of large results stays a context an
   * executor can be given (and the runner can build).
   */
  maxContextResultBytes: 8 * 1024 * 1024,
  /** The most result text one receipt (and the HTML report) carries (8 MiB); the rest by file. */
  maxReceiptResultBytes: 8 * 1024 * 1024,
} as const;

/**
 * The reasons a claim ends without an outcome of its own: it ran out its bound (`timeout`),
 * was stopped (`interrupted`), was reclaimed when its lease ran out (`lease-expired`) or
 * when its holder was gone. Saved in attempt records: the words are a contract.
 */
export const REASON = {
  timeout: "timeout",
  interrupted: "interrupted",
  leaseExpired: "lease-expired",
  holderGone: "claim holder gone",
} as const;
