/**
 * A run with isolated tickets (SPEC §4b), from its start to its end: git, the
 * repository and the run's branch checked and opened before anything starts, with a
 * snapshot of what the run must not touch (guard.ts); at the end, what the branch holds
 * — the run's commits, and any it did not make — and whether the user's tree, branch
 * and git directory are as they were, said after checking them.
 */
import { mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { named } from "../core/changes.js";
import { DEFAULTS, runsIsolated } from "../core/constants.js";
import type { Frontier } from "../core/engine.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { printProblems } from "../terminal/problems.js";
import { plural, shellWord } from "../terminal/text.js";
import { sweepDead } from "../tickets/cache.js";
import { statOf } from "../tickets/read-optional.js";
import { gitText } from "../workspace/git.js";
import { killedRunsLost, stillAlarmed, takeSnapshot, touchedSince } from "./guard.js";
import { Integrator } from "./integrate.js";
import type { Opened } from "./open.js";
import { isolationProblems, openRunBranch, type RunBranch, short } from "./worktree.js";

/**
 * Git, the repository and the run's branch, checked and opened; `commands` of isolated
 * tickets get their relative paths to the user's files resolved (userPaths).
 */
export async function openIsolation(
  shownDir: string,
  opened: Opened,
  io: CliIo,
  now: number,
  commands: Map<string, string>,
): Promise<{ kind: "ok"; integrator?: Integrator } | { kind: "bad"; code: number }> {
  const { dir: absDir, specs, settings, frontier } = opened;
  for (const spec of specs) {
    const command = commands.get(spec.id);
    if (command !== undefined && runsIsolated(spec, settings)) {
      commands.set(spec.id, userPaths(command, dirname(absDir)));
    }
  }
  const problems = await isolationProblems(absDir, specs, settings);
  if (problems.length > 0) {
    printProblems(problems, io, shownDir);
    return { kind: "bad", code: EXIT.usage };
  }
  const run = frontier.runRecord().run;
  const branch = await openRunBranch(absDir, run, now);
  if (branch.kind === "bad") {
    line(io.stderr, `error: ${branch.message}`);
    return { kind: "bad", code: EXIT.usage };
  }
  const lost = await killedRunsLost(branch.branch);
  if (lost.length > 0)
    line(io.stderr, refsWarning(lost, "the last run ran (it was killed before its end compared)"));
  const behind =
    (await stillAlarmed(branch.branch)) ?? (await leftBehind(branch.branch, frontier, shownDir));
  if (behind !== undefined) {
    line(io.stderr, `error: ${behind}`);
    return { kind: "bad", code: EXIT.usage };
  }
  for (const note of branch.notes) line(io.stderr, note);
  const before = await takeSnapshot(branch.branch, scratchOf(branch.branch));
  const cap = settings.max_result_bytes ?? DEFAULTS.maxResultBytes;
  return { kind: "ok", integrator: new Integrator(branch.branch, absDir, run, cap, before) };
}

/**
 * Why the run cannot go on: its branch no longer holds commits its records say it made
 * (deleted or moved back while the run was away). A dependent must start from its
 * dependencies' changes, so nothing starts until the branch is put back.
 */
async function leftBehind(rb: RunBranch, frontier: Frontier, shownDir: string) {
  const made = integrated(frontier);
  if (made.length === 0) return undefined;
  const input = [...made.map((m) => m.commit), `^refs/heads/${rb.branch}`].join("\n");
  const o = { cwd: rb.repository.root, input };
  const listed = await gitText(["rev-list", "--stdin"], o).catch(() => undefined);
  const behind = made.filter((m) => listed?.split("\n").includes(m.commit) ?? true);
  if (behind.length === 0) return undefined;
  const newest = made.reduce((a, b) => (b.at > a.at ? b : a));
  const which = behind.map((m) => `${m.id} attempt ${m.n} (${short(m.commit)})`).join(", ");
  return `${rb.branch} no longer holds the run's ${behind.length === 1 ? "commit" : "commits"} of ${which}: it was deleted or moved back while the run was away (by an executor?), and a ticket must start from its dependencies' changes — put it back (git branch -f ${rb.branch} ${short(newest.commit)}), or start the run afresh (frontier reset ${shellWord(shownDir)}); nothing was started`;
}

/** The run's attempts whose changes it integrated, each with its commit. */
function integrated(frontier: Frontier) {
  return frontier
    .specs()
    .flatMap((s) =>
      (frontier.state(s.id)?.attempts ?? []).flatMap(({ n, changes, ended_at: at = "" }) =>
        changes?.commit ? [{ id: s.id, n, at, commit: changes.commit }] : [],
      ),
    );
}

/**
 * An executor command as the user means it: the program it starts — its first word, or
 * the script after an interpreter (`sh tickets/_bin/agent.sh`, `node tools/agent.js`) —
 * when it is a relative path to a file in the user's directory, names that file (made
 * absolute), not the worktree's copy, which holds only what is committed. Nothing else
 * of the command is read: it runs in the worktree as typed.
 */
export function userPaths(command: string, cwd: string): string {
  const m = /^(\s*)(?:([\w.-]+)(\s+))?([\w.][\w.@+,/-]*)(?=\s|$)/.exec(command);
  if (m === null) return command;
  const [whole, lead = "", interpreter, gap = "", word = ""] = m;
  // a program is a path when it has a `/` (else the shell looks it up on PATH); a script after an interpreter is one
  const path = interpreter === undefined ? word.includes("/") : INTERPRETERS.has(interpreter);
  if (!path || !statOf(join(cwd, word))?.isFile()) return command;
  return `${lead}${interpreter ?? ""}${gap}${shellWord(join(cwd, word))}${command.slice(whole.length)}`;
}

const INTERPRETERS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "node",
  "python",
  "python3",
  "ruby",
  "perl",
  "deno",
  "bun",
  "tsx",
]);

