/**
 * A newcomer's first coding graph, played from the README: its quick start runs as written in a
 * shell — a fresh repository, `frontier init --coding`, four scoped tickets from `frontier new`,
 * a commit, `frontier run` with the stand-in agent, `frontier status`, the branch merged with
 * git — and no file is edited by hand. Then what its troubleshooting promises: a ticket added to
 * the finished run runs alone onto the same branch, and the isolation messages it quotes are
 * the ones a user meets.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, frontier, GIT_ENV, ROOT, workspace } from "./harness.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const quickStart = readme.slice(
  readme.indexOf("## Quick start"),
  readme.indexOf("\n## ", readme.indexOf("## Quick start") + 1),
);
const script = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? "";

/** A shell with `frontier` on PATH (this build), a git identity and plain output. */
function shell(cwd: string, text: string) {
  const bin = join(cwd, ".bin");
  if (!existsSync(bin)) {
    mkdirSync(bin);
    writeFileSync(join(bin, "frontier"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, "frontier"), 0o755);
  }
  const r = spawnSync("sh", ["-ec", text], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      ...GIT_ENV,
      CI: "true",
      NO_COLOR: "1",
      PATH: `${bin}:${process.env.PATH}`,
    },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout, stderr: r.stderr };
}

const git = (cwd: string, ...args: string[]) =>
  spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, ...GIT_ENV } }).stdout;

