/** The real `frontier` (build/), spawned the way a user runs it, with colour settings under the test's control. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..", "..");
export const CLI = join(ROOT, "build", "src", "cli.js");
export const STACK_TRACE = /\n\s+at .+\(.*:\d+:\d+\)|node:internal/;

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function frontier(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Ran {
  const env: Record<string, string | undefined> = { ...process.env, CI: "true" };
  // the parent's colour settings (vitest sets some) must not decide the child's
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  delete env.NODE_DISABLE_COLORS;
  Object.assign(env, opts.env ?? {});
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: "utf8",
    env: env as NodeJS.ProcessEnv,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An empty folder to work in; with `files`, a ticket directory `tickets/` in it. */
export function workspace(files?: Record<string, string>): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), "frontier-cli-"));
  const dir = join(root, "tickets");
  if (files) {
    mkdirSync(dir);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  }
  return { root, dir };
}

/** A git identity for commits a test makes, so no test depends on the machine's git config. */
export const GIT_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: "Newcomer",
  GIT_AUTHOR_EMAIL: "newcomer@example.com",
  GIT_COMMITTER_NAME: "Newcomer",
  GIT_COMMITTER_EMAIL: "newcomer@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_MERGE_AUTOEDIT: "no",
};
