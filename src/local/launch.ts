/**
 * Starting one `sh -c COMMAND` in a process group of its own and collecting how it
 * ended, with bounded memory.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { errorText } from "../core/errors.js";

interface LaunchRequest {
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /** a file the command reads as its stdin (the context file: no pipe to feed) */
  stdin: string;
  /** keep at most `cap + 1` bytes of stdout (enough to tell it went over) */
  cap: number;
  /** after the command exits, how long its pipes may stay open before the rest of its group is killed */
  graceMs: number;
}

interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  spawnError?: string;
  /** the first `cap + 1` bytes of stdout */
  stdout: Uint8Array;
  /** how many bytes stdout had in all */
  stdoutTotal: number;
  /** the last bytes of stderr */
  stderrTail: Uint8Array;
}

const STDERR_KEEP_BYTES = 8 * 1024;

/** Keeps the first `cap + 1` bytes of a stream and counts the rest. */
class HeadBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap + 1 - this.kept;
    if (room <= 0) return;
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(piece);
    this.kept += piece.length;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Keeps only the last `cap` bytes of a stream. */
class TailBuffer {
  private kept = Buffer.alloc(0);
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    // one copy of at most `cap` bytes and the chunk: never more is held
    this.kept = Buffer.concat([this.kept, chunk]).subarray(-this.cap);
  }
  bytes(): Buffer {
    return this.kept;
  }
}

export function signalGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Run the command here, in this process. `onSpawn` gets its process group id. */
export function launchHere(req: LaunchRequest, onSpawn: (pgid: number) => void) {
  const stdout = new HeadBuffer(req.cap);
  const stderr = new TailBuffer(STDERR_KEEP_BYTES);
  return new Promise<ChildExit>((resolve) => {
    let pgid: number | undefined;
    let settled = false;
    let lingerTimer: NodeJS.Timeout | undefined;
    const finish = (end: Pick<ChildExit, "code" | "signal" | "spawnError">) => {
      if (settled) return;
      settled = true;
      if (lingerTimer) clearTimeout(lingerTimer);
      // Whatever the shell left behind in its group ends with the attempt.
      signalGroup(pgid, "SIGKILL");
      const tail = stderr.bytes();
      resolve({ ...end, stdout: stdout.bytes(), stdoutTotal: stdout.total, stderrTail: tail });
    };
    let input: number;
    try {
      input = openSync(req.stdin, "r");
    } catch (error) {
      const spawnError = `cannot open its stdin ${req.stdin}: ${errorText(error)}`;
      return finish({ code: null, signal: null, spawnError });
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("sh", ["-c", req.command], {
        cwd: req.cwd,
        env: req.env,
        detached: true,
        stdio: [input, "pipe", "pipe"],
      });
    } finally {
      // the child has its own copy of the descriptor
      closeSync(input);
    }
    pgid = child.pid;
    if (pgid !== undefined) onSpawn(pgid);
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => finish({ code: null, signal: null, spawnError: error.message }));
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      // Something the command left running in the background may still hold the pipes
      // open; the attempt is over when the command is, so give the pipes a moment to
      // drain, then end the rest of its group.
      lingerTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish({ code, signal });
      }, req.graceMs);
      lingerTimer.unref();
    });
    child.on("close", (code, signal) => finish(exited ?? { code, signal }));
  });
}
