/**
 * A coding ticket's files (a ticket with a `write_scope`): what its request shows of the
 * workspace — the files its scope matches, within a cap, the rest named with their sizes —
 * and the model's whole-file writes and deletions applied to it before the agent ends.
 *
 * Every path is checked before anything is written: one that would leave the workspace
 * (absolute, `..`, through a symlink, into `.git`) or land where no change is taken (a run's
 * records, `.frontier`; a path git ignores: dropped, the work claimed would be lost) refuses
 * the whole answer, naming the path, and nothing is written anywhere. A path outside the
 * write_scope is written: the runners judge it as they judge any agent's change, a scope
 * breach that fails the attempt.
 */
import { existsSync } from "node:fs";
import { lstat, mkdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { named } from "../core/changes.js";
import { errnoCode, errorText } from "../core/errors.js";
import { compileScope, pathInScope } from "../core/scope.js";
import { fenceFor } from "../report/escape.js";
import { GitError, git, gitText } from "../workspace/git.js";
import { type AgentOutcome, excerpt, type ModelOutcome } from "./protocol.js";

/**
 * The most of the scope's files one request carries, in bytes (about 4,000 tokens): with
 * the context it fits the 8,000 tokens GitHub Models' free tier takes in a request.
 */
export const MAX_SCOPE_BYTES = 16 * 1024;
/** Files past the cap named at most, by path and size. */
const MAX_NAMED = 200;

/**
 * The top of the workspace the paths are relative to: the repository's that holds `cwd`
 * (the ticket's worktree; on GitHub the job's checkout, where the step runs), else `cwd`.
 */
export async function workspaceRoot(cwd: string): Promise<string> {
  const top = await gitText(["rev-parse", "--show-toplevel"], { cwd }).catch(() => undefined);
  return realpath(top ?? cwd);
}

/** The request's part about files: the write scope, and the text of the files it matches. */
export async function scopeFiles(root: string, patterns: readonly string[]): Promise<string> {
  const scope = compileScope(patterns);
  // tracked and untracked files, not the ignored ones (build output, node_modules)
  const listing = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"];
  const out = [
    "",
    "## Files",
    "",
    `Write scope: ${patterns.map((p) => `\`${p}\``).join(", ")}. The current text of the files in it:`,
  ];
  // none when git fails; each once (an unmerged file is listed once a stage)
  const listed = await git(listing, { cwd: root }).catch(() => Buffer.alloc(0));
  const names = new Set(listed.toString("utf8").split("\0").filter(Boolean));
  const inScope = [...names].filter((p) => pathInScope(p, scope)).sort();
  const left: string[] = [];
  let room = MAX_SCOPE_BYTES;
  for (const path of inScope) {
    // a symlink is never followed out of the workspace into the request
    const stat = await lstat(join(root, path)).catch(() => undefined);
    if (!stat?.isFile()) continue;
    const text = stat.size > room ? undefined : await readFile(join(root, path), "utf8");
    if (text === undefined || text.includes("\0")) {
      left.push(`- ${path} (${stat.size} bytes${text === undefined ? "" : ", binary"})`);
      continue;
    }
    room -= stat.size;
    const fence = fenceFor(text);
    out.push("", `### ${path}`, "", fence, text.replace(/\n$/, ""), fence);
  }
  if (inScope.length === 0) out.push("", "(no file matches it yet)");
  if (left.length > 0) {
    out.push(
      "",
      `Not shown (past the ${MAX_SCOPE_BYTES} bytes of files a request carries, or binary):`,
      ...left.slice(0, MAX_NAMED),
    );
    if (left.length > MAX_NAMED) out.push(`- and ${left.length - MAX_NAMED} more`);
  }
  return `${out.join("\n")}\n`;
}

/** Why `path` may not be written or deleted in `root`; undefined when it may. */
async function escapes(root: string, path: string): Promise<string | undefined> {
  if (isAbsolute(path) || /^([A-Za-z]:)?[\\/]/.test(path)) return "an absolute path";
  const parts = path.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return "it climbs out of the workspace with ..";
  if (parts.length === 0 || path.includes("\0") || /[\\/]$/.test(path)) return "not a file's path";
  if (parts.some((p) => p.toLowerCase() === ".git")) return "inside .git";
  if (parts.some((p) => p.toLowerCase() === ".frontier")) return "inside a run's .frontier";
  // part of a name here, a separator elsewhere: no check walks what a write would
  if (path.includes("\\")) return "a backslash: write / between directories";
  let at = root;
  for (const [i, name] of parts.entries()) {
    at = join(at, name);
    const stat = await lstat(at).catch(() => undefined);
    if (stat === undefined) return undefined; // the rest is made new
    const here = parts.slice(0, i + 1).join("/");
    if (stat.isSymbolicLink()) return `${here} is a symlink`;
    if (i < parts.length - 1 && !stat.isDirectory()) return `${here} is not a directory`;
    if (i === parts.length - 1 && !stat.isFile()) return "not a file";
  }
  return undefined;
}

