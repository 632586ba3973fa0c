/**
 * `frontier status`: loads the tickets, the engine and the receipt builder only — not
 * the report renderers, the runner or the YAML writer — so it stays fast on 10k tickets.
 */
import type { Status } from "../core/model.js";
import { buildReceipt } from "../report/receipt.js";
import { STATUS_ICON } from "../report/states.js";
import { type CliIo, EXIT } from "./io.js";
import { openDirectory } from "./open.js";

function json(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export async function statusCommand(dir: string, opts: { json: boolean }, io: CliIo, now: number) {
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const receipt = buildReceipt(opened.opened.frontier, { now, goal: opened.opened.settings.goal });
  if (opts.json) {
    json(io, receipt);
    return EXIT.complete;
  }
  // one write: at 10k tickets a write per line was a tenth of the command
  const out: string[] = [];
  const counts = Object.entries(receipt.counts)
    .map(([status, n]) => `${STATUS_ICON[status as Status]} ${n} ${status}`)
    .join(", ");
  out.push(`run ${receipt.run}: ${receipt.state} — ${counts}`);
  const byStatus = (s: string) => receipt.tickets.filter((t) => t.status === s).map((t) => t.id);
  const ready = byStatus("ready");
  if (ready.length > 0) out.push(`ready: ${ready.join(", ")}`);
  const running = receipt.tickets.filter((t) => t.status === "claimed");
  for (const t of running) out.push(`running: ${t.id} (attempt ${t.attempt}, ${t.claimed_by})`);
  for (const group of receipt.blockers) {
    const why = group.reason ? ` (${group.reason})` : "";
    out.push(
      `blocked: ${group.root} ${group.root_status}${why}: blocks ${group.tickets.length} — ${group.tickets.join(", ")}`,
    );
  }
  for (const q of receipt.questions) {
    out.push(`question from ${q.ticket}: ${q.question}`);
    out.push(`  answer with: frontier answer ${dir} ${q.ticket} "YOUR ANSWER"`);
  }
  if (receipt.remainder.length > 0) {
    out.push("open remainder:");
    for (const r of receipt.remainder) out.push(`  ${r.id}  ${r.status}  ${r.waiting_on}`);
  }
  io.stdout.write(`${out.join("\n")}\n`);
  return EXIT.complete;
}
