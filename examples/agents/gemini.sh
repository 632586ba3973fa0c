#!/usr/bin/env bash
# Gemini CLI as the executor of a local run:
#
#   frontier run tickets --exec 'bash examples/agents/gemini.sh'
#
# (or `executor: bash examples/agents/gemini.sh` in frontier.yml). It runs `gemini -p` in
# the ticket's workspace (its worktree, with `isolation: worktree`), approving file edits
# only (--approval-mode auto_edit: no shell, so no git): the run collects what it changed
# against the ticket's write_scope. The ticket's context goes in on stdin. Gemini CLI
# takes no output schema, so the prompt spells the outcome's shape out.
#
# Its output is Gemini CLI's headless `--output-format json` object (Gemini CLI 0.6.1 and
# later): {"response": text, "stats": {"models": {"<model>": {"tokens": {"prompt": n,
# "candidates": n, "total": n, …}}}, …}, "error"?: {"type": …, "message": …, "code": n}},
# with exit 0 success, 1 an error, 42 bad input, 53 the turn limit. The response (the
# outcome JSON) becomes $FRONTIER_OUTCOME_FILE with usage {tokens: the models' totals}; an
# error, or no outcome, is a failed outcome.
# Needs gemini (npm i -g @google/gemini-cli, logged in or GEMINI_API_KEY) and jq.
set -uo pipefail
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

gemini -p 'Do the task of the ticket given on stdin in this repository. Edit files as the task needs; do not commit or push: the changes are collected after you finish. Answer with one JSON object and nothing else: {"status": "complete" | "empty" | "failed" | "suspended", "result": string | null, "question": string | null, "reason": string | null} — complete: the result says what you did and why; empty: nothing to do; failed: the reason says what blocks it; suspended: one question only a maintainer can answer.' \
  --output-format json --approval-mode auto_edit < "$FRONTIER_CONTEXT_FILE" > "$out" 2> "$err"
code=$?

[ -s "$out" ] && jq -c --arg code "$code" '
  ([.stats.models // {} | .[] | .tokens.total // 0] | if length > 0 then {usage: {tokens: add}} else {} end) as $usage
  | (.response // "" | sub("^\\s*```(json)?\\s*"; "") | sub("\\s*```\\s*$"; "") | try fromjson catch null) as $said
  | if (.error | type) == "object" then
      {status: "failed", reason: "gemini failed (exit \($code)): \(.error.type // "error"): \(.error.message // "no message" | tostring | .[0:500])"}
    elif $code == "53" then {status: "failed", reason: "gemini ran out of turns (exit 53)"}
    elif ($said | type) == "object" and ($said.status | type) == "string" then
      $said | with_entries(select(.value != null))
    else {status: "failed", reason: "gemini ended without an outcome: its response is not the outcome JSON"}
    end + $usage' "$out" > "$FRONTIER_OUTCOME_FILE" 2> /dev/null && exit 0

# no JSON at all: gemini is missing or crashed — say so, with its own last words
jq -nc --arg code "$code" --arg said "$(tail -c 500 "$err"; head -c 300 "$out")" \
  '{status: "failed", reason: "gemini gave no result (exit \($code)): \($said)"}' > "$FRONTIER_OUTCOME_FILE"