/** Scratch space of the run's git work: in the repository's git directory, never in $TMPDIR. */
function scratchOf(rb: RunBranch): string {
  const path = join(rb.repository.commonDir, "frontier", "scratch");
  mkdirSync(path, { recursive: true });
  sweepDead(path, /^[a-z]+-(\d+)-/); // the `<name>-<pid>-…` directories of runs that are gone
  return path;
}

/**
 * What the end of a run says about its branch (how to look at it and merge it, and the
 * commits on it the run did not make) and about what it must not have touched; `failed`
 * when the repository's git directory changed (code may be waiting there).
 */
export async function isolationEnd(integrator: Integrator, frontier: Frontier) {
  const rb = integrator.branch;
  const touched = await touchedSince(rb, integrator.before, scratchOf(rb));
  const { head, tree, shared, refs, staged } = touched;
  const untouched =
    !(head || staged || touched.unchecked) && tree.length + shared.length + refs.length === 0;
  const lines = [
    ...(shared.length > 0 ? [] : await branchLines(rb, frontier, untouched)), // no more git
    ...touchedLines(touched, rb, integrator.before.tree),
  ];
  return { lines, failed: shared.length > 0 };
}

/** The commits on the run's branch, those the run did not make named, and how to merge it. */
async function branchLines(rb: RunBranch, frontier: Frontier, untouched: boolean) {
  const range = `${rb.base}..refs/heads/${rb.branch}`;
  const o = { cwd: rb.repository.root };
  const log = await gitText(["log", "--format=%H %s", range], o).catch(() => undefined);
  const from = short(rb.base);
  if (log === undefined) {
    return [
      `changes: the branch ${rb.branch} is gone; the attempts' records say what each changed`,
    ];
  }
  if (log === "") {
    return [`changes: none integrated yet — ${rb.branch} is still at ${from}, where it started`];
  }
  const commits = log.split("\n");
  const ours = new Set(integrated(frontier).map((m) => m.commit));
  const others = commits.filter((c) => !ours.has(c.slice(0, 40)));
  const notOurs = others.length === 0 ? "" : `, ${others.length} of them not made by this run`;
  const said = untouched ? "; your working tree and branch were not touched" : "";
  const lines = [
    `changes: ${plural(commits.length, "commit")} on ${rb.branch} (from ${from})${notOurs}${said}`,
  ];
  for (const c of others.slice(0, 5)) lines.push(`  not the run's: ${short(c)} ${c.slice(41)}`);
  if (others.length > 0) {
    lines.push(
      `  someone else (an agent's push?) put ${others.length === 1 ? "that commit" : "those commits"} on ${rb.branch}: review ${others.length === 1 ? "it" : "them"} before you merge`,
    );
  }
  lines.push(
    `  review: git log --stat ${from}..${rb.branch}   ·   git diff ${from} ${rb.branch}`,
    `  merge:  git merge ${rb.branch}   ·   or push it (git push origin ${rb.branch}) and open a pull request`,
  );
  return lines;
}

const refsWarning = (refs: string[], when: string) =>
  `warning: your branches, tags or stash changed while ${when}: ${refs.join(", ")} — if you did not do it, an executor did; put each back as shown`;

function touchedLines(
  touched: Awaited<ReturnType<typeof touchedSince>>,
  rb: RunBranch,
  was: string | undefined,
): string[] {
  const out: string[] = [];
  const few = (paths: string[]) => named(paths, 10);
  if (touched.head !== undefined) {
    out.push(
      `warning: HEAD moved while the run ran (${touched.head[0]} → ${touched.head[1]}) — if you did not move it, \`git reflog\` shows where it was`,
    );
  }
  if (touched.tree.length > 0) {
    out.push(
      `warning: your working tree changed while isolated tickets ran: ${few(touched.tree)} — an executor wrote outside its worktree, or you edited them meanwhile; \`git restore --source=${was} -- <path>\` puts one that was there back as it was when the run started (a ticket file with its state of then)`,
    );
  }
  if (touched.staged) {
    out.push(
      `warning: what you had staged changed while isolated tickets ran (an executor's git add or reset in your tree, or your own) — \`git read-tree ${touched.staged}\` puts it back as it was when the run started (your files stay as they are)`,
    );
  }
  if (touched.unchecked) {
    out.push(
      "warning: your working tree could not be checked for what executors wrote there: git refused to list it (a name it will not store, such as a .GIT directory?) — look at `git status`",
    );
  }
  if (touched.refs.length > 0) out.push(refsWarning(touched.refs, "the run ran"));
  if (touched.shared.length > 0) {
    const shown = touched.shared.map((p) =>
      relative(rb.repository.root, join(rb.repository.commonDir, p)),
    );
    out.push(
      `error: the repository's git directory changed while the run ran: ${few(shown)} — an executor may have left code there that your own git commands would run (hooks, config); look at it before you run git here (your working tree was not checked)`,
    );
  }
  return out;
}
