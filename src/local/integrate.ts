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
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { claimTrailer, touchedPaths } from "../core/changes.js";
import type { Claim, Frontier } from "../core/engine.js";
import type { AttemptChanges, TicketSpec } from "../core/model.js";
import { compileScope } from "../core/scope.js";
import { type Interpreted, keepsPatch, planSettle, type SettlePlan } from "../core/settle.js";
import { plural } from "../terminal/text.js";
import { INTEGRATING_DIR, integratingFile, patchFile } from "../tickets/layout.js";
import { engineFieldRule } from "../tickets/parse.js";
import { createRecord, writeError } from "../tickets/store.js";
import {
  type Collected,
  changedSince,
  collectChanges,
  commitOnto,
  diffTrees,
  integrationMessage,
  NotCollected,
  notCollectedReason,
  patchOf,
} from "../workspace/changes.js";
import {
  addWorktree,
  commitWithTrailer,
  parentOf,
  removeWorktree,
  resolveCommit,
  worktreesUnder,
} from "../workspace/worktrees.js";
import type { AttemptResult } from "./attempt.js";
import { keepAsPatch, type RunBranch, recordsPath, short, worktreePath } from "./worktree.js";

/** Where an isolated attempt runs. */
export interface Workspace {
  /** its worktree */
  path: string;
  /** the commit it starts from: the branch's head when it was made */
  start: string;
  /** the executor's directory in it */
  cwd: string;
}

/** An attempt that ended and is not yet recorded: `integrating/<id>@<n>.json`. */
interface Pending {
  schema: "ticket-frontier/integrating@1";
  ticket: string;
  attempt: number;
  claim: string;
  worktree: string;
  start: string;
  /** the outcome, as the executor's end was read */
  outcome: Interpreted;
  exit_code: number | null;
  signal: NodeJS.Signals | null;
  duration_ms: number;
}

/** What becomes of an attempt's end. */
export type Ended =
  /** settle it with this result and these changes; `written` once its record is on disk */
  | { kind: "settle"; result: AttemptResult; changes?: AttemptChanges; written: () => void }
  /** it cannot be integrated now: it stays claimed, its outcome and worktree kept for the next run */
  | { kind: "held"; message: string };

/** A recovered attempt: the claim it ended under, and what becomes of it. */
export interface Recovered {
  claim: Claim;
  ended: Ended;
}

const TRIES = 10;

export class Integrator {
  /** one git operation on the branch or the worktrees at a time */
  private queue: Promise<unknown> = Promise.resolve();
  /** worktrees being removed: the run waits for them before it ends */
  private readonly tidying = new Set<Promise<void>>();

  constructor(
    readonly branch: RunBranch,
    private readonly dir: string,
    private readonly run: string,
    private readonly maxResultBytes: number,
  ) {}

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
  async prepare(
    claim: Claim,
  ): Promise<{ kind: "ok"; workspace: Workspace } | { kind: "bad"; reason: string }> {
    try {
      return await this.serial(async () => {
        const start = await resolveCommit(this.root, this.ref);
        if (start === undefined) {
          return { kind: "bad", reason: `the run's branch ${this.branch.branch} is gone` } as const;
        }
        const path = worktreePath(this.branch, claim.ticket, claim.attempt);
        await addWorktree(this.root, path, start);
        const cwd = this.branch.cwd === "" ? path : join(path, this.branch.cwd);
        // the ticket directory's parent may hold nothing committed: it is made, empty
        mkdirSync(cwd, { recursive: true });
        return { kind: "ok", workspace: { path, start, cwd } } as const;
      });
    } catch (error) {
      return { kind: "bad", reason: `could not make its worktree: ${(error as Error).message}` };
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
      // interrupted: it runs again from the branch's head; what it had begun is not its work
      this.tidy(workspace.path);
      return { kind: "settle", result, written: () => {} };
    }
    const pending: Pending = {
      schema: "ticket-frontier/integrating@1",
      ticket: claim.ticket,
      attempt: claim.attempt,
      claim: claim.claim,
      worktree: workspace.path,
      start: workspace.start,
      outcome: interpretedOf(result),
      exit_code: result.exitCode,
      signal: result.signal,
      duration_ms: result.durationMs,
    };
    const file = integratingFile(claim.ticket, claim.attempt);
    try {
      createRecord(join(this.dir, file), `${JSON.stringify(pending, null, 2)}\n`, file);
    } catch (error) {
      return {
        kind: "held",
        message: `${claim.ticket} attempt ${claim.attempt} ended, but ${writeError(join(this.dir, file), error).message}; it stays claimed, its changes in ${workspace.path} until this run ends, and once that is fixed the next \`frontier run\` runs it again`,
      };
    }
    return this.integrate(pending, spec, false);
  }

