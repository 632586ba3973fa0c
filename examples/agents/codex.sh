#!/usr/bin/env bash
# Codex CLI as the executor of a local run:
#
#   frontier run tickets --exec 'bash examples/agents/codex.sh'
#
# (or `executor: bash examples/agents/codex.sh` in frontier.yml). It runs `codex exec` in
# the ticket's workspace (its worktree, with `isolation: worktree`) in the workspace-write
# sandbox: it edits files there and the run collects what it changed against the ticket's
# write_scope (ask it not to commit: the prompt does). The ticket's context goes in on
# stdin; the final message is asked for in outcome.schema.json (keep it beside this script).
#
# Its output is `codex exec --json`'s event stream, one JSON object a line (Codex CLI 0.44
# and later, as 0.152 prints it): {"type": "thread.started"}, {"type": "turn.started"},
# {"type": "item.completed", "item": {"type": "agent_message", "text": …}}, {"type":
# "turn.completed", "usage": {"input_tokens": n, "cached_input_tokens": n, "output_tokens": n}}
# (the thread's total so far), and on failure {"type": "turn.failed", "error": {"message": …}}
# (an {"type": "error"} event alone is a warning it may recover from). The last agent message
# (the outcome JSON) becomes $FRONTIER_OUTCOME_FILE, with usage {tokens: input + output of the
# last turn.completed}; a failure, or no outcome, is a failed outcome.
# Needs codex (npm i -g @openai/codex, logged in or OPENAI_API_KEY) and jq.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
err=$(mktemp)
prompt=$(mktemp)
trap 'rm -f "$out" "$err" "$prompt"' EXIT

{
  echo "Do the task of the ticket below in this repository. Edit files as the task needs;"
  echo "do not commit or push: the changes are collected after you finish. End with the"
  echo "ticket's outcome: complete (the result says what you did and why), empty (nothing"
  echo "to do), failed (the reason says what blocks it) or suspended (one question only a"
  echo "maintainer can answer)."
  echo
  cat "$FRONTIER_CONTEXT_FILE"
} > "$prompt"

# `-`: the prompt from stdin; --skip-git-repo-check: a ticket directory outside git works too
codex exec --json --output-schema "$here/outcome.schema.json" --sandbox workspace-write \
  --skip-git-repo-check - < "$prompt" > "$out" 2> "$err"
code=$?

[ -s "$out" ] && jq -sc '
  ([.[] | select(.type == "turn.completed") | (.usage.input_tokens // 0) + (.usage.output_tokens // 0)]
   | if length > 0 then {usage: {tokens: last}} else {} end) as $usage
  | ([.[] | select(.type == "item.completed" and .item.type == "agent_message") | .item.text] | last
     | try fromjson catch null) as $said
  | (([.[] | select(.type == "turn.failed") | .error.message] | last)
     // ([.[] | select(.type == "error") | .message] | last)) as $error
  | if ($said | type) == "object" and ($said.status | type) == "string" then
      $said | with_entries(select(.value != null))
    elif $error != null then {status: "failed", reason: "codex failed: \($error | tostring | .[0:500])"}
    else {status: "failed", reason: "codex ended without an outcome: its last message is not the outcome JSON"}
    end + $usage' "$out" > "$FRONTIER_OUTCOME_FILE" 2> /dev/null && exit 0

# no events at all: codex is missing or refused its arguments — say so, with its own last words
jq -nc --arg code "$code" --arg said "$(tail -c 500 "$err")" \
  '{status: "failed", reason: "codex gave no events (exit \($code)): \($said)"}' > "$FRONTIER_OUTCOME_FILE"
