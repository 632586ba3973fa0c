/**
 * The `frontier` commands other than `run` (src/local/run.ts), `validate` and `status`
 * (validate.ts, status.ts: kept apart so they load only what they need). Each returns
 * its exit code; none throws for a user's mistake.
 */
import { join } from "node:path";
import type { Receipt } from "../core/model.js";
import { renderMermaid } from "../report/mermaid.js";
import { buildReceipt } from "../report/receipt.js";
import { writeReports } from "../report/write.js";
import { readContext, resultReader } from "../tickets/context-io.js";
import { type CliIo, EXIT, line } from "./io.js";
import { takeLock } from "./lock.js";
import { commitChanges, localUser, openDirectory } from "./open.js";

export { statusCommand } from "./status.js";

function json(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export async function planCommand(
  dir: string,
  opts: { json: boolean; mermaid: boolean },
  io: CliIo,
  now: number,
) {
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const receipt = buildReceipt(opened.opened.frontier, { now, goal: opened.opened.settings.goal });
  if (opts.json) json(io, receipt);
  else if (opts.mermaid) io.stdout.write(`${renderMermaid(receipt)}\n`);
  else printPlan(receipt, io);
  return EXIT.complete;
}

function printPlan(receipt: Receipt, io: CliIo): void {
  const out = io.stdout;
  line(
    out,
    `run ${receipt.run}: ${receipt.tickets.length} tickets in ${receipt.waves.length} waves`,
  );
  if (receipt.goal) line(out, `goal: ${receipt.goal}`);
  receipt.waves.forEach((wave, i) => {
    line(out, `  wave ${i + 1}: ${wave.join(", ")}`);
  });
  line(
    out,
    `critical path (${receipt.critical_path.length} tickets): ${receipt.critical_path.join(" → ")}`,
  );
}

export async function contextCommand(dir: string, ticket: string, io: CliIo, now: number) {
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const { frontier, settings } = opened.opened;
  if (!frontier.spec(ticket)) {
    line(
      io.stderr,
      `error: no ticket "${ticket}" in ${dir} — \`frontier status ${dir}\` lists them`,
    );
    return EXIT.usage;
  }
  io.stdout.write(await readContext(dir, frontier, ticket, settings));
  return EXIT.complete;
}

type Mutation = "answer" | "retry" | "cancel";

export async function mutateCommand(
  kind: Mutation,
  dir: string,
  args: { ticket?: string; text?: string },
  io: CliIo,
  now: number,
) {
  // The live runner holds the graph in memory and would not see this change: the change
  // is made under the run's lock, so it never lands while a run is working.
  const lock = await takeLock(dir, io, kind, now);
  if (lock === undefined) return EXIT.usage;
  try {
    const opened = await openDirectory(dir, {}, io, now);
    if (opened.kind === "exit") return opened.code;
    const { frontier } = opened.opened;
    const by = localUser(io.env);
    const result =
      kind === "answer"
        ? frontier.answer(args.ticket ?? "", args.text ?? "", by, now)
        : kind === "retry"
          ? frontier.retry(args.ticket ?? "", by, now)
          : frontier.cancel(by, now);
    switch (result.kind) {
      case "ok": {
        const unwritable = await commitChanges(dir, frontier);
        for (const message of unwritable) line(io.stderr, `error: ${join(dir, message)}`);
        if (unwritable.length > 0) return EXIT.failed;
        line(io.stdout, confirmation(kind, args.ticket, dir, result.changed.length));
        return EXIT.complete;
      }
      case "stale":
        line(io.stdout, result.message);
        return EXIT.complete;
      case "rejected":
        line(io.stderr, `error: ${result.message}`);
        return EXIT.usage;
      default: {
        const never: never = result;
        return never;
      }
    }
  } finally {
    await lock();
  }
}

function confirmation(kind: Mutation, ticket: string | undefined, dir: string, changed: number) {
  switch (kind) {
    case "answer":
      return `answered ${ticket}: it is ready again — \`frontier run ${dir}\` continues.`;
    case "retry":
      return `${ticket} will run again (${changed} ticket${changed === 1 ? "" : "s"} back in play) — \`frontier run ${dir}\` continues.`;
    case "cancel":
      return `run cancelled: ${changed} open ticket${changed === 1 ? "" : "s"} closed as cancelled.`;
  }
}

export async function reportCommand(
  dir: string,
  opts: { html?: string; json?: string; markdown?: string },
  io: CliIo,
  now: number,
) {
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const receipt = buildReceipt(opened.opened.frontier, {
    now,
    goal: opened.opened.settings.goal,
    resultText: resultReader(dir),
  });
  const targets =
    opts.html || opts.json || opts.markdown
      ? opts
      : {
          html: join(dir, ".frontier", "report.html"),
          json: join(dir, ".frontier", "receipt.json"),
          markdown: join(dir, ".frontier", "report.md"),
        };
  writeReports(receipt, targets);
  for (const [what, path] of Object.entries(targets)) {
    if (path) line(io.stdout, `${what}: ${path}`);
  }
  return EXIT.complete;
}
