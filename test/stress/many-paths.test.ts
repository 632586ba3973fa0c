// An agent that leaves tens of thousands of files (an `npm install` the repository does not
// ignore) after another ticket of the run integrated first: its attempt is judged like any
// other (a scope breach here, then in scope a second time: integrated), never held because
// the paths asked about passed the kernel's limit on one git command line.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, repoWith, runHere, ticket } from "../local/git-repo.js";

const NESTED = "vendor/some-package-name/lib/deeply/nested";

/** quick integrates first; heavy then drops 40,000 small files (`scope` decides their fate). */
async function run(name: string, scope: string) {
  const repo = repoWith({
    "tickets/frontier.yml": `run: ${name}\nisolation: worktree\nmax_parallel: 2\n`,
    "tickets/quick.md": ticket({ write_scope: ["app/**"] }),
    "tickets/heavy.md": ticket({ write_scope: [scope] }),
  });
  const exec = [
    'case "$FRONTIER_TICKET" in',
    "  quick) mkdir -p app && echo a > app/a.js ;;",
    `  heavy) sleep 3; mkdir -p ${NESTED} && (cd ${NESTED} && seq 1 40000 | sed 's/^/file-number-/; s/$/.js/' | xargs touch) ;;`,
    "esac",
    "echo done",
  ].join("\n");
  return { repo, ran: await runHere(repo.dir, exec) };
}

describe("an agent that writes 40,000 files while another ticket integrates first", () => {
  it("outside its scope: a scope breach, recorded", async () => {
    const { repo, ran } = await run("many", "src/**");
    expect(git(repo.root, "show", "frontier/many:app/a.js")).toBe("a");
    expect(ran.stderr).not.toContain("E2BIG");
    const heavy = readFileSync(join(repo.dir, "heavy.md"), "utf8");
    expect(heavy).toMatch(/status: failed/);
    expect(heavy).toMatch(/reason: .?scope-breach:/);
    expect(ran.code).toBe(1);
  });

  it("inside its scope: all 40,000 integrated", async () => {
    const { repo, ran } = await run("many2", "vendor/**");
    expect(ran.stderr).not.toContain("E2BIG");
    const listed = execFileSync(
      "git",
      ["ls-tree", "-r", "--name-only", "frontier/many2", "vendor"],
      {
        cwd: repo.root,
        maxBuffer: 1 << 28,
      },
    );
    expect(listed.toString().split("\n").filter(Boolean).length).toBe(40000);
  });
});
