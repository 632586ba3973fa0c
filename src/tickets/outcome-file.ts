/**
 * Reading `$FRONTIER_OUTCOME_FILE` (SPEC §6): the one reader of the outcome JSON an
 * executor writes, for the local runner and the action's settle step alike. What the
 * outcome means is decided in core/settle.ts; this only reads it, safely:
 *
 * - only a regular file is read: a symbolic link (to /dev/zero, to a file elsewhere), a
 *   FIFO, a device or a directory is refused without being opened for reading, and
 *   nothing of what it points at is quoted;
 * - the file is opened without blocking (a FIFO swapped in after the check cannot stall
 *   the runner) and read asynchronously, at most the cap and one byte more: an executor
 *   cannot make the runner read without end.
 */
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { type ChangeVerdict, named, RECORDED_PATHS } from "../core/changes.js";
import type { SettleInput } from "../core/engine.js";
import { errnoCode } from "../core/errors.js";
import { readJson } from "../core/json.js";
import type { TicketSpec } from "../core/model.js";
import { compileScope } from "../core/scope.js";
import {
  type Captured,
  type CollectedChanges,
  EXIT_SUSPEND,
  type Interpreted,
  type OutcomeFileRead,
  type OutcomeProblem,
  planSettle,
  type SettlePlan,
} from "../core/settle.js";
import { formatInt } from "../core/text.js";
import { ENGINE_FIELDS } from "./field-table.js";
import { resultFile } from "./layout.js";
import { kindOf } from "./read-optional.js";

/**
 * A blank file fails its attempt. Never made by the runner: the executor opened it and left
 * it unwritten (an agent that died while its output was redirected there).
 */
const BLANK =
  'the outcome file ($FRONTIER_OUTCOME_FILE) is empty: write its JSON, e.g. {"status": "complete", "result": "…"}, or leave it unwritten and let the exit code decide';

/**
 * Read and check the outcome file at `path`; `name` is how messages call it
 * (`$FRONTIER_OUTCOME_FILE`, or the path the settle step was given).
 */
export async function readOutcomeFile(
  path: string,
  maxResultBytes: number,
  name = "$FRONTIER_OUTCOME_FILE",
): Promise<OutcomeFileRead> {
  const bad = (reason: string): OutcomeFileRead => ({ kind: "bad", reason });
  const refuse = (what: string) =>
    bad(
      `the outcome file (${name}) is ${what}, so it was not read: write the outcome JSON into a plain file at that path, e.g. {"status": "complete", "result": "…"}`,
    );
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return refuse("a symbolic link");
    if (!st.isFile()) return refuse(kindOf(st));
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "none" };
    return refuse(`unreadable (${code ?? "error"})`);
  }
  // the most it may hold: a result of up to the cap, JSON escaping, the envelope
  const read = await readCapped(path, maxResultBytes * 6 + 64 * 1024);
  if (read.kind === "unreadable")
    return read.code === "ENOENT" ? { kind: "none" } : refuse(read.what);
  if (read.kind === "over")
    return bad(overResultCap(`the outcome file (${name})`, read.bytes, maxResultBytes));
  if (read.text.trim() === "") return bad(BLANK);
  const json = readJson(read.text);
  if (!json.ok)
    return bad(
      `the outcome file (${name}) is not valid JSON (${json.error}): write e.g. {"status": "complete", "result": "…"}`,
    );
  // the schema (zod) is loaded on the first outcome file, not by every run
  const { OutcomeFile } = await import("../core/outcome.js");
  const parsed = OutcomeFile.safeParse(json.value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map(
        (issue) => `${issue.path.length ? issue.path.join(".") : "(top level)"}: ${issue.message}`,
      )
      .join("; ");
    return bad(
      `the outcome file (${name}) is not a valid outcome — ${issues}. It needs "status": one of complete, empty, failed, suspended, limited`,
    );
  }
  return { kind: "ok", value: parsed.data };
}

