/**
 * Running git on a workspace: the one place that spawns it. A command gets its
 * arguments as a list (never a shell), optional input on stdin and extra environment
 * (a temporary index), and answers its stdout as bytes; a failure is a GitError that
 * quotes git's own stderr.
 */
import { spawn } from "node:child_process";
import { lstatSync, readdirSync, type Stats } from "node:fs";
import { constants, lstat, open, readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { errnoCode } from "../core/errors.js";

export class GitError extends Error {
  constructor(
    args: readonly string[],
    readonly code: number | null,
    stderr: string,
  ) {
    super(
      `git ${args.slice(0, 3).join(" ")} failed${code === null ? "" : ` (exit ${code})`}: ${gist(stderr) || "no message"}`,
    );
  }
}

/** Git printed more than the caller takes: it was ended, and nothing it printed is kept. */
export class TooMuchOutput extends GitError {}

/** Git ran past its bound (`boundMs`) and was ended. */
export class Stopped extends GitError {}

/** The changes could not be collected at all (`.git` gone or made anew, files git cannot store). */
export class NotCollected extends Error {}

/** A path's stat; none when it is gone, and one the runner may not look at is not collected. */
export function lstatOr(path: Buffer): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    // gone is gone; a file the runner may not look at (a directory's permissions) is not
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new NotCollected(`${path.toString()} cannot be looked at (${code})`);
  }
}

/** A directory's names: one the runner may not read is not collected, never taken for empty. */
export function readableNames(dir: Buffer): Buffer[] {
  try {
    return readdirSync(dir, { encoding: "buffer" });
  } catch (error) {
    throw new NotCollected(`${dir.toString()} cannot be read (${errnoCode(error)})`);
  }
}

/** What git said, in a line: its `fatal:` / `error:` lines when it has them (advice follows those), else its last lines. */
function gist(stderr: string): string {
  const lines = stderr.trim().split("\n");
  const said = lines.filter((l) => /^(fatal|error): /.test(l));
  return (said.length > 0 ? said : lines).slice(-3).join(" ");
}

export interface GitOptions {
  /** the repository's working directory */
  cwd: string;
  /** written to git's stdin */
  input?: string | Buffer;
  /** added to the environment (e.g. GIT_INDEX_FILE) */
  env?: Record<string, string>;
  /** git as the user runs it, with their configuration: only to ask who they are (`git var`) */
  trusted?: true;
  /** settings over the repository's own (`-c`) */
  config?: readonly string[];
  /** stdout past this many bytes ends git (TooMuchOutput); 1 GiB unless given — Node holds no more than 4 */
  maxBytes?: number;
  /** a warning fails it too (a directory it could not read, which git leaves out and goes on) */
  strict?: true;
  /** untrusted git is ended after this long (30 minutes unless given): it would wait for good on a FIFO where it reads a file */
  boundMs?: number;
}

/**
 * Git as it runs on every repository here, since agents work in it (SPEC §4b) — unless the
 * caller asks for the user's own (`trusted`): none of the repository's code runs and
 * none of the runner's secrets is there to steal. No system or user configuration; the
 * repository's own (which `-c` cannot skip, only override) has its hooks, fsmonitor,
 * untracked cache, attributes file, signing and its checks, auto-gc and external diff
 * overridden, and its line-ending settings too; no replace refs. Filter and diff drivers
 * run only when git converts content: reading the changes empties every filter driver
 * where files are hashed (`noCodeRun`, with configured hooks) and never asks for a
 * diff's (`--no-ext-diff --no-textconv`); making a worktree and reading the user's tree
 * do, so neither is done once the shared git directory changed during a run (local/guard.ts).
 * Without the user's configuration their `safe.directory` is gone too: a repository another
 * user owns (a container's, a mount's) is one the runner chose, and none of its code runs.
 */
const UNTRUSTED_CONFIG = [
  "safe.directory=*",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.attributesFile=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  // a `.git` in any spelling Windows or macOS would take for it is no name (GitHub's rule)
  "core.protectNTFS=true",
  "core.protectHFS=true",
  "diff.external=",
  "commit.gpgSign=false",
  "log.showSignature=false",
  "gc.auto=0",
].flatMap((c) => ["-c", c]);

