/**
 * `frontier dep add` while the author's editor saves the same ticket file: the save is
 * never overwritten. The editor's save is made from a hook on the rename that puts the
 * command's version in place, so the test does not depend on timing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { depCommand } from "../../src/cli/deps.js";
import { renameHook } from "../support/rename-hook.js";
import { workspace } from "./harness.js";
import { captured } from "./inproc.js";

vi.mock("node:fs", async (real) =>
  (await import("../support/rename-hook.js")).hooked(await real()),
);

afterEach(() => {
  renameHook.before = () => undefined;
});

describe("frontier dep add while the file is being saved", () => {
  it("a save in place between the command's read and its write is kept, and the command says to run it again", async () => {
    const { dir } = workspace({
      "a.md": "---\ntitle: A\n---\n# A\n",
      "b.md": "---\ntitle: B\n---\n# B\n",
      "plan.md": "---\ntitle: Plan\ndepends_on: [a]\n---\n# Plan\n",
    });
    const plan = join(dir, "plan.md");
    const saved = "---\ntitle: Plan, renamed by its author\ndepends_on: [a]\n---\n# Plan\n\nmore\n";
    let edited = false;
    renameHook.before = (to) => {
      if (edited || to !== plan) return;
      edited = true;
      writeFileSync(plan, saved); // an editor saving in place
    };
    const io = captured();
    const code = await depCommand("add", dir, "plan", "b", { json: false }, io.io, Date.now());
    expect(edited).toBe(true);
    expect(readFileSync(plan, "utf8")).toBe(saved);
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(/plan\.md changed while .*nothing was changed — run it again/);
  });
});