/**
 * The regular file at `path`, opened without blocking nor following a symbolic link (an agent
 * may have written either), read to at most `cap` and one byte more, however large it says
 * it is or grows; else what it is instead.
 */
export async function readCapped(
  path: string,
  cap: number,
): Promise<Captured | { kind: "unreadable"; path: string; what: string; code?: string }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = errnoCode(error);
    const what = code === "ELOOP" ? "a symbolic link" : `unreadable (${code ?? "error"})`;
    return { kind: "unreadable", path, what, code };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { kind: "unreadable", path, what: kindOf(st) };
    const chunks: Buffer[] = [];
    let got = 0;
    let chunk = Math.min(cap + 1, Math.max(st.size, 0) + 1, 1 << 20);
    while (got <= cap) {
      const buffer = Buffer.alloc(Math.min(chunk, cap + 1 - got));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, got);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      got += bytesRead;
      chunk = 1 << 20;
    }
    if (got > cap) return { kind: "over", bytes: Math.max(st.size, got) };
    return { kind: "text", text: Buffer.concat(chunks, got).toString("utf8") };
  } finally {
    await handle.close();
  }
}

/** The reason for a result over `max_result_bytes`: `what` is `the result on stdout`, … */
function overResultCap(what: string, bytes: number, cap: number): string {
  return `${what} is ${bytes} bytes, over max_result_bytes (${cap}): write large output to a file and return its path, or raise max_result_bytes in frontier.yml`;
}

const RESULT_FROM = {
  file: "the result in the outcome file",
  stdout: "the result on stdout",
  input: "the result file",
  question: "the question in the outcome file",
  reason: "the reason in the outcome file",
} as const;

const NO_QUESTION = {
  file: 'the outcome file says "suspended" but gives no "question"',
  input: "outcome: suspended was given without a question",
} as const;

/** What the settle step says of a job that reported no outcome, by its status. */
const NO_OUTCOME: Record<string, string> = {
  success:
    'the job succeeded but reported no outcome: write {"status": …} to $FRONTIER_OUTCOME_FILE, or pass outcome to the settle step',
  cancelled: "the job was cancelled before it reported an outcome",
  failure: "the job failed before it reported an outcome (see its log)",
  skipped:
    "the agent step was skipped (did the context step fail?) and nothing reported an outcome",
};

/**
 * An outcome's problem (core/settle.ts) in words, for both runners: the attempt's saved
 * reason, so these words are never changed.
 */
export function outcomeReason(p: OutcomeProblem): string {
  switch (p.kind) {
    case "over-cap":
      return overResultCap(RESULT_FROM[p.from], p.bytes, p.cap);
    case "no-question":
      return p.from === "exit"
        ? `exit code ${EXIT_SUSPEND} (suspend) without a question: print the question on stdout`
        : `${NO_QUESTION[p.from]}: add the question the ticket is waiting on`;
    case "unreadable-result":
      return `input result-file: ${p.path} could not be read — write the result there before the settle step, or leave result-file out`;
    case "no-outcome": {
      const status = p.status;
      if (status !== undefined && Object.hasOwn(NO_OUTCOME, status)) return NO_OUTCOME[status]!;
      return status
        ? `the settle step got no outcome-file, no outcome and a job-status it does not know ("${status}"): pass job-status: \${{ job.status }}`
        : `the settle step got no outcome-file, no outcome and no job-status: pass job-status: \${{ job.status }}`;
    }
    case "reported":
      return p.outcome === "failed" ? "the executor reported failed" : "the ticket's bound ran out";
    case "breach":
    case "conflict":
      return verdictReason(p);
  }
}

