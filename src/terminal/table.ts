/**
 * The open remainder as a terminal shows it, in `status` and at the end of `run` alike.
 */
import type { RemainderEntry } from "../core/model.js";
import { STATUS_ICON } from "../report/states.js";
import { type Paint, STATUS_STYLE } from "./colour.js";
import { oneLine } from "./text.js";

/** Ids longer than this push only their own row out of line, not every column. */
const ID_COLUMN_MAX = 40;

/**
 * The open remainder as an aligned table: ticket, state (glyph and word), what it waits
 * on — each on one line, however many lines a failure's reason has (the record keeps it
 * whole). Shared by `status` and anything else that lists open tickets in a terminal.
 */
export function remainderTable(rows: readonly RemainderEntry[], paint: Paint): string[] {
  if (rows.length === 0) return [];
  let idWidth = "TICKET".length;
  for (const r of rows) idWidth = Math.max(idWidth, Math.min(r.id.length, ID_COLUMN_MAX));
  let stateWidth = "STATE".length;
  for (const r of rows) stateWidth = Math.max(stateWidth, r.status.length + 2);
  const out = [
    paint("dim", `  ${"TICKET".padEnd(idWidth)}  ${"STATE".padEnd(stateWidth)}  WAITING ON`),
  ];
  for (const r of rows) {
    const state = `${STATUS_ICON[r.status]} ${r.status}`;
    // padding is counted on the plain text: colour codes take no room on screen
    const pad = " ".repeat(Math.max(0, stateWidth - state.length));
    out.push(
      `  ${r.id.padEnd(idWidth)}  ${paint(STATUS_STYLE[r.status], state)}${pad}  ${oneLine(r.waiting_on)}`,
    );
  }
  return out;
}