/** Those of `paths` git ignores, worded as refused; or that git could not say. */
async function ignoredOf(root: string, paths: readonly string[]): Promise<string[]> {
  // an untracked path a .gitignore or info/exclude matches is no runner's change (as they
  // read it: no core.excludesFile); each given as ./path, never read as pathspec magic
  const checkIgnore = ["-c", "core.excludesFile=", "check-ignore", "-z", "--stdin"];
  try {
    const out = await git(checkIgnore, { cwd: root, input: paths.map((p) => `./${p}\0`).join("") });
    const ignored = new Set(out.toString("utf8").split("\0"));
    const why = "git ignores it: never a change, the runner would drop it";
    return paths
      .filter((p) => ignored.has(`./${p}`))
      .map((p) => `${excerpt(JSON.stringify(p), 200)} (${why})`);
  } catch (error) {
    // exit 1: it ignores none of them (nor does any outside a repository)
    if ((error instanceof GitError && error.code === 1) || !existsSync(join(root, ".git")))
      return [];
    return [`git could not say which paths it ignores (${errorText(error)})`];
  }
}

/**
 * The model's outcome with its edits applied in `root`: every path checked first (one that
 * escapes fails the attempt and nothing is written), then the writes and deletions, all
 * undone when git ignores one of them. A complete answer that changed files but said
 * nothing gets a result naming them.
 */
export async function applyEdits(root: string, outcome: ModelOutcome): Promise<AgentOutcome> {
  const { edits, ...plain } = outcome;
  if (edits === undefined) return plain;
  const paths = [...edits.writes.map((w) => w.path), ...edits.deletes];
  const failed = (reason: string): AgentOutcome => ({
    status: "failed",
    reason,
    ...(plain.usage && { usage: plain.usage }),
  });
  const refuse = (refused: string[]) =>
    failed(
      `the model's answer writes outside the workspace or where no change is taken, so none of it was written: ${named(refused)} — paths are relative to the repository's top (${root}), inside it, out of .git, .frontier and the paths git ignores`,
    );
  const escaping: string[] = [];
  for (const path of paths) {
    const why = await escapes(root, path);
    if (why !== undefined) escaping.push(`${excerpt(JSON.stringify(path), 200)} (${why})`);
  }
  if (escaping.length > 0) return refuse(escaping);
  const read = () => Promise.all(paths.map((p) => readFile(join(root, p)).catch(() => undefined)));
  const before = await read();
  const stats = await Promise.all(paths.map((p) => lstat(join(root, p)).catch(() => undefined)));
  let path = "";
  try {
    for (const w of edits.writes) {
      path = w.path;
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), w.content);
    }
    for (const d of edits.deletes) {
      path = d;
      await rm(join(root, path), { force: true });
    }
  } catch (error) {
    const code = errnoCode(error) ?? String(error);
    return failed(
      `could not write ${excerpt(path, 200)} in ${root} (${code}): the files before it were written`,
    );
  }
  // a path git ignores, by a .gitignore of the answer's own too, is no change: all of it is undone
  const ignored = await ignoredOf(root, paths);
  if (ignored.length > 0) {
    const undo = (p: string, b: Buffer | undefined, mode?: number) =>
      b === undefined ? rm(join(root, p), { force: true }) : writeFile(join(root, p), b, { mode });
    await Promise.all(paths.map((p, i) => undo(p, before[i], stats[i]?.mode)));
    return refuse(ignored);
  }
  // a write of the text already there, or undone by a deletion, changed nothing: no result says it did
  const after = (await read()).map((b) => b?.toString("hex"));
  const changed = new Set(paths.filter((_, i) => before[i]?.toString("hex") !== after[i]));
  if (plain.result !== undefined || changed.size === 0) return plain;
  return { ...plain, result: `Changed ${named([...changed])}.` };
}
