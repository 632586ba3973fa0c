/**
 * The README's GitHub setup, walked step by step on a fresh repository: each command it
 * gives that can run here runs, and each "Check:" it promises holds.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { frontier, ROOT, workspace } from "./harness.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const setup = readme.slice(
  readme.indexOf("## On GitHub: setup in five minutes"),
  readme.indexOf("### How it stays correct"),
);
const step = (n: number) => {
  const start = setup.indexOf(`### ${n}. `);
  const end = setup.indexOf("\n### ", start + 1);
  return setup.slice(start, end);
};
/** `frontier …` lines of a step's sh blocks. */
const commands = (text: string) =>
  [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1]!.split("\n"))
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l.startsWith("frontier "));

describe("the README's GitHub setup, on a fresh repository", () => {
  const { root } = workspace();
  mkdirSync(join(root, ".git"));

  it("step 1: `frontier --help` lists the commands and the exit codes", () => {
    expect(step(1)).toMatch(/`frontier --help` lists the commands and the exit codes/);
    const help = frontier(["--help"]);
    expect(help.stdout).toMatch(/Exit codes:/);
    expect(help.stdout).toMatch(/^ {2}init /m);
  });

  it("step 2: its command writes every file the step lists, and its checks hold", () => {
    const text = step(2);
    expect(commands(text)).toEqual(["frontier init --github"]);
    const r = frontier(["init", "--github"], { cwd: root });
    expect(r.code).toBe(0);
    for (const [, path] of text.matchAll(/^- `([^`]+)` —/gm)) {
      expect(existsSync(join(root, path!)), path).toBe(true);
    }
    expect(readdirSync(join(root, "tickets")).filter((f) => f.endsWith(".md")).length).toBe(3);
    const quoted = /`frontier validate tickets` prints `([^`]+)`/.exec(text)?.[1];
    expect(frontier(["validate", "tickets"], { cwd: root }).stdout.trim()).toBe(quoted);
    expect(text).toMatch(/`frontier plan tickets` shows two waves/);
    expect(frontier(["plan", "tickets"], { cwd: root }).stdout).toMatch(/in 2 waves/);
    const workflow = readFileSync(join(root, ".github", "workflows", "frontier.yml"), "utf8");
    const filter = /the push filter\s+\(`([^`]+)`\)/.exec(text)?.[1];
    expect(workflow).toContain(filter);
  });

  it("step 3: the permissions table is exactly what each written workflow declares", () => {
    const rows = [...step(3).matchAll(/^ {3}\| `([a-z-]+): (write|read)` \| ([^|]+) \|/gm)].map(
      (m) => ({ name: m[1]!, level: m[2]!, by: m[3]! }),
    );
    expect(rows.length).toBe(5);
    for (const name of ["frontier.yml", "orch-task.yml"]) {
      const doc = parse(readFileSync(join(root, ".github", "workflows", name), "utf8")) as {
        permissions: Record<string, string>;
      };
      const expected = rows
        .filter((r) => r.by.startsWith("both workflows") || r.by.startsWith(name))
        .map((r) => [r.name, r.level]);
      expect(Object.entries(doc.permissions).sort()).toEqual(expected.sort());
    }
  });

  it("step 4: the orch-task runs it tells you to look for are the starter tickets", () => {
    const named = [...step(4).matchAll(/`frontier ([a-z-]+)#1 …`/g)].map((m) => m[1]).sort();
    const ids = readdirSync(join(root, "tickets"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(named).toEqual(ids);
  });

  it("speaks of the project alone", () => {
    for (const text of [readme, readFileSync(join(ROOT, "docs", "CONTRIBUTING.md"), "utf8")]) {
      expect(text).not.toMatch(/SPEC|§\d|\bthe customer\b|\bthe issue\b(?! closes| was opened)/);
    }
    // CONTRIBUTING points only at files in this repository
    const contributing = readFileSync(join(ROOT, "docs", "CONTRIBUTING.md"), "utf8");
    for (const [, target] of contributing.matchAll(/\]\(([^)]+)\)/g)) {
      expect(target).not.toMatch(/^https?:/);
      expect(existsSync(join(ROOT, "docs", target!)), target).toBe(true);
    }
    expect(contributing).not.toMatch(/\.\.\/shared|\/work\//);
  });
});

describe("the README's first commands on your own tickets", () => {
  it("init, new, validate and plan run in order as written", () => {
    const block = /On your own tickets[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const lines = block
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, "").trim())
      .filter((l) => l.startsWith("npx frontier ") && !l.includes("my-agent"));
    expect(lines.map((l) => l.split(" ")[2])).toEqual(["init", "new", "validate", "plan"]);
    const { root } = workspace();
    for (const l of lines) {
      // the shell's word splitting, for the plain and double-quoted words these lines use
      const words = [...l.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(2);
      const r = frontier(words, { cwd: root });
      expect(r.code, `${l}\n${r.stderr}`).toBe(0);
    }
  });
});
