/**
 * `frontier run DIR`: the graph on this machine, one shell command per attempt.
 *
 * Event-driven: the only things that move the run are child exits (and Ctrl-C). Each
 * exit is recorded, settled and written, and whatever became ready is claimed, written
 * and spawned in the same step — there is no polling loop, tick or round. State is
 * written before a child starts and after it ends, so a run killed at any point resumes
 * with `frontier run` again: claims of processes that no longer exist are reclaimed at
 * once, and nothing complete runs again.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { RunFlags } from "../core/config.js";
import { DEFAULTS, REASON, ticketIsolation } from "../core/constants.js";
import type { Changes, Claim, Frontier } from "../core/engine.js";
import { step } from "../core/event.js";
import { parseRunBound } from "../core/executor.js";
import type { AttemptChanges, RunBound, Settings, TicketSpec } from "../core/model.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { readContext } from "../tickets/context-io.js";
import { RUN_FILE } from "../tickets/layout.js";
import { resultFile } from "../tickets/load.js";
import { parseTicket } from "../tickets/parse.js";
import { formatProblem } from "../tickets/problems.js";
import { isDirectory } from "../tickets/read-optional.js";
import {
  applyEdits,
  createRecord,
  currentSignature,
  type FileSignature,
  writeError,
} from "../tickets/store.js";
import { type FileEdit, planWrites } from "../tickets/writeback.js";
import { type AttemptResult, failedResult, type RunningAttempt, startAttempt } from "./attempt.js";
import { concludeRun, reportCode } from "./end.js";
import type { Ended, Integrator, Workspace } from "./integrate.js";
import { removeLeftovers } from "./leftovers.js";
import { acquireLock, isDeadLocalHolder, localHolder } from "./lock.js";
import { firstWrite, type Opened, openDirectory } from "./open.js";
import { stopClaimedGroups } from "./orphans.js";
import { loadLive, Progress } from "./progress.js";

export interface RunOptions {
  exec?: string;
  maxParallel?: number;
  bound?: number;
  json: boolean;
}

export type RunIo = CliIo;

/* ------------------------------- executors ------------------------------- */

/**
 * The command of each ticket that can still run: its named executor, else `--exec`,
 * else frontier.yml `executor`. Every ticket without one is reported at once.
 */
function resolveExecutors(
  frontier: Frontier,
  settings: Settings,
  exec: string | undefined,
  shownDir: string,
): { kind: "ok"; commands: Map<string, string> } | { kind: "bad"; messages: string[] } {
  const commands = new Map<string, string>();
  const messages: string[] = [];
  const missing: string[] = [];
  for (const spec of frontier.specs()) {
    const status = frontier.state(spec.id)?.status;
    // Closed tickets never run again in this run; they need no executor.
    if (status === "complete" || status === "empty" || status === "failed") continue;
    if (status === "blocked" || status === "limited" || status === "cancelled") continue;
    // a named executor is defined: the loader checked it (as `frontier validate` does)
    const named = spec.executor === undefined ? undefined : settings.executors?.[spec.executor];
    if (named !== undefined) {
      commands.set(spec.id, named);
      continue;
    }
    const fallback = exec ?? settings.executor;
    if (fallback === undefined) missing.push(spec.id);
    else commands.set(spec.id, fallback);
  }
  if (missing.length > 0) {
    const few =
      missing.slice(0, 5).join(", ") + (missing.length > 5 ? `, … (${missing.length})` : "");
    messages.push(
      `no executor for ${few}: pass --exec "CMD" (a shell command run once per attempt), or set \`executor: CMD\` in ${join(shownDir, "frontier.yml")}`,
    );
  }
  return messages.length > 0 ? { kind: "bad", messages } : { kind: "ok", commands };
}

/* --------------------------------- the run --------------------------------- */

interface Live {
  claim: Claim;
  attempt: RunningAttempt;
}

interface Exited {
  claim: Claim;
  result: AttemptResult;
  /** what an isolated attempt changed, as integrated or kept (integrate.ts) */
  changes?: AttemptChanges;
  /** once its record is on disk */
  written?: () => void;
}

