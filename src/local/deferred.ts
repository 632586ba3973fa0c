/**
 * What a local run may leave for later: writes whose content the next load derives on
 * its own, so leaving them out of a batch loses nothing a kill could need.
 *
 * - A ticket whose new status is `pending`, `ready` or `blocked`: the engine derives
 *   those from the graph and the closed tickets on every load (a ticket that is
 *   `claimed` on disk and whose attempt record is written is settled from that record).
 *   Its file is written when its state next matters — when it is claimed, settled or
 *   closed — or at the end of the run. In a graph of many quick tickets nearly every
 *   ticket becomes ready and is claimed soon after: one write where there were two.
 * - The run record when only its dispatch count changed: every dispatch is already on
 *   disk as the claim in its ticket file (written before its attempt starts), and the
 *   loader never counts fewer dispatches than the ticket files show. The record is
 *   written whenever anything else in it changes, and at the end of the run.
 *
 * Everything else — claims, settled tickets, attempt records, results, answers, the
 * worklog — is written in the batch it belongs to, as before.
 */
import type { Changes } from "../core/engine.js";
import type { RunRecord, Status } from "../core/model.js";

/** Statuses the next load derives from the graph: their writes may wait. */
const DERIVED: ReadonlySet<Status> = new Set<Status>(["pending", "ready", "blocked"]);

export interface DeferView {
  state(id: string): { readonly status: Status } | undefined;
  runRecord(): RunRecord;
}

export class DeferredWrites {
  /** tickets whose file waits for their next non-derived state, or the end */
  private readonly tickets = new Set<string>();
  /** the run record as last written, without its dispatch count; undefined: never written */
  private runWritten: string | undefined;
  private runDirty = false;

  /**
   * The part of `changes` to write now; the rest is remembered for `flush`. A ticket
   * written now is no longer owed.
   */
  take(changes: Changes, engine: DeferView): Changes {
    const now: string[] = [];
    for (const id of changes.tickets) {
      const status = engine.state(id)?.status;
      if (status !== undefined && DERIVED.has(status)) {
        this.tickets.add(id);
      } else {
        this.tickets.delete(id);
        now.push(id);
      }
    }
    let run = changes.run;
    if (run) {
      const shape = withoutCount(engine.runRecord());
      if (shape === this.runWritten) {
        run = false;
        this.runDirty = true;
      } else {
        this.runWritten = shape;
        this.runDirty = false;
      }
    }
    return { ...changes, tickets: now, run };
  }

  /**
   * The run record now, when its dispatch count alone is owed: a ticket whose file
   * cannot be written does not show its claims on disk, so the count must be.
   */
  takeRun(): Changes | undefined {
    if (!this.runDirty) return undefined;
    this.runDirty = false;
    return { tickets: [], attempts: [], answers: [], log: [], run: true };
  }

  /** What is still owed: the remembered tickets and run record, to write at the end. */
  flush(): Changes {
    const out: Changes = {
      tickets: [...this.tickets],
      attempts: [],
      answers: [],
      log: [],
      run: this.runDirty,
    };
    this.tickets.clear();
    this.runDirty = false;
    return out;
  }

  /** How many ticket files are owed (tests, progress). */
  get owed(): number {
    return this.tickets.size;
  }
}

function withoutCount(run: RunRecord): string {
  return JSON.stringify({ ...run, dispatched: 0 });
}
