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
      "a.md": ticket({ write_scope: ["x"] }),
      "b.md": ticket({ write_scope: ["x"] }),
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
    const dir = plainDir({
      "a.md": ticket({ isolation: "required", write_scope: ["x"] }),
      "b.md": ticket({ write_scope: ["x"] }),
    });
    const checked = await validate(dir);
    expect(checked.code).toBe(2);
    expect(checked.text).toContain(
      `${join(shownPath(dir), "a.md")}:2: 1 ticket runs with isolation: worktree`,
    );
  });

  it("a git too old for worktrees", async () => {
    const repo = repoWith({
      "tickets/a.md": ticket({ isolation: "worktree", write_scope: ["x"] }),
    });
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
    const dir = plainDir({
      "frontier.yml": "isolation: required\n",
      "a.md": ticket({ write_scope: ["x"] }),
    });
    git(join(dir, ".."), "init", "-q");
    const checked = await validate(dir);
    expect(checked.code).toBe(2);
    expect(checked.text).toContain("which starts each from a commit, and the repository at");
    expect(checked.text).toContain("commit once (git add -A && git commit -m start)");
  });

  it("without isolation, a directory outside git is as valid as before, and so is one in a repository", async () => {
    expect((await validate(plainDir({ "a.md": ticket({ isolation: "none" }) }))).code).toBe(0);
    const repo = repoWith({
      "tickets/a.md": ticket({ isolation: "worktree", write_scope: ["a.txt"] }),
    });
    const checked = await validate(repo.dir);
    expect(checked.text).toContain("1 ticket, no problems.");
    expect(checked.code).toBe(0);
  });
});

describe("write_scope and isolation that could only go wrong are graph problems", () => {
  it("an entry that can match no repository path, an isolated ticket without a scope, and a ticket in the user's tree after an isolated one: exit 2 with file:line, and run starts nothing", async () => {
    const repo = repoWith({
      "tickets/frontier.yml": "run: x\n",
      "tickets/api.md": ticket({
        isolation: "worktree",
        write_scope: ["src/**", "../elsewhere/**", "/etc/passwd", "!src/secret/**"],
      }),
      "tickets/loose.md": ticket({ isolation: "worktree" }),
      "tickets/docs.md": ticket({ depends_on: ["api"], write_scope: ["docs/**"] }),
    });
    const checked = await validate(repo.dir);
    expect(checked.code).toBe(2);
    const shown = shownPath(repo.dir);
    expect(checked.text).toContain(
      `${join(shown, "api.md")}:3: write_scope entry "../elsewhere/**" can match no path in the repository (it climbs out with ..) — write it relative to the repository's top (e.g. src/**), or remove it`,
    );
    expect(checked.text).toContain(
      `${join(shown, "api.md")}:3: write_scope entry "/etc/passwd" can match no path in the repository (it is an absolute path)`,
    );
    expect(checked.text).not.toContain('"!src/secret/**"');
    expect(checked.text).toContain(
      `${join(shown, "loose.md")}:2: "loose" runs isolated but has no write_scope, so any change it makes is a scope breach — add write_scope: [PATHS]`,
    );
    expect(checked.text).toContain(
      `${join(shown, "docs.md")}:2: "docs" runs in your working tree but depends on "api", which runs isolated: it would not see api's changes (they land on the run's branch) — set isolation: worktree on docs (with a write_scope), or isolation: none on api`,
    );
    const ran = await runHere(repo.dir, "echo hi");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("can match no path in the repository");
    expect(readFileSync(join(repo.dir, "api.md"), "utf8")).not.toContain("status:");
    expect(git(repo.root, "branch", "--list", "frontier/*")).toBe("");
  });
});
