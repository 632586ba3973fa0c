/**
 * `frontier reset [DIR]`: start a new run. Every record of the old one (run.json,
 * attempts, results, answers, the worklog, the reports, and each ticket file as it
 * stood) is moved under `DIR/.frontier/runs/<run>-<n>/`; then the engine-written
 * fields are removed from the ticket files. What the author wrote — every other field,
 * its order and comments, the body byte for byte — is not touched.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import { errorText } from "../core/errors.js";
import { recordedRun } from "../local/lock.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { plural } from "../terminal/text.js";
import {
  archiveRunName,
  BRANCH_FILE,
  CACHE_DIR,
  nextArchiveName,
  RUNS_DIR,
  STATE_DIR,
  staysOutOfArchive,
} from "../tickets/layout.js";
import { ticketFileNames } from "../tickets/load.js";
import { isDirectory, namesIn } from "../tickets/read-optional.js";
import { loadSettings } from "../tickets/settings-load.js";
import { applyEdits, writing } from "../tickets/store.js";
import { CLEARED_FIELDS, editTicket, type FileEdit } from "../tickets/writeback.js";
import { printResult, refusal } from "./json.js";
import { underLock } from "./lock.js";

interface ResetOptions {
  /** `run --fresh`: a run starts next, so "nothing to reset" and "run starts a new run" go unsaid */
  fresh?: boolean;
  /** print a ticket-frontier/command@1 object instead of words */
  json?: boolean;
  /** the command as the user typed it, for a refusal (`reset`, or `run --fresh`) */
  as?: string;
}

export async function resetCommand(
  dir: string,
  io: CliIo,
  now: number,
  opts: ResetOptions = {},
): Promise<number> {
  const refuse = refusal(io, "reset", dir, opts.json);
  if (!isDirectory(dir)) {
    return refuse(`no ticket directory at ${dir} — pass the directory that holds the tickets`);
  }
  return underLock(dir, io, opts.as ?? "reset", now, refuse, () => reset(dir, io, opts));
}

async function reset(dir: string, io: CliIo, opts: ResetOptions): Promise<number> {
  // every ticket file's edit is planned before anything moves: a file that cannot be
  // edited stops the reset with nothing changed
  const edits: FileEdit[] = [];
  const problems: string[] = [];
  for (const file of ticketFileNames(readdirSync(dir))) {
    try {
      const edit = editTicket(file, readFileSync(join(dir, file)), CLEARED_FIELDS);
      if (edit !== undefined) edits.push(edit);
    } catch (error) {
      problems.push(`${join(dir, file)}: ${errorText(error)} — fix the file, then reset again`);
    }
  }
  if (problems.length > 0) {
    for (const p of problems) line(io.stderr, `error: ${p}`);
    line(io.stderr, "nothing was reset.");
    if (opts.json) printResult(io, "reset", dir, { ok: false, message: problems.join("; ") });
    return EXIT.usage;
  }
  // the run's worktrees go (what ended unintegrated is kept among the records first); its
  // branch stays: it is the user's work
  let worktrees: string[] = [];
  if (existsSync(join(dir, BRANCH_FILE))) {
    try {
      worktrees = await (await import("../local/worktree.js")).resetWorktrees(dir);
    } catch (error) {
      // the records are still archived: a worktree left behind is git's to prune
      worktrees = [
        `warning: the run's worktrees could not all be removed (${errorText(error)}); \`git worktree prune\` tidies what is left`,
      ];
    }
  }
  const stateDir = join(dir, STATE_DIR);
  const records = namesIn(stateDir).filter((name) => !staysOutOfArchive(name));
  if (records.length === 0 && edits.length === 0) {
    const message = `${dir}: nothing to reset — no run has left state here.`;
    if (opts.json) printResult(io, "reset", dir, { ok: false, message });
    else if (!opts.fresh) line(io.stdout, message);
    return EXIT.complete;
  }

  rmSync(join(dir, CACHE_DIR), { recursive: true, force: true });
  // the old run's name: from its run record, else what frontier.yml (or the directory) names it
  const run = archiveRunName(recordedRun(dir) ?? (await loadSettings(dir)).settings.run);
  const runs = join(dir, RUNS_DIR);
  const archive = join(runs, nextArchiveName(run, namesIn(runs)));
  writing(archive, () => {
    mkdirSync(join(archive, "tickets"), { recursive: true });
    // the ticket files as the run left them, engine fields and all
    for (const edit of edits)
      copyFileSync(join(dir, edit.path), join(archive, "tickets", edit.path));
    for (const record of records) renameSync(join(stateDir, record), join(archive, record));
  });
  applyEdits(dir, edits);
  const said = `reset run ${run}: its records are in ${archive}/; ${plural(edits.length, "ticket file")} cleared of run state`;
  if (opts.json) {
    printResult(io, "reset", dir, {
      ok: true,
      message: [said, ...worktrees].join("; "),
      archive: `${archive}/`,
      next: `frontier run ${dir}`,
    });
    return EXIT.complete;
  }
  line(io.stdout, `${said}${opts.fresh ? "." : ` — \`frontier run ${dir}\` starts a new run.`}`);
  for (const text of worktrees) line(io.stdout, text);
  return EXIT.complete;
}
