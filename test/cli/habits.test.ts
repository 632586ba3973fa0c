/**
 * The habits of tk, beads and gh: `frontier ready`, `frontier dep add|rm`, `frontier new
 * "A title"`, `--json` on every command that changes something (one shipped schema), and
 * a tk directory refused with one message that says what to change.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, describe, expect, it } from "vitest";
import { mutateCommand } from "../../src/cli/commands.js";
import { depCommand, readyCommand } from "../../src/cli/deps.js";
import { newCommand } from "../../src/cli/new.js";
import { resetCommand } from "../../src/cli/reset.js";
import { validateCommand } from "../../src/cli/validate.js";
import { acquireLock } from "../../src/local/lock.js";
import { runCommand } from "../../src/local/run.js";
import { commandJsonSchemaText } from "../support/schema.js";
import { ROOT, workspace } from "./harness.js";
import { captured } from "./inproc.js";

const committed = readFileSync(join(ROOT, "schema", "command.schema.json"), "utf8");
const valid = new Ajv2020({ strict: true }).compile(JSON.parse(committed));
/** stdout holds one command@1 object and nothing else */
function result(text: string): Record<string, unknown> {
  const value = JSON.parse(text) as Record<string, unknown>;
  expect(valid(value), JSON.stringify(valid.errors)).toBe(true);
  return value;
}

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

describe("frontier ready", () => {
  it("lists what may be dispatched now, in dispatch order (priority first), and --json the same", async () => {
    const { dir } = workspace({
      "a.md": "---\n---\n# Alpha\n",
      "b.md": "---\npriority: 5\n---\n# Beta\n",
      "c.md": "---\ndepends_on: [a]\n---\n# Gamma\n",
    });
    const text = captured();
    expect(await readyCommand(dir, { json: false }, text.io, Date.now())).toBe(0);
    expect(text.stdout()).toBe("b  Beta\na  Alpha\n");
    const json = captured();
    await readyCommand(dir, { json: true }, json.io, Date.now());
    expect(result(json.stdout()).ready).toEqual([
      { id: "b", title: "Beta", priority: 5 },
      { id: "a", title: "Alpha", priority: 0 },
    ]);
  });
});

describe("frontier dep add / rm", () => {
  const files = {
    "a.md": "---\n---\n# A\n",
    "b.md": "---\n---\n# B\n",
    "plan.md":
      "---\ntitle: Plan # keep me\ndepends_on:\n  - a   # the facts\nbound: 10m\n---\n# Plan\n\nbody\n",
  };

  it("edits depends_on in place, the author's bytes kept, and says what it is now", async () => {
    const { dir } = workspace(files);
    const add = captured();
    expect(await depCommand("add", dir, "plan", "b", { json: false }, add.io, Date.now())).toBe(0);
    expect(readFileSync(join(dir, "plan.md"), "utf8")).toBe(
      "---\ntitle: Plan # keep me\ndepends_on:\n  - a   # the facts\n  - b\nbound: 10m\n---\n# Plan\n\nbody\n",
    );
    expect(add.stdout()).toMatch(/plan now depends on b .*depends_on: \[a, b\]/);
    const rm = captured();
    expect(await depCommand("rm", dir, "plan", "a", { json: true }, rm.io, Date.now())).toBe(0);
    expect(result(rm.stdout())).toMatchObject({ command: "dep rm", ok: true, depends_on: ["b"] });
    expect(readFileSync(join(dir, "plan.md"), "utf8")).toBe(
      "---\ntitle: Plan # keep me\ndepends_on:\n  - b\nbound: 10m\n---\n# Plan\n\nbody\n",
    );
  });

  it("refuses a loop, an unknown ticket (with the near id) and itself, changing nothing", async () => {
    const { dir } = workspace(files);
    const before = readFileSync(join(dir, "a.md"), "utf8");
    const loop = captured();
    expect(await depCommand("add", dir, "a", "plan", { json: false }, loop.io, Date.now())).toBe(2);
    expect(loop.stderr()).toMatch(/would close a loop; nothing was changed — cycle: /);
    expect(readFileSync(join(dir, "a.md"), "utf8")).toBe(before);
    const typo = captured();
    expect(await depCommand("add", dir, "plan", "bb", { json: true }, typo.io, Date.now())).toBe(2);
    expect(typo.stderr()).toMatch(/no ticket "bb" .*Did you mean b\?/);
    expect(result(typo.stdout())).toMatchObject({ ok: false });
  });

  it("in a directory that already has a loop: an edit elsewhere goes through, and a second loop is refused", async () => {
    // data ↔ x is a loop already (the directory does not hold together yet); a.md's name is
    // inside data.md's, and b depends on the loop
    const { dir } = workspace({
      "data.md": "---\ndepends_on: [x]\n---\n# Data\n",
      "x.md": "---\ndepends_on: [data]\n---\n# X\n",
      "a.md": "---\n---\n# A\n",
      "b.md": "---\ndepends_on: [data]\n---\n# B\n",
    });
    const add = captured();
    expect(await depCommand("add", dir, "a", "b", { json: false }, add.io, Date.now())).toBe(0);
    expect(add.stdout()).toMatch(/a now depends on b/);
    const rm = captured();
    expect(await depCommand("rm", dir, "a", "b", { json: false }, rm.io, Date.now())).toBe(0);
    // x after b: b → data → x → b, a loop of its own beside data ↔ x
    const before = readFileSync(join(dir, "x.md"), "utf8");
    const loop = captured();
    expect(await depCommand("add", dir, "x", "b", { json: false }, loop.io, Date.now())).toBe(2);
    expect(loop.stderr()).toContain(
      "x after b would close a loop; nothing was changed — cycle: x → b → data → x",
    );
    expect(readFileSync(join(dir, "x.md"), "utf8")).toBe(before);
    // `frontier new` beside the loop: ta.md's name is inside data.md's too, and it is written
    const made = captured();
    expect(await newCommand([dir, "ta"], { after: ["b"] }, made.io)).toBe(0);
    expect(readFileSync(join(dir, "ta.md"), "utf8")).toContain("depends_on: [b]");
    // one that would close a loop of its own is not: z already waits on w
    const refused = captured();
    writeFileSync(join(dir, "z.md"), "---\ndepends_on: [w]\n---\n# Z\n");
    expect(await newCommand([dir, "w"], { after: ["z"] }, refused.io)).toBe(2);
    expect(refused.stderr()).toContain(
      "w after z would close a loop; nothing was written — cycle: w → z → w",
    );
    expect(existsSync(join(dir, "w.md"))).toBe(false);
  });

  it("with a run holding the lock, says which command to run again once it stops, once", async () => {
    const { dir } = workspace(files);
    const lock = await acquireLock(dir, Date.now());
    if (lock.kind !== "ok") throw new Error("the test could not take the lock");
    try {
      const held = captured();
      expect(await depCommand("add", dir, "plan", "b", { json: false }, held.io, Date.now())).toBe(
        2,
      );
      expect(held.stderr()).toContain("`frontier dep add` after it stops");
      expect(held.stderr()).not.toContain("frontier frontier");
      // with --json, the refusal is the same command@1 answer the other commands give
      const json = captured();
      expect(await depCommand("rm", dir, "plan", "a", { json: true }, json.io, Date.now())).toBe(2);
      expect(result(json.stdout())).toMatchObject({
        command: "dep rm",
        ok: false,
        ticket: "plan",
        message: "a frontier run holds the directory",
      });
      expect(json.stderr()).toContain("`frontier dep rm` after it stops");
    } finally {
      await lock.release();
    }
  });
});

