/**
 * Real git repositories for the tests of isolated tickets, and the local runner driven in
 * process (`runCommand`, the code `frontier run` runs) so a test spawns git, not the CLI.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { stringify } from "yaml";
import { runCommand } from "../../src/local/run.js";
import type { CliIo } from "../../src/terminal/io.js";
import { ROOT } from "./harness.js";

export const IDENTITY = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

/** `git ARGS` in `cwd`, its output trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    env: { ...process.env, ...IDENTITY },
    stdio: ["ignore", "pipe", "pipe"],
  })
    .toString()
    .trim();
}

export interface Repo {
  root: string;
  /** the ticket directory, `tickets/` at the top */
  dir: string;
  /** the commit HEAD was at before the run */
  start: string;
}

/** A repository on `main` whose one commit holds `files` (path → text). */
export function repoWith(files: Record<string, string>): Repo {
  const root = mkdtempSync(join(tmpdir(), "frontier-iso-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return commitAll(root);
}

/** examples/coding-graph as the whole of a fresh repository. */
export function exampleRepo(): Repo {
  const root = mkdtempSync(join(tmpdir(), "frontier-example-"));
  cpSync(join(ROOT, "examples", "coding-graph"), root, { recursive: true });
  return commitAll(root);
}

function commitAll(root: string): Repo {
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "start");
  return { root, dir: join(root, "tickets"), start: git(root, "rev-parse", "HEAD") };
}

/** A ticket file: front matter fields, then a heading and the body. */
export function ticket(front: Record<string, unknown>, body = "Do it."): string {
  const yaml = Object.keys(front).length > 0 ? stringify(front) : "";
  return `---\n${yaml}---\n# ${String(front.title ?? "A ticket")}\n\n${body}\n`;
}

export interface InProcess {
  code: number;
  stdout: string;
  stderr: string;
}

/** `frontier run DIR [--exec CMD]` in this process. */
export async function runHere(dir: string, exec?: string): Promise<InProcess> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const env: NodeJS.ProcessEnv = { ...process.env, ...IDENTITY, CI: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("FRONTIER_")) delete env[key];
  const io: CliIo = { stdout, stderr, isTTY: false, env };
  const code = await runCommand(dir, { ...(exec !== undefined ? { exec } : {}), json: false }, io);
  return { code, stdout: out, stderr: err };
}

export function readJson<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** The commits of `range`, oldest first: subject, trailers and the paths each changed. */
export function commitsOf(
  root: string,
  range: string,
): Array<{
  sha: string;
  subject: string;
  ticket: string;
  attempt: string;
  claim: string;
  paths: string[];
}> {
  const shas = git(root, "rev-list", "--reverse", range).split("\n").filter(Boolean);
  return shas.map((sha) => {
    const body = git(root, "log", "-1", "--format=%B", sha);
    const trailer = (key: string) =>
      new RegExp(`^${key}: (.*)$`, "m").exec(body)?.[1]?.trim() ?? "";
    return {
      sha,
      subject: body.split("\n")[0] ?? "",
      ticket: trailer("Frontier-Ticket"),
      attempt: trailer("Frontier-Attempt"),
      claim: trailer("Frontier-Claim"),
      paths: git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", sha)
        .split("\n")
        .filter(Boolean),
    };
  });
}

/** A commit of `path` holding `text` on top of `ref`, made as an agent would from its worktree (a scratch index), and `ref` moved to it. */
export const pushOnto = (ref: string, path: string, text: string, message: string) =>
  [
    'idx="$(mktemp -u)"',
    `GIT_INDEX_FILE="$idx" git read-tree ${ref}`,
    `blob=$(printf '${text}\\n' | git hash-object -w --stdin)`,
    `GIT_INDEX_FILE="$idx" git update-index --add --cacheinfo "100644,$blob,${path}"`,
    'tree=$(GIT_INDEX_FILE="$idx" git write-tree); rm -f "$idx"',
    `them=$(git commit-tree "$tree" -p ${ref} -m "${message}")`,
    `git update-ref ${ref} "$them"`,
  ].join("\n");
