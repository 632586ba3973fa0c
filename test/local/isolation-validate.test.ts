/**
 * `isolation: worktree` where it cannot work is a problem `validate` reports (and `run`,
 * which checks the same) before anything starts: no git repository, a git too old for
 * worktrees, a repository with no commit yet. Without isolation nothing changes.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { validateCommand } from "../../src/cli/validate.js";
import type { CliIo } from "../../src/terminal/io.js";
import { shownPath } from "../../src/terminal/text.js";
import { git, repoWith, runHere, ticket } from "./git-repo.js";

function capture(): { io: CliIo; text: () => string } {
  const out = new PassThrough();
  let text = "";
  out.on("data", (c: Buffer) => {
    text += c.toString();
  });
  return {
    io: { stdout: out, stderr: out, isTTY: false, env: { ...process.env, NO_COLOR: "1" } },
    text: () => text,
  };
}

async function validate(dir: string): Promise<{ code: number; text: string }> {
  const { io, text } = capture();
  const code = await validateCommand(dir, { json: false }, io);
  return { code, text: text() };
}

/** A ticket directory outside any repository. */
function plainDir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "frontier-nogit-"));
  const dir = join(root, "tickets");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe("isolation: worktree where it cannot work starts nothing", () => {
  it("outside a git repository: the problem is where isolation is asked for, with the fix; run refuses the same before it claims anything", async () => {
    const dir = plainDir({
      "frontier.yml": "run: x\nisolation: worktree\n",
      "a.md": ticket({}),
      "b.md": ticket({}),
    });
    const checked = await validate(dir);
    expect(checked.code).toBe(2);
    expect(checked.text).toContain(
      `${join(shownPath(dir), "frontier.yml")}:2: 2 tickets run with isolation: worktree, which needs a git repository, and the ticket directory is not in one — make the project a repository (git init, then commit it), or set isolation: none to run without (changes are then neither checked nor integrated)`,
    );
    const ran = await runHere(dir, "echo hi");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("frontier.yml:2: 2 tickets run with isolation: worktree");
    expect(readFileSync(join(dir, "a.md"), "utf8")).not.toContain("status:");
    expect(existsSync(join(dir, ".frontier", "run.json"))).toBe(false);
  });

  it("a ticket of its own asking for it is named with its line", async () => {
    const dir = plainDir({ "a.md": ticket({ isolation: "required" }), "b.md": ticket({}) });
    const checked = await validate(dir);
    expect(checked.code).toBe(2);
    expect(checked.text).toContain(
      `${join(shownPath(dir), "a.md")}:2: 1 ticket runs with isolation: worktree`,
    );
  });

  it("a git too old for worktrees", async () => {
    const repo = repoWith({ "tickets/a.md": ticket({ isolation: "worktree" }) });
    const bin = mkdtempSync(join(tmpdir(), "frontier-oldgit-"));
    const real = (PATH ?? "")
      .split(":")
      .map((d) => join(d, "git"))
      .find((p) => existsSync(p));
    // a git that says it is 2.4.1 and otherwise is the real one
    writeFileSync(
      join(bin, "git"),
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = --version ] && { echo "git version 2.4.1"; exit 0; }; done\nexec ${real} "$@"\n`,
    );
    chmodSync(join(bin, "git"), 0o755);
    process.env.PATH = `${bin}:${PATH}`;
    const checked = await validate(repo.dir);
    expect(checked.code).toBe(2);
    expect(checked.text).toContain(
      "a.md:2: 1 ticket runs with isolation: worktree, which needs git 2.17 or newer for its worktrees; this git is 2.4 — upgrade git",
    );
  });

  it("a repository with no commit to start from", async () => {
    const dir = plainDir({ "frontier.yml": "isolation: required\n", "a.md": ticket({}) });
    git(join(dir, ".."), "init", "-q");
    const checked = await validate(dir);
    expect(checked.code).toBe(2);
    expect(checked.text).toContain("which starts each from a commit, and the repository at");
    expect(checked.text).toContain("commit once (git add -A && git commit -m start)");
  });

  it("without isolation, a directory outside git is as valid as before, and so is one in a repository", async () => {
    expect((await validate(plainDir({ "a.md": ticket({ isolation: "none" }) }))).code).toBe(0);
    const repo = repoWith({ "tickets/a.md": ticket({ isolation: "worktree" }) });
    const checked = await validate(repo.dir);
    expect(checked.text).toContain("1 ticket, no problems.");
    expect(checked.code).toBe(0);
  });
});
