/** What `--help` shows besides the options: the exit codes, and two examples per command. */
import { RECEIPT_SCHEMA } from "../core/constants.js";
import { EXIT } from "../terminal/io.js";

const ENVIRONMENT =
  "Environment: NO_COLOR turns colour off, FORCE_COLOR=1 turns it on when not on a terminal.";

type Codes = ReadonlyArray<readonly [number, string]>;
const USAGE = [
  EXIT.usage,
  "the tickets do not hold together, or the command line is wrong",
] as const;

/** The run's exit codes: only a run ends suspended, limited or cancelled. */
const RUN_CODES: Codes = [
  [EXIT.complete, "complete (for run); success (for every other command)"],
  [EXIT.failed, "a ticket failed, so the run cannot complete"],
  USAGE,
  [EXIT.suspended, "suspended: a ticket asked a question (answer it, then run again)"],
  [EXIT.limited, "limited: a bound ran out before the run completed"],
  [EXIT.cancelled, "cancelled"],
  [130, "stopped with Ctrl-C (run again to resume)"],
];

/** The exit codes `--help` lists for a command (`agent` has its own: below). */
function exitCodesOf(name: string): Codes {
  if (name === "run") return RUN_CODES;
  if (name === "validate")
    return [[EXIT.complete, "the tickets hold together (warnings may be printed)"], USAGE];
  const writes = [EXIT.failed, "a file could not be written (the message names it)"] as const;
  return [[EXIT.complete, "success"], ...(WRITES.has(name) ? [writes] : []), USAGE];
}

/** `Exit codes:` and what each means, then the environment. */
function exitCodesText(codes: Codes): string {
  const lines = codes.map(([c, what]) => `  ${String(c).padEnd(5)}${what}`);
  return `\nExit codes:\n${lines.join("\n")}\n\n${ENVIRONMENT}`;
}

export const EXIT_CODES_HELP = exitCodesText(RUN_CODES);

/** The commands that write files, and so can fail at a full disk or a read-only folder. */
const WRITES = new Set(["init", "new", "answer", "retry", "cancel", "reset", "report", "dep"]);

/** Two command lines a user can try, each with what it does. */
const EXAMPLES: Readonly<Record<string, readonly [string, string][]>> = {
  init: [
    ["frontier init --coding", "tickets/ for coding tickets, with a stand-in coding agent"],
    [
      "frontier init tasks --github",
      "tasks/ and the two GitHub workflows, the built-in agent on GitHub Models",
    ],
  ],
  new: [
    ["frontier new research", "tickets/research.md, depending on nothing"],
    [
      "frontier new tickets ui --after api,db --scope 'app/ui/**'",
      "tickets/ui.md, run once api and db are complete, changing only app/ui/",
    ],
  ],
  validate: [
    ["frontier validate", "check tickets/: every problem with file:line, exit 2 if any"],
    ["frontier validate tasks --json", "the same as JSON, for an editor or CI"],
  ],
  plan: [
    ["frontier plan", "the waves of tickets/ and the critical path"],
    ["frontier plan tasks --mermaid > graph.mmd", "the graph as a mermaid flowchart"],
  ],
  status: [
    ["frontier status", "where the run in tickets/ stands: ready, blocked, questions"],
    ["frontier status tasks --json", `the receipt (${RECEIPT_SCHEMA})`],
  ],
  run: [
    [
      "frontier run tickets --exec 'my-agent --task-file \"$FRONTIER_CONTEXT_FILE\"'",
      "run every ticket with your agent, at most max_parallel at once",
    ],
    ["frontier run tickets --max-parallel 1 --bound 3", "one at a time, at most 3 dispatches"],
  ],
  context: [
    ["frontier context tickets plan", "the text the executor of plan is given"],
    ["frontier context tickets plan > plan-context.md", "the same, to a file"],
  ],
  answer: [
    ['frontier answer tickets plan "Use eu-west-1"', "answer plan's question; it is ready again"],
    ["frontier answer tickets plan yes, keep the old API", "the words after the id are the answer"],
  ],
  retry: [
    [
      "frontier retry tickets research",
      "a new attempt for a failed ticket; its dependents wait again",
    ],
    ["frontier status tickets && frontier retry tickets plan", "see what failed, then retry it"],
  ],
  cancel: [
    ["frontier cancel tickets", "every open ticket becomes cancelled"],
    ["frontier cancel tickets && frontier report tickets", "cancel, then write the final reports"],
  ],
  agent: [
    [
      "frontier run tickets --exec 'frontier agent'",
      "every ticket asks GitHub Models (openai/gpt-4.1-mini) with $GITHUB_TOKEN",
    ],
    [
      "frontier context tickets plan | frontier agent --endpoint https://api.openai.com/v1 --model gpt-4.1-mini",
      "try one ticket by hand on another endpoint, its key in $OPENAI_API_KEY",
    ],
  ],
  ready: [
    ["frontier ready", "the tickets of tickets/ that may start now, in the order they would"],
    ["frontier ready --json | jq -r '.ready[].id'", "their ids, for a script"],
  ],
  dep: [
    ["frontier dep add plan research", "plan depends on research from now on (its depends_on)"],
    ["frontier dep rm tickets plan research", "and no longer does"],
  ],
  reset: [
    ["frontier reset", "start tickets/ afresh: the old run's records go to .frontier/runs/"],
    ["frontier reset tickets && frontier run tickets", "the same as frontier run tickets --fresh"],
  ],
  report: [
    ["frontier report tickets", "tickets/.frontier/report.html, receipt.json and report.md"],
    ["frontier report tickets --html out/report.html", "only the HTML report, where you want it"],
  ],
};

/** `frontier agent` is an executor: its exit codes are the executor protocol's. */
const AGENT_EXIT_CODES_HELP = `
Exit codes:
  0    the outcome was written to $FRONTIER_OUTCOME_FILE (it decides); without that
       variable: complete (the result on stdout) or empty
  1    failed (the reason on stderr), or the outcome file could not be written
  2    the command line is wrong, or there is no context to work on
  75   suspended: the model's question on stdout`;

/** The text after a command's options: its examples and the exit codes. */
export function commandHelp(name: string): string {
  // every command has its two (test/cli/output.test.ts)
  const examples = EXAMPLES[name]!.map(([command, what]) => `  $ ${command}\n      ${what}`);
  const codes = name === "agent" ? AGENT_EXIT_CODES_HELP : exitCodesText(exitCodesOf(name));
  return `\nExamples:\n${examples.join("\n")}\n${codes}`;
}
