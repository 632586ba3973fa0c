import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TicketSpec } from "../core/model.js";
import { parseTicket } from "../tickets/parse.js";
import { tryReadText } from "../tickets/read-optional.js";
import {
  applyEdits,
  currentSignature,
  type FileSignature,
  replaceIfUnchanged,
  writing,
} from "../tickets/store.js";
import type { FileEdit } from "../tickets/writeback.js";

export type Edit = "changed" | "deleted";

/**
 * The open ticket files as this run knows them. A file's signature is known while its
 * graph is the engine's: taken at the start, and after each write the run made from the
 * version it knew. A write made from an author's version carries the edit and leaves the
 * signature unknown, so `edits` reads the file again before its claim starts.
 */
export class TicketWatch {
  /** each open ticket file's signature while its graph is known to be the engine's */
  private readonly signatures = new Map<string, FileSignature | undefined>();
  /** each ticket file's signature as `read` last read it */
  private readonly readAs = new Map<string, FileSignature>();

  /** `specs`: the tickets that may still be claimed, as they look now */
  constructor(
    private readonly dir: string,
    specs: readonly TicketSpec[],
  ) {
    for (const spec of specs)
      this.signatures.set(spec.file, currentSignature(join(dir, spec.file)));
  }

  /** `file`'s bytes (a body that is not UTF-8 is kept as it is), to plan its write from. */
  readonly read = (file: string): Buffer => {
    const path = join(this.dir, file);
    const bytes = readFileSync(path);
    // taken after the bytes: a change in between is taken for someone else's ("": gone)
    this.readAs.set(file, currentSignature(path) ?? "");
    return bytes;
  };

  /**
   * Make `edits`, a ticket file's only while it is as `read` read it (compare-and-swap):
   * one changed since is planned again from its new text by `replan`; lost twice, it
   * waits for its ticket's next write (returned). An author's edit is never overwritten.
   */
  write(edits: readonly FileEdit[], replan: (file: string) => FileEdit[]): string[] {
    const lost: string[] = [];
    for (const edit of edits) {
      if (this.writeAsRead(edit)) continue;
      const [again] = replan(edit.path);
      if (again && !this.writeAsRead(again)) lost.push(edit.path);
    }
    return lost;
  }

  /** Make `edit` unless its file changed since `read` read it; false when it changed. */
  private writeAsRead(edit: FileEdit): boolean {
    const expected = this.readAs.get(edit.path);
    if (expected === undefined || edit.kind !== "replace") {
      applyEdits(this.dir, [edit], this.seen);
      return true;
    }
    const path = join(this.dir, edit.path);
    const signature = writing(path, () =>
      replaceIfUnchanged(path, edit.bytes ?? edit.content, expected),
    );
    if (signature !== undefined) this.seen(edit.path, signature);
    return signature !== undefined;
  }

  private readonly seen = (file: string, signature: FileSignature) => {
    if (this.readAs.get(file) === this.signatures.get(file)) this.signatures.set(file, signature);
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
  const graph = (s: TicketSpec) => JSON.stringify([s.id, s.dependsOn, s.inputs]);
  return graph(parsed.spec) !== graph(spec);
}
