/**
 * The run's state on GitHub: one blob, `DIR/.frontier/state.json` at the head of the
 * run's branch — the engine's SavedState plus the action's own bookkeeping (where the
 * report comment lives, which question issues are open). One read per event, however
 * large the graph, instead of one per ticket file.
 */
import { z } from "zod";
import { SavedState, WorklogEntry } from "../core/model.js";

export const GITHUB_STATE_SCHEMA = "ticket-frontier/github-state@1";

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

/** The question issue opened for one suspended attempt. */
export const QuestionRecord = z.object({
  issue_number: z.number().int().positive(),
  attempt: z.number().int().positive(),
  /** set once the issue has been answered or closed */
  closed: z.boolean().optional(),
});
export type QuestionRecord = z.infer<typeof QuestionRecord>;

export const GitHubState = SavedState.extend({
  schema: z.literal(GITHUB_STATE_SCHEMA),
  /** the branch the run lives on */
  branch: z.string(),
  /** the ticket directory, relative to the repository root */
  dir: z.string(),
  /** commits recorded so far: orders report updates that race each other */
  seq: z.number().int().nonnegative(),
  report: ReportRecord.optional(),
  /** ticket id → its question issue */
  questions: z.record(z.string(), QuestionRecord),
  /**
   * Every worklog line so far. worklog.jsonl is written from this on every commit, so an
   * event reads one file, not two: one request fewer per event and per lost race.
   */
  worklog: z.array(WorklogEntry).optional(),
  /**
   * The ticket directory as authored at the run's base (every ticket without the engine's
   * fields, and frontier.yml), one sha256 digest, recorded when the run starts. An event
   * whose checkout has another digest reads the tickets at base instead. Absent in state
   * written before it was recorded.
   */
  authored_digest: z.string().optional(),
});
export type GitHubState = z.infer<typeof GitHubState>;

export type ParsedState = { kind: "ok"; state: GitHubState } | { kind: "bad"; message: string };

/** Parse state.json text; `path` is named in the message a person reads. */
export function parseState(text: string, path: string): ParsedState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      kind: "bad",
      message: `${path}: not valid JSON (${(error as Error).message}). It is written by Ticket Frontier; restore it from git history, or delete it to start the run afresh.`,
    };
  }
  const parsed = GitHubState.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "(top)";
    return {
      kind: "bad",
      message: `${path}: ${where}: ${issue?.message ?? "invalid"}. It is written by Ticket Frontier; restore it from git history, or delete it to start the run afresh.`,
    };
  }
  return { kind: "ok", state: parsed.data };
}

export function serializeState(state: GitHubState): string {
  return `${JSON.stringify(state, null, 1)}\n`;
}

export function statePath(dir: string): string {
  return joinRepoPath(dir, ".frontier/state.json");
}

/** The worklog file's text: one JSON object per line, as the local runner writes it. */
export function worklogText(entries: readonly WorklogEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("");
}

export function worklogPath(dir: string): string {
  return joinRepoPath(dir, ".frontier/worklog.jsonl");
}

/** Join repository paths with `/`, whatever the platform; `.` and `` mean the root. */
export function joinRepoPath(dir: string, file: string): string {
  const clean = dir
    .replace(/\\/g, "/")
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "");
  if (clean === "" || clean === ".") return file.replace(/^\/+/, "");
  return `${clean}/${file.replace(/^\/+/, "")}`;
}
