/**
 * What `frontier init` writes into a new ticket directory, copied from examples/: three
 * tickets (two that run side by side, one that merges them), run settings, and an executor
 * that plays the part of an agent with no model and no network, so the first `frontier run`
 * works (examples/starter/); with `--coding`, the settings of coding tickets and a stand-in
 * coding agent, and no tickets: `frontier new --scope` adds them (examples/coding-init/).
 */

const STARTER_EXECUTOR = "_bin/starter-executor.mjs";

export const STARTER_FILES = [
  "frontier.yml",
  "list-questions.md",
  "gather-facts.md",
  "write-summary.md",
  STARTER_EXECUTOR,
];

export const CODING_FILES = ["frontier.yml", ".gitignore", "_bin/stand-in-agent.mjs"];

/** The agent step of the orch-task workflow `init --github` writes: the same executor. */
export const STARTER_AGENT_STEP = `node "$FRONTIER_DIR/${STARTER_EXECUTOR}" < "$FRONTIER_CONTEXT_FILE"`;
