#!/usr/bin/env node
/**
 * `frontier`: the local command. Parsing only; each command lives in
 * src/cli/commands.ts, and `run` in src/local/run.ts.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { DEFAULT_DIR, quickCommand } from "./cli/argv.js";
import { quietWhenClosed } from "./cli/closed-output.js";
import { commandHelp, EXIT_CODES_HELP } from "./cli/help.js";
import type { NewOptions } from "./cli/new.js";
import { RECEIPT_SCHEMA } from "./core/constants.js";
import { type CliIo, EXIT, line } from "./terminal/io.js";
import { shownPath } from "./terminal/text.js";

// Each command loads only what it needs: `frontier validate` over 10k tickets should cost
// little more than reading them, not the report renderers and the runner too.
const commands = () => import("./cli/commands.js");

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const gone = workingDirectoryGone(argv, io);
  if (gone !== undefined) {
    line(io.stderr, `error: ${gone}`);
    return EXIT.usage;
  }
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    line(io.stdout, (await import("./cli/version.js")).packageVersion());
    return EXIT.complete;
  }
  const quick = quickCommand(argv);
  if (quick?.command === "validate") {
    const { validateCommand } = await import("./cli/validate.js");
    return validateCommand(quick.dir, { json: quick.json }, io);
  }
  if (quick?.command === "status") {
    const { statusCommand } = await import("./cli/status.js");
    return statusCommand(quick.dir, { json: quick.json }, io, Date.now());
  }
  return parseWithCommander(argv, io);
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
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const absoluteDir = argv.find((a) => isAbsolute(a) && isDirectory(a));
  if (absoluteDir !== undefined) {
    process.chdir("/");
    return undefined;
  }
  const was = io.env.PWD ? ` ${io.env.PWD}` : "";
  return `the working directory${was} no longer exists (deleted or moved while the shell was in it) — cd to a directory that exists and run again, or pass the ticket directory as an absolute path`;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function parseWithCommander(argv: readonly string[], io: CliIo): Promise<number> {
  const { Command, CommanderError, InvalidArgumentError } = await import("commander");

  function positiveInt(name: string) {
    return (value: string): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) {
        throw new InvalidArgumentError(`${name} takes a whole number of 1 or more, got "${value}"`);
      }
      return n;
    };
  }

  function nonNegativeInt(name: string) {
    return (value: string): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) {
        throw new InvalidArgumentError(`${name} takes a whole number of 0 or more, got "${value}"`);
      }
      return n;
    };
  }

  let code: number = EXIT.complete;
  const now = () => Date.now();
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
  const { dirAndTicket, dirTicketAndText } = await import("./cli/dir-args.js");
  const usageError = (message: string) => {
    line(io.stderr, `error: ${message}`);
    code = EXIT.usage;
  };

  program
    .command("init")
    .description("write a starter ticket directory that runs as it is (and the GitHub workflows)")
    .argument("[dir]", "the ticket directory to make", DEFAULT_DIR)
    .option(
      "--coding",
      "settings for coding tickets: isolation, .frontier/ ignored, a stand-in agent",
    )
    .option("--github", "also write .github/workflows/frontier.yml and orch-task.yml")
    .option(
      "--action <ref>",
      "with --github: use the action at owner/repo@ref (else a copy in .github/actions/)",
    )
    .option(
      "--agent <name>",
      "with --github: the orch-task job's agent — model (the built-in agent on GitHub Models, the default), stand-in, codex or claude-code",
    )
    .option(
      "--sweep <every>",
      "with --github: how often the workflow sweeps for claims whose lease ran out — 15m, 30m, 1h (default), 6h, 1d or off",
    )
    .action(
      async (
        dir: string,
        o: { github?: boolean; coding?: boolean; action?: string; agent?: string; sweep?: string },
      ) => {
        code = await (await import("./cli/init.js")).initCommand(
          dir,
          {
            github: !!o.github,
            coding: !!o.coding,
            ...(o.action !== undefined && { action: o.action }),
            ...(o.agent !== undefined && { agent: o.agent }),
            ...(o.sweep !== undefined && { sweep: o.sweep }),
          },
          io,
        );
      },
    );

  program
    .command("new")
    .description("write a new ticket file, checking its id and its dependencies")
    .usage("[DIR] ID|TITLE [--after ID...] [--scope GLOB]... [options]")
    .argument(
      "[dir-and-id...]",
      `[DIR] ID: the ticket directory (default ${DEFAULT_DIR}), then the id — or a title in quotes, to make the id from`,
    )
    .option("--after <ids...>", "ids it depends on (space- or comma-separated)")
    .option("--title <title>", "its title (default: from the id)")
    .option("--scope <glob>", "a path it may change; repeatable", (g, a: string[] = []) =>
      a.concat(g),
    )
    .option("--isolation <how>", "worktree (its own worktree, its changes committed) or none")
    .option("--agent <name>", "tickets naming the same agent never run at once")
    .option("--executor <name>", "an entry of executors: in frontier.yml")
    .option(
      "--json",
      `print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words`,
    )
    .action(async (args: string[], o: NewOptions) => {
      const { newCommand, positionalsAfter } = await import("./cli/new.js");
      const words = positionalsAfter(args, o.after);
      code = await newCommand(words.positional, { ...o, after: words.after, json: !!o.json }, io);
    });

  program
    .command("validate")
    .description("check the ticket directory; every problem with file:line; exit 2 if any")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option("--json", "print the problems as JSON")
    .option(
      "--for <runner>",
      "local: exactly what `frontier run` accepts; github: what a run on GitHub accepts (default: both, what stops only one runner as a warning)",
    )
    .action(async (dir: string, o: { json?: boolean; for?: string }) => {
      if (o.for !== undefined && o.for !== "local" && o.for !== "github") {
        return usageError(`--for takes local or github, got "${o.for}"`);
      }
      code = await (await import("./cli/validate.js")).validateCommand(
        dir,
        { json: !!o.json, ...(o.for !== undefined && { for: o.for }) },
        io,
      );
    });

  program
    .command("plan")
    .description("print the waves and the critical path")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option("--json", "print the receipt")
    .option("--mermaid", "print a mermaid flowchart")
    .action(async (dir: string, o: { json?: boolean; mermaid?: boolean }) => {
      code = await (await commands()).planCommand(
        dir,
        { json: !!o.json, mermaid: !!o.mermaid },
        io,
        now(),
      );
    });

  program
    .command("status")
    .description("state, ready, blocked with causes, open remainder")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option("--json", "print the receipt")
    .action(async (dir: string, o: { json?: boolean }) => {
      code = await (await import("./cli/status.js")).statusCommand(
        dir,
        { json: !!o.json },
        io,
        now(),
      );
    });

  program
    .command("run")
    .description("run the graph here, one shell command per attempt")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option("--exec <cmd>", "shell command run once per attempt (else frontier.yml executor)")
    .option("--max-parallel <n>", "at most N tickets at once", positiveInt("--max-parallel"))
    .option("--bound <n>", "at most N dispatches in this run", nonNegativeInt("--bound"))
    .option("--json", "print the receipt on stdout and nothing else there")
    .option("--fresh", "start a new run first (as `frontier reset`), then run")
    .action(
      async (
        dir: string,
        o: { exec?: string; maxParallel?: number; bound?: number; json?: boolean; fresh?: boolean },
      ) => {
        const shown = shownPath(dir);
        if (o.fresh) {
          // the reset's report goes to stderr: with --json, stdout holds the receipt only
          code = await (await import("./cli/reset.js")).resetCommand(
            shown,
            { ...io, stdout: io.stderr },
            now(),
            { fresh: true, as: "run --fresh" },
          );
          if (code !== EXIT.complete) return;
        }
        code = await (await import("./local/run.js")).runCommand(
          shown,
          {
            json: !!o.json,
            ...(o.exec !== undefined && { exec: o.exec }),
            ...(o.maxParallel !== undefined && { maxParallel: o.maxParallel }),
            ...(o.bound !== undefined && { bound: o.bound }),
          },
          io,
        );
        await (await import("./cli/after-run.js")).afterRun(shown, o.exec, code, io);
      },
    );

  program
    .command("context")
    .description("print the text an executor is given for a ticket")
    .usage("[dir] <ticket>")
    .argument(
      "<words...>",
      `[dir] ticket: the ticket directory (default "${DEFAULT_DIR}") and the ticket id`,
    )
    .action(async (words: string[]) => {
      const args = dirAndTicket(words, "[dir] <ticket>");
      if (args.kind === "bad") return usageError(args.message);
      code = await (await commands()).contextCommand(args.dir, args.rest[0]!, io, now());
    });

  program
    .command("answer")
    .description("answer a suspended ticket's question; it becomes ready again")
    .usage("[dir] <ticket> <text...>")
    .argument(
      "<words...>",
      `[dir] ticket text: the ticket directory (default "${DEFAULT_DIR}"; taken when the first word names a directory), the ticket id and the answer`,
    )
    .option(
      "--json",
      `print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words`,
    )
    .action(async (words: string[], o: { json?: boolean }) => {
      const args = dirTicketAndText(words, "[dir] <ticket> <text...>");
      if (args.kind === "bad") return usageError(args.message);
      const [ticket, ...text] = args.rest;
      code = await (await commands()).mutateCommand(
        "answer",
        args.dir,
        { ticket: ticket!, text: text.join(" ") },
        io,
        now(),
        { json: !!o.json },
      );
    });

  program
    .command("retry")
    .description(
      "a new attempt for a failed, limited or cancelled ticket — or, with --note, for a complete one a reviewer wants changed",
    )
    .usage("[dir] <ticket> [--note TEXT]")
    .argument(
      "<words...>",
      `[dir] ticket: the ticket directory (default "${DEFAULT_DIR}") and the ticket id`,
    )
    .option(
      "--note <text>",
      "feedback for the next attempt (it appears in its context as the reviewer's request)",
    )
    .option(
      "--json",
      `print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words`,
    )
    .action(async (words: string[], opts: { note?: string; json?: boolean }) => {
      const args = dirAndTicket(words, "[dir] <ticket>");
      if (args.kind === "bad") return usageError(args.message);
      if (opts.note !== undefined && opts.note.trim() === "") {
        return usageError('--note is empty: write the feedback, e.g. --note "use the v2 API"');
      }
      code = await (await commands()).mutateCommand(
        "retry",
        args.dir,
        { ticket: args.rest[0]!, ...(opts.note !== undefined ? { text: opts.note } : {}) },
        io,
        now(),
        { json: !!opts.json },
      );
    });

  program
    .command("cancel")
    .description("cancel the run: every open ticket becomes cancelled")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option(
      "--json",
      `print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words`,
    )
    .action(async (dir: string, o: { json?: boolean }) => {
      code = await (await commands()).mutateCommand("cancel", dir, {}, io, now(), {
        json: !!o.json,
      });
    });

  program
    .command("reset")
    .description("start a new run: the old run's records archived, engine fields cleared")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option(
      "--json",
      `print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words`,
    )
    .action(async (dir: string, o: { json?: boolean }) => {
      code = await (await import("./cli/reset.js")).resetCommand(dir, io, now(), {
        json: !!o.json,
      });
    });

  program
    .command("ready")
    .description("the tickets that may be dispatched now, in dispatch order")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option("--json", "print a ticket-frontier/command@1 object with the list")
    .action(async (dir: string, o: { json?: boolean }) => {
      code = await (await import("./cli/deps.js")).readyCommand(dir, { json: !!o.json }, io, now());
    });

  const dep = program
    .command("dep")
    .description(
      "add or remove a dependency: TICKET depends on DEP (its depends_on, edited in place)",
    );
  for (const action of ["add", "rm"] as const) {
    dep
      .command(action)
      .description(
        action === "add" ? "TICKET depends on DEP from now on" : "TICKET no longer depends on DEP",
      )
      .usage("[dir] <ticket> <dep> [--json]")
      .argument(
        "<words...>",
        `[dir] ticket dep: the ticket directory (default "${DEFAULT_DIR}"), the ticket and its dependency`,
      )
      .option(
        "--json",
        `print a ticket-frontier/command@1 object (schema/command.schema.json) instead of words`,
      )
      .action(async (words: string[], o: { json?: boolean }) => {
        if (words.length !== 2 && words.length !== 3) {
          return usageError(`expected [dir] <ticket> <dep>, got ${words.length} words`);
        }
        const [dirWord, ticket, depId] = words.length === 3 ? words : [DEFAULT_DIR, ...words];
        code = await (await import("./cli/deps.js")).depCommand(
          action,
          dirWord!,
          ticket!,
          depId!,
          { json: !!o.json },
          io,
          now(),
        );
      });
  }

  program
    .command("report")
    .description("write the HTML report, the JSON receipt and the markdown comment")
    .argument("[dir]", "ticket directory", DEFAULT_DIR)
    .option("--html <file>", "self-contained HTML report")
    .option("--json <file>", `JSON receipt (${RECEIPT_SCHEMA})`)
    .option("--markdown <file>", "markdown, as posted on a PR")
    .action(async (dir: string, o: { html?: string; json?: string; markdown?: string }) => {
      code = await (await commands()).reportCommand(dir, o, io, now());
    });

  program
    .command("agent")
    .description(
      "the built-in executor: the ticket's context to one chat-completions model, its outcome to $FRONTIER_OUTCOME_FILE",
    )
    .option(
      "--model <name>",
      "the model (a ticket's model: comes first; else frontier.yml model; else openai/gpt-4.1-mini on GitHub Models)",
    )
    .option(
      "--endpoint <url>",
      "base URL of an OpenAI-compatible API (else frontier.yml model_endpoint; else GitHub Models)",
    )
    .option(
      "--key-env <var>",
      "the variable holding the API key (else model_key_env; else GITHUB_TOKEN for GitHub Models, OPENAI_API_KEY for others)",
    )
    .action(async (o: { model?: string; endpoint?: string; keyEnv?: string }) => {
      code = await (await import("./cli/agent.js")).agentCommand(o, io);
    });

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
      // a full disk, a refused write: the message names the file and the fix
      line(io.stderr, `error: ${error.message}`);
      process.exitCode = EXIT.failed;
      return;
    }
    // Anything reaching here is our bug, not the user's: say so plainly, once.
    line(
      io.stderr,
      `frontier: internal error: ${error instanceof Error ? error.message : String(error)}`,
    );
    line(io.stderr, "Please report this with the command you ran.");
    process.exitCode = 70;
  },
);