/** The runner's environment without its credentials, nor a GIT_* variable it set. */
function untrustedEnv(): NodeJS.ProcessEnv {
  const secret = /TOKEN|KEY|SECRET|PASSWORD|CREDENTIAL|^INPUT_|^ACTIONS_|^GIT_/i;
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !secret.test(k))),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    // no transport at all, whatever the repository allows: a partial clone's configuration
    // would fetch an object it lacks through its own remote (core.sshCommand, a helper)
    GIT_ALLOW_PROTOCOL: "none",
  };
}

const NO_GIT = "git is not installed (or not on PATH)";
const ENDLESS =
  "a FIFO or a device where it reads a file (a .gitignore, a .gitattributes, a file in .git) never ends, make it a plain file — or it had too much to read in that time";

/** Run `git ARGS` and answer its stdout; throws GitError when it exits non-zero. */
export function git(args: readonly string[], options: GitOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const config = ["-c", "core.quotepath=false", "-c", "color.ui=false"];
    if (!options.trusted) config.push(...UNTRUSTED_CONFIG);
    for (const c of options.config ?? []) config.push("-c", c);
    const bound = options.trusted ? undefined : (options.boundMs ?? 1_800_000);
    const ends = Date.now() + (bound ?? 0);
    const child = spawn("git", [...config, ...args], {
      cwd: options.cwd,
      // a stable environment for plumbing: no pager, no prompts, no user config that could change
      // what a command prints (colours, external diff, rename limits), author and committer
      // taken from the caller
      env: {
        ...(options.trusted ? process.env : untrustedEnv()),
        GIT_TERMINAL_PROMPT: "0",
        GIT_PAGER: "cat",
        GIT_OPTIONAL_LOCKS: "0",
        LC_ALL: "C",
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
      ...(bound && { timeout: bound, killSignal: "SIGKILL" }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const max = options.maxBytes ?? 1024 ** 3;
    let bytes = 0;
    child.stdout.on("data", (d: Buffer) => {
      bytes += d.length;
      if (bytes <= max) out.push(d);
      else child.kill();
    });
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error) =>
      reject(new GitError(args, null, errnoCode(error) === "ENOENT" ? NO_GIT : error.message)),
    );
    child.on("close", (code) => {
      if (bytes > max) reject(new TooMuchOutput(args, null, `it printed more than ${max} bytes`));
      else if (code === 0 && !(options.strict && err.length > 0)) resolve(Buffer.concat(out));
      else if (code === null && bound && Date.now() >= ends)
        reject(new Stopped(args, null, `it was stopped after ${bound / 1000} s: ${ENDLESS}`));
      else reject(new GitError(args, code, Buffer.concat(err).toString("utf8")));
    });
    child.stdin.on("error", () => undefined); // a command that exits before reading its input
    child.stdin.end(options.input ?? "");
  });
}

/** `git ARGS` as text, its trailing newline removed. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await git(args, options)).toString("utf8").replace(/\n$/, "");
}

/**
 * Every filter driver the repository's configuration names, emptied: files are hashed as
 * `git add` stores them — git's own conversions of a checkout (line endings, `ident`, an
 * encoding) undone as its attributes say — with no driver's code run. And every hook it
 * configures (git 2.54's `hook.<name>.command`, which `core.hooksPath` does not reach)
 * made `true`: writing an index runs none.
 */
export async function noCodeRun(root: string): Promise<string[]> {
  // (a failure is thrown: never hashed with a driver left in place)
  const keys = (await git(["config", "-z", "--name-only", "--list"], { cwd: root })).toString();
  const named = (section: string) => {
    const listed = keys.split("\0").filter((k) => k.startsWith(`${section}.`));
    return new Set(listed.map((k) => k.slice(0, k.lastIndexOf("."))));
  };
  const [filters, hooks] = [named("filter"), named("hook")];
  // `-c` splits at the first `=`: a driver or hook named with one could not be emptied, and would run
  const unsafe = [...filters, ...hooks].find((n) => n.includes("="));
  if (unsafe)
    throw new Error(
      `a filter driver or hook is named with an '=' (${unsafe}), which git cannot be told to skip — rename it`,
    );
  return [
    ...[...filters].flatMap((n) =>
      ["clean=", "smudge=", "process=", "required=false"].map((v) => `${n}.${v}`),
    ),
    ...[...hooks].map((n) => `${n}.command=true`),
  ];
}

