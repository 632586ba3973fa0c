import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TicketSpec } from "../core/model.js";
import { parseTicket } from "../tickets/parse.js";
import { tryReadText } from "../tickets/read-optional.js";
import { currentSignature, type FileSignature } from "../tickets/store.js";

export type Edit = "changed" | "deleted";

export class TicketWatch {
  /** each open ticket file's signature when this run last knew its graph to be the engine's */
  private readonly signatures = new Map<string, FileSignature | undefined>();
  /** files last read in a version someone else made: a write planned from it is not this run's own */
  private readonly foreign = new Set<string>();

  /** `specs`: the tickets that may still be claimed, as they look now */
  constructor(
    private readonly dir: string,
    specs: readonly TicketSpec[],
  ) {
    // a file changed by someone else before its claim (its dependencies edited, the
    // file deleted) is seen
    for (const spec of specs)
      this.signatures.set(spec.file, currentSignature(join(dir, spec.file)));
  }

  /**
   * `file`'s bytes (a body that is not UTF-8 is kept as it is), to plan its write from;
   * its signature, taken after them, tells an author's version from this run's own.
   */
  readonly read = (file: string): Buffer => {
    const path = join(this.dir, file);
    const bytes = readFileSync(path);
    if (currentSignature(path) === this.signatures.get(file)) this.foreign.delete(file);
    else this.foreign.add(file);
    return bytes;
  };

  /** `file` as this run wrote it (applyEdits' `replaced`): its own unless `read` gave an author's version. */
  readonly seen = (file: string, signature: FileSignature) => {
    if (!this.foreign.delete(file)) this.signatures.set(file, signature);
  };

  /** The claimed tickets among `claimed` whose graph someone else edited, and how. */
  edits(claimed: readonly TicketSpec[]): Array<{ spec: TicketSpec; how: Edit }> {
    const out: Array<{ spec: TicketSpec; how: Edit }> = [];
    for (const spec of claimed) {
      const path = join(this.dir, spec.file);
      const now = currentSignature(path);
      if (now === this.signatures.get(spec.file)) continue;
      this.signatures.set(spec.file, now);
      if (now === undefined) out.push({ spec, how: "deleted" });
      else if (graphChanged(spec, tryReadText(path) ?? "")) out.push({ spec, how: "changed" });
    }
    return out;
  }
}

/** Whether `text` (a ticket file read again) gives `spec` another id or other dependencies. */
function graphChanged(spec: TicketSpec, text: string): boolean {
  const parsed = parseTicket(text, spec.file, spec.order);
  if (parsed.kind !== "ok") return false;
  const now = parsed.spec;
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((x, i) => x === b[i]);
  return (
    now.id !== spec.id || !same(now.dependsOn, spec.dependsOn) || !same(now.inputs, spec.inputs)
  );
}
