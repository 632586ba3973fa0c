/**
 * `frontier validate` runs exactly the checks `frontier run` runs, and both report
 * every problem at once, each with its file and line.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
const CLI = join(ROOT, "build", "src", "cli.js");

function frontier(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tickets(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "frontier-agree-")), "tickets");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** validate and run on the same directory: both refuse, with the same problems. */
function bothRefuse(dir: string): string {
  const validate = frontier(["validate", dir]);
  const run = frontier(["run", dir, "--exec", "echo ran"]);
  expect(validate.code).toBe(2);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe("");
  const problems = (text: string) => text.split("\n").filter((l) => /\.(md|yml):/.test(l));
  expect(problems(validate.stderr)).toEqual(problems(run.stderr));
  return validate.stderr;
}

const ALIASES = `---\ntitle: B\nnotes: &a [1]\nmore: [${Array(101).fill("*a").join(",")}]\n---\n# B\n`;

describe("validate passes nothing that run refuses", () => {
  it("a ticket naming an executor frontier.yml does not define: file:line and did you mean", () => {
    const dir = tickets({
      "frontier.yml": "executors:\n  claude: echo hi\n",
      "a.md": "---\ntitle: A\nexecutor: claud\n---\n# A\n",
    });
    const err = bothRefuse(dir);
    expect(err).toMatch(
      /a\.md:3: executor "claud" is not defined in frontier\.yml \(did you mean "claude"\?\)/,
    );
  });

  it("an unknown field holding too many YAML aliases", () => {
    const dir = tickets({ "b.md": ALIASES });
    const err = bothRefuse(dir);
    expect(err).toMatch(/b\.md:\d+: .*[Aa]lias/);
  });
});

describe("every problem at once", () => {
  it("a duplicate id does not hide the duplicate file's unknown dependencies", () => {
    const dir = tickets({
      "a.md": "---\nid: same\ndepends_on: [ghost1]\n---\n",
      "b.md": "---\nid: same\ndepends_on: [ghost2]\n---\n",
    });
    const err = bothRefuse(dir);
    expect(err).toMatch(/b\.md:\d+: duplicate id "same"/);
    expect(err).toMatch(/a\.md:3: .*ghost1/);
    expect(err).toMatch(/b\.md:3: .*ghost2/);
  });

  it("an error in frontier.yml does not hide files over its max_file_bytes", () => {
    const dir = tickets({
      "frontier.yml": "max_file_bytes: 100\nmax_parallel: abc\n",
      "big.md": `---\ntitle: Big\n---\n${"x".repeat(500)}\n`,
    });
    const err = bothRefuse(dir);
    expect(err).toMatch(/frontier\.yml:2: max_parallel/);
    expect(err).toMatch(/big\.md: file is \d+ bytes, more than the cap of 100/);
  });
});