/** Apply index-info `lines` (`mode blob\tpath`; REMOVED + path takes a path out), then write the tree. */
export async function writeTree(o: GitOptions, lines: readonly string[], paths: "latin1" | "utf8") {
  const input = Buffer.from(lines.map((l) => `${l}\0`).join(""), paths);
  await git(["update-index", "-z", "--index-info"], { ...o, input });
  return await gitText(["write-tree"], o);
}
export const REMOVED = `0 ${"0".repeat(40)}\t`;

/**
 * The files git reads as it starts that would never end — a FIFO or a device (but /dev/null)
 * at the top of a git directory (`dotGit`, or the one its `gitdir:` names, the one it shares
 * through `commondir`, and its worktrees' own) or in its info/ or objects/info/.
 */
export async function endlessIn(dotGit: string): Promise<string[]> {
  const dir = resolve(dirname(dotGit), (await pointer(dotGit, "gitdir: ")) ?? basename(dotGit));
  const common = resolve(dir, (await pointer(join(dir, "commondir"))) ?? ".");
  const worktrees = join(common, "worktrees");
  const admins = (await readdir(worktrees).catch((): string[] => [])).map((n) =>
    join(worktrees, n),
  );
  const nothing = (await stat("/dev/null").catch(() => undefined))?.rdev;
  const found: string[] = [];
  for (const top of new Set([dir, common, ...admins]))
    for (const d of [top, join(top, "info"), join(top, "objects", "info")])
      for (const name of await readdir(d).catch((): string[] => [])) {
        const st = await stat(join(d, name)).catch(() => undefined);
        if (st?.isFIFO() || (st?.isCharacterDevice() && st.rdev !== nothing))
          found.push(join(d, name));
      }
  return found;
}

/**
 * What a pointer file says (a `.git` file after its `gitdir: `, a `commondir`), read as git
 * reads one: a plain file of at most 1 MiB, its line ends dropped — opened without waiting,
 * so a FIFO swapped in after a look is never waited on.
 */
async function pointer(file: string, prefix = ""): Promise<string | undefined> {
  if (!(await stat(file).catch(() => undefined))?.isFile()) return undefined; // nor a device
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  try {
    const st = await handle?.stat();
    if (!handle || !st?.isFile() || st.size > 1 << 20) return undefined;
    const text = (await handle.readFile("utf8")).replace(/[\r\n]+$/, "");
    return text.startsWith(prefix) ? text.slice(prefix.length) : undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * Why the directory holding the `.git` is no work tree to git (what it said: root, common;
 * or why it refused): core.worktree, a repository found above, the `.git` removed, git's words.
 */
export async function noWorkTree(workdir: string, own: string, said: string[], stopped: boolean) {
  const [root = "", common = "", refusal = ""] = said;
  const there = (path: string) => lstat(path).catch(() => undefined);
  if (!(await there(workdir))) return "was removed";
  const gitDir = await realpath(resolve(workdir, common)).catch(() => "");
  if (root !== "" && gitDir === join(root, ".git"))
    return `is no git work tree: its .git is none git takes, and it found ${root} above it`;
  if (root !== "") return `is not the work tree its .git names (${root}: core.worktree)`;
  const at = resolve(workdir);
  const inGitDir = (await there(join(own, ".git")))?.isDirectory() && at.includes("/.git/");
  const gone = own === "/" || at.startsWith(join(own, ".git/")) || inGitDir;
  if (refusal && (stopped || !gone)) return `is no work tree to git: ${refusal}`;
  return "is no longer a git work tree (its .git was removed)";
}
