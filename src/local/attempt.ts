/**
 * One attempt of one ticket, run as a shell command (SPEC §6).
 *
 * The command runs under `sh -c` in a process group of its own, so a timeout or a
 * Ctrl-C stops everything it started, not just the shell. Its outcome is the JSON it
 * writes to `$FRONTIER_OUTCOME_FILE` if it writes one; otherwise its exit code and
 * stdout decide. Output is captured with bounded memory: a result over the cap is a
 * failed attempt with a clear reason, never a truncated result.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REASON } from "../core/constants.js";
import { type ExecutorAttempt, executorVariables } from "../core/executor.js";
import { type Interpreted, interpretOutcome } from "../core/settle.js";
import { outcomeReason, readOutcomeFile } from "../tickets/outcome-file.js";
import { launchHere, signalGroup } from "./launch.js";

/** How long a stopped attempt gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

export interface AttemptInput {
  /** the shell command, run as `sh -c COMMAND` */
  command: string;
  /** working directory of the command */
  cwd: string;
  /** the context text: on stdin and in `$FRONTIER_CONTEXT_FILE` */
  context: string;
  /** the environment to start from (the runner's) */
  baseEnv: Record<string, string | undefined>;
  /**
   * the executor contract of this attempt (core/executor.ts), less the context and
   * outcome files, which are named here; its variables are set for the command
   */
  contract?: Omit<ExecutorAttempt, "contextFile" | "outcomeFile">;
  /** the ticket's bound as a duration: past it the attempt is stopped, failed `timeout` */
  timeoutMs?: number;
  /** a result (stdout, or `result` in the outcome file) over this many bytes fails the attempt */
  maxResultBytes: number;
  /** SIGTERM → SIGKILL grace; default 2 s */
  graceMs?: number;
  /** a directory for the outcome file (the runner's, made once per run) */
  scratch: string;
  /** names this attempt's outcome file in `scratch` (unique among live attempts) */
  tag: string;
  /**
   * the context file: the caller keeps a few and reuses them (the runner: one per
   * attempt running at once), so it is rewritten in place, and left for the caller to remove
   */
  contextFile: string;
}

export interface AttemptResult extends Interpreted {
  /** set when the attempt was stopped from outside (Ctrl-C), not by its own doing */
  stopped: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
}

/** An attempt that failed for `reason` without an outcome of its own (it never started, or its work is gone). */
export function failedResult(reason: string, durationMs = 0): AttemptResult {
  return { outcome: "failed", reason, stopped: false, exitCode: null, signal: null, durationMs };
}

export interface RunningAttempt {
  /** the process group id (= the shell's pid) */
  pgid: number | undefined;
  done: Promise<AttemptResult>;
  /** stop the whole process group: SIGTERM, SIGKILL after the grace */
  stop(): void;
}

/** Start one attempt. The returned promise never rejects: every way it can end is an outcome. */
export function startAttempt(input: AttemptInput): RunningAttempt {
  const group = new ProcessGroup(input.graceMs ?? KILL_GRACE_MS);
  const done = (async (): Promise<AttemptResult> => {
    // Small files, written and removed synchronously: a thread-pool round trip per file
    // costs more than the write itself, and an instant executor feels every one of them.
    // (a unique tag: the outcome file does not exist yet)
    const outcomeFile = join(input.scratch, `${input.tag}.outcome.json`);
    rmSync(input.contextFile, { force: true });
    writeFileSync(input.contextFile, input.context, { flag: "wx" });
    try {
      return await runChild(input, group, outcomeFile);
    } finally {
      try {
        // whatever the executor made of them: a file, a link (never followed), a directory, a FIFO
        for (const file of [outcomeFile, input.contextFile])
          rmSync(file, { recursive: true, force: true });
      } catch {
        // left in the run's scratch directory, removed with it
      }
    }
  })();
  return {
    get pgid() {
      return group.pgid;
    },
    done,
    stop: () => {
      group.stopped = true;
      group.terminate();
    },
  };
}

