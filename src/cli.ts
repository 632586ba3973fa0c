#!/usr/bin/env node
/**
 * `frontier`: the local command. Parsing only; each command lives in
 * src/cli/commands.ts, and `run` in src/local/run.ts.
 */
import { isAbsolute } from "node:path";
import type { Command } from "commander";
import type { AgentFlags } from "./agent/config.js";
import { DEFAULT_DIR, dirAnd, dirTicketAndText, quickCommand } from "./cli/argv.js";
import { quietWhenClosed } from "./cli/closed-output.js";
import { commandHelp, EXIT_CODES_HELP } from "./cli/help.js";
import type { InitOptions } from "./cli/init.js";
import type { NewOptions } from "./cli/new.js";
import { RECEIPT_SCHEMA } from "./core/constants.js";
import { errnoCode, errorText } from "./core/errors.js";
import type { RunOptions } from "./local/run.js";
import { errorLine } from "./terminal/colour.js";
import { type CliIo, EXIT, line } from "./terminal/io.js";
import { shownPath } from "./terminal/text.js";
import { isDirectory } from "./tickets/read-optional.js";

// Each command loads only what it needs: `frontier validate` over 10k tickets should cost
// little more than reading them, not the report renderers and the runner too.
const commands = () => import("./cli/commands.js");

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const gone = workingDirectoryGone(argv, io);
  if (gone !== undefined) return ended(gone, io);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    line(io.stdout, (await import("./cli/version.js")).packageVersion());
    return EXIT.complete;
  }
  const quick = quickCommand(argv);
  if (quick === undefined) return parseWithCommander(argv, io);
  const row = COMMANDS.find((r) => r.name === quick.command)!;
  return ended(await row.run({ dir: quick.dir, words: [] }, quick, io, Date.now()), io);
}

/** A command's exit code, or its usage error said as `error: …` with exit code 2. */
function ended(done: number | string, io: CliIo): number {
  if (typeof done === "number") return done;
  errorLine(io, done);
  return EXIT.usage;
}

/**
 * A working directory deleted (or moved) under the shell: every relative path, and Node's
 * own path resolution, would fail. With the ticket directory given as an absolute path
 * the command goes on from `/`; otherwise it says so. Undefined when all is well.
 */
function workingDirectoryGone(argv: readonly string[], io: CliIo): string | undefined {
  try {
    process.cwd();
    return undefined;
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw error;
  }
  if (argv.some((a) => isAbsolute(a) && isDirectory(a))) {
    process.chdir("/");
    return undefined;
  }
  const was = io.env.PWD ? ` ${io.env.PWD}` : "";
  return `the working directory${was} no longer exists (deleted or moved while the shell was in it) — cd to a directory that exists and run again, or pass the ticket directory as an absolute path`;
}

/** Every option value a command can be given, by commander's camel-cased name. */
type Opts = InitOptions &
  Omit<NewOptions, "json"> &
  AgentFlags &
  Omit<RunOptions, "json"> & {
    json?: boolean | string;
    for?: string;
    mermaid?: boolean;
    fresh?: boolean;
    note?: string;
    html?: string;
    markdown?: string;
  };

/**
 * One command line: `dir` for a `[dir]` argument, `words` for a variadic one. A string
 * returned is a usage error, said as `error: …` with exit code 2.
 */
type Action = (
  args: { dir: string; words: string[] },
  o: Opts,
  io: CliIo,
  now: number,
) => Promise<number | string>;

/** flags, help, and a whole number's least value or `repeat` (each use adds to a list) */
type OptionRow = readonly [string, string, (number | "repeat")?];

interface CommandRow {
  name: string;
  about: string;
  /** the usage line (else commander's) */
  usage?: string;
  /** `[syntax, description]`; a `[dir]` when left out (the default: tickets); none for `agent` */
  arg?: readonly [string, string] | "none";
  options?: readonly OptionRow[];
  run: Action;
}

const JSON_COMMAND: OptionRow = [
  "--json",
  "print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words",
];
const DIR_TICKET: readonly [string, string] = [
  "[words...]",
  `[dir] ticket: the ticket directory (default "${DEFAULT_DIR}") and the ticket id`,
];