/** The reason a breach or a conflict fails its attempt with. */
function verdictReason(verdict: Extract<ChangeVerdict, { kind: "breach" | "conflict" }>): string {
  if (verdict.kind === "breach") {
    const n = verdict.paths.length;
    const what: string[] = [];
    if (n > 0) {
      what.push(
        verdict.scoped
          ? `changed ${n} path${n === 1 ? "" : "s"} outside its write_scope: ${named(verdict.paths)} — widen write_scope, or keep the ticket to it`
          : `the ticket has no write_scope but changed ${n} path${n === 1 ? "" : "s"}: ${named(verdict.paths)} — give it a write_scope that covers them`,
      );
    }
    if (verdict.engine.length > 0) {
      what.push(
        `changed the fields only the runner writes (${ENGINE_FIELDS.join(", ")}) in ${named(verdict.engine)} — leave them as they are`,
      );
    }
    return `scope-breach: ${what.join("; ")}; nothing was integrated, the change is kept as evidence`;
  }
  const byCommit = verdict.conflicts.map((c) => `${c.path} (changed by ${c.commit.slice(0, 12)})`);
  return `conflict: ${named(byCommit)} changed on the branch after the attempt started; nothing was overwritten — a retry starts from the new head`;
}

/** Where changes kept as evidence go: their patch, and the file it is kept as within the result cap. */
export interface Evidence {
  patch?: Uint8Array;
  /** the run's max_result_bytes */
  cap?: number;
  /** the results file the patch is kept as (tickets/layout.ts `patchFile`) */
  file: string;
}

/**
 * The settle of an attempt's end with its changes, as both runners make it on each try of
 * their compare-and-swap: core/settle.ts `planSettle` with its problems worded here, and
 * changes kept as evidence keep their patch (`keep`, to be written as `record.patch_file`)
 * when it fits the result cap — above it the record's paths and blob ids are the
 * evidence. The reason says which.
 */
export function settleChanges(
  interpreted: Interpreted,
  collected: CollectedChanges | undefined,
  spec: Pick<TicketSpec, "writeScope"> | undefined,
  evidence: Evidence,
): SettlePlan & { keep?: Uint8Array } {
  const plan = planSettle(
    interpreted,
    collected,
    compileScope(spec?.writeScope ?? []),
    outcomeReason,
  );
  if (plan.changes !== "evidence" || plan.record === undefined) return plan;
  const { patch, cap = Number.POSITIVE_INFINITY, file } = evidence;
  const keep = patch !== undefined && patch.byteLength > 0 && patch.byteLength <= cap;
  // the record goes with the run's state, read and written by every later event: an
  // npm install's tens of thousands of paths would make each of them megabytes
  const all = plan.record.paths.length;
  plan.record.paths.splice(RECORDED_PATHS);
  // a runner's word on what no patch holds (workspace/changes.ts `unstored`) stays last
  plan.reason &&=
    plan.reason.replace(/kept as evidence(, but for what no patch holds: .*)?$/s, (_, but = "") =>
      keep
        ? `kept as evidence in ${file}${but}`
        : `kept as evidence: its paths and blob ids in the attempt record (the patch is over max_result_bytes)${but}`,
    ) +
    (all > RECORDED_PATHS
      ? `; the attempt record lists the first ${formatInt(RECORDED_PATHS)} of its ${formatInt(all)} paths`
      : "");
  if (!keep) return plan;
  plan.record.patch_file = file;
  return { ...plan, keep: patch };
}

/**
 * An attempt's end as the engine settles it, on both runners: a result (non-blank, within
 * the cap) is named in the record, and `write` is its results file, to be written with it.
 */
export function settleInputOf(
  { outcome, result, question, reason, usage }: Interpreted,
  who: Pick<SettleInput, "ticket" | "attempt" | "by" | "claim" | "runUrl" | "changes">,
): { input: SettleInput; write?: { file: string; text: string } } {
  const { ticket, attempt, by, claim, runUrl, changes } = who;
  const said = { outcome, question, reason, usage };
  const input: SettleInput = { ticket, attempt, by, claim, runUrl, changes, ...said };
  if (result === undefined || result.trim() === "") return { input };
  const file = resultFile(who.ticket, who.attempt);
  input.resultFile = file;
  input.resultBytes = Buffer.byteLength(result, "utf8");
  return { input, write: { file, text: result } };
}
