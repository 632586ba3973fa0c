/**
 * How an attempt's end becomes the settle the engine gets — the one interpreter of
 * outcomes, for the local runner and the action's settle step alike (SPEC §6):
 *
 *   observe    the shell reports what it saw: the outcome file, and either how the
 *              process ended (locally) or what the settle step was told (GitHub)
 *   interpret  interpretOutcome: one outcome, with its result, question, reason, usage
 *   judge      planSettle: the changes the attempt made (when they were collected) are
 *              integrated, or fail it as a breach or a conflict (core/changes.ts)
 *
 * Both runners call these two functions and nothing else decides what an outcome means,
 * so the rules cannot drift apart: a `complete` with a blank result is `empty`; a
 * `suspended` without a question is a failure; a blank outcome file is a failure (its
 * reader says so); a result over the cap is a failure, never a truncation; a timeout is
 * `reason: timeout`.
 */
import { type ChangedPath, type ChangeVerdict, judgeChanges } from "./changes.js";
import { REASON } from "./constants.js";
import type { AttemptChanges, Outcome, Usage } from "./model.js";
import type { OutcomeFile } from "./outcome.js";
import type { CompiledScope } from "./scope.js";

/** What the outcome file held, as read (tickets/outcome-file.ts reads it, safely). */
export type OutcomeFileRead =
  /** no file: the executor wrote none */
  | { kind: "none" }
  | { kind: "ok"; value: OutcomeFile }
  /** it could not be taken as an outcome (blank, not JSON, not of the shape, not a regular file, too large): why */
  | { kind: "bad"; reason: string };

/** Text an attempt produced; over the cap it is not kept, only its size. */
export type Captured = { kind: "text"; text: string } | { kind: "over"; bytes: number };

/** How a local attempt's process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: string | null;
  stdout: Captured;
  /** the end of stderr */
  stderr: string;
}

/** What the settle step of a GitHub job was told (its inputs), when no outcome file decided. */
export interface JobReport extends Partial<Pick<Interpreted, "outcome" | "question" | "reason">> {
  /** the `result-file` input's text */
  result?: Captured | { kind: "unreadable"; path: string };
  /** the job's (or the agent step's) status: success, failure, cancelled, skipped */
  status?: string;
}

/** Everything a runner saw of an attempt's end. */
export interface Observation {
  file: OutcomeFileRead;
  /** the attempt ran past its bound and was stopped */
  timedOut?: boolean;
  /** it could not be started at all: why */
  notStarted?: string;
  /** locally: how its process ended */
  process?: ProcessEnd;
  /** on GitHub: what the settle step was told */
  job?: JobReport;
  maxResultBytes: number;
}

/**
 * The outcome an attempt ends with, before its changes are judged: the outcome file's
 * fields, its result non-blank and within the cap.
 */
export interface Interpreted extends Omit<OutcomeFile, "status"> {
  outcome: Outcome;
}

/**
 * Why an attempt failed when it gave no reason of its own, or what its changes did
 * wrong, as data: the runner words it
 * (tickets/outcome-file.ts `outcomeReason`, for both runners: the words are saved as the
 * attempt's reason).
 */
export type OutcomeProblem =
  /** a result over max_result_bytes: in the outcome file, on stdout, in the result-file input */
  | { kind: "over-cap"; from: "file" | "stdout" | "input" | Said; bytes: number; cap: number }
  /** `suspended` without a question, said by the outcome file, the settle step's input, exit code 75 */
  | { kind: "no-question"; from: "file" | "input" | "exit" }
  | { kind: "unreadable-result"; path: string }
  /** the settle step got no outcome: the job's status, when it was given one */
  | { kind: "no-outcome"; status: string | undefined }
  /** `failed` or `limited` reported without a reason */
  | { kind: "reported"; outcome: "failed" | "limited" }
  /** changes that fail their attempt (planSettle) */
  | Extract<ChangeVerdict, { kind: "breach" | "conflict" }>;

type Word = (problem: OutcomeProblem) => string;

/** What the executor says besides its result, capped as the result is. */
type Said = "question" | "reason";

/** The exit code that means "I have a question" (EX_TEMPFAIL). */
export const EXIT_SUSPEND = 75;

const STDERR_TAIL_BYTES = 2048;
const STDERR_TAIL_LINES = 10;

/** The end of stderr as a reason: its last lines, at most 2 KB; undefined when blank. */
export function stderrReason(text: string): string | undefined {
  const lines = text.replace(/\s+$/, "").split(/\r?\n/);
  const tail = lines.slice(-STDERR_TAIL_LINES).join("\n").trim();
  if (tail === "") return undefined;
  const bytes = Buffer.from(tail, "utf8");
  if (bytes.length <= STDERR_TAIL_BYTES) return tail;
  return `…${bytes.subarray(bytes.length - STDERR_TAIL_BYTES).toString("utf8")}`;
}