/** Every command of `frontier` but `validate`/`status`'s quick forms: commander is made from it. */
const COMMANDS: readonly CommandRow[] = [
  {
    name: "init",
    about: "write a starter ticket directory that runs as it is (and the GitHub workflows)",
    arg: ["[dir]", "the ticket directory to make"],
    options: [
      ["--coding", "settings for coding tickets: isolation, .frontier/ ignored, a stand-in agent"],
      ["--github", "also write .github/workflows/frontier.yml and orch-task.yml"],
      [
        "--action <ref>",
        "with --github: use the action at owner/repo@ref (else a copy in .github/actions/)",
      ],
      [
        "--agent <name>",
        "with --github: the orch-task job's agent — model (the built-in agent on GitHub Models, the default), stand-in, codex or claude-code",
      ],
      [
        "--sweep <every>",
        "with --github: how often the workflow sweeps for claims whose lease ran out — 15m, 30m, 1h (default), 6h, 1d or off",
      ],
    ],
    run: async ({ dir }, o, io) => (await import("./cli/init.js")).initCommand(dir, o, io),
  },
  {
    name: "new",
    about: "write a new ticket file, checking its id and its dependencies",
    usage: "[DIR] ID|TITLE [--after ID...] [--scope GLOB]... [options]",
    arg: [
      "[dir-and-id...]",
      `[DIR] ID: the ticket directory (default ${DEFAULT_DIR}), then the id — or a title in quotes, to make the id from`,
    ],
    options: [
      ["--after <ids...>", "ids it depends on (space- or comma-separated)"],
      ["--title <title>", "its title (default: from the id)"],
      ["--scope <glob>", "a path it may change; repeatable", "repeat"],
      ["--isolation <how>", "worktree (its own worktree, its changes committed) or none"],
      ["--agent <name>", "tickets naming the same agent never run at once"],
      ["--executor <name>", "an entry of executors: in frontier.yml"],
      JSON_COMMAND,
    ],
    run: async ({ words }, o, io) => {
      const { newCommand, positionalsAfter } = await import("./cli/new.js");
      const { positional, after } = positionalsAfter(words, o.after);
      return newCommand(positional, { ...o, after, json: !!o.json }, io);
    },
  },
  {
    name: "validate",
    about: "check the ticket directory; every problem with file:line; exit 2 if any",
    options: [
      ["--json", "print the problems as JSON"],
      [
        "--for <runner>",
        "local: exactly what `frontier run` accepts; github: what a run on GitHub accepts (default: both, what stops only one runner as a warning)",
      ],
    ],
    run: async ({ dir }, o, io) => {
      if (o.for !== undefined && o.for !== "local" && o.for !== "github") {
        return `--for takes local or github, got "${o.for}"`;
      }
      return (await import("./cli/validate.js")).validateCommand(
        dir,
        { json: !!o.json, for: o.for },
        io,
      );
    },
  },
  {
    name: "plan",
    about: "print the waves and the critical path",
    options: [
      ["--json", "print the receipt"],
      ["--mermaid", "print a mermaid flowchart"],
    ],
    run: async ({ dir }, o, io, now) => {
      if (o.json && o.mermaid) {
        return "--json and --mermaid print two different things; pass one of them (run `frontier plan` twice for both)";
      }
      return (await commands()).planCommand(dir, { json: !!o.json, mermaid: !!o.mermaid }, io, now);
    },
  },
  {
    name: "status",
    about: "state, ready, blocked with causes, open remainder",
    options: [["--json", "print the receipt"]],
    run: async ({ dir }, o, io, now) =>
      (await import("./cli/status.js")).statusCommand(dir, { json: !!o.json }, io, now),
  },
  {
    name: "run",
    about: "run the graph here, one shell command per attempt",
    options: [
      ["--exec <cmd>", "shell command run once per attempt (else frontier.yml executor)"],
      ["--max-parallel <n>", "at most N tickets at once", 1],
      ["--bound <n>", "at most N dispatches in this run", 0],
      ["--json", "print the receipt on stdout and nothing else there"],
      ["--fresh", "start a new run first (as `frontier reset`), then run"],
    ],
    run: async ({ dir }, o, io, now) => {
      const shown = shownPath(dir);
      if (o.fresh) {
        // the reset's report goes to stderr: with --json, stdout holds the receipt only
        const reset = await (await import("./cli/reset.js")).resetCommand(
          shown,
          { ...io, stdout: io.stderr },
          now,
          { fresh: true, as: "run --fresh" },
        );
        if (reset !== EXIT.complete) return reset;
      }
      const code = await (await import("./local/run.js")).runCommand(
        shown,
        { json: !!o.json, exec: o.exec, maxParallel: o.maxParallel, bound: o.bound },
        io,
      );
      await (await import("./cli/after-run.js")).afterRun(shown, o.exec, code, io);
      return code;
    },
  },
  {
    name: "context",
    about: "print the text an executor is given for a ticket",
    usage: "[dir] <ticket>",
    arg: DIR_TICKET,
    run: async ({ words }, _o, io, now) => {
      const args = dirAnd(1, words, "[dir] <ticket>");
      if (args.kind === "bad") return args.message;
      return (await commands()).contextCommand(args.dir, args.rest[0]!, io, now);
    },
  },
  {
    name: "answer",
    about: "answer a suspended ticket's question; it becomes ready again",
    usage: "[dir] <ticket> <text...>",
    arg: [
      "[words...]",
      `[dir] ticket text: the ticket directory (default "${DEFAULT_DIR}"; taken when the first word names a directory), the ticket id and the answer`,
    ],
    options: [JSON_COMMAND],
    run: async ({ words }, o, io, now) => {
      const args = dirTicketAndText(words, "[dir] <ticket> <text...>");
      if (args.kind === "bad") return args.message;
      const [ticket, ...text] = args.rest;
      const answer = { ticket: ticket!, text: text.join(" "), json: !!o.json };
      return (await commands()).mutateCommand("answer", args.dir, answer, io, now);
    },
  },
  {
    name: "retry",
    about:
      "a new attempt for a failed, limited or cancelled ticket — or, with --note, for a complete one a reviewer wants changed",
    usage: "[dir] <ticket> [--note TEXT]",
    arg: DIR_TICKET,
    options: [
      [
        "--note <text>",
        "feedback for the next attempt (it appears in its context as the reviewer's request)",
      ],
      JSON_COMMAND,
    ],
    run: async ({ words }, o, io, now) => {
      const args = dirAnd(1, words, "[dir] <ticket>");
      if (args.kind === "bad") return args.message;
      if (o.note !== undefined && o.note.trim() === "") {
        return '--note is empty: write the feedback, e.g. --note "use the v2 API"';
      }
      const retry = { ticket: args.rest[0]!, text: o.note, json: !!o.json };
      return (await commands()).mutateCommand("retry", args.dir, retry, io, now);
    },
  },
  {
    name: "cancel",
    about: "cancel the run: every open ticket becomes cancelled",
    options: [JSON_COMMAND],
    run: async ({ dir }, o, io, now) =>
      (await commands()).mutateCommand("cancel", dir, { json: !!o.json }, io, now),
  },
  {
    name: "reset",
    about: "start a new run: the old run's records archived, engine fields cleared",
    options: [JSON_COMMAND],
    run: async ({ dir }, o, io, now) =>
      (await import("./cli/reset.js")).resetCommand(dir, io, now, { json: !!o.json }),
  },
  {
    name: "ready",
    about: "the tickets that may be dispatched now, in dispatch order",
    options: [["--json", "print a ticket-frontier/command@1 object with the list"]],
    run: async ({ dir }, o, io, now) =>
      (await import("./cli/deps.js")).readyCommand(dir, { json: !!o.json }, io, now),
  },
  ...(["add", "rm"] as const).map(
    (action): CommandRow => ({
      name: `dep ${action}`,
      about:
        action === "add" ? "TICKET depends on DEP from now on" : "TICKET no longer depends on DEP",
      usage: "[dir] <ticket> <dep> [--json]",
      arg: [
        "[words...]",
        `[dir] ticket dep: the ticket directory (default "${DEFAULT_DIR}"), the ticket and its dependency`,
      ],
      options: [JSON_COMMAND],
      run: async ({ words }, o, io, now) => {
        const args = dirAnd(2, words, "[dir] <ticket> <dep>");
        if (args.kind === "bad") return args.message;
        const [ticket, dep] = args.rest;
        const { depCommand } = await import("./cli/deps.js");
        return depCommand(action, args.dir, ticket!, dep!, { json: !!o.json }, io, now);
      },
    }),
  ),
  {
    name: "report",
    about: "write the HTML report, the JSON receipt and the markdown comment",
    options: [
      ["--html <file>", "self-contained HTML report"],
      ["--json <file>", `JSON receipt (${RECEIPT_SCHEMA})`],
      ["--markdown <file>", "markdown, as posted on a PR"],
    ],
    run: async ({ dir }, o, io, now) => {
      const json = typeof o.json === "string" ? o.json : undefined;
      return (await commands()).reportCommand(
        dir,
        { html: o.html, json, markdown: o.markdown },
        io,
        now,
      );
    },
  },
  {
    name: "agent",
    about:
      "the built-in executor: the ticket's context to one chat-completions model, its outcome to $FRONTIER_OUTCOME_FILE",
    arg: "none",
    options: [
      [
        "--model <name>",
        "the model (a ticket's model: comes first; else frontier.yml model; else openai/gpt-4.1-mini on GitHub Models)",
      ],
      [
        "--endpoint <url>",
        "base URL of an OpenAI-compatible API (else frontier.yml model_endpoint; else GitHub Models)",
      ],
      [
        "--key-env <var>",
        "the variable holding the API key (else model_key_env; else GITHUB_TOKEN for GitHub Models, OPENAI_API_KEY for others)",
      ],
    ],
    run: async (_args, o, io) => (await import("./cli/agent.js")).agentCommand(o, io),
  },
];

