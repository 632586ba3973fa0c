/**
 * A ticket file the author edits while a local run writes it: the run's write never
 * overwrites the edit, nor hides it from the check before the ticket's claim starts
 * (`local/edits.ts` TicketWatch). In process, with each attempt's start and end and each
 * plan of writes hooked, so the edit lands exactly where the test puts it: no timing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { renameHook } from "../support/rename-hook.js";
import { runHere } from "./git-repo.js";
import { makeGraph } from "./harness.js";

const hooks = vi.hoisted(() => ({
  started: [] as string[],
  /** runs as the runner starts this ticket's attempt (after its event was planned) */
  onStart: (_ticket: string): void => undefined,
  /** runs as the attempt ends, before the runner hears of it */
  onEnd: (_ticket: string): void => undefined,
  /** runs as the runner has planned writes, before it makes them */
  onPlanned: (_paths: string[]): void => undefined,
}));

vi.mock("node:fs", async (real) =>
  (await import("../support/rename-hook.js")).hooked(await real()),
);

vi.mock("../../src/tickets/writeback.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/tickets/writeback.js")>();
  return {
    ...real,
    planWrites: (...args: Parameters<typeof real.planWrites>) => {
      const edits = real.planWrites(...args);
      hooks.onPlanned(edits.map((edit) => edit.path));
      return edits;
    },
  };
});

vi.mock("../../src/local/attempt.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/local/attempt.js")>();
  return {
    ...real,
    startAttempt: (input: Parameters<typeof real.startAttempt>[0]) => {
      const ticket = input.contract?.ticket ?? "";
      hooks.started.push(ticket);
      hooks.onStart(ticket);
      const attempt = real.startAttempt(input);
      const done = attempt.done.then((result) => {
        hooks.onEnd(ticket);
        return result;
      });
      return { ...attempt, done };
    },
  };
});

beforeEach(() => {
  hooks.started = [];
  hooks.onStart = () => undefined;
  hooks.onEnd = () => undefined;
  hooks.onPlanned = () => undefined;
  renameHook.before = () => undefined;
});

/** The author adds a dependency on a new ticket `z` to `id`'s file. */
function addDependency(dir: string, id: string): void {
  const file = join(dir, `${id}.md`);
  writeFileSync(file, readFileSync(file, "utf8").replace("  - a\n", "  - a\n  - z\n"));
  writeFileSync(join(dir, "z.md"), "---\ntitle: Z\n---\nDo z.\n");
}

describe("a ticket file the author edits during a run", () => {
  it("an edit made as an attempt starts, before the event's other ticket files are written, is kept and seen before the claim", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    // a's start: the first event's write of b.md (`status: pending`) is not made yet
    hooks.onStart = (ticket) => {
      if (ticket === "a") addDependency(g.dir, "b");
    };
    const ran = await runHere(g.dir, "echo done");
    expect(readFileSync(join(g.dir, "b.md"), "utf8")).toContain("  - z\n");
    expect(ran.stderr).toMatch(/b\.md was changed \(its id or dependencies\)/);
    expect(hooks.started).toEqual(["a"]);
    expect(ran.code).toBe(1);
  });

  it("an edit the run's next write of the file carries is still seen when the ticket is claimed", async () => {
    const g = makeGraph(
      { a: {}, b: { depends_on: ["a"] }, c: { depends_on: ["a"] } },
      { run: "test", max_parallel: 1 },
    );
    // a's end: the next event claims b and writes c.md (`status: ready`) over the edit
    hooks.onEnd = (ticket) => {
      if (ticket === "a") addDependency(g.dir, "c");
    };
    const ran = await runHere(g.dir, "echo done");
    expect(readFileSync(join(g.dir, "c.md"), "utf8")).toContain("  - z\n");
    expect(ran.stderr).toMatch(/c\.md was changed \(its id or dependencies\)/);
    expect(hooks.started).toEqual(["a", "b"]);
    expect(ran.code).toBe(1);
  });

  it("an edit made between the file's plan and its write: the write is planned again from the edited text", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    let edited = false;
    hooks.onPlanned = (paths) => {
      if (edited || !paths.includes("b.md")) return;
      edited = true;
      addDependency(g.dir, "b");
    };
    // a's end comes after the first event's writes: b.md as they left it
    let written = "";
    hooks.onEnd = () => {
      written = readFileSync(join(g.dir, "b.md"), "utf8");
    };
    const ran = await runHere(g.dir, "echo done");
    expect(edited).toBe(true);
    expect(written).toContain("  - z\n");
    expect(written).toContain("status: pending\n");
    expect(ran.stderr).toMatch(/b\.md was changed \(its id or dependencies\)/);
    expect(hooks.started).toEqual(["a"]);
  });

  it("an edit made in place in the instant between the run's check of the file and its write: the edit is put back and seen", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    const b = join(g.dir, "b.md");
    let edited = false;
    renameHook.before = (to) => {
      if (edited || to !== b) return;
      edited = true;
      addDependency(g.dir, "b"); // an editor saving in place: same file, new bytes
    };
    let written = "";
    hooks.onEnd = () => {
      written = readFileSync(b, "utf8");
    };
    const ran = await runHere(g.dir, "echo done");
    expect(edited).toBe(true);
    expect(written).toContain("  - z\n");
    expect(readFileSync(b, "utf8")).toContain("  - z\n");
    expect(ran.stderr).toMatch(/b\.md was changed \(its id or dependencies\)/);
    expect(hooks.started).toEqual(["a"]);
  });
});
