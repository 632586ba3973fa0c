/**
 * The `frontier` commands other than `run` (src/local/run.ts), `validate` and `status`
 * (validate.ts, status.ts: kept apart so they load only what they need). Each returns
 * its exit code (context: or its usage error); none throws for a user's mistake.
 */
import { join } from "node:path";
import { step } from "../core/event.js";
import { localUser, openDirectory, writeChanges } from "../local/open.js";
import { localReports, writeReports } from "../local/report-files.js";
import type { GithubCost, Measured } from "../report/github-cost.js";
import { renderMermaidGraph } from "../report/mermaid.js";
import { localReceipt, receiptJson } from "../report/receipt.js";
import { refusalWords } from "../report/refusals.js";
import { remainderOf } from "../report/remainder.js";
import { errorLine } from "../terminal/colour.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { noun, plural, shellWord, shownPath } from "../terminal/text.js";
import { readContext, resultReader } from "../tickets/context-io.js";
import { continueCommand } from "./continue.js";
import { printResult, refusal } from "./json.js";
import { underLock } from "./lock.js";
import { unknownTicket } from "./suggest.js";

export async function planCommand(
  typed: string,
  opts: { json: boolean; mermaid: boolean },
  io: CliIo,
  now: number,
) {
  const dir = shownPath(typed);
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const receipt = localReceipt(opened.opened, now);
  if (opts.json) io.stdout.write(receiptJson(receipt));
  else if (opts.mermaid) io.stdout.write(`${renderMermaidGraph(receipt).text}\n`);
  else {
    const out = io.stdout;
    line(
      out,
      `run ${receipt.run}: ${plural(receipt.tickets.length, "ticket")} in ${plural(receipt.waves.length, "wave")}`,
    );
    if (receipt.goal) line(out, `goal: ${receipt.goal}`);
    for (const [i, wave] of receipt.waves.entries())
      line(out, `  wave ${i + 1}: ${wave.join(", ")}`);
    line(
      out,
      `critical path (${plural(receipt.critical_path.length, "ticket")}): ${receipt.critical_path.join(" → ")}`,
    );
    const { settings, specs } = opened.opened;
    const { githubCost } = await import("../report/github-cost.js");
    const { MEASURED_FIGURES } = await import("../report/github-measured.js");
    const cost = githubCost(specs.map((t) => t.retries ?? settings.retries ?? 0));
    for (const text of githubCostLines(cost, MEASURED_FIGURES)) line(out, text);
  }
  return EXIT.complete;
}

/** `0.05`, `4.1`: hours of a budget, to a precision that still says something. */
function hoursText(hours: number): string {
  return hours < 0.1 ? hours.toFixed(2) : hours.toFixed(1);
}

const BUDGET_WORDS = {
  writes: "write budget (500 writes an hour)",
  graphql: "GraphQL budget (1,000 points an hour)",
  rest: "REST budget (1,000 requests an hour)",
} as const;

/** What `plan` says the run will cost on GitHub, and where the figures come from. */
function githubCostLines(cost: GithubCost, measured: Measured): string[] {
  const { typical, worst, jobs } = cost;
  const retried = jobs.most > jobs.least ? `, up to ${jobs.most} with retries` : "";
  return [
    "on GitHub:",
    `  jobs: ${plural(jobs.least, "orch-task job")} (one per attempt${retried}) and 1 frontier job for the push; on a private repository each is billed at least a minute`,
    `  API requests: about ${typical.requests} (GraphQL ${typical.graphql}, REST ${typical.rest}), ${plural(typical.writes, "write")}; up to ${worst.requests} and ${plural(worst.writes, "write")} when settles race`,
    `  needs ${hoursText(typical.hours[typical.binding])} hours of GITHUB_TOKEN's ${BUDGET_WORDS[typical.binding]}, up to ${hoursText(worst.hours[worst.binding])}${worst.hours[worst.binding] > 1 ? ": the run takes at least that long there" : ""}`,
    `  (per-ticket figures measured by \`npm run bench\` on ${measured.measured_at.slice(0, 10)}: ${measured.typical.graphql} GraphQL, ${measured.typical.rest} REST, ${measured.typical.writes} writes a ticket)`,
  ];
}

/** The ticket's context on stdout; a ticket the directory lacks is a usage error, said by cli.ts. */
export async function contextCommand(typed: string, ticket: string, io: CliIo, now: number) {
  const dir = shownPath(typed);
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const { frontier, settings } = opened.opened;
  const ids = frontier.specs().map((s) => s.id);
  if (!frontier.spec(ticket)) return unknownTicket(ticket, dir, ids);
  io.stdout.write(await readContext(dir, frontier, ticket, settings));
  return EXIT.complete;
}