/** What a group of subcommands (`dep add`, `dep rm`) says of itself. */
const GROUPS: Record<string, string> = {
  dep: "add or remove a dependency: TICKET depends on DEP (its depends_on, edited in place)",
};

/** A command's description, usage, argument and options, from its row. */
function defineCommand(
  command: Command,
  row: CommandRow,
  InvalidArgumentError: typeof import("commander").InvalidArgumentError,
): Command {
  command.description(row.about);
  if (row.usage !== undefined) command.usage(row.usage);
  if (row.arg === undefined) command.argument("[dir]", "ticket directory", DEFAULT_DIR);
  else if (row.arg !== "none") {
    command.argument(row.arg[0], row.arg[1], row.arg[0] === "[dir]" ? DEFAULT_DIR : undefined);
  }
  for (const [flags, about, min] of row.options ?? []) {
    if (min === undefined) command.option(flags, about);
    else if (min === "repeat") {
      command.option(flags, about, (value: string, list: string[] = []) => [...list, value]);
    } else {
      // a whole number of at least `min`; commander says the message
      command.option(flags, about, (value: string) => {
        const n = Number(value);
        if (Number.isInteger(n) && n >= min) return n;
        const flag = flags.split(" ")[0];
        throw new InvalidArgumentError(
          `${flag} takes a whole number of ${min} or more, got "${value}"`,
        );
      });
    }
  }
  return command;
}

