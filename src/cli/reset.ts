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
  statSync,
} from "node:fs";
import { join } from "node:path";
import { type CliIo, EXIT, line } from "../core/io.js";
import { ENGINE_FIELDS } from "../tickets/fields.js";
import { BRANCH_FILE, CACHE_DIR, RUN_FILE, STATE_DIR } from "../tickets/layout.js";
import { ticketFileNames } from "../tickets/load.js";
import { loadSettings } from "../tickets/settings-load.js";
import { replaceAtomically, writeError } from "../tickets/store.js";
import { type EngineFieldValues, editTicket, type FileEdit } from "../tickets/writeback.js";
import { takeLock } from "./lock.js";

/** Every engine field, set to be removed. */
const CLEARED = Object.fromEntries(ENGINE_FIELDS.map((k) => [k, undefined])) as EngineFieldValues;

/**
 * What is not archived by a reset: the archive itself and the lock, and the ticket
 * cache (removed: the ticket files are rewritten, and it is safe to delete).
 */
const KEPT = /^(?:runs|cache|lock(?:\.takeover)?|lock\..*\.tmp)$/;

export async function resetCommand(dir: string, io: CliIo, now: number): Promise<number> {
  if (!isDirectory(dir)) {
    line(
      io.stderr,
      `error: no ticket directory at ${dir} — pass the directory that holds the tickets`,
    );
    return EXIT.usage;
  }
  const release = await takeLock(dir, io, "reset", now);
  if (release === undefined) return EXIT.usage;
  try {
    return await reset(dir, io);
  } finally {
    await release();
  }
}

async function reset(dir: string, io: CliIo): Promise<number> {
  // every ticket file's edit is planned before anything moves: a file that cannot be
  // edited stops the reset with nothing changed
  const edits: FileEdit[] = [];
  const problems: string[] = [];
  for (const file of ticketFileNames(readdirSync(dir))) {
    try {
      const edit = editTicket(file, readFileSync(join(dir, file)), CLEARED);
      if (edit !== undefined) edits.push(edit);
    } catch (error) {
      problems.push(
        `${join(dir, file)}: ${(error as Error).message} — fix the file, then reset again`,
      );
    }
  }
  if (problems.length > 0) {
    for (const p of problems) line(io.stderr, `error: ${p}`);
    line(io.stderr, "nothing was reset.");
    return EXIT.usage;
  }
  const stateDir = join(dir, STATE_DIR);
  const records = existsSync(stateDir)
    ? readdirSync(stateDir).filter((name) => !KEPT.test(name))
    : [];
  if (records.length === 0 && edits.length === 0) {
    line(io.stdout, `${dir}: nothing to reset — no run has left state here.`);
    return EXIT.complete;
  }

  rmSync(join(dir, CACHE_DIR), { recursive: true, force: true });
  // the run's worktrees go (what ended unintegrated is kept among the records first); its
  // branch stays: it is the user's work
  let worktrees: string[] = [];
  if (existsSync(join(dir, BRANCH_FILE))) {
    try {
      worktrees = await (await import("../local/worktree.js")).resetWorktrees(dir);
    } catch (error) {
      // the records are still archived: a worktree left behind is git's to prune
      worktrees = [
        `warning: the run's worktrees could not all be removed (${(error as Error).message}); \`git worktree prune\` tidies what is left`,
      ];
    }
  }
  const run = await runName(dir);
  const archive = nextArchive(join(stateDir, "runs"), run);
  const shown = join(dir, STATE_DIR, "runs", archive.name);
  try {
    mkdirSync(join(archive.path, "tickets"), { recursive: true });
    // the ticket files as the run left them, engine fields and all
    for (const edit of edits)
      copyFileSync(join(dir, edit.path), join(archive.path, "tickets", edit.path));
    for (const name of records) renameSync(join(stateDir, name), join(archive.path, name));
  } catch (error) {
    throw writeError(archive.path, error);
  }
  for (const edit of edits) {
    const path = join(dir, edit.path);
    try {
      replaceAtomically(path, edit.bytes ?? edit.content);
    } catch (error) {
      throw writeError(path, error);
    }
  }
  line(
    io.stdout,
    `reset run ${run}: its records are in ${shown}/; ${edits.length} ticket file${edits.length === 1 ? "" : "s"} cleared of run state — \`frontier run ${dir}\` starts a new run.`,
  );
  for (const text of worktrees) line(io.stdout, text);
  return EXIT.complete;
}

/** The old run's name: from its run record, else what frontier.yml (or the directory) names it. */
async function runName(dir: string): Promise<string> {
  try {
    const record = JSON.parse(readFileSync(join(dir, RUN_FILE), "utf8")) as { run?: unknown };
    if (typeof record.run === "string" && record.run !== "") return safeName(record.run);
  } catch {
    // no record: the settings name it
  }
  return safeName((await loadSettings(dir)).settings.run);
}

function safeName(run: string): string {
  return run.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_") || "run";
}

/** `runs/<run>-<n>`, n one more than the highest there. */
function nextArchive(runs: string, run: string): { name: string; path: string } {
  let n = 1;
  const taken = existsSync(runs) ? readdirSync(runs) : [];
  const prefix = `${run}-`;
  for (const name of taken) {
    if (!name.startsWith(prefix)) continue;
    const k = Number(name.slice(prefix.length));
    if (Number.isInteger(k) && k >= n) n = k + 1;
  }
  return { name: `${run}-${n}`, path: join(runs, `${run}-${n}`) };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
