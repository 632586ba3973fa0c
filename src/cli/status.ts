/**
 * `frontier status`: loads the tickets, the engine and the receipt builder only — not
 * the report renderers, the runner or the YAML writer — so it stays fast on 10k tickets.
 */
import { STATUSES } from "../core/constants.js";
import { type CliIo, EXIT } from "../core/io.js";
import type { Status } from "../core/model.js";
import { boundHint } from "../local/bound-hint.js";
import { type Paint, painter, paintStatus } from "../local/colour.js";
import { oneLine, plural, shellWord, shownPath } from "../local/text.js";
import { buildReceipt } from "../report/receipt.js";
import { remainderOf } from "../report/remainder.js";
import { STATUS_ICON } from "../report/states.js";
import { openDirectory } from "./open.js";

function json(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A row of the open-remainder table. */
export interface RemainderRow {
  id: string;
  status: Status;
  waiting_on: string;
}

/** Ids longer than this push only their own row out of line, not every column. */
const ID_COLUMN_MAX = 40;

/**
 * The open remainder as an aligned table: ticket, state (glyph and word), what it waits
 * on — each on one line, however many lines a failure's reason has (the record keeps it
 * whole). Shared by `status` and anything else that lists open tickets in a terminal.
 */
export function remainderTable(
  rows: readonly RemainderRow[],
  paint: Paint,
  indent = "  ",
): string[] {
  if (rows.length === 0) return [];
  let idWidth = "TICKET".length;
  for (const r of rows) idWidth = Math.max(idWidth, Math.min(r.id.length, ID_COLUMN_MAX));
  let stateWidth = "STATE".length;
  for (const r of rows) stateWidth = Math.max(stateWidth, r.status.length + 2);
  const out = [
    paint("dim", `${indent}${"TICKET".padEnd(idWidth)}  ${"STATE".padEnd(stateWidth)}  WAITING ON`),
  ];
  for (const r of rows) {
    const state = `${STATUS_ICON[r.status]} ${r.status}`;
    // padding is counted on the plain text: colour codes take no room on screen
    const pad = " ".repeat(Math.max(0, stateWidth - state.length));
    out.push(
      `${indent}${r.id.padEnd(idWidth)}  ${paintStatus(paint, r.status, state)}${pad}  ${oneLine(r.waiting_on)}`,
    );
  }
  return out;
}

export async function statusCommand(
  typed: string,
  opts: { json: boolean },
  io: CliIo,
  now: number,
) {
  const dir = shownPath(typed);
  // the text shows no ticket's body: the ticket cache can serve it (the receipt has them)
  const opened = await openDirectory(dir, {}, io, now, { bodies: opts.json });
  if (opened.kind === "exit") return opened.code;
  const frontier = opened.opened.frontier;
  if (opts.json) {
    json(
      io,
      buildReceipt(frontier, {
        now,
        goal: opened.opened.settings.goal,
        isolation: opened.opened.settings.isolation,
        where: "local",
      }),
    );
    return EXIT.complete;
  }
  const paint = painter(io.stdout, io.env);
  // The text shows a few fields of the receipt: read them from the engine, not the whole
  // receipt (waves, critical path and a copy of every ticket's record, unused here).
  // Every ticket it names is open, so the remainder (file order) lists them all.
  const remainder = remainderOf(frontier, now);
  // one write: at 10k tickets a write per line was a tenth of the command
  const out: string[] = [];
  const all = frontier.counts();
  const counts = STATUSES.filter((s) => (all[s] ?? 0) > 0)
    .map((s) => paintStatus(paint, s, `${STATUS_ICON[s]} ${all[s]} ${s}`))
    .join(", ");
  const total = frontier.specs().length;
  out.push(
    `${paint("bold", `run ${frontier.runRecord().run}`)}: ${frontier.runState(now)} — ${plural(total, "ticket")}: ${counts}`,
  );
  const ready = remainder.filter((r) => r.status === "ready").map((r) => r.id);
  if (ready.length > 0) out.push(`ready: ${ready.join(", ")}`);
  for (const r of remainder) {
    if (r.status !== "claimed") continue;
    const state = frontier.state(r.id);
    out.push(`running: ${r.id} (attempt ${state?.attempt ?? 0}, ${state?.claimed_by})`);
  }
  for (const group of frontier.blockerGroups()) {
    const why = group.reason ? ` (${oneLine(group.reason)})` : "";
    out.push(
      `${paint("red", "blocked")}: ${group.root} ${group.root_status}${why}: blocks ${group.tickets.length} — ${group.tickets.join(", ")}`,
    );
  }
  for (const r of remainder) {
    if (r.status !== "suspended") continue;
    // as in the receipt: the question of the last attempt that asked one
    const attempts = frontier.state(r.id)?.attempts ?? [];
    const asked = [...attempts].reverse().find((a) => a.outcome === "suspended");
    if (asked?.question === undefined) continue;
    out.push(`${paint("yellow", "question")} from ${r.id}: ${oneLine(asked.question)}`);
    out.push(`  answer with: frontier answer ${shellWord(dir)} ${shellWord(r.id)} "YOUR ANSWER"`);
  }
  const hint = boundHint(frontier, dir, now);
  if (hint !== undefined) out.push(hint);
  if (remainder.length > 0) {
    out.push(`open remainder (${plural(remainder.length, "ticket")}):`);
    out.push(...remainderTable(remainder, paint));
  }
  io.stdout.write(`${out.join("\n")}\n`);
  return EXIT.complete;
}
