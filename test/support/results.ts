import { join } from "node:path";
import { resultFile } from "../../src/tickets/layout.js";
import { createRecord } from "../../src/tickets/store.js";

/** Store an attempt's result text; returns its path relative to `dir`. Never overwrites. */
export function writeResult(dir: string, ticket: string, attempt: number, text: string): string {
  const rel = resultFile(ticket, attempt);
  createRecord(join(dir, rel), text, rel);
  return rel;
}
