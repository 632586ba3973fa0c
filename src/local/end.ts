/**
 * The end of a local run: the reports written (receipt, HTML, markdown under
 * DIR/.frontier/), and what the user reads last — the run's state and tally, what
 * remains and why, what could not be written or integrated, the branch of its isolated
 * tickets — with the run's exit code.
 */
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { formatDuration } from "../core/bound.js";
import { named } from "../core/changes.js";
import type { Frontier } from "../core/engine.js";
import type { Settings } from "../core/model.js";
import { remainderOf } from "../report/remainder.js";
import { RUN_STATE_ICON_NAME } from "../report/states.js";
import { boundHint } from "../terminal/bound-hint.js";
import { painter, STATUS_STYLE } from "../terminal/colour.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { remainderTable } from "../terminal/table.js";
import { shellWord } from "../terminal/text.js";
import { resultReader } from "../tickets/context-io.js";
import { attemptFile, BRANCH_FILE, RECEIPT_FILE, STATE_DIR } from "../tickets/layout.js";
import { tryReadJson } from "../tickets/read-optional.js";
import type { Integrator } from "./integrate.js";
import { tallyText } from "./progress.js";

/** What the run's end reads of the run. */
interface RunEnd {
  frontier: Frontier;
  dir: string;
  shownDir: string;
  settings: Settings;
  options: { exec?: string; json: boolean };
  io: CliIo;
  /** a write failed: the run stopped its children */
  crashed: boolean;
  stopping: NodeJS.Signals | undefined;
  /** nothing was dispatched or settled */
  nothingHappened: boolean;
  /** isolated attempts that ended and could not be integrated: why */
  held: ReadonlyMap<string, string>;
  /** claimed tickets whose file someone else changed or deleted during the run */
  edited: ReadonlyMap<string, "changed" | "deleted">;
  /** tickets whose file could not be written: why */
  unwritten: ReadonlyMap<string, string>;
  isolation?: Integrator;
}

/** The end of a run that stopped before its graph did: a write failed, or a signal. */
async function stopped(r: RunEnd, now: number, resume: string): Promise<number> {
  // what it must not touch is compared now, not left for the next run to find changed by the user
  for (const text of (await isolationLines(r).catch(() => undefined))?.lines ?? [])
    line(r.io.stderr, text);
  if (r.crashed || r.stopping === undefined) {
    line(
      r.io.stderr,
      `the run stopped because its state could not be written (above); once that is fixed, \`${resume}\` resumes it`,
    );
    return EXIT.failed;
  }
  // Interrupted attempts were written by the last drain; the reports show where it stopped.
  await reports(r, now).catch(() => undefined);
  const { frontier } = r;
  line(
    r.io.stderr,
    `run ${frontier.runRecord().run}: interrupted — ${tallyText(frontier.specs().length, { counts: frontier.counts(), running: 0 })}; \`${resume}\` resumes it (interrupted attempts run again, nothing complete does)`,
  );
  // 128 + the signal's number, as a shell reports it
  return 128 + constants.signals[r.stopping];
}