const isBlank = (text: string | undefined): boolean => text === undefined || text.trim() === "";

const failed = (reason: string, usage?: Usage): Interpreted =>
  usage === undefined ? { outcome: "failed", reason } : { outcome: "failed", reason, usage };

/** One outcome from what a runner saw, its problems worded by `word`. Pure; the same rules for both runners. */
export function interpretOutcome(seen: Observation, word: Word): Interpreted {
  const { file, process: proc, job, maxResultBytes: cap } = seen;
  if (seen.notStarted !== undefined) return failed(seen.notStarted);
  // a timeout is a failure whatever the executor managed to write before it was stopped
  if (seen.timedOut) return failed(REASON.timeout);
  if (file.kind === "bad") return failed(file.reason);
  if (file.kind === "ok") {
    // the file decides; stdout stands in for a result or question it does not give
    const { status, result, ...rest } = file.value;
    const own = result !== undefined;
    const captured: Captured | undefined = own ? { kind: "text", text: result } : proc?.stdout;
    const from = own ? "file" : "stdout";
    return reported(
      { ...rest, outcome: status, result: captured, stderr: proc?.stderr, from },
      cap,
      word,
    );
  }
  if (proc !== undefined) return exited(proc, cap, word);
  if (job?.outcome === undefined) return failed(word({ kind: "no-outcome", status: job?.status }));
  if (job.result?.kind === "unreadable") {
    return failed(word({ kind: "unreadable-result", path: job.result.path }));
  }
  const { outcome, result, question, reason } = job;
  return reported({ outcome, result, question, reason, from: "input" }, cap, word);
}

/** A process that wrote no outcome file: exit 0 is done, 75 a question, anything else a failure. */
function exited(proc: ProcessEnd, cap: number, word: Word): Interpreted {
  const out = proc.stdout;
  if (proc.code === 0) {
    if (out.kind === "over")
      return failed(word({ kind: "over-cap", from: "stdout", bytes: out.bytes, cap }));
    return isBlank(out.text) ? { outcome: "empty" } : { outcome: "complete", result: out.text };
  }
  if (proc.code === EXIT_SUSPEND) {
    const question = out.kind === "text" && !isBlank(out.text) ? out.text.trim() : undefined;
    if (question === undefined) return failed(word({ kind: "no-question", from: "exit" }));
    return { outcome: "suspended", question };
  }
  return failed(
    stderrReason(proc.stderr) ??
      (proc.signal ? `killed by ${proc.signal}` : `exit code ${proc.code ?? "unknown"}`),
  );
}

/** An outcome the executor reported (outcome file, or the settle step's inputs). */
function reported(
  r: Omit<Interpreted, "result"> & {
    result?: Captured | undefined;
    stderr?: string | undefined;
    /** where the result is: the outcome file, stdout (the file gave none), the inputs */
    from: "file" | "stdout" | "input";
  },
  cap: number,
  word: Word,
): Interpreted {
  const res: Interpreted = { outcome: r.outcome };
  if (r.usage !== undefined) res.usage = r.usage;
  if (r.reason !== undefined) res.reason = r.reason;
  const text = r.result?.kind === "text" ? r.result.text : undefined;
  const bytes = r.result?.kind === "over" ? r.result.bytes : Buffer.byteLength(text ?? "");
  // a result the outcome carries over the cap fails it, whatever the status; stdout
  // beyond the cap only matters when it would be the result
  if (bytes > cap && (r.from !== "stdout" || INTEGRATES.has(r.outcome))) {
    return failed(word({ kind: "over-cap", from: r.from, bytes, cap }), r.usage);
  }
  // what the executor says goes into the run's records too, which every later event reads
  const said: Said[] = r.outcome === "suspended" ? ["question", "reason"] : ["reason"];
  for (const from of said) {
    const n = Buffer.byteLength(r[from] ?? "");
    if (n > cap) return failed(word({ kind: "over-cap", from, bytes: n, cap }), r.usage);
  }
  switch (r.outcome) {
    case "complete":
      // nothing is passed off as done: a complete without a result is empty
      if (isBlank(text)) res.outcome = "empty";
      else res.result = text;
      break;
    case "suspended": {
      const question = !isBlank(r.question) ? r.question : isBlank(text) ? undefined : text?.trim();
      if (question === undefined) {
        const from = r.from === "input" ? "input" : "file";
        return failed(word({ kind: "no-question", from }), r.usage);
      }
      res.question = question;
      break;
    }
    case "failed":
      res.reason ??= stderrReason(r.stderr ?? "") ?? word({ kind: "reported", outcome: "failed" });
      break;
    case "limited":
      res.reason ??= word({ kind: "reported", outcome: "limited" });
      break;
  }
  return res;
}