export async function runCommand(dir: string, options: RunOptions, io: RunIo): Promise<number> {
  const started = Date.now();
  const absDir = resolve(dir);
  const err = io.stderr;

  if (
    options.maxParallel !== undefined &&
    !(Number.isInteger(options.maxParallel) && options.maxParallel > 0)
  ) {
    line(
      err,
      `error: --max-parallel takes a whole number of 1 or more, got ${options.maxParallel}`,
    );
    return EXIT.usage;
  }
  if (options.bound !== undefined && !(Number.isInteger(options.bound) && options.bound >= 0)) {
    line(err, `error: --bound takes a whole number of 0 or more, got ${options.bound}`);
    return EXIT.usage;
  }
  const inherited = parseRunBound(io.env.FRONTIER_RUN_BOUND);
  if (inherited.kind === "bad") {
    line(err, `error: ${inherited.message}`);
    return EXIT.usage;
  }

  // Take the lock, then read the directory: state read before the lock could be a run
  // that another runner finishes meanwhile, and running it would run it all again. A
  // directory that is not there is reported by the loader (and no lock creates it).
  const lock = isDirectory(absDir) ? await acquireLock(absDir, started) : undefined;
  try {
    if (lock?.kind === "held") {
      line(io.stderr, `error: ${lock.message}`);
      return EXIT.usage;
    }
    return await loadLockedAndRun(dir, absDir, options, io, inherited.bound, started);
  } finally {
    if (lock?.kind !== "held") await lock?.release();
  }
}

async function loadLockedAndRun(
  dir: string,
  absDir: string,
  options: RunOptions,
  io: RunIo,
  inheritedRunBound: RunBound,
  started: number,
): Promise<number> {
  const err = io.stderr;
  const flags: RunFlags = { within: inheritedRunBound };
  if (options.maxParallel !== undefined) flags.maxParallel = options.maxParallel;
  if (options.bound !== undefined) flags.bound = options.bound;
  const open = await openDirectory(absDir, flags, io, started, { localExecutors: true }, dir);
  if (open.kind === "exit") return open.code;
  const { opened } = open;
  for (const warning of opened.warnings) line(err, formatProblem(warning, dir));
  const { settings } = opened;

  // the live progress block (a terminal)
  // (a terminal that reports no size — 0×0, as some CI terminals do — gets plain lines:
  // a live block there would be cursor movements and nothing else)
  const sized =
    (io.stderr as { columns?: number; rows?: number }).columns !== 0 &&
    (io.stderr as { columns?: number; rows?: number }).rows !== 0;
  const live = io.isTTY && !io.env.CI && sized ? loadLive().catch(() => false as const) : undefined;
  const { frontier } = opened;
  const executors = resolveExecutors(frontier, settings, options.exec, dir);
  if (executors.kind === "bad") {
    for (const message of executors.messages) line(err, `error: ${message}`);
    return EXIT.usage;
  }
  const isolation = opened.specs.some(
    (s) => ticketIsolation(s.isolation, settings.isolation) === "worktree",
  )
    ? await (await import("./isolation.js")).openIsolation(
        absDir,
        dir,
        opened,
        io,
        started,
        executors.commands,
      )
    : { kind: "ok" as const };
  if (isolation.kind === "bad") return isolation.code;
  const runner = new LocalRun(
    opened,
    dir,
    executors.commands,
    options,
    io,
    (await live) ?? false,
    isolation.integrator,
  );
  return await runner.run(started);
}