export async function concludeRun(r: RunEnd, started: number): Promise<number> {
  const now = Date.now();
  // the command that continues a run: the same directory, the same --exec
  const resume = `frontier run ${shellWord(r.shownDir)}${r.options.exec !== undefined ? ` --exec ${shellWord(r.options.exec)}` : ""}`;
  const frontier = r.frontier;
  if (r.crashed || r.stopping) return stopped(r, now, resume);
  const state = frontier.runState(now);
  // its exit code: running (claims live elsewhere or held) and not started are no success
  const code = state === "running" || state === "not started" ? EXIT.failed : EXIT[state];
  if (!r.nothingHappened || !existsSync(join(r.dir, RECEIPT_FILE)) || r.options.json) {
    const receiptJson = await reports(r, now);
    if (r.options.json) r.io.stdout.write(receiptJson);
  }

  const err = r.io.stderr;
  // coloured as `frontier status` is: decided for stderr, where the run writes
  const paint = painter(err, r.io.env);
  const elapsed = formatDuration(now - started);
  const tally = tallyText(frontier.specs().length, { counts: frontier.counts(), running: 0 });
  // a run's state in the colour of a ticket's: running as a claimed one, not started as a pending one
  const style = STATUS_STYLE[RUN_STATE_ICON_NAME[state]];
  const head = `${paint("bold", `run ${frontier.runRecord().run}`)}: ${paint(style, state)}`;
  line(
    err,
    r.nothingHappened ? `${head}, nothing to do (${tally})` : `${head} in ${elapsed} — ${tally}`,
  );
  const remainder = remainderOf(frontier, now, r.held);
  const table = remainderTable(remainder.slice(0, 10), paint);
  if (table.length > 0) line(err, table.join("\n"));
  if (remainder.length > 10) line(err, `  … ${remainder.length - 10} more in the report`);
  const hint = boundHint(frontier, r.shownDir, now, resume);
  if (hint !== undefined) line(err, `  ${hint}`);
  const elsewhere = frontier.claimedIds().filter((id) => !r.held.has(id));
  if (state === "running" && elsewhere.length > 0) {
    line(
      err,
      `  claims held by other processes are still live (${elsewhere.join(", ")}): run again when they have settled`,
    );
  }
  if (r.edited.size > 0) {
    const files = [...r.edited].map(
      ([id, how]) => `${join(r.shownDir, frontier.spec(id)?.file ?? id)} (${how})`,
    );
    line(
      err,
      `error: ticket files changed during the run: ${files.join(", ")} — no ticket was claimed after that; \`frontier run ${r.shownDir}\` goes on with the tickets as they are now (nothing complete runs again)`,
    );
  }
  for (const message of r.held.values()) line(err, `error: ${message}`);
  const end = await isolationLines(r);
  for (const text of end?.lines ?? []) line(err, text);
  const gone = recordsGone(r).map((file) => join(r.shownDir, file));
  if (gone.length > 0) {
    line(
      err,
      `error: the run's records were removed or emptied while it ran: ${named(gone, 10)} — by an executor? The receipt (${join(r.shownDir, RECEIPT_FILE)}) holds what they said`,
    );
  }
  for (const message of r.unwritten.values()) line(err, `error: ${join(r.shownDir, message)}`);
  if (r.unwritten.size > 0) {
    line(
      err,
      `  what those tickets did is recorded in ${join(r.shownDir, STATE_DIR)}/: once the files are fixed, \`${resume}\` reads it and runs nothing complete again`,
    );
  }
  const shown = (file: string) => join(r.shownDir, STATE_DIR, file);
  line(
    err,
    `receipt: ${shown("receipt.json")} · report: ${shown("report.html")} · ${shown("report.md")}`,
  );
  // what went wrong above fails a run that would have completed
  const failed = r.edited.size > 0 || end?.failed || gone.length > 0 || r.unwritten.size > 0;
  return failed && code === EXIT.complete ? EXIT.failed : code;
}

async function isolationLines(r: RunEnd) {
  return r.isolation && (await import("./isolation.js")).isolationEnd(r.isolation, r.frontier);
}

/** The records an executor removed (rm -rf "$FRONTIER_DIR/.frontier"): ended attempts', and the run branch's. */
function recordsGone({ frontier, dir, isolation }: RunEnd): string[] {
  const files = frontier
    .specs()
    .flatMap(({ id }) =>
      (frontier.state(id)?.attempts ?? []).flatMap((a) =>
        a.ended_at ? [attemptFile(id, a.n)] : [],
      ),
    );
  const gone = (f: string) => tryReadJson(join(dir, f)) === undefined;
  return [...files, ...(isolation ? [BRANCH_FILE] : [])].filter(gone);
}

/**
 * The report renderers (receipt, HTML with its graph layout, markdown) are needed only
 * at the end: loaded while the first attempts run, not before the first starts.
 */
export function reportCode() {
  return Promise.all([import("../report/receipt.js"), import("./report-files.js")]);
}

/** Write receipt, HTML and markdown under DIR/.frontier/; returns the receipt JSON. */
async function reports(r: RunEnd, now: number): Promise<string> {
  const [{ localReceipt, receiptJson }, { localReports, writeReports }] = await reportCode();
  const receipt = localReceipt(r, now, {
    ...(r.isolation && (await import("./worktree.js")).isolatedReceipt(r.dir, r.frontier)),
    resultText: resultReader(r.dir),
    held: r.held,
  });
  writeReports(receipt, { ...localReports(r.dir), dir: shellWord(r.shownDir) });
  return receiptJson(receipt);
}