  private async integrate(p: Pending, spec: TicketSpec, recovering: boolean): Promise<Ended> {
    let plan: SettlePlan & { keepWorktree?: boolean };
    try {
      plan = await this.serial(() => this.land(p, spec, recovering));
    } catch (error) {
      return {
        kind: "held",
        message: `${p.ticket} attempt ${p.attempt} ended, but its changes could not be integrated on ${this.branch.branch}: ${(error as Error).message} — they are kept in ${p.worktree}; once that is fixed, \`frontier run\` integrates them`,
      };
    }
    const result: AttemptResult = {
      outcome: plan.outcome,
      stopped: false,
      exitCode: p.exit_code,
      signal: p.signal,
      durationMs: p.duration_ms,
    };
    if (plan.result !== undefined) result.result = plan.result;
    if (plan.question !== undefined) result.question = plan.question;
    if (plan.reason !== undefined) result.reason = plan.reason;
    if (plan.usage !== undefined) result.usage = plan.usage;
    // changes that could not be collected are still the worktree's files: it stays
    const keep = plan.keepWorktree === true;
    const ended: Ended = { kind: "settle", result, written: () => this.done(p, keep) };
    if (plan.record !== undefined) ended.changes = plan.record;
    return ended;
  }

  /** Judge the attempt's changes and land them: one commit, or a patch kept as evidence. */
  private async land(
    p: Pending,
    spec: TicketSpec,
    recovering: boolean,
  ): Promise<SettlePlan & { keepWorktree?: boolean }> {
    const scope = compileScope(spec.writeScope);
    const root = this.root;
    if (recovering) {
      // a run killed after the commit and before the record: the commit is the integration
      const head = await resolveCommit(root, this.ref);
      const made =
        head === undefined
          ? undefined
          : await commitWithTrailer(root, p.start, head, claimTrailer(p.claim));
      if (made !== undefined) {
        const paths = await diffTrees(root, await parentOf(root, made), made);
        const plan = planSettle(p.outcome, { start: p.start, paths, moved: new Map() }, scope);
        if (plan.record !== undefined) plan.record.commit = made;
        return plan;
      }
    }
    const collected = await collectChanges(p.worktree, p.start, {
      exclude: [recordsPath(this.branch)],
      engineFields: engineFieldRule(this.branch.ticketDir),
    }).catch((error: unknown) => {
      if (error instanceof NotCollected) return error;
      throw error;
    });
    if (collected instanceof NotCollected) {
      const refused = notCollectedReason(collected.message, p.worktree);
      const none = { start: p.start, paths: [], moved: new Map(), refused };
      return { ...planSettle(p.outcome, none, scope), keepWorktree: true };
    }
    for (let tries = 1; ; tries++) {
      const head = await resolveCommit(root, this.ref);
      if (head === undefined) throw new Error(`the branch ${this.branch.branch} is gone`);
      const moved = await changedSince(root, collected.start, head, touchedPaths(collected.paths));
      const plan = planSettle(p.outcome, { ...collected, moved }, scope);
      if (plan.changes === "evidence" && plan.record !== undefined) {
        const kept = await this.keepPatch(p, collected);
        if (kept !== undefined) plan.record.patch_file = kept;
      }
      if (plan.changes !== "integrate") return plan;
      const made = await commitOnto(root, {
        head,
        ref: this.ref,
        changes: collected.paths,
        message: integrationMessage({
          run: this.run,
          ticket: spec.id,
          title: spec.title,
          attempt: p.attempt,
          claim: p.claim,
          paths: collected.paths.length,
        }),
      });
      if (made.kind === "ok") {
        if (plan.record !== undefined) plan.record.commit = made.commit;
        return plan;
      }
      if (made.kind === "failed") throw new Error(made.message);
      // someone moved the branch between the read and the commit: judge again on its new head
      if (tries >= TRIES) throw new Error(`the branch kept moving (${TRIES} tries)`);
    }
  }

  /** The changes as a patch among the results, when it fits the result cap. */
  private async keepPatch(p: Pending, collected: Collected): Promise<string | undefined> {
    const patch = await patchOf(this.root, collected.start, collected.tree);
    if (!keepsPatch(patch, this.maxResultBytes)) return undefined;
    const file = patchFile(p.ticket, p.attempt);
    try {
      createRecord(join(this.dir, file), patch, file);
    } catch (error) {
      throw writeError(join(this.dir, file), error);
    }
    return file;
  }

  /** Its record is on disk: the outcome written for a kill, and the worktree (unless `keep`), go. */
  private done(p: Pending, keep = false): void {
    rmSync(join(this.dir, integratingFile(p.ticket, p.attempt)), { force: true });
    if (!keep) this.tidy(p.worktree);
  }

  /** A worktree made for an attempt that never started. */
  discard(workspace: Workspace): void {
    this.tidy(workspace.path);
  }

  private tidy(path: string): void {
    const removing: Promise<void> = this.serial(() => removeWorktree(this.root, path))
      .catch(() => undefined)
      .finally(() => this.tidying.delete(removing));
    this.tidying.add(removing);
  }

  /** Resolves once every worktree being removed is gone. */
  async idle(): Promise<void> {
    while (this.tidying.size > 0) await Promise.all([...this.tidying]);
  }

