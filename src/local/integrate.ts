/**
 * The end of an isolated attempt (SPEC §4b): what it changed in its worktree is
 * collected, judged by the one rule both runners share (core/settle.ts `planSettle`:
 * integrate, scope breach, conflict, or kept as evidence), and integrated as one commit
 * on the run's branch `frontier/<run>` — compare-and-swap, one integration at a time
 * within the run, which holds the directory's lock throughout.
 *
 * Nothing is lost to a kill. Before anything is integrated, the attempt's outcome is
 * written to `DIR/.frontier/integrating/<id>@<n>.json`; its worktree stays until its
 * attempt record is on disk. A run killed in between leaves both, and the next run
 * finishes the job before it reclaims anything: it finds a commit already made for the
 * attempt by its `Frontier-Claim:` trailer (so it is integrated exactly once), or makes
 * it from the worktree, or — the worktree gone — says so and runs the ticket again.
 */
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type ChangedPath, touchedPaths } from "../core/changes.js";
import { REASON } from "../core/constants.js";
import type { Claim, Frontier } from "../core/engine.js";
import { errorText } from "../core/errors.js";
import type { AttemptChanges, TicketSpec } from "../core/model.js";
import { plural, shellWord } from "../terminal/text.js";
import { integratingFile, keptFile, patchFile } from "../tickets/layout.js";
import { type Evidence, settleChanges } from "../tickets/outcome-file.js";
import { createRecord, replaceAtomically, writeError, writing } from "../tickets/store.js";
import { attemptChanges, changedSince, commitOnto, diffTrees } from "../workspace/changes.js";
import { integrationMessage } from "../workspace/commit-message.js";
import { git } from "../workspace/git.js";
import {
  addWorktree,
  checkedOutAt,
  detachHead,
  pruneStale,
  removeWorktree,
  tryIsAncestor,
  tryResolveCommit,
  worktreesUnder,
} from "../workspace/worktrees.js";
import { type AttemptResult, failedResult } from "./attempt.js";
import { type Snapshot, sharedChangedSince } from "./guard.js";
import {
  keepAsPatch,
  keepBegun,
  landedCommit,
  noWorktree,
  type Pending,
  type RunBranch,
  readPendings,
  short,
  worktreeChanges,
  worktreePath,
} from "./worktree.js";

/** What each path of an attempt's changes ends as, to compare two listings of them. */
const changeKey = (paths: readonly ChangedPath[]) =>
  paths
    .flatMap((c) => [`${c.path} ${c.mode} ${c.blob}`, c.from && `${c.from} undefined undefined`])
    .filter(Boolean)
    .sort()
    .join("\n");

/** Where an isolated attempt runs. */
export interface Workspace {
  /** its worktree */
  path: string;
  /** the commit it starts from: the branch's head when it was made */
  start: string;
  /** the executor's directory in it */
  cwd: string;
}

/** Why an attempt was not started: it cannot be (`bad`), or not now (`held`: it stays claimed). */
export type Unprepared = { kind: "bad"; reason: string } | { kind: "held"; message: string };

/** An attempt's end to settle: its result and what it changed; `written` once its record is on disk. */
export interface Settle {
  result: AttemptResult;
  changes?: AttemptChanges;
  written?: () => void;
  /** what the run says of it besides its outcome */
  note?: string;
}

/** What becomes of an attempt's end. */
export type Ended =
  | ({ kind: "settle" } & Settle)
  /** it cannot be integrated now: it stays claimed, its outcome and worktree kept for the next run */
  | { kind: "held"; message: string };

/** A recovered attempt: the claim it ended under, and what becomes of it. */
export interface Recovered {
  claim: Pick<Claim, "ticket" | "attempt" | "claim">;
  ended: Ended;
}

const TRIES = 10;

const gitDirChanged = (shared: readonly string[]) =>
  `the repository's git directory changed while the run ran (${shared.join(", ")}): an executor may have left code there that git would run, so the run runs no more git on it — look at it, put it right, then run again`;

/** An attempt's settle as `land` made it: its changes' worktree stays when they could not be collected. */
type Landed = ReturnType<typeof settleChanges> & { keepWorktree?: boolean };

export class Integrator {
  /** one git operation on the branch or the worktrees at a time */
  private queue: Promise<unknown> = Promise.resolve();
  /** worktrees being removed: the run waits for them before it ends */
  private readonly tidying = new Set<Promise<void>>();

  /**
   * The branch's head as this run last moved it or saw it: a head that differs was moved
   * by someone else (an agent's push, a person's commit), never passed off as the run's.
   */
  private tip: string | undefined;

  constructor(
    readonly branch: RunBranch,
    private readonly dir: string,
    private readonly run: string,
    private readonly maxResultBytes: number,
    /** what the run must not touch, as it was when it started (guard.ts) */
    readonly before: Snapshot,
  ) {}