/* ------------------------------------------------------------------------- */
/* changes                                                                   */
/* ------------------------------------------------------------------------- */

/** An attempt's changes as the runner collected them, and what moved on the branch. */
export interface CollectedChanges {
  /** the commit the attempt started from */
  start: string;
  paths: readonly ChangedPath[];
  /** path → the commit that changed it on the integration branch since `start` */
  moved: ReadonlyMap<string, string>;
  /** ticket files whose engine-written fields the attempt changed: a breach */
  engineEdits?: readonly string[];
  /**
   * Why these changes cannot be integrated whatever their scope (a runner's limits), or
   * could not be collected at all (then `paths` is empty): an attempt that would have
   * integrated them fails with this reason, for nothing of its work may pass as done.
   */
  refused?: string;
}

/**
 * What a runner does with an attempt's end: the settle (the engine's, less who and which
 * attempt), and what becomes of its changes.
 */
export interface SettlePlan extends Interpreted {
  /**
   * `integrate`: write the changes as the ticket's commit, with its outcome; `evidence`:
   * keep them (a patch among the results), integrate nothing; `none`: nothing changed,
   * or nothing was collected
   */
  changes: "integrate" | "evidence" | "none";
  /** for the attempt record (the commit and patch file are the runner's to add) */
  record?: AttemptChanges;
}

/** Outcomes whose changes are the ticket's work: the only ones integrated. */
const INTEGRATES: ReadonlySet<Outcome> = new Set<Outcome>(["complete", "empty"]);

/** A line for a result that is only changes: what they were. */
export function changesSummary(paths: readonly ChangedPath[]): string {
  const shown = paths.slice(0, 20).map((c) => {
    const lines =
      c.added !== undefined || c.removed !== undefined
        ? ` (+${c.added ?? 0} −${c.removed ?? 0})`
        : "";
    const what = c.status === "renamed" ? `renamed ${c.from} → ${c.path}` : `${c.status} ${c.path}`;
    return `- ${what}${lines}`;
  });
  if (paths.length > 20) shown.push(`- … and ${paths.length - 20} more`);
  return [`Changed ${paths.length} path${paths.length === 1 ? "" : "s"}:`, "", ...shown].join("\n");
}

/**
 * The settle of an attempt that ended with `interpreted`, given its collected changes
 * (undefined: the runner did not collect any — a local ticket that does not run
 * isolated). Changes are the ticket's work only when it completed: then they are
 * integrated, unless they breach its scope or meet a conflict, which fail it. A ticket
 * that failed, asked or ran out keeps what it changed as evidence; nothing of it lands.
 * A completed ticket whose changes were integrated did something even without a word
 * of result: it is `complete`, its result the list of what it changed.
 */
export function planSettle(
  interpreted: Interpreted,
  collected: CollectedChanges | undefined,
  scope: CompiledScope,
  word: Word,
): SettlePlan {
  const plan: SettlePlan = { ...interpreted, changes: "none" };
  if (collected === undefined) return plan;
  const refuse = (reason: string, record?: AttemptChanges): SettlePlan => ({
    outcome: "failed",
    reason,
    changes: record ? "evidence" : "none",
    ...(record && { record }),
    ...(interpreted.usage !== undefined && { usage: interpreted.usage }),
  });
  if (collected.paths.length === 0) {
    return collected.refused !== undefined && INTEGRATES.has(interpreted.outcome)
      ? refuse(collected.refused)
      : plan;
  }
  const record: AttemptChanges = {
    start: collected.start,
    verdict: "kept",
    // what the record keeps of each path: not the old side, nor the runner's byte count
    paths: collected.paths.map(({ oldMode: _, oldBlob: __, bytes: ___, ...path }) => path),
  };
  plan.record = record;
  if (!INTEGRATES.has(interpreted.outcome)) {
    plan.changes = "evidence";
    return plan;
  }
  const verdict = judgeChanges(collected.paths, scope, collected.moved, collected.engineEdits);
  switch (verdict.kind) {
    case "none":
      return plan;
    case "integrate":
      // the runner cannot take them as one commit: the attempt fails, nothing lands
      if (collected.refused !== undefined) return refuse(collected.refused, record);
      record.verdict = "integrated";
      plan.changes = "integrate";
      if (plan.outcome === "empty") {
        plan.outcome = "complete";
        plan.result = changesSummary(collected.paths);
      }
      return plan;
    case "breach":
    case "conflict":
      record.verdict = verdict.kind;
      return refuse(word(verdict), record);
  }
}
