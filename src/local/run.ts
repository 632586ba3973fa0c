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
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { named } from "../core/changes.js";
import type { RunFlags } from "../core/config.js";
import { DEFAULTS, REASON, runsIsolated } from "../core/constants.js";
import type { Changes, Claim, Frontier } from "../core/engine.js";
import { errorText } from "../core/errors.js";
import { step } from "../core/event.js";
import { parseRunBound } from "../core/executor.js";
import type { AttemptChanges, Settings } from "../core/model.js";
import { refusalWords } from "../report/refusals.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { plural } from "../terminal/text.js";
import { readContext } from "../tickets/context-io.js";
import { settleInputOf } from "../tickets/outcome-file.js";
import { formatProblem } from "../tickets/problems.js";
import { isDirectory } from "../tickets/read-optional.js";
import { applyEdits } from "../tickets/store.js";
import { type FileEdit, planWrites, type Unwritable } from "../tickets/writeback.js";
import { type AttemptResult, failedResult, type RunningAttempt, startAttempt } from "./attempt.js";
import { type Edit, TicketWatch } from "./edits.js";
import { concludeRun, reportCode } from "./end.js";
import type { Ended, Integrator, Recovered, Settle, Unprepared, Workspace } from "./integrate.js";
import { signalGroup } from "./launch.js";
import { removeLeftovers } from "./leftovers.js";
import { acquireLock, isDeadLocalHolder, localHolder } from "./lock.js";
import { firstWrite, type Opened, openDirectory, ticketFiles } from "./open.js";
import { stopDeadRunners } from "./orphans.js";
import { Progress } from "./progress.js";

/** `maxParallel` and `bound` as the command line's parser took them: whole numbers of 1 and 0 or more. */
export interface RunOptions {
  exec?: string;
  maxParallel?: number;
  bound?: number;
  json: boolean;
}

/* ------------------------------- executors ------------------------------- */

/**
 * The command of each ticket that can still run: its named executor, else `--exec`,
 * else frontier.yml `executor`; or, naming every ticket without one at once, what is wrong.
 */
function resolveExecutors(
  frontier: Frontier,
  settings: Settings,
  exec: string | undefined,
  shownDir: string,
): Map<string, string> | string {
  const commands = new Map<string, string>();
  const missing: string[] = [];
  for (const spec of frontier.specs()) {
    const status = frontier.state(spec.id)?.status ?? "pending";
    // Closed tickets never run again in this run; they need no executor.
    if (CLOSED.has(status) || status === "blocked") continue;
    // a named executor is defined: the loader checked it (as `frontier validate` does)
    const command =
      (spec.executor === undefined ? undefined : settings.executors?.[spec.executor]) ??
      exec ??
      settings.executor;
    if (command === undefined) missing.push(spec.id);
    else commands.set(spec.id, command);
  }
  if (missing.length === 0) return commands;
  return `no executor for ${named(missing, 5)}: pass --exec "CMD" (a shell command run once per attempt), or set \`executor: CMD\` in ${join(shownDir, "frontier.yml")}`;
}

/* --------------------------------- the run --------------------------------- */

type Exited = Settle & Pick<Recovered, "claim">;

/** A usage error: `error: …` on stderr, and its exit code. */
function usage(io: CliIo, message: string): number {
  line(io.stderr, `error: ${message}`);
  return EXIT.usage;
}

