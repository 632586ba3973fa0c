/**
 * The README's GitHub setup, walked step by step on a fresh repository: each command it
 * gives that can run here runs, and each "Check:" it promises holds.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { frontier, GIT_ENV, ROOT, workspace } from "./harness.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const setup = readme.slice(
  readme.indexOf("## On GitHub: setup in five minutes"),
  readme.indexOf("### Watching a run"),
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

  it("step 4: its `git add` commands leave nothing init wrote uncommitted", () => {
    const repo = workspace().root;
    const git = (...args: string[]) =>
      spawnSync("git", args, { cwd: repo, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
    git("init", "-q");
    git("commit", "-q", "--allow-empty", "-m", "start");
    expect(frontier(["init", "--github"], { cwd: repo }).code).toBe(0);
    const adds = [...step(4).matchAll(/```sh\n([\s\S]*?)```/g)]
      .flatMap((m) => m[1]!.split("\n"))
      .flatMap((l) => l.split("&&").map((c) => c.trim()))
      .filter((c) => c.startsWith("git add "));
    expect(adds.length).toBe(2);
    for (const add of adds) expect(git(...add.split(" ").slice(1)).status).toBe(0);
    const status = git("status", "--porcelain", "--untracked-files=all").stdout;
    expect(status).toMatch(/^A {2}\.gitattributes$/m);
    expect(status.split("\n").filter((l) => l.startsWith("??"))).toEqual([]);
  });

  it("step 4: the orch-task runs it tells you to look for are the starter tickets", () => {
    const named = [...step(4).matchAll(/`frontier ([a-z-]+)#1 …`/g)].map((m) => m[1]).sort();
    const ids = readdirSync(join(root, "tickets"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(named).toEqual(ids);
  });

  it("opens with the two commands a fresh clone runs: the example and the tests", () => {
    const first = readme.slice(0, readme.indexOf("\n## "));
    expect(first).toMatch(/^npm ci && npm start\b/m);
    expect(first).toMatch(/^npm ci && npm test\b/m);
  });

  it("speaks to users: no CI script, no machine of ours, no landings; the rest is linked", () => {
    expect(readme).not.toMatch(/\.ci\/run|2-core machine|failed landing|927 tests/);
    for (const doc of ["design.md", "benchmarks.md", "CONTRIBUTING.md", "releasing.md"]) {
      expect(readme).toContain(`](docs/${doc}`);
      const text = readFileSync(join(ROOT, "docs", doc), "utf8");
      expect(text, doc).not.toMatch(/SPEC|§\d|\/work\/|\.\.\/shared/);
    }
    // what moved out stays out of the README
    expect(readme).not.toMatch(/^## (Benchmarks|Design notes|Developing)$/m);
  });

  it("is at most 700 lines, and its internals live in docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(700);
    expect(readme).not.toMatch(/\/proc\b|hard-linked|compare-and-swap|GraphQL points/);
    for (const doc of ["local-runs.md", "github.md", "bot.md", "built-in-agent.md"]) {
      expect(readme).toContain(`](docs/${doc}`);
      expect(readFileSync(join(ROOT, "docs", doc), "utf8"), doc).not.toMatch(/SPEC|§\d|\/work\//);
    }
  });

  it("speaks of the project alone", () => {
    for (const text of [readme, readFileSync(join(ROOT, "docs", "CONTRIBUTING.md"), "utf8")]) {
      expect(text).not.toMatch(/SPEC|§\d|\bthe customer\b|\bthe issue\b(?! closes| was opened)/);
    }
    // CONTRIBUTING points only at files in this repository
    const contributing = readFileSync(join(ROOT, "docs", "CONTRIBUTING.md"), "utf8");
    for (const [, target] of contributing.matchAll(/\]\(([^)]+)\)/g)) {
      expect(target).not.toMatch(/^https?:/);
      expect(existsSync(join(ROOT, "docs", target!.split("#")[0]!)), target).toBe(true);
    }
    expect(contributing).not.toMatch(/\.\.\/shared|\/work\//);
  });
});

describe("the README's first commands on your own tickets", () => {
  it("never says `npx frontier`: without this package installed, npx fetches another package of that name", () => {
    const npx = [...readme.matchAll(/\bnpx\s+(?:--yes\s+)?(\S+)/g)].map((m) => m[1]);
    expect(npx.length).toBeGreaterThan(0);
    expect(npx.filter((name) => name !== "ticket-frontier")).toEqual([]);
  });
});

describe("the README's command synopsis", () => {
  it("lists every command frontier --help lists, and each option of run", () => {
    const block = /## `frontier` — the command\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const listed = new Set([...block.matchAll(/^frontier ([a-z]+)/gm)].map((m) => m[1]));
    const help = frontier(["--help"]).stdout;
    const commands = [...help.matchAll(/^ {2}([a-z]+) /gm)]
      .map((m) => m[1])
      .filter((c) => c !== "help");
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((c) => !listed.has(c))).toEqual([]);
    const runLine = /^frontier run .*$/m.exec(block)?.[0] ?? "";
    const runHelp = frontier(["run", "--help"]).stdout;
    const options = [...runHelp.matchAll(/^ {2}(--[a-z-]+)/gm)]
      .map((m) => m[1])
      .filter((o) => o !== "--help");
    expect(options.filter((o) => !runLine.includes(o!))).toEqual([]);
    for (const command of ["new", "init"]) {
      const listedLine = new RegExp(`^frontier ${command} .*$`, "m").exec(block)?.[0] ?? "";
      const own = [...frontier([command, "--help"]).stdout.matchAll(/^ {2}(--[a-z-]+)/gm)]
        .map((m) => m[1])
        .filter((o) => o !== "--help");
      expect(
        own.filter((o) => !listedLine.includes(o!)),
        command,
      ).toEqual([]);
    }
  });
});

describe("the README's first command", () => {
  it("npm start runs the example on a fresh copy and names each report once", () => {
    expect(readme).toMatch(/npm ci && npm start/);
    const r = spawnSync(process.execPath, [join(ROOT, "scripts", "start-example.mjs")], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CI: "true", NO_COLOR: "1" },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.match(/receipt\.json/g)).toHaveLength(1);
    expect(r.stderr.match(/report\.md/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/The summary ticket's result/);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");

describe("the README's and docs' links lead somewhere", () => {
  const pages = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const anchors = (page: string) =>
    new Set(
      [...readFileSync(join(ROOT, page), "utf8").matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
        slug(m[1]!),
      ),
    );

  it.each(pages)("%s: every link to a file here, and to a heading, resolves", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split("#") as [string, string | undefined];
      const file = path === "" ? page : join(dirname(page), path);
      if (!existsSync(join(ROOT, file))) broken.push(target!);
      else if (anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor))
        broken.push(target!);
    }
    expect(broken).toEqual([]);
  });
});

describe("the README's example of a graph that does not hold together", () => {
  it("is what validate prints for it, word for word", () => {
    const shown = /```\n\$ frontier validate tickets\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const { root } = workspace({
      "c.md": "---\ndepends_on: [nowhere]\n---\n# C\n",
      "f.md": "---\ndepends_on: [g]\n---\n# F\n",
      "g.md": "---\ndepends_on: [f]\n---\n# G\n",
    });
    const r = frontier(["validate", "tickets"], { cwd: root });
    expect(r.code).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toBe(shown);
  });
});

describe("the README's ticket and frontier.yml examples", () => {
  it("are read as they say: the ticket's scope, isolation and bound, every setting accepted", () => {
    const ticket = /```markdown\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const settings = /### `frontier\.yml`[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const { root } = workspace({
      "ui.md": ticket,
      "api.md": "---\nwrite_scope: [app/api/**]\n---\n# API\n",
      "frontier.yml": settings,
    });
    const git = (...args: string[]) =>
      spawnSync("git", args, { cwd: root, env: { ...process.env, ...GIT_ENV } });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "tickets");
    const v = frontier(["validate", "tickets"], { cwd: root });
    expect(`${v.stdout}${v.stderr}`).toMatch(/^tickets: 2 tickets, no problems\.$/m);
    const plan = JSON.parse(frontier(["plan", "--json"], { cwd: root }).stdout) as {
      tickets: Array<{ id: string; depends_on: string[]; write_scope: string[]; bound?: string }>;
    };
    expect(plan.tickets.find((t) => t.id === "ui")).toMatchObject({
      depends_on: ["api"],
      write_scope: ["app/ui/**", "!app/ui/vendor/**"],
    });
  });
});