  /** A file of the run's records, as the run names it. */
  private readonly shown = (file: string) => join(this.dir, file);

  private get root(): string {
    return this.branch.repository.root;
  }

  private get ref(): string {
    return `refs/heads/${this.branch.branch}`;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** A worktree for `claim` at the branch's head: where the attempt runs. */
  async prepare(claim: Claim): Promise<{ kind: "ok"; workspace: Workspace } | Unprepared> {
    try {
      return await this.serial(async () => {
        // no git for it now: it stays claimed, and runs once the next run may run git
        const shared = await sharedChangedSince(this.branch, this.before);
        if (shared.length > 0) {
          const message = `${claim.ticket} attempt ${claim.attempt} was not started: ${gitDirChanged(shared)}`;
          return { kind: "held", message } as const;
        }
        const start = await tryResolveCommit(this.root, this.ref);
        if (start === undefined) {
          return { kind: "bad", reason: `the run's branch ${this.branch.branch} is gone` } as const;
        }
        this.tip ??= start;
        const path = worktreePath(this.branch, claim.ticket, claim.attempt);
        await addWorktree(this.root, path, start);
        const cwd = this.branch.cwd === "" ? path : join(path, this.branch.cwd);
        // the ticket directory's parent may hold nothing committed: it is made, empty
        mkdirSync(cwd, { recursive: true });
        return { kind: "ok", workspace: { path, start, cwd } } as const;
      });
    } catch (error) {
      return { kind: "bad", reason: `could not make its worktree: ${errorText(error)}` };
    }
  }

  /**
   * An attempt in `workspace` ended with `result`: its outcome is written down, then its
   * changes judged and integrated. Never rejects.
   */
  async finish(
    claim: Claim,
    spec: TicketSpec,
    workspace: Workspace,
    result: AttemptResult,
  ): Promise<Ended> {
    if (result.stopped) {
      // interrupted: it runs again from the branch's head; what it had begun is kept first
      const { path, start } = workspace;
      const kept = await this.serial(() =>
        keepBegun(this.dir, this.branch, path, this.shown, start),
      );
      if (!kept.stays) this.tidy(workspace.path);
      return { kind: "settle", result, ...(kept.said !== undefined && { note: kept.said }) };
    }
    const { stopped: _, exitCode, signal, durationMs, ...outcome } = result;
    const pending: Pending = {
      schema: "ticket-frontier/integrating@1",
      ticket: claim.ticket,
      attempt: claim.attempt,
      claim: claim.claim,
      worktree: workspace.path,
      start: workspace.start,
      outcome,
      exit_code: exitCode,
      signal,
      duration_ms: durationMs,
    };
    const file = integratingFile(claim.ticket, claim.attempt);
    try {
      // one there already was not this run's (an executor can write it): this one replaces it
      replaceAtomically(join(this.dir, file), `${JSON.stringify(pending, null, 2)}\n`);
    } catch (error) {
      return {
        kind: "held",
        message: `${claim.ticket} attempt ${claim.attempt} ended, but ${writeError(join(this.dir, file), error).message}; it stays claimed, its changes in ${workspace.path} until this run ends, and once that is fixed the next \`frontier run\` runs it again`,
      };
    }
    return this.integrate(pending, spec, false);
  }

  private async integrate(p: Pending, spec: TicketSpec, recovering: boolean): Promise<Ended> {
    let plan: Landed;
    try {
      plan = await this.serial(() => this.land(p, spec, recovering));
    } catch (error) {
      return {
        kind: "held",
        message: `${p.ticket} attempt ${p.attempt} ended, but its changes could not be integrated on ${this.branch.branch}: ${errorText(error)} — they are kept in ${p.worktree}; once that is fixed, \`frontier run\` integrates them`,
      };
    }
    const { changes: _, keep: __, record, keepWorktree, ...outcome } = plan;
    const { exit_code: exitCode, signal, duration_ms: durationMs } = p;
    return {
      kind: "settle",
      result: { ...outcome, stopped: false, exitCode, signal, durationMs },
      changes: record,
      // changes that could not be collected are still the worktree's files: it stays
      written: () => this.done(p, keepWorktree === true),
    };
  }

  /** Judge the attempt's changes and land them: one commit, or a patch kept as evidence. */
  private async land(p: Pending, spec: TicketSpec, recovering: boolean): Promise<Landed> {
    const root = this.root;
    const evidence: Evidence = { cap: this.maxResultBytes, file: patchFile(p.ticket, p.attempt) };
    const shared = await sharedChangedSince(this.branch, this.before);
    if (shared.length > 0) throw new Error(gitDirChanged(shared));
    // (an executor may have removed its worktree, or its .git: then nothing could be collected)
    const there = existsSync(p.worktree);
    const collected = await attemptChanges(p.worktree, p.start, {
      ...worktreeChanges(this.branch),
      cap: this.maxResultBytes,
      stay: `it stays in ${p.worktree}`,
      ...(there && { kept: p.worktree }),
    });
    // a run killed after the commit and before the record: the commit is the integration —
    // when it carries what the worktree holds (an executor knows its claim, and can make one)
    const made = recovering ? await landedCommit(this.branch, p) : undefined;
    const paths = made && (await diffTrees(root, `${made}^1`, made));
    if (made && paths && (!there || changeKey(paths) === changeKey(collected.paths))) {
      // judged when it was made: a write_scope edited since does not undo a commit
      const plan = settleChanges(
        p.outcome,
        { start: p.start, paths, moved: new Map() },
        { writeScope: ["**"] },
        evidence,
      );
      if (plan.record !== undefined) plan.record.commit = made;
      return plan;
    }
    evidence.patch = collected.patch;
    for (let tries = 1; ; tries++) {
      const head = await this.headToMove(p.worktree);
      const moved = await changedSince(root, collected.start, head, touchedPaths(collected.paths));
      const plan = settleChanges(p.outcome, { ...collected, moved }, spec, evidence);
      const keep = plan.keep;
      const file = join(this.dir, evidence.file);
      if (keep) writing(file, () => createRecord(file, keep, evidence.file));
      else if (plan.changes === "evidence" && collected.paths.length > 0) {
        // blobs no commit holds are pruned by a gc (an agent's, or git's own): a ref holds them
        const held = `refs/frontier/kept/${collected.tree}`;
        await git(["update-ref", held, collected.tree], { cwd: root });
        this.before.refs.set(held, collected.tree); // one an agent drops is named at the end
        plan.reason &&= `${plan.reason}, its tree held by ${held}`;
      }
      // a file no patch can hold (or none collected) stays in the worktree, which stays
      if (plan.changes !== "integrate")
        return { ...plan, keepWorktree: there && collected.unstored !== undefined };
      const made = await commitOnto(root, {
        head,
        ref: this.ref,
        changes: collected.paths,
        message: integrationMessage({
          ...p,
          run: this.run,
          title: spec.title,
          paths: collected.paths.length,
        }),
      });
      if (made.kind === "ok") {
        this.tip = made.commit;
        if (plan.record !== undefined) plan.record.commit = made.commit;
        return plan;
      }
      if (made.kind === "failed") throw new Error(made.message);
      // someone moved the branch between the read and the commit: judge again on its new head
      if (tries >= TRIES) throw new Error(`the branch kept moving (${TRIES} tries)`);
    }
  }

  /**
   * The branch's head, to integrate on: one that moved since the run last saw it must
   * still hold the run's commits (its new commits are someone else's, judged as
   * conflicts), and no worktree may have the branch checked out (moving it would
   * change that worktree's index under its owner) but the attempt's, which lets go of it.
   */
  private async headToMove(worktree: string): Promise<string> {
    const { branch } = this.branch;
    const head = await tryResolveCommit(this.root, this.ref);
    if (head === undefined) throw new Error(`the branch ${branch} is gone`);
    if (this.tip !== undefined && head !== this.tip) {
      if (!(await tryIsAncestor(this.root, this.tip, head))) {
        throw new Error(
          `${branch} was moved by someone else and no longer holds the run's commit ${short(this.tip)} (reset, or rewritten?): put it back (git branch -f ${branch} ${short(this.tip)}) or onto a commit that holds it`,
        );
      }
    }
    this.tip = head;
    const at = await checkedOutAt(this.root, this.ref);
    // an executor left the run's branch checked out in its worktree (or one inside): the run's now
    const mine = at !== undefined && [at, worktree].every((x) => existsSync(x));
    if (mine && `${realpathSync(at)}/`.startsWith(`${realpathSync(worktree)}/`))
      await detachHead(at);
    else if (at !== undefined) {
      throw new Error(
        `${branch} is checked out in ${at}, and the run never moves a branch a worktree has checked out — detach that worktree from it (git -C ${shellWord(at)} switch --detach)`,
      );
    }
    return head;
  }

  /** Its record is on disk: the outcome written for a kill, and the worktree (unless `keep`), go. */
  private done(p: Pending, keep = false): void {
    const file = join(this.dir, integratingFile(p.ticket, p.attempt));
    // a worktree that is the only copy of its changes stays, and its record says so: no
    // later run or reset removes it
    if (keep) renameSync(file, join(this.dir, keptFile(p.ticket, p.attempt)));
    else {
      rmSync(file, { force: true });
      this.tidy(p.worktree);
    }
  }

  /** Remove the worktree at `path` (one made for an attempt that never started, or done with). */
  tidy(path: string): void {
    const removing: Promise<void> = this.serial(() => removeWorktree(this.root, path))
      .catch(() => undefined)
      .finally(() => this.tidying.delete(removing));
    this.tidying.add(removing);
  }

  /**
   * Resolves once every worktree being removed is gone, and the shared git directory is
   * checked: a change an executor made is remembered for the next run, however this one ends.
   */
  async idle(): Promise<void> {
    while (this.tidying.size > 0) await Promise.all([...this.tidying]);
    await sharedChangedSince(this.branch, this.before).catch(() => undefined);
  }

  /**
   * Before the first event of a run: the attempts a killed run left ended but not
   * recorded are finished (integrated once, or kept), and the worktrees of attempts that
   * never ended (their claims are about to be reclaimed) are removed.
   */
  async recover(
    frontier: Frontier,
    running: ReadonlySet<string>,
  ): Promise<{ recovered: Recovered[]; notes: string[] }> {
    const recovered: Recovered[] = [];
    const notes: string[] = [];
    const keep = new Set<string>();
    // what a kill inside `git worktree add` left
    const left = await pruneStale(this.branch.repository, this.branch.home, Date.now());
    for (const p of readPendings(this.dir, "kept", this.branch)) {
      keep.add(p.worktree);
      notes.push(
        `${p.ticket} attempt ${p.attempt}'s changes could not be collected: its files stay in ${p.worktree}`,
      );
    }
    for (const p of readPendings(this.dir, "json", this.branch)) {
      // one found still running never ended, whatever a record says (an executor can write one)
      if (running.has(p.ticket)) {
        notes.push(
          `${p.ticket}: a record says attempt ${p.attempt} ended, but it was still running: not integrated`,
        );
        rmSync(join(this.dir, integratingFile(p.ticket, p.attempt)));
        continue;
      }
      const one = await this.recoverOne(p, frontier, notes);
      if (one.keep) keep.add(p.worktree);
      if (one.recovered !== undefined) recovered.push(one.recovered);
    }
    for (const path of left) if (!keep.has(path)) notes.push(noWorktree(path));
    // attempts that never ended: their claims are reclaimed, and they run again afresh
    for (const path of await worktreesUnder(this.root, this.branch.home)) {
      if (keep.has(path)) continue;
      const kept = await this.serial(() => keepBegun(this.dir, this.branch, path, this.shown));
      if (kept.said !== undefined) notes.push(kept.said);
      if (!kept.stays) this.tidy(path);
    }
    return { recovered, notes };
  }

  /** One attempt a killed run left ended: finished, or kept (`keep`: its worktree stays). */
  private async recoverOne(
    p: Pending,
    frontier: Frontier,
    notes: string[],
  ): Promise<{ keep: boolean; recovered?: Recovered }> {
    const spec = frontier.spec(p.ticket);
    const was = `${p.ticket}: attempt ${p.attempt} had ended`;
    if (!frontier.isLive(p.ticket, p)) {
      // recorded after all (a kill between its record and this file's removal), or settled
      // otherwise meanwhile (its lease ran out, the run was cancelled): then what it changed
      // is kept beside this file before its worktree goes
      const record = frontier.state(p.ticket)?.attempts.find((a) => a.n === p.attempt);
      if (record?.changes === undefined) {
        const why = record?.reason ?? "no longer live";
        const they = `${was}, but was settled otherwise before its changes were integrated (${why}); they`;
        const kept = await this.serial(() =>
          keepAsPatch(this.dir, this.branch, p, they, this.shown),
        );
        if (kept.said !== undefined) notes.push(kept.said);
        // never lose them: its file and its worktree stay, and the next run tries again
        if (kept.stays) return { keep: true };
      }
      this.done(p);
      return { keep: false };
    }
    if (
      spec === undefined ||
      (!existsSync(p.worktree) && (await landedCommit(this.branch, p)) === undefined)
    ) {
      notes.push(
        `${was}, but its worktree (${p.worktree}) is gone and nothing of it was integrated: it runs again`,
      );
      rmSync(join(this.dir, integratingFile(p.ticket, p.attempt)), { force: true });
      const result = { ...failedResult(REASON.interrupted, p.duration_ms), stopped: true };
      return { keep: false, recovered: { claim: p, ended: { kind: "settle", result } } };
    }
    const ended = await this.integrate(p, spec, true);
    if (ended.kind !== "held") {
      const c = ended.changes;
      notes.push(
        c?.commit === undefined
          ? `${was} before the last run stopped: recorded now`
          : `${was} before the last run stopped: its changes are on ${this.branch.branch} as ${short(c.commit)} (${plural(c.paths.length, "path")}), integrated once`,
      );
    }
    return { keep: true, recovered: { claim: p, ended } };
  }
}
