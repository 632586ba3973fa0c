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
import { readJson } from "../core/json.js";
import type { OutcomeFileRead } from "../core/settle.js";
import { overResultCap } from "../core/settle.js";
import { errorCode } from "./read-optional.js";

export type { OutcomeFileRead };

/** The most an outcome file may hold: a result of up to the cap, JSON escaping, the envelope. */
export function outcomeFileLimit(maxResultBytes: number): number {
  return maxResultBytes * 6 + 64 * 1024;
}

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isSocket()) return "a socket";
  return "a device";
}

/**
 * Read and check the outcome file at `path`; `name` is how messages call it
 * (`$FRONTIER_OUTCOME_FILE`, or the path the settle step was given).
 */
export async function readOutcomeFile(
  path: string,
  maxResultBytes: number,
  name = "$FRONTIER_OUTCOME_FILE",
): Promise<OutcomeFileRead> {
  const refuse = (what: string): OutcomeFileRead => ({
    kind: "bad",
    reason: `the outcome file (${name}) is ${what}, so it was not read: write the outcome JSON into a plain file at that path, e.g. {"status": "complete", "result": "…"}`,
  });
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return refuse("a symbolic link");
    if (!st.isFile()) return refuse(kindOf(st));
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "none" };
    return refuse(`unreadable (${code ?? "error"})`);
  }
  const limit = outcomeFileLimit(maxResultBytes);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return { kind: "none" };
    return refuse(code === "ELOOP" ? "a symbolic link" : `unreadable (${code ?? "error"})`);
  }
  let bytes: Buffer;
  try {
    const st = await handle.stat();
    if (!st.isFile()) return refuse(kindOf(st));
    // at most the limit and one byte more, however large the file says it is or grows
    const chunks: Buffer[] = [];
    let got = 0;
    let chunk = Math.min(limit + 1, Math.max(st.size, 0) + 1, 1 << 20);
    while (got <= limit) {
      const buffer = Buffer.alloc(Math.min(chunk, limit + 1 - got));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, got);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      got += bytesRead;
      chunk = 1 << 20;
    }
    if (got > limit) {
      return {
        kind: "bad",
        reason: overResultCap(`the outcome file (${name})`, Math.max(st.size, got), maxResultBytes),
      };
    }
    bytes = Buffer.concat(chunks, got);
  } finally {
    await handle.close();
  }
  const text = bytes.toString("utf8");
  if (text.trim() === "") return { kind: "blank" };
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
  return { kind: "ok", value: parsed.data };
}
