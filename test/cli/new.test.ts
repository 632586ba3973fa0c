/**
 * `frontier new`: one ticket file, front matter and a `# title`, written only when a later
 * `validate` would accept it — a valid id, not taken, every dependency there.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Receipt } from "../../src/core/model.js";
import { frontier, STACK_TRACE, workspace } from "./harness.js";

function plan(root: string) {
  return Receipt.parse(JSON.parse(frontier(["plan", "--json"], { cwd: root }).stdout));
}

describe("frontier new writes a ticket the graph accepts", () => {
  it("writes front matter and a heading, in tickets/ by default, with the title made from the id", () => {
    const { root, dir } = workspace({});
    const r = frontier(["new", "research-sources"], { cwd: root });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote tickets\/research-sources\.md/);
    const text = readFileSync(join(dir, "research-sources.md"), "utf8");
    expect(text).toMatch(/^---\ndepends_on: \[\]\n---\n# Research sources\n/);
    expect(frontier(["validate"], { cwd: root }).code).toBe(0);
  });

  it("--after records the dependencies (repeated, spaced or comma-separated) and --title the heading", () => {
    const { root } = workspace({});
    frontier(["new", "a"], { cwd: root });
    frontier(["new", "b"], { cwd: root });
    frontier(["new", "c"], { cwd: root });
    const r = frontier(
      ["new", "tickets", "plan", "--after", "a,b", "--after", "c", "--title", "Plan the move"],
      { cwd: root },
    );
    expect(r.code).toBe(0);
    const ticket = plan(root).tickets.find((t) => t.id === "plan");
    expect(ticket?.depends_on).toEqual(["a", "b", "c"]);
    expect(ticket?.title).toBe("Plan the move");
    expect(plan(root).waves).toEqual([["a", "b", "c"], ["plan"]]);
  });

  it("ids YAML would read as numbers, dates or booleans stay ids", () => {
    const { root } = workspace({});
    for (const id of ["1.5", "2026-01-02", "yes", "null", "010"]) {
      expect(frontier(["new", id], { cwd: root }).code).toBe(0);
    }
    const r = frontier(["new", "last", "--after", "1.5", "2026-01-02", "yes", "null", "010"], {
      cwd: root,
    });
    expect(r.code).toBe(0);
    expect(frontier(["validate"], { cwd: root }).code).toBe(0);
    expect(plan(root).tickets.find((t) => t.id === "last")?.depends_on).toEqual([
      "1.5",
      "2026-01-02",
      "yes",
      "null",
      "010",
    ]);
  });

  it("works in a directory that does not hold together yet: the missing dependency is what it writes", () => {
    const { root, dir } = workspace({ "plan.md": "---\ndepends_on: [research]\n---\n# Plan\n" });
    expect(frontier(["validate"], { cwd: root }).code).toBe(2);
    const r = frontier(["new", "research"], { cwd: root });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, "research.md"))).toBe(true);
    expect(frontier(["validate"], { cwd: root }).code).toBe(0);
  });
});

describe("frontier new refuses what validate would refuse, and writes nothing", () => {
  it.each([
    [["new", "bad!id"], /"bad!id" is not a ticket id/],
    [["new", "../escape"], /is not a ticket id/],
    [["new", "x", "--after", "x"], /x cannot come after itself/],
    [["new", "x", "--title", "two\nlines"], /--title must be one line/],
    [["new", "a", "b", "c"], /frontier new \[DIR\] ID/],
  ])("%j", (args, message) => {
    const { root } = workspace({});
    const r = frontier(args as string[], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(STACK_TRACE);
  });

  it("an unknown dependency, with the near id", () => {
    const { root, dir } = workspace({ "research.md": "---\n---\n# R\n" });
    const r = frontier(["new", "plan", "--after", "reserch"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"reserch" \(did you mean research\?\)/);
    expect(existsSync(join(dir, "plan.md"))).toBe(false);
  });

  it("an id that is taken, by its file or by another file's id: field", () => {
    const { root, dir } = workspace({
      "plan.md": "---\n---\n# Plan\n",
      "other.md": "---\nid: survey\n---\n# Survey\n",
    });
    const same = frontier(["new", "plan"], { cwd: root });
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/tickets\/plan\.md already exists; nothing was written/);
    expect(readFileSync(join(dir, "plan.md"), "utf8")).toBe("---\n---\n# Plan\n");
    const byField = frontier(["new", "survey"], { cwd: root });
    expect(byField.code).toBe(2);
    expect(byField.stderr).toMatch(/tickets\/other\.md already has the id survey/);
    expect(existsSync(join(dir, "survey.md"))).toBe(false);
  });

  it("a dependency that would close a loop with a ticket already waiting on this id", () => {
    const { root, dir } = workspace({ "plan.md": "---\ndepends_on: [research]\n---\n# Plan\n" });
    const r = frontier(["new", "research", "--after", "plan"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /research after plan would close a loop; nothing was written — cycle: /,
    );
    expect(existsSync(join(dir, "research.md"))).toBe(false);
  });

  it("a directory that is not there, with how to make one", () => {
    const { root } = workspace();
    const r = frontier(["new", "plan"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /no ticket directory at tickets — make one with `frontier init tickets`/,
    );
  });
});

describe("frontier new writes a coding ticket: its scope, isolation, agent and executor", () => {
  it("--scope (repeated, globs quoted where YAML needs it), --isolation, --agent, --executor", () => {
    const { root, dir } = workspace({
      "frontier.yml": "executors:\n  coder: sh coder.sh\n",
      "api.md": "---\n---\n# API\n",
    });
    const r = frontier(
      [
        "new",
        "ui",
        "--after",
        "api",
        "--scope",
        "app/ui/**",
        "--scope",
        "**/*.css",
        "--scope",
        "!app/ui/vendor/**",
        "--isolation",
        "worktree",
        "--agent",
        "coder-1",
        "--executor",
        "coder",
      ],
      { cwd: root },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "ui.md"), "utf8")).toMatch(
      /^---\ndepends_on: \[api\]\nwrite_scope: \[app\/ui\/\*\*, "\*\*\/\*\.css", "!app\/ui\/vendor\/\*\*"\]\nisolation: worktree\nagent: coder-1\nexecutor: coder\n---\n# Ui\n/,
    );
    const ticket = plan(root).tickets.find((t) => t.id === "ui");
    expect(ticket).toMatchObject({
      write_scope: ["app/ui/**", "**/*.css", "!app/ui/vendor/**"],
      agent: "coder-1",
    });
  });

  it.each([
    [["--scope", "/etc/passwd"], /--scope "\/etc\/passwd" can match no path of the repository/],
    [["--scope", "../other/**"], /--scope "\.\.\/other\/\*\*" can match no path/],
    [["--isolation", "container"], /isolation "container" is not one of worktree, required, none/],
    [
      ["--executor", "nowhere"],
      /tickets\/x\.md would not hold together; nothing was written — .*nowhere/,
    ],
  ])("refuses %j and writes nothing", (args, message) => {
    const { root, dir } = workspace({});
    const r = frontier(["new", "x", ...(args as string[])], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(existsSync(join(dir, "x.md"))).toBe(false);
  });
});
