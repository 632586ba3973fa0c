/**
 * What `frontier init` writes into a new ticket directory: three tickets (two that run
 * side by side, one that merges them), run settings, and an executor that plays the
 * part of an agent with no model and no network, so the first `frontier run` works.
 */

export const STARTER_EXECUTOR = "_bin/starter-executor.mjs";

export const STARTER_FILES: Readonly<Record<string, string>> = {
  "frontier.yml": `# Run settings for this ticket directory. Flags of \`frontier run\` override them.
run: starter
goal: See a small graph run end to end, then replace these tickets with your own.
max_parallel: 2
# The command every ticket runs, once per attempt. It is given the ticket's context on
# stdin and in $FRONTIER_CONTEXT_FILE, and writes its outcome to $FRONTIER_OUTCOME_FILE.
# This stand-in needs no model and no network. For real work:
#   executor: frontier agent      the built-in agent: GitHub Models with $GITHUB_TOKEN
#                                 (e.g. export GITHUB_TOKEN=$(gh auth token))
#   executor: my-agent --task-file "$FRONTIER_CONTEXT_FILE"
executor: node "$FRONTIER_DIR/${STARTER_EXECUTOR}"
# The built-in agent's model (a ticket's own model: comes first); model_endpoint and
# model_key_env point it at any other OpenAI-compatible API.
# model: openai/gpt-4.1-mini
`,

  "list-questions.md": `---
depends_on: []
bound: 10m
---
# List the open questions

List the three questions a new contributor to an open-source project most often asks
before their first pull request, one line each.
`,

  "gather-facts.md": `---
depends_on: []
bound: 10m
---
# Gather the facts

Say where a well-kept repository answers how it is built, tested and released (which
file, which section), one line each, with what a newcomer should look for there.
`,

  "write-summary.md": `---
depends_on: [list-questions, gather-facts]
bound: 10m
---
# Write the summary

Answer each open question with the facts gathered, in a short note a new contributor
can read in two minutes. Say plainly which questions the facts do not answer.
`,

  [STARTER_EXECUTOR]: `#!/usr/bin/env node
// A stand-in for an agent, so the starter tickets run before you have one: no model, no
// network. It follows the executor protocol: the ticket's context arrives on stdin (and
// in $FRONTIER_CONTEXT_FILE), the outcome goes to $FRONTIER_OUTCOME_FILE as JSON.
// Replace it in frontier.yml (\`executor:\`) with the command that runs your agent.
import { writeFileSync } from "node:fs";

let context = "";
for await (const chunk of process.stdin) context += chunk;

const ticket = process.env.FRONTIER_TICKET ?? "";
const title = /^# (.+)$/m.exec(context)?.[1] ?? ticket;
// Each input (a ticket this one depends on) is a "### id: title (status)" heading.
const inputs = [...context.matchAll(/^### ([A-Za-z0-9][A-Za-z0-9._-]*): .* \\((\\w+)\\)$/gm)].map(
  (m) => m[1],
);
const result = [
  \`Stand-in result for "\${title}" (attempt \${process.env.FRONTIER_ATTEMPT ?? "1"}).\`,
  inputs.length > 0 ? \`Built on: \${inputs.join(", ")}.\` : "Built on the ticket alone.",
  "Replace the starter executor with your agent to get real work done.",
].join("\\n");

writeFileSync(process.env.FRONTIER_OUTCOME_FILE, JSON.stringify({ status: "complete", result }));
`,
};

/** The agent step of the orch-task workflow `init --github` writes: the same executor. */
export const STARTER_AGENT_STEP = `node "$FRONTIER_DIR/${STARTER_EXECUTOR}" < "$FRONTIER_CONTEXT_FILE"`;
