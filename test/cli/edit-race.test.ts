/**
 * A command that writes a ticket file while the author's editor saves it: the save is
 * never overwritten. The editor's save is made from a hook on the rename that puts the
 * command's version in place, so the test does not depend on timing.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mutateCommand } from "../../src/cli/commands.js";
import { depCommand } from "../../src/cli/deps.js";
import { runCommand } from "../../src/local/run.js";
import { linkHook, renameHook } from "../support/rename-hook.js";
import { workspace } from "./harness.js";
import { captured } from "./inproc.js";

vi.mock("node:fs", async (real) =>
  (await import("../support/rename-hook.js")).hooked(await real()),
);

const cwd = process.cwd();
afterEach(() => {
  renameHook.before = () => undefined;
  linkHook.after = () => undefined;
  process.chdir(cwd);
});

/** The first rename onto `path` is preceded by the author saving `saved` there in place. */
function saveBeforeRename(path: string, saved: string): () => boolean {
  let edited = false;
  renameHook.before = (to) => {
    if (edited || resolve(to) !== path) return;
    edited = true;
    writeFileSync(path, saved); // an editor saving in place
  };
  return () => edited;
}

/** Three tickets: plan depends on a, and `frontier dep add plan b` is what each test runs. */
const PLAN = {
  "a.md": "---\ntitle: A\n---\n# A\n",
  "b.md": "---\ntitle: B\n---\n# B\n",
  "plan.md": "---\ntitle: Plan\ndepends_on: [a]\n---\n# Plan\n",
};

async function addBToPlan(dir: string) {
  const io = captured();
  return {
    io,
    code: await depCommand("add", dir, "plan", "b", { json: false }, io.io, Date.now()),
  };
}

describe("frontier dep add while the file is being saved", () => {
  it("a save in place between the command's read and its write is kept, and the command says to run it again", async () => {
    const { dir } = workspace(PLAN);
    const plan = join(dir, "plan.md");
    const saved = "---\ntitle: Plan, renamed by its author\ndepends_on: [a]\n---\n# Plan\n\nmore\n";
    const edited = saveBeforeRename(plan, saved);
    const { io, code } = await addBToPlan(dir);
    expect(edited()).toBe(true);
    expect(readFileSync(plan, "utf8")).toBe(saved);
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(/plan\.md changed while .*nothing was changed — run it again/);
  });
});

describe("frontier dep add while the author deletes the file", () => {
  it("a file deleted after the command read it stays deleted, and the command says to run it again", async () => {
    const { dir } = workspace(PLAN);
    const plan = join(dir, "plan.md");
    let deleted = false;
    // the version checked is held by a hard link: the author deletes the file right after it
    linkHook.after = (from) => {
      if (deleted || resolve(from) !== plan) return;
      deleted = true;
      rmSync(plan);
    };
    const { io, code } = await addBToPlan(dir);
    expect(deleted).toBe(true);
    expect(existsSync(plan)).toBe(false);
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(/plan\.md changed while .*nothing was changed — run it again/);
  });
});

describe("frontier dep add where the file system has no hard links", () => {
  it("the file is still replaced only as the version read, and no temporary file is left", async () => {
    const { dir } = workspace(PLAN);
    linkHook.after = () => {
      throw Object.assign(new Error("EXDEV: cross-device link not permitted"), { code: "EXDEV" });
    };
    const { io, code } = await addBToPlan(dir);
    expect(code, io.stderr()).toBe(0);
    expect(readFileSync(join(dir, "plan.md"), "utf8")).toMatch(/^depends_on: \[a, b\]$/m);
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});

describe("frontier answer, retry and cancel while the file is being saved", () => {
  it("a save in place between the command's read and its write is kept, and the ticket's new state is written into it", async () => {
    const { root, dir } = workspace({
      "a.md": "---\n---\n# A\n",
      "b.md": "---\n---\n# B\n\nAsk first.\n",
    });
    process.chdir(root);
    const exec = `sh -c 'case $FRONTIER_TICKET in a) exit 1;; b) echo "which region?"; exit 75;; esac'`;
    await runCommand("tickets", { json: false, exec }, captured().io);
    for (const [kind, file, args] of [
      ["answer", "b.md", { ticket: "b", text: "eu-west" }],
      ["retry", "a.md", { ticket: "a" }],
    ] as const) {
      const path = join(dir, file);
      const before = readFileSync(path, "utf8");
      expect(before.match(/^status: (.*)$/m)?.[1]).toBe(kind === "answer" ? "suspended" : "failed");
      const saved = `${before}\nA line the author added while the command ran.\n`;
      const edited = saveBeforeRename(path, saved);
      const io = captured();
      expect(await mutateCommand(kind, "tickets", args, io.io, Date.now()), io.stderr()).toBe(0);
      expect(edited()).toBe(true);
      const after = readFileSync(path, "utf8");
      expect(after).toContain("A line the author added while the command ran.");
      // the command's own write still landed, planned again from the author's text
      expect(after.match(/^status: (.*)$/m)?.[1]).toBe("ready");
    }
  });

  it("a file saved again at every try is left as its author saved it, and the command says its state is in the records only", async () => {
    const { root, dir } = workspace({ "a.md": "---\n---\n# A\n" });
    process.chdir(root);
    await runCommand("tickets", { json: false, exec: "exit 1" }, captured().io);
    const path = join(dir, "a.md");
    // the author saves in place just before each of the command's writes (not before the
    // rename that puts their version back)
    let saves = 0;
    let renames = 0;
    renameHook.before = (to) => {
      if (resolve(to) === path && renames++ % 2 === 0)
        writeFileSync(path, `---\n---\n# A\n\nsave ${++saves}\n`);
    };
    const io = captured();
    expect(await mutateCommand("retry", "tickets", { ticket: "a" }, io.io, Date.now())).toBe(1);
    expect(saves).toBe(2);
    expect(readFileSync(path, "utf8")).toContain("save 2");
    expect(io.stderr()).toContain("a.md: changed twice while it was being written");
  });
});