class LocalRun {
  private readonly live = new Map<string, Live>();
  private readonly exits: Exited[] = [];
  /** results settled but not yet written: written by the next commit, with the records */
  private readonly results: Array<{ ticket: string; attempt: number; text: string }> = [];
  private readonly holder = localHolder();
  private readonly progress: Progress;
  private draining: Promise<void> | undefined;
  /** what the first event reclaims: claims of runners that are gone, leases that ran out */
  private reclaimFirst: ((ticket: string, claimedBy: string) => boolean) | undefined;
  private stopping: NodeJS.Signals | undefined;
  /** a write failed: the run stopped its children and ends with exit 1 */
  private crashed = false;
  /** tickets whose file could not be written (the author broke it): why */
  private readonly unwritten = new Map<string, string>();
  /** each open ticket file's signature as this run last read or wrote it */
  private readonly signatures = new Map<string, FileSignature>();
  /** claimed tickets whose file someone else changed (or deleted) during the run */
  private readonly edited = new Map<string, "changed" | "deleted">();
  private readonly noteWritten = (file: string, signature: FileSignature) => {
    this.signatures.set(file, signature);
  };
  /** isolated attempts that ended and could not be integrated: why (they stay claimed) */
  private readonly held = new Map<string, string>();
  /** the worktrees of claimed isolated tickets, made before they start */
  private readonly workspaces = new Map<string, Workspace>();
  private finish: (() => void) | undefined;
  private dispatched = 0;
  private settled = 0;
  private readonly cwd: string;
  private readonly maxResultBytes: number;
  /** context and outcome files of live attempts: one temporary directory per run */
  private readonly scratch = mkdtempSync(join(tmpdir(), `frontier-run-${process.pid}-`));
  /**
   * context files no live attempt uses: one per attempt running at once, each rewritten
   * in place for the next (creating and removing a file per attempt costs more)
   */
  private readonly freeContextFiles: string[] = [];
  private contextFiles = 0;
  /** the environment of every attempt, read once (process.env is slow to copy) */
  private readonly baseEnv: Record<string, string | undefined>;

  private readonly dir: string;
  private readonly settings: Settings;
  private readonly frontier: Frontier;
  /** the directory as opened, until its first write (local/open.ts `firstWrite`) */
  private opened: Opened | undefined;

  constructor(
    opened: Opened,
    private readonly shownDir: string,
    private readonly commands: Map<string, string>,
    private readonly options: RunOptions,
    private readonly io: RunIo,
    live: ConstructorParameters<typeof Progress>[0]["live"],
    /** the isolated tickets' worktrees and integrations, when the run has such tickets */
    private readonly isolation?: Integrator,
  ) {
    this.opened = opened;
    this.dir = opened.dir;
    this.settings = opened.settings;
    this.frontier = opened.frontier;
    // The command runs where the ticket directory lives (its parent: usually the
    // repository root), so `tickets/` and the code it talks about resolve the same way.
    this.cwd = dirname(this.dir);
    this.baseEnv = { ...io.env };
    this.maxResultBytes = this.settings.max_result_bytes ?? DEFAULTS.maxResultBytes;
    this.progress = new Progress({
      stream: io.stderr,
      live,
      run: this.frontier.runRecord().run,
      total: this.frontier.specs().length,
    });
  }

  async run(started: number): Promise<number> {
    const frontier = this.frontier;
    const leftovers = removeLeftovers(this.dir);
    if (leftovers > 0) {
      this.progress.note(
        `removed ${leftovers} temporary file${leftovers === 1 ? "" : "s"} left by a run that was killed mid-write`,
      );
    }
    // Attempts a dead runner left behind must not run on beside their re-runs.
    const deadClaims = new Map<string, string>();
    for (const id of frontier.claimedIds()) {
      const state = frontier.state(id);
      if (state?.claim && isDeadLocalHolder(state.claimed_by ?? ""))
        deadClaims.set(state.claim, id);
    }
    for (const claim of stopClaimedGroups(new Set(deadClaims.keys()))) {
      this.progress.note(
        `stopped what was left running of ${deadClaims.get(claim)} by a runner that is gone`,
      );
    }
    this.reclaimFirst = (ticket, claimedBy) =>
      isDeadLocalHolder(claimedBy) && !this.held.has(ticket);
    // what each ticket that may still be claimed looks like now: a file changed by
    // someone else before its claim (its dependencies edited, the file deleted) is seen
    for (const spec of frontier.specs()) {
      const status = frontier.state(spec.id)?.status ?? "pending";
      if (!CLOSED.has(status)) {
        const signature = currentSignature(join(this.dir, spec.file));
        if (signature !== undefined) this.signatures.set(spec.file, signature);
      }
    }
    if (this.isolation) {
      // attempts a killed run left ended but not integrated are finished first
      const { recovered, notes } = await this.isolation.recover(frontier);
      for (const note of notes) this.progress.note(note);
      for (const { claim, ended } of recovered) this.ended(claim, ended);
    }

    const onSignal = (signal: NodeJS.Signals) => this.stop(signal);
    // a closed terminal or a dropped SSH session (SIGHUP) stops the run as SIGTERM does:
    // the attempts' groups are stopped and recorded interrupted, nothing runs on unwatched
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    try {
      const done = new Promise<void>((resolveDone) => {
        this.finish = resolveDone;
      });
      this.kick();
      // while the first attempts run, load what the end of the run needs
      setImmediate(() => void reportCode().catch(() => undefined));
      await done;
      await this.isolation?.idle();
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.off("SIGHUP", onSignal);
      rmSync(this.scratch, { recursive: true, force: true });
      this.progress.stop();
    }
    return this.conclude(started);
  }

