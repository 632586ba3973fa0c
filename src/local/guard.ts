/**
 * What isolated tickets must not touch, checked rather than assumed (SPEC §4b): the
 * user's working tree outside the ticket directory (which the run itself writes), HEAD
 * and its branch, and the repository's shared git directory that every worktree can
 * reach — its config, hooks and info/, where code an executor left would run in the
 * user's own git commands, and in the integration's. A snapshot is taken when the run
 * starts; the integration compares the shared directory before each commit, and the
 * run's end compares everything and says what changed.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { diffTrees } from "../workspace/changes.js";
import { git, gitText } from "../workspace/git.js";
import { tryResolveCommit } from "../workspace/worktrees.js";
import type { RunBranch } from "./worktree.js";

export interface Snapshot {
  /** `ref:<branch>` or the detached commit, then the commit HEAD is at */
  head: string;
  /** the working tree outside the ticket directory, as a tree object; undefined: it could not be read */
  tree: string | undefined;
  /** the shared git directory's config, hooks and info/: path → content hash */
  shared: Map<string, string>;
}

interface Touched {
  /** HEAD (or its branch) moved: from, to */
  head?: [string, string];
  /** paths of the working tree that changed */
  tree: string[];
  /** files of the shared git directory that changed, appeared or went, as `.git/…` */
  shared: string[];
}

/**
 * What in the shared git directory changes what git runs or sees: its config, hooks, and
 * of info/ the attributes (filters), excludes, grafts and sparse checkout — not info/refs,
 * which a repack run by git's own housekeeping rewrites.
 */
const SHARED = [
  "config",
  "config.worktree",
  "hooks",
  "info/attributes",
  "info/exclude",
  "info/grafts",
  "info/sparse-checkout",
];

/**
 * Settings a person changes while they work beside a run (a remote, an upstream, their
 * name): not code git runs, so a change to them is no alarm. Everything else in a config
 * file counts (filters, fsmonitor, hooksPath, external diff, includes, submodules…).
 */
const BENIGN = /^(branch|remote|user|color|advice|gui|push|pull|fetch|rerere|init|maintenance)\./;

/** Content hashes of the shared git directory's files that matter (SHARED, and the files under them). */
async function sharedFiles(commonDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const hash = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
  const walk = async (path: string): Promise<void> => {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return; // not there
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) await walk(join(path, name));
      return;
    }
    const name = relative(commonDir, path);
    let text: string | Buffer = readFileSync(path);
    if (name.startsWith("config")) {
      // as git reads it: the settings that are not BENIGN, each once (a file git cannot read counts whole)
      const listed = await git(["config", "--file", path, "--list", "-z"], {
        cwd: commonDir,
      }).catch(() => text);
      text = [...new Set(listed.toString("utf8").split("\0"))]
        .filter((kv) => !BENIGN.test(kv))
        .sort()
        .join("\0");
    }
    out.set(name, `${stat.mode & 0o111 ? "x" : "-"}${hash(text)}`);
  };
  for (const name of SHARED) await walk(join(commonDir, name));
  return out;
}

/** The files of the shared git directory that changed, appeared or went since `before`. */
export async function sharedChangedSince(rb: RunBranch, before: Snapshot): Promise<string[]> {
  const now = await sharedFiles(rb.repository.commonDir);
  const names = new Set([...before.shared.keys(), ...now.keys()]);
  return [...names].filter((n) => before.shared.get(n) !== now.get(n)).sort();
}

async function headOf(root: string): Promise<string> {
  const ref = await gitText(["symbolic-ref", "-q", "HEAD"], { cwd: root }).catch(() => "");
  const commit = (await tryResolveCommit(root, "HEAD")) ?? "";
  return `${ref === "" ? "detached" : ref.replace(/^refs\/heads\//, "")} ${commit.slice(0, 10)}`;
}

/**
 * The user's working tree outside the ticket directory as a tree object: their index
 * copied to a scratch index (so only changed files are read), every file added to it.
 * Neither their index nor their tree is touched.
 */
async function treeOf(rb: RunBranch, scratch: string): Promise<string | undefined> {
  const { root } = rb.repository;
  const dir = mkdtempSync(join(scratch, `guard-${process.pid}-`));
  const env = { GIT_INDEX_FILE: join(dir, "index") };
  try {
    try {
      const index = await gitText(["rev-parse", "--git-path", "index"], { cwd: root });
      copyFileSync(resolve(root, index), env.GIT_INDEX_FILE);
    } catch {
      await git(["read-tree", "HEAD"], { cwd: root, env });
    }
    // (only ever asked for a ticket directory below the top: takeSnapshot)
    const outside = `:(exclude,top,literal)${rb.ticketDir}`;
    await git(["-c", "core.fsmonitor=false", "add", "-A", "--", ":(top)", outside], {
      cwd: root,
      env,
    });
    return await gitText(["write-tree"], { cwd: root, env });
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function takeSnapshot(rb: RunBranch, scratch: string): Promise<Snapshot> {
  const { root, commonDir } = rb.repository;
  return {
    head: await headOf(root),
    tree: rb.ticketDir === "" ? undefined : await treeOf(rb, scratch),
    shared: await sharedFiles(commonDir),
  };
}

/**
 * What changed since `before`. The working tree is read with git only while the shared
 * directory is as it was: otherwise its config may run an executor's code.
 */
export async function touchedSince(
  rb: RunBranch,
  before: Snapshot,
  scratch: string,
): Promise<Touched> {
  const { root } = rb.repository;
  const out: Touched = { tree: [], shared: await sharedChangedSince(rb, before) };
  const head = await headOf(root);
  if (head !== before.head) out.head = [before.head, head];
  if (out.shared.length === 0 && before.tree !== undefined) {
    const now = await treeOf(rb, scratch);
    if (now !== undefined && now !== before.tree) {
      out.tree = (await diffTrees(root, before.tree, now)).map((c) => c.path);
    }
  }
  return out;
}