type Mutation = "answer" | "retry" | "cancel";

/** `args.json`: print a ticket-frontier/command@1 object instead of words */
export async function mutateCommand(
  kind: Mutation,
  typed: string,
  args: { ticket?: string; text?: string; json?: boolean },
  io: CliIo,
  now: number,
) {
  const dir = shownPath(typed);
  const ticket = args.ticket !== undefined ? { ticket: args.ticket } : {};
  const refuse = refusal(io, kind, dir, args.json, ticket);
  if (kind === "answer" && (args.text ?? "").trim() === "") {
    return refuse(
      `the answer is empty; write it after the ticket id: frontier answer ${shellWord(dir)} ${shellWord(args.ticket ?? "TICKET")} "YOUR ANSWER"`,
    );
  }
  return underLock(dir, io, kind, now, refuse, async () => {
    const opened = await openDirectory(dir, {}, io, now);
    if (opened.kind === "exit") return opened.code;
    const { frontier } = opened.opened;
    if (args.ticket !== undefined && !frontier.spec(args.ticket)) {
      const ids = frontier.specs().map((s) => s.id);
      return refuse(unknownTicket(args.ticket, dir, ids));
    }
    const by = localUser(io.env);
    // One event (core/event.ts), claiming nothing: the next `frontier run` starts what it
    // made ready. Claims are not reclaimed here: that is the runner's, under the same lock.
    const result =
      kind === "answer"
        ? frontier.answer(args.ticket ?? "", args.text ?? "", by, now)
        : kind === "retry"
          ? frontier.retry(args.ticket ?? "", by, now, args.text)
          : frontier.cancel(by, now);
    const { changes } = step(frontier, { now, reclaim: false });
    if (result.kind === "rejected") return refuse(refusalWords(result.why));
    if (result.kind === "stale") {
      const message = refusalWords(result.why);
      if (args.json) printResult(io, kind, dir, { ok: false, message, ...ticket });
      else line(io.stdout, message);
      return EXIT.complete;
    }
    const unwritable = await writeChanges(opened.opened, changes);
    for (const message of unwritable) errorLine(io, join(dir, message));
    if (unwritable.length > 0) return EXIT.failed;
    const next = continueCommand(dir, opened.opened, remainderOf(frontier, now));
    const ran = kind === "retry" ? frontier.ranDependents(args.ticket ?? "") : [];
    const said = confirmation(kind, args.ticket, result.changed.length, ran);
    if (args.json) {
      printResult(io, kind, dir, {
        ok: true,
        message: said.join(" "),
        ...ticket,
        changed: result.changed,
        ...(kind !== "cancel" && { next }),
      });
    } else {
      line(io.stdout, `${said.join("\n")}${kind === "cancel" ? "" : ` Continue with:\n  ${next}`}`);
    }
    return EXIT.complete;
  });
}

/** What the command says it did; a retry first names the dependents that ran on the old result. */
function confirmation(
  kind: Mutation,
  ticket: string | undefined,
  changed: number,
  ran: readonly string[],
): string[] {
  if (kind === "answer") return [`answered ${ticket}: it is ready again.`];
  if (kind === "cancel")
    return [`run cancelled: ${plural(changed, "open ticket")} closed as cancelled.`];
  const again = `${ticket} will run again (${plural(changed, "ticket")} back in play).`;
  if (ran.length === 0) return [again];
  return [
    `${plural(ran.length, "dependent")} of ${ticket} already ran on its earlier result and ${noun(ran.length, "is", "are")} not re-run unless retried too: ${ran.join(", ")}`,
    again,
  ];
}

export async function reportCommand(
  typed: string,
  opts: { html?: string; json?: string; markdown?: string },
  io: CliIo,
  now: number,
) {
  const dir = shownPath(typed);
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const receipt = localReceipt(opened.opened, now, {
    resultText: resultReader(dir),
    ...(await import("../local/worktree.js")).isolatedReceipt(dir, opened.opened.frontier),
  });
  const targets = opts.html || opts.json || opts.markdown ? opts : localReports(dir);
  writeReports(receipt, { ...targets, dir: shellWord(dir) });
  for (const [what, path] of Object.entries(targets)) {
    if (path) line(io.stdout, `${what}: ${shownPath(path)}`);
  }
  return EXIT.complete;
}