export async function runCommand(dir: string, options: RunOptions, io: CliIo): Promise<number> {
  const started = Date.now();
  const absDir = resolve(dir);
  const inherited = parseRunBound(io.env.FRONTIER_RUN_BOUND);
  if (inherited.kind === "bad") {
    return usage(
      io,
      `FRONTIER_RUN_BOUND has "${inherited.part}", which is not understood — it takes "dispatches=N", "deadline=ISO-TIME" and "usage.KEY=N", space-separated (a parent run sets it; unset it to run without one)`,
    );
  }

  // Take the lock, then read the directory: state read before the lock could be a run
  // that another runner finishes meanwhile, and running it would run it all again. A
  // directory that is not there is reported by the loader (and no lock creates it).
  const lock = isDirectory(absDir) ? await acquireLock(absDir, started) : undefined;
  if (lock?.kind === "held") return usage(io, lock.message);
  try {
    const { maxParallel, bound } = options;
    const flags: RunFlags = { within: inherited.bound, maxParallel, bound };
    const open = await openDirectory(absDir, flags, io, started, { localExecutors: true }, dir);
    if (open.kind === "exit") return open.code;
    const { opened } = open;
    const { settings } = opened;
    for (const warning of opened.warnings) line(io.stderr, formatProblem(warning, dir));

    // the live progress block on a terminal; one that reports no size — 0×0, as some CI
    // terminals do — gets plain lines: a live block there would be cursor movements and nothing else
    const { columns, rows } = io.stderr as { columns?: number; rows?: number };
    const sized = columns !== 0 && rows !== 0;
    const live =
      io.isTTY && !io.env.CI && sized
        ? import("log-update").then((m) => m.createLogUpdate).catch(() => false as const)
        : undefined;
    const commands = resolveExecutors(opened.frontier, settings, options.exec, dir);
    if (typeof commands === "string") return usage(io, commands);
    let integrator: Integrator | undefined;
    if (opened.specs.some((s) => runsIsolated(s, settings))) {
      const { openIsolation } = await import("./isolation.js");
      const isolation = await openIsolation(dir, opened, io, started, commands);
      if (isolation.kind === "bad") return isolation.code;
      integrator = isolation.integrator;
    }
    const runner = new LocalRun(
      opened,
      dir,
      commands,
      options,
      io,
      (await live) ?? false,
      integrator,
    );
    return await runner.run(started);
  } finally {
    await lock?.release();
  }
}

class LocalRun {
  /** the live attempts, by ticket */
  private readonly live = new Map<string, RunningAttempt>();
  private readonly exits: Exited[] = [];
  /** result files of settled attempts: written by the next commit, with the records */
  private readonly results: FileEdit[] = [];
  private readonly holder = localHolder();
  private readonly progress: Progress;
  private draining: Promise<void> | undefined;
  /** what the first event reclaims: claims of runners that are gone, leases that ran out */
  private reclaimFirst: ((ticket: string, claimedBy: string) => boolean) | undefined;
  stopping: NodeJS.Signals | undefined;
  /** a write failed: the run stopped its children and ends with exit 1 */
  crashed = false;
  /** tickets whose file could not be written (the author broke it): why */
  readonly unwritten = new Map<string, string>();
  /** claimed tickets whose file someone else changed (or deleted) during the run */
  readonly edited = new Map<string, Edit>();
  private readonly watch: TicketWatch;
  /** isolated attempts that ended and could not be integrated: why (they stay claimed) */
  readonly held = new Map<string, string>();
  private finish: (() => void) | undefined;
  private dispatched = 0;
  private settled = 0;
  /** context and outcome files of live attempts: one temporary directory per run */
  private readonly scratch = mkdtempSync(join(tmpdir(), `frontier-run-${process.pid}-`));
  /** the environment of every attempt, read once (process.env is slow to copy) */
  private readonly baseEnv: Record<string, string | undefined>;
  readonly dir: string;
  readonly settings: Settings;
  readonly frontier: Frontier;
  /** the directory as opened, until its first write (local/open.ts `firstWrite`) */
  private unwrittenOpen: Opened | undefined;

  constructor(
    opened: Opened,
    readonly shownDir: string,
    private readonly commands: Map<string, string>,
    readonly options: RunOptions,
    readonly io: CliIo,
    live: ConstructorParameters<typeof Progress>[0]["live"],
    /** the isolated tickets' worktrees and integrations, when the run has such tickets */
    readonly isolation?: Integrator,
  ) {
    this.unwrittenOpen = opened;
    ({ dir: this.dir, settings: this.settings, frontier: this.frontier } = opened);
    this.baseEnv = { ...io.env };
    const { frontier } = this;
    const { run } = frontier.runRecord();
    this.progress = new Progress({ stream: io.stderr, live, run, total: frontier.specs().length });
    // what each ticket that may still be claimed looks like now
    const open = frontier.specs().filter((s) => !CLOSED.has(frontier.state(s.id)?.status ?? ""));
    this.watch = new TicketWatch(this.dir, open);
  }