/** An attempt's process group, and why it is being stopped. */
class ProcessGroup {
  pgid: number | undefined;
  /** stopped from outside (Ctrl-C) */
  stopped = false;
  /** stopped past its bound */
  timedOut = false;
  killTimer: NodeJS.Timeout | undefined;

  constructor(readonly grace: number) {}

  /** SIGTERM, then SIGKILL after the grace; a group not started yet, as soon as it is. */
  terminate(): void {
    if (this.pgid === undefined) return;
    signalGroup(this.pgid, "SIGTERM");
    if (!this.killTimer) {
      this.killTimer = setTimeout(() => signalGroup(this.pgid, "SIGKILL"), this.grace);
      this.killTimer.unref();
    }
  }
}

/** Run the command in `group` and read how it ended: the outcome, by the one interpreter. */
async function runChild(
  input: AttemptInput,
  group: ProcessGroup,
  outcomeFile: string,
): Promise<AttemptResult> {
  const { contextFile } = input;
  const started = Date.now();
  const vars: Record<string, string> = {
    ...(input.contract ? executorVariables({ ...input.contract, contextFile, outcomeFile }) : {}),
    FRONTIER_CONTEXT_FILE: contextFile,
    FRONTIER_OUTCOME_FILE: outcomeFile,
  };
  const timer =
    input.timeoutMs === undefined
      ? undefined
      : after(input.timeoutMs, () => {
          group.timedOut = true;
          group.terminate();
        });
  const exit = await launchHere(
    {
      command: input.command,
      cwd: input.cwd,
      env: { ...input.baseEnv, ...vars },
      // the context file is the same text: the command reads it, no pipe to feed
      stdin: contextFile,
      cap: input.maxResultBytes,
      graceMs: group.grace,
    },
    (pgid) => {
      group.pgid = pgid;
      if (group.stopped || group.timedOut) group.terminate();
    },
  );
  timer?.clear();
  clearTimeout(group.killTimer);
  const { stopped, timedOut } = group;
  const base = {
    stopped,
    exitCode: exit.code,
    signal: exit.signal,
    durationMs: Date.now() - started,
  };
  if (stopped && !timedOut && !exit.spawnError) {
    return { ...base, outcome: "failed", reason: REASON.interrupted };
  }
  // what this runner saw, read by the one interpreter both runners share
  const file =
    exit.spawnError || timedOut
      ? ({ kind: "none" } as const)
      : await readOutcomeFile(outcomeFile, input.maxResultBytes);
  const interpreted = interpretOutcome(
    {
      file,
      maxResultBytes: input.maxResultBytes,
      ...(exit.spawnError ? { notStarted: `could not start sh: ${exit.spawnError}` } : {}),
      ...(timedOut ? { timedOut: true } : {}),
      process: {
        code: exit.code,
        signal: exit.signal,
        stdout:
          exit.stdoutTotal > input.maxResultBytes
            ? { kind: "over", bytes: exit.stdoutTotal }
            : { kind: "text", text: Buffer.from(exit.stdout).toString("utf8") },
        stderr: Buffer.from(exit.stderrTail).toString("utf8"),
      },
    },
    outcomeReason,
  );
  return { ...base, ...interpreted };
}

/** Node's timers hold at most 2³¹−1 ms (24.8 days); a longer wait is made of several. */
const TIMER_MAX_MS = 2 ** 31 - 1;

/** Run `fn` once `ms` have passed, however long that is. */
function after(ms: number, fn: () => void): { clear(): void } {
  let timer: NodeJS.Timeout;
  const due = Date.now() + ms;
  const arm = (left: number) => {
    timer = setTimeout(
      () => {
        const rest = due - Date.now();
        if (rest > 0) arm(rest);
        else fn();
      },
      Math.min(left, TIMER_MAX_MS),
    );
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}
