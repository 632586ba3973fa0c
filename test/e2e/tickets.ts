/** Ticket directories for the end-to-end tests, written to a temporary directory. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TicketDef {
  id: string;
  deps?: string[];
  /** extra front matter lines, e.g. "bound: 1s\\nretries: 1" */
  extra?: string;
}

export function writeTickets(defs: TicketDef[], settings: string = "run: e2e\n"): string {
  const dir = mkdtempSync(join(tmpdir(), "frontier-e2e-tickets-"));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "frontier.yml"), settings);
  for (const d of defs) {
    const deps = d.deps && d.deps.length > 0 ? `depends_on: [${d.deps.join(", ")}]\n` : "";
    const extra = d.extra ? `${d.extra.trimEnd()}\n` : "";
    writeFileSync(
      join(dir, `${d.id}.md`),
      `---\n${deps}${extra}---\n\n# Ticket ${d.id}\n\nDo ${d.id}.\n`,
    );
  }
  return dir;
}

/** `layers` layers of `width` tickets; each depends on two tickets of the layer before. */
export function layeredGraph(layers: number, width: number): TicketDef[] {
  const id = (l: number, i: number) =>
    `t${String(l).padStart(2, "0")}-${String(i).padStart(2, "0")}`;
  const defs: TicketDef[] = [];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < width; i++) {
      defs.push(
        l === 0
          ? { id: id(l, i) }
          : { id: id(l, i), deps: [id(l - 1, i), id(l - 1, (i + 1) % width)] },
      );
    }
  }
  return defs;
}
