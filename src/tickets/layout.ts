/**
 * The layout of DIR/.frontier/, fixed for the team: the local store and the GitHub
 * commit write the same paths, the loader reads them back.
 *
 * - run.json                 the RunRecord (replaced atomically)
 * - attempts/<id>@<n>.json   an ended AttemptRecord, written once
 * - results/<id>@<n>.md      the attempt's result text, written once
 * - answers/<id>@<n>.json    an AnswerRecord, written once
 * - worklog.jsonl            one WorklogEntry per line, append-only
 * - state.json               (GitHub only) a SavedState snapshot
 * - cache/tickets            each ticket file's parse, by its stat keys (tickets/cache.ts):
 *                            local to this machine, safe to delete, never committed
 * - receipt.json, report.html, report.md   the reports of the last local run
 * - lock                     (local only) the live `frontier run`
 * - last-exec.json           (local only) the `--exec` a later `frontier retry` goes on with
 * - results/<id>@<n>.patch   the changes of an attempt that were not integrated (evidence), written once
 * - branch.json              (local only) the run's integration branch `frontier/<run>` and its base
 * - integrating/<id>@<n>.json  (local only) an isolated attempt that ended and whose changes are
 *                            not yet integrated: its outcome and worktree, removed once recorded
 */
/** Paths relative to the ticket directory. */
export const STATE_DIR = ".frontier";
export const RUN_FILE = ".frontier/run.json";
export const WORKLOG_FILE = ".frontier/worklog.jsonl";
export const RECEIPT_FILE = ".frontier/receipt.json";
export const REPORT_HTML_FILE = ".frontier/report.html";
export const REPORT_MD_FILE = ".frontier/report.md";
export const LOCK_FILE = ".frontier/lock";
export const LAST_EXEC_FILE = ".frontier/last-exec.json";
export const attemptFile = (ticket: string, n: number) => `.frontier/attempts/${ticket}@${n}.json`;
export const answerFile = (ticket: string, n: number) => `.frontier/answers/${ticket}@${n}.json`;
export const resultFile = (ticket: string, n: number) => `.frontier/results/${ticket}@${n}.md`;
export const patchFile = (ticket: string, n: number) => `.frontier/results/${ticket}@${n}.patch`;
export const BRANCH_FILE = ".frontier/branch.json";
export const INTEGRATING_DIR = ".frontier/integrating";
export const integratingFile = (ticket: string, n: number) =>
  `${INTEGRATING_DIR}/${ticket}@${n}.json`;
/** An ended attempt whose worktree is the only copy of its changes: it stays, named here. */
export const keptFile = (ticket: string, n: number) => `${INTEGRATING_DIR}/${ticket}@${n}.kept`;
/** The changes of an attempt that ended but was never integrated, kept when its run is archived. */
export const unintegratedPatchFile = (ticket: string, n: number) =>
  `${INTEGRATING_DIR}/${ticket}@${n}.patch`;
export const CACHE_DIR = ".frontier/cache";
export const CACHE_FILE = ".frontier/cache/tickets";

/** Where a reset moves a run's records: `.frontier/runs/<run>-<n>/` (both runners). */
export const RUNS_DIR = ".frontier/runs";

/**
 * What of `.frontier/` an archive does not take (both runners): the archive itself and the
 * lock, the ticket cache (removed: the ticket files are rewritten, and it is safe to delete),
 * and the --exec the last run was given (the user's, not the run's: the next run's hints
 * still name it). A branch's records hold only the first two.
 */
export function staysOutOfArchive(name: string): boolean {
  return /^(?:runs|cache|last-exec\.json|lock(?:\.takeover)?|lock\..*\.tmp)$/.test(name);
}

/** A run's name as an archive folder's name: no path separators, no leading dot. */
export function archiveRunName(run: string): string {
  return run.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_") || "run";
}

/** `<run>-<n>`, n one more than the highest among the archive's folder names `taken`. */
export function nextArchiveName(run: string, taken: Iterable<string>): string {
  const prefix = `${archiveRunName(run)}-`;
  const ns = [...taken].map((name) =>
    name.startsWith(prefix) ? Number(name.slice(prefix.length)) : 0,
  );
  return `${prefix}${Math.max(0, ...ns.filter(Number.isSafeInteger)) + 1}`;
}