  private noteReclaimed(reclaimed: readonly string[], changes: Changes): void {
    if (reclaimed.length === 0) return;
    const ids = new Set(reclaimed);
    for (const { ticket, record } of changes.attempts) {
      if (!ids.has(ticket)) continue;
      this.progress.note(
        record.reason === REASON.leaseExpired
          ? `reclaimed ${ticket}: attempt ${record.n}'s lease ran out (failed, lease-expired)`
          : `reclaimed ${ticket}: attempt ${record.n} was held by a runner that is gone (interrupted; it runs again)`,
      );
    }
  }

  /** Ctrl-C: stop every live attempt's process group; each is recorded as interrupted. */
  private stop(signal: NodeJS.Signals): void {
    if (this.stopping) {
      // A second Ctrl-C: do not wait for the grace.
      for (const { attempt } of this.live.values()) {
        if (attempt.pgid !== undefined) {
          try {
            process.kill(-attempt.pgid, "SIGKILL");
          } catch {
            // gone
          }
        }
      }
      return;
    }
    this.stopping = signal;
    line(
      this.io.stderr,
      `\n${signal}: stopping ${this.live.size} running attempt${this.live.size === 1 ? "" : "s"} — they will be recorded as interrupted and run again on the next \`frontier run\``,
    );
    for (const { attempt } of this.live.values()) attempt.stop();
    this.kick();
  }

