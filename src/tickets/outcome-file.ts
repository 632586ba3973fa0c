/**
 * Reading `$FRONTIER_OUTCOME_FILE` (SPEC §6): the one reader of the outcome JSON an
 * executor writes, for the local runner and the action's settle step alike — one size
 * rule and one set of messages.
 */
import { readFileSync, statSync } from "node:fs";
import { readJson } from "../core/json.js";
import type { OutcomeFile } from "../core/outcome.js";

/** What the executor's outcome file says, or that there is none, or why it is no good. */
export type OutcomeFileRead =
  /** no file, or an empty one: the executor reported nothing there (`exists`: the file is there, empty) */
  | { kind: "none"; exists: boolean }
  | { kind: "ok"; value: OutcomeFile }
  /** not valid JSON, not of the shape, or too large: a failed attempt with this reason */
  | { kind: "bad"; reason: string };

/** The reason for a result over `max_result_bytes`: `what` is `the result on stdout`, … */
export function overResultCap(what: string, bytes: number, cap: number): string {
  return `${what} is ${bytes} bytes, over max_result_bytes (${cap}): write large output to a file and return its path, or raise max_result_bytes in frontier.yml`;
}

/**
 * Read and check the outcome file at `path`; `name` is how messages call it
 * (`$FRONTIER_OUTCOME_FILE`, or the path the settle step was given). The file may hold
 * a result of up to `maxResultBytes` (in UTF-8), and JSON escaping room around it.
 */
export async function readOutcomeFile(
  path: string,
  maxResultBytes: number,
  name = "$FRONTIER_OUTCOME_FILE",
): Promise<OutcomeFileRead> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { kind: "none", exists: false };
  }
  // JSON escaping can at most double-ish a string; leave generous room for the envelope.
  if (size > maxResultBytes * 6 + 64 * 1024) {
    return { kind: "bad", reason: overResultCap("the outcome file", size, maxResultBytes) };
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { kind: "none", exists: false };
  }
  if (text.trim() === "") return { kind: "none", exists: true };
  const json = readJson(text);
  if (!json.ok) {
    return {
      kind: "bad",
      reason: `the outcome file (${name}) is not valid JSON (${json.error}): write e.g. {"status": "complete", "result": "…"}`,
    };
  }
  // the schema (zod) is loaded on the first outcome file, not by every run
  const { OutcomeFile } = await import("../core/outcome.js");
  const parsed = OutcomeFile.safeParse(json.value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map(
        (issue) => `${issue.path.length ? issue.path.join(".") : "(top level)"}: ${issue.message}`,
      )
      .join("; ");
    return {
      kind: "bad",
      reason: `the outcome file (${name}) is not a valid outcome — ${issues}. It needs "status": one of complete, empty, failed, suspended, limited`,
    };
  }
  const result = parsed.data.result;
  if (result !== undefined) {
    const bytes = Buffer.byteLength(result, "utf8");
    if (bytes > maxResultBytes) {
      return {
        kind: "bad",
        reason: overResultCap("the result in the outcome file", bytes, maxResultBytes),
      };
    }
  }
  return { kind: "ok", value: parsed.data };
}
