/**
 * The JSON receipt (`ticket-frontier/receipt@1`, SPEC §7): the whole record of a run,
 * and the one input of every renderer. Built from the engine's query API only, so the
 * CLI, the runner and the action all report the same thing.
 */

import {
  DEFAULTS,
  type IsolationName,
  RECEIPT_SCHEMA,
  STATUSES,
  ticketIsolation,
} from "../core/constants.js";
import type { Frontier } from "../core/engine.js";
import { setDefined, usageTotal } from "../core/engine-types.js";
import type {
  AttemptRecord,
  Receipt,
  ReceiptAttempt,
  ReceiptBranch,
  ReceiptTicket,
  RunPlace,
  Settings,
  Status,
  TicketSpec,
  TicketState,
} from "../core/model.js";
import { type Held, remainderOf } from "./remainder.js";
import { durationMs } from "./states.js";

export interface ReceiptOptions {
  /** the clock: when the receipt is made (ms since the epoch) */
  now: number;
  /** the run's goal, from frontier.yml */
  goal?: string;
  /**
   * Where the run ran (absent: read as `github`): a local run's reports name `frontier` commands
   * and the files under DIR/.frontier/, a GitHub run's name `/answer`, workflow runs
   * and artifacts.
   */
  where?: RunPlace;
  /** where the full record lives, when known */
  links?: { html_report?: string; workflow_run?: string; repository?: string };
  /**
   * The text of a result file (relative to the ticket directory), when the caller has
   * it at hand (local reports). Return undefined when it cannot be read.
   */
  resultText?: (file: string) => string | undefined;
  /** the run's default `isolation` (frontier.yml), for the tickets that set none */
  isolation?: IsolationName;
  /** the branch the run's changes land on; its commits are read from the attempts */
  branch?: Omit<ReceiptBranch, "commits">;
  /** the local run's claims held, waiting on the user */
  held?: Held;
}

export function buildReceipt(frontier: Frontier, opts: ReceiptOptions): Receipt {
  const run = frontier.runRecord();
  // The most result text the receipt carries: results are taken whole in ticket order
  // while they fit; the rest are named by their `result_file` and `result_bytes` only,
  // and never read.
  const results = { room: DEFAULTS.maxReceiptResultBytes };
  const tickets = frontier
    .specs()
    .map((spec) => receiptTicket(spec, frontier.state(spec.id), opts, results));

  const all = frontier.counts();
  // every attempt's usage added up by key; none when no attempt reported any
  const usage = usageTotal(tickets);
  const receipt: Receipt = {
    schema: RECEIPT_SCHEMA,
    run: run.run,
    state: frontier.runState(opts.now),
    generated_at: new Date(opts.now).toISOString(),
    // Only the states that occur: `{"complete": 3, "failed": 1}`, as in SPEC §7.
    counts: Object.fromEntries(STATUSES.flatMap((s) => ((all[s] ?? 0) > 0 ? [[s, all[s]]] : []))),
    // the engine's query answers are fresh copies already
    waves: frontier.waves(),
    critical_path: frontier.criticalPath(),
    tickets,
    blockers: frontier.blockerGroups(),
    questions: tickets.flatMap((t) => {
      // the question of the last attempt that asked one
      const asked =
        t.question !== undefined && t.attempts.findLast((a) => a.outcome === "suspended");
      return asked ? [{ ticket: t.id, attempt: asked.n, question: t.question! }] : [];
    }),
    remainder: remainderOf(frontier, opts.now, opts.held),
    // absent fields stay undefined: the receipt's JSON leaves them out
    goal: opts.goal,
    where: opts.where,
    base: run.base,
    started_at: run.started_at,
    bound:
      run.bound || run.dispatched > 0
        ? { ...(run.bound ?? {}), dispatched: run.dispatched }
        : undefined,
    cancelled: run.cancelled && { ...run.cancelled },
    usage: Object.keys(usage).length ? usage : undefined,
    branch: opts.branch && { ...opts.branch, commits: branchCommits(tickets) },
  };
  const links = Object.fromEntries(
    Object.entries(opts.links ?? {}).filter(([, v]) => typeof v === "string" && v.length > 0),
  );
  if (Object.keys(links).length) receipt.links = links;
  return receipt;
}

/** A local run's receipt as it stands: what `status`, `plan`, `report` and the run's end write. */
export function localReceipt(
  { frontier, settings }: { frontier: Frontier; settings: Pick<Settings, "goal" | "isolation"> },
  now: number,
  more: Pick<ReceiptOptions, "branch" | "resultText" | "held"> = {},
): Receipt {
  const { goal, isolation } = settings;
  return buildReceipt(frontier, { now, goal, isolation, where: "local", ...more });
}

/**
 * One ticket of the receipt. `state` is the engine's copy: its attempts and answers are
 * ours to extend. Result text is taken while it fits what is left of `results.room`.
 */
function receiptTicket(
  spec: TicketSpec,
  state: Readonly<TicketState> | undefined,
  opts: ReceiptOptions,
  results: { room: number },
): ReceiptTicket {
  const status: Status = state?.status ?? "pending";
  const attempts: ReceiptAttempt[] = (state?.attempts ?? []).map((a) => {
    const out: ReceiptAttempt = a;
    setDefined(out, "duration_ms", durationMs(a.started_at, a.ended_at));
    if (a.result_file && opts.resultText && (a.result_bytes ?? 0) <= results.room) {
      const text = opts.resultText(a.result_file);
      const bytes = text === undefined ? 0 : Buffer.byteLength(text, "utf8");
      if (text !== undefined && bytes <= results.room) {
        out.result = text;
        results.room -= bytes;
      }
    }
    return out;
  });
  // absent fields stay undefined: the receipt's JSON leaves them out
  return {
    id: spec.id,
    title: spec.title,
    file: spec.file,
    status,
    depends_on: [...spec.dependsOn],
    inputs: [...spec.inputs],
    write_scope: [...spec.writeScope],
    priority: spec.priority,
    attempt: state?.attempt ?? 0,
    attempts,
    answers: state ? (state.answers as ReceiptTicket["answers"]) : [],
    executor: spec.executor,
    agent: spec.agent,
    bound: spec.bound?.raw,
    isolation:
      spec.isolation !== undefined || opts.isolation !== undefined
        ? ticketIsolation(spec.isolation, opts.isolation)
        : undefined,
    task: spec.body.trim() ? spec.body : undefined,
    claimed_by: state?.claimed_by,
    claimed_at: state?.claimed_at,
    blocked_by: state?.blocked_by && { ...state.blocked_by },
    reason: state?.reason,
    updated_at: state?.updated_at,
    question:
      status === "suspended"
        ? attempts.findLast((a) => a.outcome === "suspended")?.question
        : undefined,
  };
}

/** The commits of integrated attempts, in the order they ended (each landed as it ended). */
export function branchCommits(
  tickets: Iterable<{ id: string; attempts: readonly AttemptRecord[] }>,
): ReceiptBranch["commits"] {
  const landed: Array<ReceiptBranch["commits"][number] & { at: string }> = [];
  for (const t of tickets)
    for (const a of t.attempts)
      if (a.changes?.verdict === "integrated" && a.changes.commit)
        landed.push({ commit: a.changes.commit, ticket: t.id, attempt: a.n, at: a.ended_at ?? "" });
  landed.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
  return landed.map(({ at: _, ...c }) => c);
}

/** The receipt as its file holds it: two-space JSON and a final newline. */
export function receiptJson(receipt: Receipt): string {
  return `${JSON.stringify(receipt, null, 2)}\n`;
}