  /** Start processing queued events unless that is already happening. */
  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain()
      .catch((error: unknown) => {
        // A write that failed (disk full, permissions) ends the run: stop the children.
        line(this.io.stderr, `error: ${(error as Error).message}`);
        this.crashed = true;
        this.stopping ??= "SIGTERM";
        for (const { attempt } of this.live.values()) attempt.stop();
      })
      .finally(() => {
        this.draining = undefined;
        if (this.exits.length > 0) this.kick();
        else if (this.live.size === 0) this.finish?.();
      });
  }

  /**
   * Record every exit that has landed, claim what became ready, write, and start the
   * claimed attempts. The writes come in two parts: first everything a start or a
   * report depends on — the attempts' records and results, the claimed tickets' files
   * and the run record — then the attempts start, then the rest of the batch (the
   * settled tickets' files, whose records are already written) is written while they
   * run. Both parts are written before the next exit is taken. Exits that land
   * meanwhile are taken straight after.
   */
  private async drain(): Promise<void> {
    do {
      const batch = this.exits.splice(0);
      const reports: Array<() => void> = [];
      // one event (core/event.ts): the exits that landed, then what became ready is claimed
      const { claims, changes, reclaimed } = step(
        this.frontier,
        () => {
          for (const exited of batch) reports.push(this.record(exited));
          return { kind: "ok", changed: [] };
        },
        {
          now: Date.now(),
          // once, before anything starts: the claims of a runner that is gone, and leases
          // that ran out; later, every claim is held by a live attempt of this runner
          reclaim: this.reclaimFirst ?? false,
          ...(this.stopping || this.edited.size > 0 ? {} : { claimAs: { by: this.holder, token } }),
        },
      );
      this.reclaimFirst = undefined;
      this.noticeEdits(claims);
      this.noteReclaimed(reclaimed, changes);
      const rest = this.commit(claims, changes);
      // the outcomes are on disk (their attempt records): now they may be reported
      for (const report of reports) report();
      if (claims.length > 0) {
        const ready = await Promise.all(
          claims.map(async (claim) => ({
            claim,
            context: await this.workspaceOf(claim, await this.contextOf(claim)),
          })),
        );
        for (const { claim, context } of ready) this.spawn(claim, context);
      }
      applyEdits(this.dir, rest, this.noteWritten);
    } while (this.exits.length > 0);
  }

  /**
   * A claimed ticket whose file is not as this run last saw it was edited by someone
   * else. Read again: when its id or its dependencies (depends_on, inputs) changed, or
   * the file was deleted, the graph the engine claimed from no longer holds — that claim
   * does not start, and nothing more is claimed; the live attempts finish, and the next
   * `frontier run` reads the tickets as they are. Any other edit changes no rule of the
   * run (a file made unreadable is reported when its state cannot be written).
   */
  private noticeEdits(claims: readonly Claim[]): void {
    for (const claim of claims) {
      const spec = this.frontier.spec(claim.ticket);
      if (spec === undefined) continue;
      const path = join(this.dir, spec.file);
      const now = currentSignature(path);
      if (now === this.signatures.get(spec.file)) continue;
      let how: "changed" | "deleted" | undefined = "deleted";
      if (now !== undefined) {
        how = graphChanged(spec, readFileOrEmpty(path)) ? "changed" : undefined;
        this.signatures.set(spec.file, now);
      }
      if (how === undefined) continue;
      this.progress.note(
        `${join(this.shownDir, spec.file)} was ${how === "changed" ? "changed (its id or dependencies)" : "deleted"} during the run: ${claim.ticket} is not started and nothing more is claimed; the running attempts finish`,
      );
      this.edited.set(claim.ticket, how);
    }
  }

  /**
   * Write the result files, then what must be on disk before `claims` start (see
   * splitForStart); returns the rest of the edits, in order, for after the start.
   * Synchronous on purpose (see src/tickets/store.ts).
   */
  private commit(claims: readonly Claim[], changes: Changes): FileEdit[] {
    const opened = this.opened;
    this.opened = undefined;
    // a ticket whose file was deleted during the run has no file to write: its records do
    const deleted = [...this.edited].filter(([, how]) => how === "deleted").map(([id]) => id);
    if (deleted.length > 0) {
      const gone = new Set(deleted);
      changes = { ...changes, tickets: changes.tickets.filter((id) => !gone.has(id)) };
    }
    return this.planned(opened ? firstWrite(opened, changes) : changes, claims);
  }

  private planned(changes: Changes, claims: readonly Claim[]): FileEdit[] {
    const failed = new Map<string, string>();
    const edits = planWrites(
      changes,
      this.frontier,
      // bytes, not text: a body that is not UTF-8 is kept as it is
      (file) => readFileSync(join(this.dir, file)),
      (problem) => failed.set(problem.ticket, problem.message),
      this.unwritten.keys(),
    );
    for (const id of this.unwritten.keys()) {
      if (!failed.has(id)) {
        this.unwritten.delete(id);
        this.progress.note(`${id}: its state is written again`);
      }
    }
    for (const [id, message] of failed) {
      // that ticket's problem alone: the run goes on, its records are in .frontier/,
      // and its file is tried again on every later event
      if (!this.unwritten.has(id)) {
        this.progress.note(`warning: ${message}; the run goes on`);
      }
      this.unwritten.set(id, message);
    }
    for (const r of this.results.splice(0)) {
      const file = resultFile(r.ticket, r.attempt);
      const path = join(this.dir, file);
      try {
        createRecord(path, r.text, file);
      } catch (error) {
        throw writeError(path, error);
      }
    }
    const claimed = new Set<string>();
    for (const claim of claims) {
      const file = this.frontier.spec(claim.ticket)?.file;
      if (file !== undefined) claimed.add(file);
    }
    const { now, rest } = splitForStart(edits, claimed);
    applyEdits(this.dir, now, this.noteWritten);
    return rest;
  }

  /** Settle one exit in the engine; returns its progress report, for once it is written. */
  private record({ claim, result, changes, written: recorded }: Exited): () => void {
    const frontier = this.frontier;
    this.live.delete(claim.ticket);
    // a worktree made for an attempt that never started
    const unused = this.workspaces.get(claim.ticket);
    if (unused !== undefined) {
      this.workspaces.delete(claim.ticket);
      this.isolation?.discard(unused);
    }
    const now = Date.now();
    this.settled++;
    if (result.stopped) {
      frontier.interrupt(claim.ticket, claim.attempt, now);
      const tally = this.tally();
      return () => {
        recorded?.();
        this.progress.finished(
          claim.ticket,
          claim.attempt,
          "interrupted",
          result.durationMs,
          tally,
        );
      };
    }
    // The result file's name is known before it is written; it is written with the
    // attempt record, before any ticket file points at it.
    let written: { file: string; bytes: number } | undefined;
    if (result.result !== undefined && result.result.trim() !== "") {
      written = {
        file: resultFile(claim.ticket, claim.attempt),
        bytes: Buffer.byteLength(result.result, "utf8"),
      };
      this.results.push({ ticket: claim.ticket, attempt: claim.attempt, text: result.result });
    }
    const settled = frontier.settle(
      {
        ticket: claim.ticket,
        attempt: claim.attempt,
        outcome: result.outcome,
        ...(result.reason !== undefined ? { reason: result.reason } : {}),
        ...(result.question !== undefined ? { question: result.question } : {}),
        ...(written !== undefined ? { resultFile: written.file, resultBytes: written.bytes } : {}),
        ...(result.usage !== undefined ? { usage: result.usage } : {}),
        ...(changes !== undefined ? { changes } : {}),
        by: this.holder,
        claim: claim.claim,
      },
      now,
    );
    const note = settled.kind !== "ok" ? `${claim.ticket}: ${settled.message}` : undefined;
    const detail =
      result.outcome === "suspended"
        ? `question: ${result.question ?? ""}`
        : result.outcome === "failed" || result.outcome === "limited"
          ? result.reason
          : changes?.commit !== undefined
            ? `integrated as ${changes.commit.slice(0, 10)} (${changes.paths.length} path${changes.paths.length === 1 ? "" : "s"})`
            : undefined;
    const tally = this.tally();
    return () => {
      recorded?.();
      if (note !== undefined) this.progress.note(note);
      this.progress.finished(
        claim.ticket,
        claim.attempt,
        result.outcome,
        result.durationMs,
        tally,
        detail,
      );
    };
  }

  /** The context text of a claimed ticket, or why it could not be made. */
  private async contextOf(claim: Claim): Promise<ContextOf> {
    try {
      return {
        kind: "ok",
        text: await readContext(this.dir, this.frontier, claim.ticket, this.settings),
      };
    } catch (error) {
      return { kind: "bad", reason: `could not build its context: ${(error as Error).message}` };
    }
  }

  private spawn(claim: Claim, context: ContextOf): void {
    const spec = this.frontier.spec(claim.ticket);
    const command = this.commands.get(claim.ticket);
    this.dispatched++;
    if (this.stopping || this.edited.has(claim.ticket)) {
      // Ctrl-C landed between the claim and the start, or its file changed: it never
      // started; re-ready it.
      this.exits.push({ claim, result: { ...failedResult(REASON.interrupted), stopped: true } });
      return;
    }
    if (!spec || command === undefined || context.kind === "bad") {
      // Cannot start it: settle it as failed rather than leave the claim hanging.
      const reason = context.kind === "bad" ? context.reason : "no executor for this ticket";
      this.exits.push({ claim, result: failedResult(reason) });
      return;
    }

    const contextFile =
      this.freeContextFiles.pop() ?? join(this.scratch, `context-${this.contextFiles++}.md`);
    const workspace = this.workspaces.get(claim.ticket);
    this.workspaces.delete(claim.ticket);
    const attempt = startAttempt({
      command,
      // isolated: the worktree's counterpart of the ticket directory's parent
      cwd: workspace?.cwd ?? this.cwd,
      context: context.text,
      contextFile,
      baseEnv: this.baseEnv,
      contract: {
        ...claim,
        run: this.frontier.runRecord().run,
        ticketFile: join(this.dir, spec.file),
        dir: this.dir,
      },
      vars: {},
      ...(claim.bound?.timeoutMs !== undefined ? { timeoutMs: claim.bound.timeoutMs } : {}),
      maxResultBytes: this.maxResultBytes,
      scratch: this.scratch,
      tag: `${claim.ticket}@${claim.attempt}`,
    });
    this.live.set(claim.ticket, { claim, attempt });
    this.progress.started(claim.ticket, claim.attempt);
    void attempt.done.then(async (result) => {
      this.freeContextFiles.push(contextFile);
      if (workspace === undefined || this.isolation === undefined) {
        this.exits.push({ claim, result });
      } else {
        this.ended(claim, await this.isolation.finish(claim, spec, workspace, result));
      }
      this.kick();
    });
  }

  /** An isolated claim gets its worktree before it starts; a claim that cannot, fails. */
  private async workspaceOf(claim: Claim, context: ContextOf): Promise<ContextOf> {
    const spec = this.frontier.spec(claim.ticket);
    if (this.isolation === undefined || context.kind === "bad" || spec === undefined) {
      return context;
    }
    if (ticketIsolation(spec.isolation, this.settings.isolation) !== "worktree") return context;
    if (this.stopping) return context;
    const made = await this.isolation.prepare(claim);
    if (made.kind === "bad") return made;
    this.workspaces.set(claim.ticket, made.workspace);
    return context;
  }

  /** What an isolated attempt's end came to: settled as usual, or held for the next run. */
  private ended(claim: Claim, ended: Ended): void {
    if (ended.kind === "settle") {
      const exited: Exited = { claim, result: ended.result, written: ended.written };
      if (ended.changes !== undefined) exited.changes = ended.changes;
      this.exits.push(exited);
      return;
    }
    // it stays claimed: its outcome and worktree wait on disk for the next run
    this.live.delete(claim.ticket);
    this.workspaces.delete(claim.ticket);
    this.held.set(claim.ticket, ended.message);
    this.progress.note(`error: ${ended.message}`);
  }

  private tally() {
    return { counts: this.frontier.counts(), running: this.live.size };
  }

  private conclude(started: number): Promise<number> {
    return concludeRun(
      {
        frontier: this.frontier,
        dir: this.dir,
        shownDir: this.shownDir,
        settings: this.settings,
        options: this.options,
        io: this.io,
        crashed: this.crashed,
        stopping: this.stopping,
        nothingHappened: this.dispatched === 0 && this.settled === 0,
        held: this.held,
        edited: this.edited,
        unwritten: this.unwritten,
        isolation: this.isolation,
      },
      started,
    );
  }
}