  /** For the run's end (end.ts): nothing was dispatched or settled. */
  get nothingHappened(): boolean {
    return this.dispatched === 0 && this.settled === 0;
  }

  async run(started: number): Promise<number> {
    const frontier = this.frontier;
    const leftovers = removeLeftovers(this.dir);
    const tmp = plural(leftovers, "temporary file");
    if (leftovers > 0) this.progress.note(`removed ${tmp} left by a run that was killed mid-write`);
    // Attempts a dead runner left behind must not run on beside their re-runs.
    const running = stopDeadRunners(frontier);
    for (const id of running) {
      this.progress.note(`stopped what was left running of ${id} by a runner that is gone`);
    }
    this.reclaimFirst = (ticket, claimedBy) =>
      isDeadLocalHolder(claimedBy) && !this.held.has(ticket);
    if (this.isolation) {
      // attempts a killed run left ended but not integrated are finished first
      const { recovered, notes } = await this.isolation.recover(frontier, new Set(running));
      for (const note of notes) this.progress.note(note);
      for (const { claim, ended } of recovered) this.ended(claim, ended);
    }

    const onSignal = (signal: NodeJS.Signals) => this.stop(signal);
    // a closed terminal or a dropped SSH session (SIGHUP) stops the run as SIGTERM does:
    // the attempts' groups are stopped and recorded interrupted, nothing runs on unwatched
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const signal of signals) process.on(signal, onSignal);
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
      for (const signal of signals) process.off(signal, onSignal);
      rmSync(this.scratch, { recursive: true, force: true });
      this.progress.stop();
    }
    return concludeRun(this, started);
  }

  private noteReclaimed(reclaimed: readonly string[], changes: Changes): void {
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
      for (const attempt of this.live.values()) signalGroup(attempt.pgid, "SIGKILL");
      return;
    }
    this.stopping = signal;
    line(
      this.io.stderr,
      `\n${signal}: stopping ${plural(this.live.size, "running attempt")} — they will be recorded as interrupted and run again on the next \`frontier run\``,
    );
    for (const attempt of this.live.values()) attempt.stop();
    this.kick();
  }

  /** Start processing queued events unless that is already happening. */
  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain()
      .catch((error: unknown) => {
        // A write that failed (disk full, permissions) ends the run: stop the children.
        line(this.io.stderr, `error: ${errorText(error)}`);
        this.crashed = true;
        this.stopping ??= "SIGTERM";
        for (const attempt of this.live.values()) attempt.stop();
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
      for (const exited of batch) reports.push(this.record(exited));
      const { claims, changes, reclaimed } = step(this.frontier, {
        now: Date.now(),
        // once, before anything starts: the claims of a runner that is gone, and leases
        // that ran out; later, every claim is held by a live attempt of this runner
        reclaim: this.reclaimFirst ?? false,
        ...(this.stopping || this.edited.size > 0 ? {} : { claimAs: { by: this.holder, token } }),
      });
      this.reclaimFirst = undefined;
      const specs = claims.flatMap((claim) => this.frontier.spec(claim.ticket) ?? []);
      for (const { spec, how } of this.watch.edits(specs)) {
        this.progress.note(
          `${join(this.shownDir, spec.file)} was ${how === "changed" ? "changed (its id or dependencies)" : "deleted"} during the run: ${spec.id} is not started and nothing more is claimed; the running attempts finish`,
        );
        this.edited.set(spec.id, how);
      }
      this.noteReclaimed(reclaimed, changes);
      const rest = this.commit(claims, changes);
      // the outcomes are on disk (their attempt records): now they may be reported
      for (const report of reports) report();
      const ready = await Promise.all(claims.map((claim) => this.prepare(claim)));
      for (const [i, claim] of claims.entries()) this.spawn(claim, ready[i]!);
      // planned only now, from the files as they are after the wait: an author's edit
      // made meanwhile is carried, never overwritten
      this.write(rest);
    } while (this.exits.length > 0);
  }

  /**
   * Write the result files, then what must be on disk before `claims` start (see
   * splitForStart); returns the rest, for after the start.
   * Synchronous on purpose (see src/tickets/store.ts).
   */
  private commit(claims: readonly Claim[], changes: Changes): Changes {
    // a ticket whose file was deleted during the run has no file to write: its records do
    const tickets = changes.tickets.filter((id) => this.edited.get(id) !== "deleted");
    changes = { ...changes, tickets };
    if (this.unwrittenOpen !== undefined) changes = firstWrite(this.unwrittenOpen, changes);
    this.unwrittenOpen = undefined;
    applyEdits(this.dir, this.results.splice(0));
    const { now, rest } = splitForStart(changes, new Set(claims.map((claim) => claim.ticket)));
    this.write(now, [...this.unwritten.keys()]);
    return rest;
  }

  /**
   * Plan `changes`' writes from the ticket files as they are now, and make them (each
   * ticket file by compare-and-swap: TicketWatch `write`). `also`: tickets whose file
   * could not be written before.
   */
  private write(changes: Changes, also: readonly string[] = []): void {
    const failed = new Map<string, string>();
    const unwritable = (problem: Unwritable) => failed.set(problem.ticket, problem.message);
    const plan = (part: Changes, retried: readonly string[] = []) =>
      planWrites(part, this.frontier, this.watch.read, unwritable, retried);
    this.watch.write(plan(changes, also), (file) =>
      plan(ticketFiles(this.frontier.specs().flatMap((s) => (s.file === file ? s.id : [])))),
    );
    for (const id of also.filter((id) => !failed.has(id))) {
      this.unwritten.delete(id);
      this.progress.note(`${id}: its state is written again`);
    }
    for (const [id, message] of failed) {
      // that ticket's problem alone: the run goes on, its records are in .frontier/,
      // and its file is tried again on every later event
      if (!this.unwritten.has(id)) {
        this.progress.note(`warning: ${message}; the run goes on`);
      }
      this.unwritten.set(id, message);
    }
  }

  /** Settle one exit in the engine; returns its progress report, for once it is written. */
  private record({ claim, result, changes, written, note: said }: Exited): () => void {
    this.live.delete(claim.ticket);
    const now = Date.now();
    this.settled++;
    let note = said;
    if (result.stopped) this.frontier.interrupt(claim.ticket, claim.attempt, now);
    else {
      // The result file's name is known before it is written; it is written with the
      // attempt record, before any ticket file points at it.
      const { input, write } = settleInputOf(result, { ...claim, changes, by: this.holder });
      if (write) this.results.push({ path: write.file, kind: "create", content: write.text });
      const settled = this.frontier.settle(input, now);
      if (settled.kind !== "ok") note = `${claim.ticket}: ${refusalWords(settled.why)}`;
    }
    const outcome = result.stopped ? "interrupted" : result.outcome;
    const detail = result.stopped ? undefined : detailOf(result, changes);
    const { ticket, attempt } = claim;
    const tally = { counts: this.frontier.counts(), running: this.live.size };
    return () => {
      written?.();
      if (note !== undefined) this.progress.note(note);
      this.progress.finished(ticket, attempt, outcome, result.durationMs, tally, detail);
    };
  }

  /** A claim's context, and an isolated claim's worktree; or why it cannot start. */
  private async prepare(claim: Claim): Promise<Prepared> {
    let text: string;
    try {
      text = await readContext(this.dir, this.frontier, claim.ticket, this.settings);
    } catch (error) {
      return { kind: "bad", reason: `could not build its context: ${errorText(error)}` };
    }
    const spec = this.frontier.spec(claim.ticket);
    const isolated = spec !== undefined && runsIsolated(spec, this.settings);
    if (this.isolation === undefined || !isolated || this.stopping) return { kind: "ok", text };
    const made = await this.isolation.prepare(claim);
    return made.kind === "ok" ? { kind: "ok", text, workspace: made.workspace } : made;
  }

  private spawn(claim: Claim, prepared: Prepared): void {
    const spec = this.frontier.spec(claim.ticket);
    const command = this.commands.get(claim.ticket);
    const workspace = prepared.kind === "ok" ? prepared.workspace : undefined;
    this.dispatched++;
    const interrupted = this.stopping !== undefined || this.edited.has(claim.ticket);
    if (prepared.kind === "held" && !interrupted) {
      this.ended(claim, prepared);
      return;
    }
    if (interrupted || !spec || command === undefined || prepared.kind !== "ok") {
      if (workspace !== undefined) this.isolation?.tidy(workspace.path);
      // Ctrl-C landed between the claim and the start, or its file changed: it never
      // started; re-ready it. Else it cannot start: settle it as failed rather than leave
      // the claim hanging.
      const why = prepared.kind === "bad" ? prepared.reason : "no executor for this ticket";
      const result = interrupted
        ? { ...failedResult(REASON.interrupted), stopped: true }
        : failedResult(why);
      this.exits.push({ claim, result });
      return;
    }

    const tag = `${claim.ticket}@${claim.attempt}`;
    const attempt = startAttempt({
      command,
      // isolated: the worktree's counterpart of the ticket directory's parent; else where
      // the ticket directory lives (its parent: usually the repository root), so
      // `tickets/` and the code it talks about resolve the same way
      cwd: workspace?.cwd ?? dirname(this.dir),
      context: prepared.text,
      contextFile: join(this.scratch, `${tag}.context.md`),
      baseEnv: workspace ? { ...this.baseEnv, ...REPOSITORY_VARS } : this.baseEnv,
      contract: {
        ...claim,
        run: this.frontier.runRecord().run,
        ticketFile: join(this.dir, spec.file),
        dir: this.dir,
      },
      timeoutMs: claim.bound?.timeoutMs,
      maxResultBytes: this.settings.max_result_bytes ?? DEFAULTS.maxResultBytes,
      scratch: this.scratch,
      tag,
    });
    this.live.set(claim.ticket, attempt);
    this.progress.started(claim.ticket, claim.attempt);
    void attempt.done.then(async (result) => {
      if (workspace === undefined || this.isolation === undefined) {
        this.exits.push({ claim, result });
      } else {
        this.ended(claim, await this.isolation.finish(claim, spec, workspace, result));
      }
      this.kick();
    });
  }

  /** What an isolated attempt's end came to: settled as usual, or held for the next run. */
  private ended(claim: Recovered["claim"], ended: Ended): void {
    if (ended.kind === "settle") {
      const { kind: _, ...exited } = ended;
      this.exits.push({ claim, ...exited });
      return;
    }
    // it stays claimed: its outcome and worktree wait on disk for the next run
    this.live.delete(claim.ticket);
    this.held.set(claim.ticket, ended.message);
    this.progress.note(`error: ${ended.message}`);
  }
}