describe('frontier new "A title"', () => {
  it("makes the id from the title, a free one, and --json says which", async () => {
    const { root, dir } = workspace({ "plan-the-migration.md": "---\n---\n# Plan\n" });
    process.chdir(root);
    const c = captured();
    expect(await newCommand(["Plan the Migration!"], { json: true }, c.io)).toBe(0);
    expect(result(c.stdout())).toMatchObject({
      command: "new",
      ok: true,
      ticket: "plan-the-migration-2",
      file: "tickets/plan-the-migration-2.md",
      depends_on: [],
    });
    expect(readFileSync(join(dir, "plan-the-migration-2.md"), "utf8")).toMatch(
      /^# Plan the Migration!$/m,
    );
  });
});

describe("--json on every command that changes something", () => {
  it("answer, retry, cancel and reset each print one command@1 object on stdout", async () => {
    const { root } = workspace({ "a.md": "---\n---\n# A\n", "b.md": "---\n---\n# B\n" });
    process.chdir(root);
    const exec = `sh -c 'case $FRONTIER_TICKET in a) exit 1;; b) echo "which?"; exit 75;; esac'`;
    await runCommand("tickets", { json: false, exec }, captured().io);
    const seen: Record<string, unknown>[] = [];
    for (const [kind, args] of [
      ["answer", { ticket: "b", text: "this one" }],
      ["retry", { ticket: "a" }],
      ["cancel", {}],
    ] as const) {
      const c = captured();
      expect(await mutateCommand(kind, "tickets", { ...args, json: true }, c.io, Date.now())).toBe(
        0,
      );
      seen.push(result(c.stdout()));
    }
    expect(seen.map((r) => [r.command, r.ok])).toEqual([
      ["answer", true],
      ["retry", true],
      ["cancel", true],
    ]);
    expect(seen[0]).toMatchObject({ ticket: "b", changed: ["b"] });
    expect(String(seen[1]!.next)).toMatch(/^frontier run tickets/);
    const reset = captured();
    expect(await resetCommand("tickets", reset.io, Date.now(), { json: true })).toBe(0);
    expect(result(reset.stdout())).toMatchObject({
      command: "reset",
      ok: true,
      archive: "tickets/.frontier/runs/tickets-1/",
    });
    const stale = captured();
    await mutateCommand("retry", "tickets", { ticket: "nope", json: true }, stale.io, Date.now());
    expect(result(stale.stdout())).toMatchObject({ ok: false });
  });

  it("the schema ships beside the receipt's and is what the zod schema generates", () => {
    // if this fails: node scripts/gen-schema.mjs
    expect(committed).toBe(commandJsonSchemaText());
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.exports["./schema/command.schema.json"]).toBe("./schema/command.schema.json");
  });
});

describe("a tk directory", () => {
  it("is refused with one message that says what to change", async () => {
    const { root } = workspace();
    const dir = join(root, ".tickets");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(dir);
    for (const [id, status, deps] of [
      ["tf-1a2b", "open", "[]"],
      ["tf-3c4d", "closed", "[tf-1a2b]"],
    ]) {
      writeFileSync(
        join(dir, `${id}.md`),
        `---\nid: ${id}\nstatus: ${status}\ndeps: ${deps}\nlinks: []\ntype: task\npriority: 2\n---\n# ${id}\n`,
      );
    }
    const c = captured();
    expect(await validateCommand(dir, { json: false }, c.io)).toBe(2);
    const lines = c.stderr().trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /2 tickets here are written for tk \(deps:, status: open\/closed\).* — rename deps: to depends_on: and delete the status: lines/,
    );
  });
});