type ContextOf = { kind: "ok"; text: string } | { kind: "bad"; reason: string };

/** Statuses no claim can come from in this run. */
const CLOSED: ReadonlySet<string> = new Set([
  "complete",
  "empty",
  "failed",
  "limited",
  "cancelled",
]);

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

function readFileOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function token(ticket: string, attempt: number): string {
  return `${ticket}#${attempt}-${randomBytes(4).toString("hex")}`;
}

/**
 * A batch's edits, split by what must be on disk before its claimed attempts start:
 * records (created once), the claimed tickets' files, the run record (its dispatch
 * count) and the worklog's lines — so a kill after a start never leaves an attempt
 * running whose claim is not on disk, nor loses what the log says. The rest (settled,
 * newly ready and blocked tickets) follows the start. Order is kept within each part.
 */
export function splitForStart(
  edits: readonly FileEdit[],
  claimedFiles: ReadonlySet<string>,
): { now: FileEdit[]; rest: FileEdit[] } {
  const now: FileEdit[] = [];
  const rest: FileEdit[] = [];
  for (const edit of edits) {
    if (edit.kind !== "replace" || claimedFiles.has(edit.path) || edit.path === RUN_FILE)
      now.push(edit);
    else rest.push(edit);
  }
  return { now, rest };
}
