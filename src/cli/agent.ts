/**
 * `frontier agent [--model M] [--endpoint URL] [--key-env VAR]`: the built-in executor
 * (src/agent/run.ts), on the command line. Flags that are not what they should be are a
 * usage error (exit 2) before anything is read or sent.
 */

import { type AgentFlags, flagProblem } from "../agent/config.js";
import { runAgent } from "../agent/run.js";
import type { CliIo } from "../terminal/io.js";

/** The exit code, or what is wrong with the flags (a usage error). */
export async function agentCommand(flags: AgentFlags, io: CliIo): Promise<number | string> {
  const bad = flagProblem(flags);
  if (bad !== undefined) return bad;
  const run = await runAgent(
    flags,
    { env: io.env, stdin: process.stdin, stdout: io.stdout, stderr: io.stderr },
    // the attempt's clock started when the runner spawned this process
    { startedAt: Math.round(performance.timeOrigin) },
  );
  // the outcome file carries the outcome; this line is for whoever reads the log
  if (run.outcomeFile !== undefined) io.stderr.write(`${run.summary}\n`);
  return run.code;
}
