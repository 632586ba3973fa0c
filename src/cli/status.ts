/**
 * `frontier status`: loads the tickets, the engine and the receipt builder only — not
 * the report renderers, the runner or the YAML writer — so it stays fast on 10k tickets.
 */
import { STATUSES } from "../core/constants.js";
import { buildReceipt } from "../report/receipt.js";
import { STATUS_ICON } from "../report/states.js";
import { boundHint } from "./bound-hint.js";
import { type CliIo, EXIT } from "./io.js";
import { openDirectory } from "./open.js";

function json(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export async function statusCommand(dir: string, opts: { json: boolean }, io: CliIo, now: number) {
  const opened = await openDirectory(dir, {}, io, now);
  if (opened.kind === "exit") return opened.code;
  const frontier = opened.opened.frontier;
  if (opts.json) {
    json(io, buildReceipt(frontier, { now, goal: opened.opened.settings.goal }));
    return EXIT.complete;
  }
  // The text shows a few fields of the receipt: read them from the engine, not the whole
  // receipt (waves, critical path and a copy of every ticket's record, unused here).
  // Every ticket it names is open, so the remainder (file order) lists them all.
  const remainder = frontier.remainder(now);
  // one write: at 10k tickets a write per line was a tenth of the command
  const out: string[] = [];
  const all = frontier.counts();
  const counts = STATUSES.filter((s) => (all[s] ?? 0) > 0)
    .map((s) => `${STATUS_ICON[s]} ${all[s]} ${s}`)
    .join(", ");
  out.push(`run ${frontier.runRecord().run}: ${frontier.runState(now)} — ${counts}`);
  const ready = remainder.filter((r) => r.status === "ready").map((r) => r.id);
  if (ready.length > 0) out.push(`ready: ${ready.join(", ")}`);
  for (const r of remainder) {
    if (r.status !== "claimed") continue;
    const state = frontier.state(r.id);
    out.push(`running: ${r.id} (attempt ${state?.attempt ?? 0}, ${state?.claimed_by})`);
  }
  for (const group of frontier.blockerGroups()) {
    const why = group.reason ? ` (${group.reason})` : "";
    out.push(
      `blocked: ${group.root} ${group.root_status}${why}: blocks ${group.tickets.length} — ${group.tickets.join(", ")}`,
    );
  }
  for (const r of remainder) {
    if (r.status !== "suspended") continue;
    // as in the receipt: the question of the last attempt that asked one
    const attempts = frontier.state(r.id)?.attempts ?? [];
    const asked = [...attempts].reverse().find((a) => a.outcome === "suspended");
    if (asked?.question === undefined) continue;
    out.push(`question from ${r.id}: ${asked.question}`);
    out.push(`  answer with: frontier answer ${dir} ${r.id} "YOUR ANSWER"`);
  }
  const hint = boundHint(frontier, dir, now);
  if (hint !== undefined) out.push(hint);
  if (remainder.length > 0) {
    out.push("open remainder:");
    for (const r of remainder) out.push(`  ${r.id}  ${r.status}  ${r.waiting_on}`);
  }
  io.stdout.write(`${out.join("\n")}\n`);
  return EXIT.complete;
}
