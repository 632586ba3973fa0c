/** SPEC §1 `isolation`: per ticket, and a run default in frontier.yml; read like every other field. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ticketIsolation } from "../../src/core/constants.js";
import { lastLoad } from "../../src/tickets/cache.js";
import { loadDirectory } from "../../src/tickets/load.js";
import { formatProblem } from "../../src/tickets/problems.js";
import { parseSettings } from "../../src/tickets/settings.js";
import { parseSettingsQuick } from "../../src/tickets/settings-load.js";
import { lines, problems, spec } from "./helpers.js";

describe("a ticket's isolation", () => {
  it("worktree, orchflows' spelling required (the same thing), none; absent takes the run's", () => {
    expect(spec("---\nisolation: worktree\n---\n").isolation).toBe("worktree");
    expect(spec("---\nisolation: required\n---\n").isolation).toBe("worktree");
    expect(spec("---\nisolation: none\n---\n").isolation).toBe("none");
    expect(spec("---\nisolation: 'required'\n---\n").isolation).toBe("worktree");
    expect(spec("---\nid: a\n---\n").isolation).toBeUndefined();
  });

  it("a value that is none of them, or not text, is a problem with its line and the fix", () => {
    expect(lines(problems("---\nid: a\nisolation: sometimes\n---\n", "a.md"))).toEqual([
      'a.md:3: isolation "sometimes" is not one of worktree, required, none — write isolation: worktree (its own git worktree, its changes checked and integrated), or isolation: none',
    ]);
    expect(lines(problems("---\nisolation: Worktre\n---\n", "a.md"))[0]).toContain(
      "(did you mean worktree?)",
    );
    expect(lines(problems("---\nisolation: [worktree]\n---\n", "a.md"))).toEqual([
      "a.md:2: isolation must be worktree, required or none, got a list — write isolation: worktree",
    ]);
    // text fields take the author's text: `true` is the word true, and not an isolation
    expect(lines(problems("---\nisolation: true\n---\n", "a.md"))[0]).toMatch(
      /^a\.md:2: isolation "true" is not one of worktree, required, none/,
    );
  });

  it("the ticket's own wins over the run's; nothing set is none", () => {
    expect(ticketIsolation(undefined, undefined)).toBe("none");
    expect(ticketIsolation(undefined, "required")).toBe("worktree");
    expect(ticketIsolation("none", "worktree")).toBe("none");
    expect(ticketIsolation("worktree", "none")).toBe("worktree");
  });

  it("is kept by the ticket cache that validate and status read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-iso-cache-"));
    writeFileSync(join(dir, "a.md"), "---\nisolation: required\n---\n# A\n");
    writeFileSync(join(dir, "b.md"), "---\nisolation: none\n---\n# B\n");
    writeFileSync(join(dir, "c.md"), "# C\n");
    // a file written in the file system clock's tick the load began in is racily clean and
    // read again (never reused): the loads begin a few ticks later
    await new Promise((r) => setTimeout(r, 50));
    const read = async () => {
      const loaded = await loadDirectory(dir, { bodies: false, cacheMarginMs: 0 });
      if (loaded.kind !== "ok") throw new Error("invalid");
      return loaded.specs.map((s) => s.isolation);
    };
    expect(await read()).toEqual(["worktree", "none", undefined]);
    expect(await read()).toEqual(["worktree", "none", undefined]);
    // the second read came from the cache: every file reused, none read again
    expect(lastLoad).toMatchObject({ reused: 3, read: 0 });
  });
});

describe("the run's isolation in frontier.yml", () => {
  it("is read the same by the quick reading and the full one", () => {
    for (const text of [
      "isolation: worktree\n",
      "isolation: required\nrun: x\n",
      "isolation: none\n",
    ]) {
      const quick = parseSettingsQuick(text);
      expect(quick, text).toBeDefined();
      expect(quick).toStrictEqual(parseSettings(text));
    }
    expect(parseSettings("executors: {a: x}\nisolation: required\n").settings.isolation).toBe(
      "required",
    );
  });

  it("a value that is none of them is a problem with its line", () => {
    expect(parseSettingsQuick("run: x\nisolation: maybe\n")).toBeUndefined();
    const parsed = parseSettings("run: x\nisolation: maybe\n");
    expect(parsed.problems.map((p) => formatProblem(p))).toEqual([
      'frontier.yml:2: isolation must be worktree, required or none, got "maybe" — write isolation: worktree',
    ]);
    expect(parsed.settings.run).toBe("x");
  });

  it("reaches the load", async () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-iso-load-"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "frontier.yml"), "isolation: required\n");
    writeFileSync(join(dir, "a.md"), "# A\n");
    const loaded = await loadDirectory(dir);
    expect(loaded.kind === "ok" && loaded.settings.isolation).toBe("required");
  });
});
