#!/bin/sh
# A stand-in for a coding agent: no model, no network, the same edits every time.
# It runs where frontier starts it: with isolation: worktree, in the ticket's own
# worktree (the copy of the project the ticket works on), at the ticket directory's
# parent. It edits files in its ticket's write_scope and prints a one-line result.
set -eu
case "$FRONTIER_TICKET" in
api)
  mkdir -p app/api
  cat >app/api/todos.js <<'JS'
// The todo API: a list kept in memory.
const todos = [];

export function addTodo(title) {
  todos.push({ title, done: false });
  return todos.length;
}

export function listTodos() {
  return todos.map((todo) => ({ ...todo }));
}
JS
  echo "app/api/todos.js: addTodo and listTodos"
  ;;
ui)
  # the UI builds on the API: its worktree starts from the commit the api ticket made
  if [ ! -f app/api/todos.js ]; then
    echo "app/api/todos.js is not here: the UI has no API to build on" >&2
    exit 1
  fi
  mkdir -p app/ui
  cat >app/ui/list.js <<'JS'
import { listTodos } from "../api/todos.js";

export function renderList() {
  return listTodos()
    .map((todo) => `- [${todo.done ? "x" : " "}] ${todo.title}`)
    .join("\n");
}
JS
  echo "app/ui/list.js: renderList on listTodos"
  ;;
docs)
  for file in app/api/todos.js app/ui/list.js; do
    if [ ! -f "$file" ]; then
      echo "$file is not here: there is nothing to document" >&2
      exit 1
    fi
  done
  mkdir -p docs
  {
    echo "# Todos"
    echo
    for file in app/api/todos.js app/ui/list.js; do
      sed -n 's/^export function \([A-Za-z]*\).*/- `\1` (from '"$(echo "$file" | sed 's/[\/&]/\\&/g')"')/p' "$file"
    done
  } >docs/todos.md
  echo "docs/todos.md: $(grep -c '^- ' docs/todos.md) functions"
  ;;
*)
  echo "fake-agent.sh has no edits for the ticket $FRONTIER_TICKET" >&2
  exit 1
  ;;
esac