describe("the README's quick start: a first coding graph, no file edited by hand", () => {
  const { root } = workspace();
  const repo = join(root, "todo");
  let ran: ReturnType<typeof shell>;
  beforeAll(() => {
    ran = shell(root, script);
  }, 120_000);

  it("is a shell script of frontier and git commands alone", () => {
    const commands = script
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, "").trim())
      .filter((l) => l !== "");
    expect(commands.length).toBeGreaterThan(8);
    for (const c of commands) expect(c).toMatch(/^(?:mkdir .* && cd .* && )?(?:frontier|git) /);
    expect(commands.filter((c) => c.startsWith("frontier new ")).length).toBe(4);
    expect(commands.every((c) => !/--scope/.test(c) || c.startsWith("frontier new "))).toBe(true);
    expect(ran.code, ran.out).toBe(0);
  });

  it("four tickets ran, each in its own worktree, one commit each on frontier/tickets", () => {
    expect(ran.stderr).toMatch(/run tickets: complete/);
    expect(ran.stdout).toMatch(/run tickets: complete — 4 tickets: ✓ 4 complete/);
    // status names the branch and how to merge it, as the troubleshooting says
    expect(readme).toMatch(
      /`frontier status` says, which\nbranch, its commits and how to merge it/,
    );
    expect(ran.stdout).toMatch(
      /changes: 4 commits on frontier\/tickets[\s\S]*merge: git merge frontier\/tickets/,
    );
    const subjects = git(repo, "log", "--format=%s", "HEAD~4..HEAD").trim().split("\n");
    expect(subjects.map((s) => s.split(":")[0]).sort()).toEqual(["api", "cli", "docs", "ui"]);
    // each ticket saw what its dependencies wrote: the stand-in fails where they are missing
    expect(readFileSync(join(repo, "docs", "docs.md"), "utf8")).toMatch(
      /Built on: app\/(ui|cli)\/\w+\.md, app\/(ui|cli)\/\w+\.md\./,
    );
    expect(readFileSync(join(repo, "app", "ui", "ui.md"), "utf8")).toMatch(
      /Built on: app\/api\/api\.md\./,
    );
  });

  it("init --coding wrote the files the README names, and git ignores the run's records", () => {
    const named = /- `frontier init --coding` wrote ([\s\S]*?)\n- /.exec(quickStart)?.[1] ?? "";
    const paths = [...named.matchAll(/`(tickets\/[^`]+)`/g)].map((m) => m[1]!);
    expect(paths).toEqual(expect.arrayContaining(["tickets/frontier.yml", "tickets/.gitignore"]));
    for (const path of paths.filter((p) => !p.includes(".frontier"))) {
      expect(existsSync(join(repo, path)), path).toBe(true);
    }
    expect(git(repo, "check-ignore", "tickets/.frontier/receipt.json").trim()).toBe(
      "tickets/.frontier/receipt.json",
    );
  });

  it("api first, ui and cli side by side, docs last, as the README says", () => {
    expect(quickStart).toMatch(/`api` runs first, `ui` and `cli` side by side, `docs` last/);
    const plan = JSON.parse(frontier(["plan", "--json"], { cwd: repo }).stdout) as {
      waves: string[][];
    };
    expect(plan.waves.map((w) => [...w].sort())).toEqual([["api"], ["cli", "ui"], ["docs"]]);
  });

  it("merged into the user's branch; only the tickets' recorded state is left to commit", () => {
    expect(git(repo, "branch", "--show-current").trim()).not.toBe("frontier/tickets");
    expect(git(repo, "rev-parse", "HEAD")).toBe(git(repo, "rev-parse", "frontier/tickets"));
    const status = git(repo, "status", "--porcelain", "--untracked-files=all")
      .trimEnd()
      .split("\n");
    expect(
      status.every((l) => /^ M tickets\/\w+\.md$/.test(l)),
      status.join("\n"),
    ).toBe(true);
    // the run's records are there, and git ignores them as init arranged
    expect(readdirSync(join(repo, "tickets", ".frontier"))).toContain("receipt.json");
  });

  const troubleshooting = readme.slice(readme.indexOf("## Troubleshooting"));

  it("a ticket added to the finished run runs alone, onto the same branch", () => {
    expect(troubleshooting).toMatch(/\*\*I added tickets to a finished run\.\*\* Commit them/);
    const more = shell(
      repo,
      [
        "frontier new tests --after api --scope 'test/**'",
        "git add tickets && git commit -q -m 'One more ticket'",
        "frontier run",
      ].join("\n"),
    );
    expect(more.code, more.out).toBe(0);
    expect([...more.stderr.matchAll(/start (\S+) \(attempt/g)].map((m) => m[1])).toEqual(["tests"]);
    expect(git(repo, "log", "--format=%s", "HEAD..frontier/tickets").trim()).toBe("tests: Tests");
    // with nothing added, it starts nothing and exits with the run's code
    const again = shell(repo, "frontier run");
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/ start /);
    expect(shell(repo, "git merge -q frontier/tickets").code).toBe(0);
    expect(existsSync(join(repo, "test", "tests.md"))).toBe(true);
  });
});

describe("the README's troubleshooting quotes the isolation messages a user meets", () => {
  const troubleshooting = readme.slice(readme.indexOf("## Troubleshooting"));

  it("outside a repository, and in a repository with no commit", () => {
    const [, noRepo, noCommit] = /\*\*"…([^"]+)" or "…([^"]+)"\.\*\*/.exec(troubleshooting) ?? [];
    expect(noCommit).toBeDefined();
    const { root } = workspace();
    frontier(["init", "--coding"], { cwd: root });
    frontier(["new", "a", "--scope", "a/**"], { cwd: root });
    expect(frontier(["validate"], { cwd: root }).stderr).toContain(noRepo);
    spawnSync("git", ["init", "-q"], { cwd: root });
    expect(frontier(["validate"], { cwd: root }).stderr).toContain(noCommit);
  });

  it("a branch an earlier run left that HEAD does not hold", () => {
    const quote =
      /\*\*"the branch frontier\/<run> (holds 1 commit that HEAD does not have)"\.\*\*/.exec(
        troubleshooting,
      )?.[1];
    expect(quote).toBeDefined();
    const { root } = workspace();
    const r = shell(
      root,
      [
        "git init -q && git commit -q --allow-empty -m start",
        "frontier init --coding >/dev/null",
        "frontier new a --scope 'a/**' >/dev/null",
        "git add tickets && git commit -q -m tickets",
        "frontier run >/dev/null 2>&1",
        "frontier reset >/dev/null 2>&1",
        "frontier run || true",
      ].join("\n"),
    );
    expect(r.stderr).toContain(`the branch frontier/tickets ${quote}`);
  });
});
