#!/usr/bin/env bash
# Claude Code as the executor of a local run:
#
#   frontier run tickets --exec 'bash examples/agents/claude-code.sh'
#
# (or `executor: bash examples/agents/claude-code.sh` in frontier.yml). It runs
# `claude -p` in the ticket's workspace (its worktree, with `isolation: worktree`) with
# file tools only — no shell, so no git: it edits files and commits nothing, and the run
# collects what it changed against the ticket's write_scope. The ticket's context goes in
# on stdin; the outcome is asked for in outcome.schema.json (keep it beside this script).
#
# Its output is Claude Code's `--output-format json` result (Claude Code 2.x):
#   {"type": "result", "subtype": "success" | "error_max_turns" | "error_during_execution" | …,
#    "is_error": bool, "result": text, "structured_output": {…} (with --json-schema),
#    "usage": {"input_tokens": n, "output_tokens": n, …}, "total_cost_usd": n}
# which becomes $FRONTIER_OUTCOME_FILE: the structured output as the outcome, usage
# {tokens: input + output, cost_usd}; an error, or no outcome, is a failed outcome.
# Needs claude (npm i -g @anthropic-ai/claude-code, logged in or ANTHROPIC_API_KEY) and jq.
# CLAUDE_MAX_TURNS (default 40) caps its turns.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

claude -p "Do the task of the ticket given on stdin in this repository. Edit files as the task needs; do not commit or push: the changes are collected after you finish. End with the ticket's outcome: complete (the result says what you did and why), empty (nothing to do), failed (the reason says what blocks it) or suspended (one question only a maintainer can answer)." \
  --output-format json \
  --json-schema "$(cat "$here/outcome.schema.json")" \
  --allowedTools Read,Edit,Write,Glob,Grep \
  --max-turns "${CLAUDE_MAX_TURNS:-40}" \
  < "$FRONTIER_CONTEXT_FILE" > "$out" 2> "$err"
code=$?

[ -s "$out" ] && jq -c --arg code "$code" '
  (if (.usage | type) == "object" then
     {usage: ({tokens: ((.usage.input_tokens // 0) + (.usage.output_tokens // 0))}
              + (if .total_cost_usd then {cost_usd: .total_cost_usd} else {} end))}
   else {} end) as $usage
  | if .type != "result" then error("not a result")
    elif .is_error == true or .subtype != "success" then
      {status: "failed", reason: (if .subtype == "error_max_turns"
        then "claude code ran out of turns (error_max_turns): raise CLAUDE_MAX_TURNS, or split the ticket"
        else "claude code failed (\(.subtype)): \(.result // "no message" | tostring | .[0:500])" end)}
    elif (.structured_output | type) == "object" and (.structured_output.status | type) == "string" then
      .structured_output | with_entries(select(.value != null))
    else {status: "failed", reason: "claude code ended without an outcome: its structured output is not the outcome JSON"}
    end + $usage' "$out" > "$FRONTIER_OUTCOME_FILE" 2> /dev/null && exit 0

# not a result at all: claude is missing or crashed — say so, with its own last words
jq -nc --arg code "$code" --arg said "$(tail -c 500 "$err"; head -c 300 "$out")" \
  '{status: "failed", reason: "claude code gave no result (exit \($code)): \($said)"}' > "$FRONTIER_OUTCOME_FILE"