type Prepared = { kind: "ok"; text: string; workspace?: Workspace } | Unprepared;

/** What a progress line says after a settled attempt's outcome. */
function detailOf(result: AttemptResult, changes: AttemptChanges | undefined): string | undefined {
  if (result.outcome === "suspended") return `question: ${result.question ?? ""}`;
  if (result.outcome === "failed" || result.outcome === "limited") return result.reason;
  if (changes?.commit === undefined) return undefined;
  return `integrated as ${changes.commit.slice(0, 10)} (${plural(changes.paths.length, "path")})`;
}

/** Statuses no claim can come from in this run. */
const CLOSED = new Set<string>(["complete", "empty", "failed", "limited", "cancelled"]);
/** Git's variables naming a repository or its index: unset for an isolated attempt (a hook's GIT_DIR). */
const REPOSITORY_VARS = Object.fromEntries(
  ["DIR", "WORK_TREE", "INDEX_FILE", "COMMON_DIR"].map((v) => [`GIT_${v}`, undefined]),
);

function token(ticket: string, attempt: number): string {
  return `${ticket}#${attempt}-${randomBytes(4).toString("hex")}`;
}

/**
 * An event's changes, split by what must be on disk before its claimed attempts start:
 * records (created once), the claimed tickets' files, the run record (its dispatch
 * count) and the worklog's lines — so a kill after a start never leaves an attempt
 * running whose claim is not on disk, nor loses what the log says. The rest (settled,
 * newly ready and blocked tickets' files) follows the start.
 */
export function splitForStart(changes: Changes, claimed: ReadonlySet<string>) {
  const now = changes.tickets.filter((id) => claimed.has(id));
  const rest = changes.tickets.filter((id) => !claimed.has(id));
  return { now: { ...changes, tickets: now }, rest: ticketFiles(rest) };
}