  /**
   * Before the first event of a run: the attempts a killed run left ended but not
   * recorded are finished (integrated once, or kept), and the worktrees of attempts that
   * never ended (their claims are about to be reclaimed) are removed.
   */
  async recover(frontier: Frontier): Promise<{ recovered: Recovered[]; notes: string[] }> {
    const recovered: Recovered[] = [];
    const notes: string[] = [];
    const keep = new Set<string>();
    for (const p of this.pendings()) {
      const state = frontier.state(p.ticket);
      const spec = frontier.spec(p.ticket);
      const live =
        state?.status === "claimed" && state.claim === p.claim && state.attempt === p.attempt;
      if (!live || spec === undefined || state === undefined) {
        // recorded after all (a kill between its record and this file's removal), or settled
        // otherwise meanwhile (its lease ran out, the run was cancelled): then what it changed
        // is kept beside this file before its worktree goes
        const recorded = state?.attempts.find((a) => a.n === p.attempt)?.changes !== undefined;
        if (!recorded) {
          let kept: string | undefined;
          try {
            kept = await this.serial(() => keepAsPatch(this.dir, this.branch, p));
          } catch (error) {
            // never lose them: its file and its worktree stay, and the next run tries again
            notes.push(
              `${p.ticket}: attempt ${p.attempt} had ended, but was settled otherwise before its changes were integrated, and they could not be kept as a patch (${(error as Error).message}): they stay in ${p.worktree}`,
            );
            keep.add(p.worktree);
            continue;
          }
          if (kept !== undefined) {
            notes.push(
              `${p.ticket}: attempt ${p.attempt} had ended, but was settled otherwise before its changes were integrated (${state?.attempts.find((a) => a.n === p.attempt)?.reason ?? "no longer live"}): they are kept as ${kept}`,
            );
          }
        }
        this.done(p);
        continue;
      }
      const claim: Claim = {
        ticket: p.ticket,
        attempt: p.attempt,
        claim: p.claim,
        claimedBy: state.claimed_by ?? "",
        claimedAt: state.claimed_at ?? "",
        leaseUntil: "",
        runBound: frontier.runBoundLeft(),
      };
      if (!existsSync(p.worktree)) {
        const head = await resolveCommit(this.root, this.ref);
        const made =
          head === undefined
            ? undefined
            : await commitWithTrailer(this.root, p.start, head, claimTrailer(p.claim));
        if (made === undefined) {
          notes.push(
            `${p.ticket}: attempt ${p.attempt} had ended, but its worktree (${p.worktree}) is gone and nothing of it was integrated: it runs again`,
          );
          rmSync(join(this.dir, integratingFile(p.ticket, p.attempt)), { force: true });
          recovered.push({
            claim,
            ended: {
              kind: "settle",
              result: {
                outcome: "failed",
                reason: "interrupted",
                stopped: true,
                exitCode: null,
                signal: null,
                durationMs: p.duration_ms,
              },
              written: () => {},
            },
          });
          continue;
        }
      }
      keep.add(p.worktree);
      const ended = await this.integrate(p, spec, true);
      if (ended.kind !== "held") {
        const commit = ended.changes?.commit;
        notes.push(
          commit === undefined
            ? `${p.ticket}: attempt ${p.attempt} had ended before the last run stopped: recorded now`
            : `${p.ticket}: attempt ${p.attempt} had ended before the last run stopped: its changes are on ${this.branch.branch} as ${short(commit)} (${plural(ended.changes?.paths.length ?? 0, "path")}), integrated once`,
        );
      }
      recovered.push({ claim, ended });
    }
    // attempts that never ended: their claims are reclaimed, and they run again afresh
    for (const path of await worktreesUnder(this.root, this.branch.home)) {
      if (!keep.has(path)) this.tidy(path);
    }
    return { recovered, notes };
  }

  private pendings(): Pending[] {
    let names: string[];
    try {
      names = readdirSync(join(this.dir, INTEGRATING_DIR));
    } catch {
      return [];
    }
    const out: Pending[] = [];
    for (const name of names) {
      if (!/^.+@\d+\.json$/.test(name)) continue;
      try {
        const p = JSON.parse(
          readFileSync(join(this.dir, INTEGRATING_DIR, name), "utf8"),
        ) as Partial<Pending>;
        if (
          p.schema === "ticket-frontier/integrating@1" &&
          typeof p.ticket === "string" &&
          typeof p.attempt === "number" &&
          typeof p.claim === "string" &&
          typeof p.worktree === "string" &&
          typeof p.start === "string" &&
          p.outcome !== undefined
        ) {
          out.push(p as Pending);
        }
      } catch {
        // not one of ours, or half of one: a record is never half-written (created whole)
      }
    }
    return out;
  }
}

function interpretedOf(result: AttemptResult): Interpreted {
  const out: Interpreted = { outcome: result.outcome };
  if (result.result !== undefined) out.result = result.result;
  if (result.question !== undefined) out.question = result.question;
  if (result.reason !== undefined) out.reason = result.reason;
  if (result.usage !== undefined) out.usage = result.usage;
  return out;
}
