/**
 * The action's `command: agent`: the built-in executor as the orch-task job's agent step,
 * from the bundle that is already on the runner (the same version as the action, nothing
 * to install). The context step before it exported $FRONTIER_CONTEXT_FILE,
 * $FRONTIER_OUTCOME_FILE and the rest of the executor's variables; the settle step after it
 * reads the outcome file. GitHub Models' key is the job's token (the `token` input).
 *
 * The step succeeds whenever it wrote an outcome — a refusal is a failed attempt the settle
 * step records, with its reason — and fails only when it could not write one.
 */
import { Writable } from "node:stream";
import * as core from "@actions/core";
import type { AgentFlags } from "./config.js";
import { runAgent } from "./run.js";

export async function agentStep(
  flags: AgentFlags,
  token: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (!env.FRONTIER_CONTEXT_FILE || !env.FRONTIER_OUTCOME_FILE) {
    core.setFailed(
      "command: agent runs after the context step (command: context) of the orch-task job, which gives it $FRONTIER_CONTEXT_FILE and $FRONTIER_OUTCOME_FILE: put that step before it",
    );
    return;
  }
  const log = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").trimEnd().split("\n")) core.info(line);
      done();
    },
  });
  const run = await runAgent(
    flags,
    { env: { ...env, GITHUB_TOKEN: env.GITHUB_TOKEN || token }, stdout: log, stderr: log },
    { startedAt: Math.round(performance.timeOrigin) },
  );
  if (run.outcomeFile === undefined) {
    core.setFailed(`${run.summary} — and the outcome could not be written (see the line above)`);
    return;
  }
  core.setOutput("agent-outcome", run.outcome?.status ?? "");
  if (run.outcome?.status === "failed") core.warning(run.summary);
  else core.info(run.summary);
}