async function parseWithCommander(argv: readonly string[], io: CliIo): Promise<number> {
  const { Command, CommanderError, InvalidArgumentError } = await import("commander");
  let code: number = EXIT.complete;
  const program = new Command()
    .name("frontier")
    .description("Run a directory of markdown tickets as a dependency graph.")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .showHelpAfterError("(run `frontier --help` for usage)")
    // "did you mean" by the one near-match rule (core/near.ts), not commander's looser one,
    // which offers `retry` for `ready` and `help` for `dep`
    .showSuggestionAfterError(false)
    .version((await import("./cli/version.js")).packageVersion(), "-V, --version")
    // each command as its usage line says it (`retry [dir] <ticket>`, not its raw words)
    .configureHelp({
      subcommandTerm: (cmd) =>
        `${cmd.name()} ${cmd.options.length === 0 ? cmd.usage().replace("[options] ", "") : cmd.usage()}`.trimEnd(),
    });
  for (const row of COMMANDS) {
    const [name, group] = row.name.split(" ").reverse();
    // `dep add` under `dep`, made with its group's first command
    const parent =
      group === undefined
        ? program
        : (program.commands.find((c) => c.name() === group) ??
          program.command(group).description(GROUPS[group]!));
    defineCommand(parent.command(name!), row, InvalidArgumentError).action(async function (this) {
      const [first = DEFAULT_DIR] = this.processedArgs;
      const args = Array.isArray(first) ? { dir: "", words: first } : { dir: first, words: [] };
      code = ended(await row.run(args, this.opts<Opts>(), io, Date.now()), io);
    });
  }

  program.addHelpText(
    "after",
    `\nStart with:\n  $ frontier init\n  $ frontier run\n${EXIT_CODES_HELP}`,
  );
  for (const command of program.commands) command.addHelpText("after", commandHelp(command.name()));

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.unknownCommand" && argv[0] !== undefined) {
        // a typo's distance only: a command contained in the word (`dep` in `deploy`) is
        // another command, not what was meant
        const { closest } = await import("./core/near.js");
        const near = closest(
          argv[0],
          program.commands.map((c) => c.name()),
        );
        if (near !== undefined) line(io.stderr, `Did you mean ${near}?`);
      }
      // --help and --version end here with code 0; usage errors were already printed.
      return error.exitCode === 0 ? EXIT.complete : EXIT.usage;
    }
    throw error;
  }
  return code;
}

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  isTTY: !!process.stderr.isTTY,
  env: process.env,
};

// a reader that went away (`frontier status | head -1`) ends the output quietly
quietWhenClosed(process.stdout);
quietWhenClosed(process.stderr);

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof Error && error.name === "WriteError") {
      // a full disk, a refused write, a report path in no directory: the message names
      // the file and the fix
      line(io.stderr, `error: ${error.message}`);
      process.exitCode = EXIT.failed;
      return;
    }
    // Anything reaching here is our bug, not the user's: say so plainly, once.
    line(io.stderr, `frontier: internal error: ${errorText(error)}`);
    line(io.stderr, "Please report this with the command you ran.");
    process.exitCode = 70;
  },
);
