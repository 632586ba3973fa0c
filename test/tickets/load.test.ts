import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type Loaded, loadDirectory } from "../../src/tickets/load.js";
import { formatProblem } from "../../src/tickets/problems.js";

const BROKEN = join(import.meta.dirname, "../fixtures/broken");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "frontier-load-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function files(entries: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(entries)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}

function okLoad(l: Loaded): Extract<Loaded, { kind: "ok" }> {
  if (l.kind !== "ok") throw new Error(l.problems.map((p) => formatProblem(p)).join("\n"));
  return l;
}

function problemsOf(l: Loaded) {
  expect(l.kind).toBe("invalid");
  return l.kind === "invalid" ? l.problems : [];
}

describe("the broken fixture: every problem at once, each with its file", () => {
  test("duplicate id, unknown dependency, invalid id and broken YAML are all reported", async () => {
    const ps = problemsOf(await loadDirectory(BROKEN));
    const text = ps.map((p) => formatProblem(p));
    expect(ps.map((p) => [p.kind, p.file, p.line])).toEqual([
      ["malformed-front-matter", "broken.md", 3],
      ["duplicate-id", "plan2.md", 3],
      ["invalid-id", "report.md", 2],
      ["unknown-dependency", "review.md", 4],
    ]);
    expect(text[0]).toBe(
      "broken.md:3: front matter is not valid YAML: the [ opened here is never closed — close the list on the same line, e.g. depends_on: [a, b]",
    );
    expect(text[1]).toContain('duplicate id "plan": plan.md:2 and plan2.md:3 both use it');
    expect(text[3]).toContain(
      'depends_on names "reserch", but no ticket has that id (did you mean "research"?)',
    );
    expect(text.every((t) => !t.includes("    at "))).toBe(true);
  });
});

describe("loadDirectory", () => {
  test("a missing directory is one clear problem", async () => {
    const missing = join(dir, "nope");
    const ps = problemsOf(await loadDirectory(missing));
    expect(ps).toHaveLength(1);
    expect(formatProblem(ps[0]!)).toBe(
      `${missing}: no ticket directory at ${missing} — create it, or pass the directory that holds the tickets as DIR`,
    );
  });

  test("every *.md directly in the directory, in file order; . and _ names and subfolders are not tickets", async () => {
    await files({
      "b.md": "# B",
      "a.md": "# A",
      "_draft.md": "x",
      ".hidden.md": "x",
      "notes.txt": "x",
      "sub/c.md": "x",
      "_sub/d.md": "x",
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.specs.map((s) => [s.id, s.order, s.title])).toEqual([
      ["a", 0, "A"],
      ["b", 1, "B"],
    ]);
    expect(l.saved).toBeUndefined();
    expect(l.settings.run).toBe(dir.split("/").pop());
  });

  test("an empty directory is a valid, empty graph", async () => {
    const l = okLoad(await loadDirectory(dir));
    expect(l.specs).toEqual([]);
  });

  test("warnings come back with a valid graph", async () => {
    await files({ "a.md": "---\ndepend_on: [b]\n---\n" });
    const l = okLoad(await loadDirectory(dir));
    expect(l.warnings.map((p) => [p.kind, p.file, p.line])).toEqual([["unknown-field", "a.md", 2]]);
  });

  test("a cycle and a self-dependency across files", async () => {
    await files({
      "a.md": "---\ndepends_on: [b]\n---\n",
      "b.md": "---\ndepends_on: [a]\n---\n",
      "c.md": "---\ndepends_on: c\n---\n",
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => formatProblem(p))).toEqual([
      "a.md:2: cycle: a → b → a (a.md:2 depends on b, b.md:2 depends on a) — remove one of these dependencies so the loop is broken",
      'c.md:2: "c" depends on itself — remove c from depends_on',
    ]);
  });

  test("more tickets than max_tickets is refused before any is read", async () => {
    await files({
      "frontier.yml": "max_tickets: 2\n",
      "a.md": "",
      "b.md": "",
      "c.md": "---\nid: [\n---\n",
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => p.kind)).toEqual(["too-many-tickets"]);
    expect(ps[0]!.file).toBe(dir);
  });

  test("a file over max_file_bytes is refused by its size, and the others are still checked", async () => {
    await files({
      "frontier.yml": "max_file_bytes: 100\n",
      "big.md": `# Big\n${"x".repeat(200)}`,
      "a.md": "---\ndepends_on: [big, nope]\n---\n",
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => [p.kind, p.file])).toEqual([
      ["unknown-dependency", "a.md"],
      ["file-too-large", "big.md"],
    ]);
    expect(ps[1]!.message).toBe("file is 206 bytes, more than the cap of 100");
  });

  test("a broken frontier.yml is reported with its line, along with the tickets' problems", async () => {
    await files({
      "frontier.yml": "run: x\nmax_parallel: lots\n",
      "a.md": "---\nretries: many\n---\n",
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => formatProblem(p))).toEqual([
      'a.md:2: retries must be a whole number, 0 or more, got "many" — write retries: 2',
      'frontier.yml:2: max_parallel must be a whole number, 1 or more, got "lots" — write max_parallel: 4',
    ]);
  });
});

describe("the saved state is rebuilt from the front matter and .frontier/", () => {
  const attempt1 = {
    n: 1,
    claim: "c1",
    claimed_by: "me",
    started_at: "2026-01-01T00:00:00.000Z",
    ended_at: "2026-01-01T00:01:00.000Z",
    outcome: "failed",
    reason: "boom",
  };

  test("ended attempts, answers, the live attempt and run.json", async () => {
    await files({
      "a.md": [
        "---",
        "status: claimed",
        "attempt: 2",
        "claimed_by: me",
        'claimed_at: "2026-01-01T00:02:00.000Z"',
        "claim: c2",
        "---",
        "# A",
      ].join("\n"),
      "b.md": "---\ndepends_on: [a]\nstatus: pending\n---\n",
      "c.md": "# never ran",
      ".frontier/run.json": JSON.stringify({
        schema: "ticket-frontier/run@1",
        run: "r",
        dispatched: 2,
      }),
      ".frontier/attempts/a@1.json": JSON.stringify(attempt1),
      ".frontier/attempts/gone@1.json": JSON.stringify({ ...attempt1, claim: "x" }),
      ".frontier/answers/a@1.json": JSON.stringify({
        n: 1,
        attempt: 1,
        question: "which?",
        text: "this one",
        by: "ana",
        at: "2026-01-01T00:01:30.000Z",
      }),
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.saved?.run).toEqual({ schema: "ticket-frontier/run@1", run: "r", dispatched: 2 });
    expect(Object.keys(l.saved!.tickets).sort()).toEqual(["a", "b"]);
    expect(l.saved!.tickets.a).toEqual({
      status: "claimed",
      attempt: 2,
      claimed_by: "me",
      claimed_at: "2026-01-01T00:02:00.000Z",
      claim: "c2",
      attempts: [
        attempt1,
        { n: 2, claim: "c2", claimed_by: "me", started_at: "2026-01-01T00:02:00.000Z" },
      ],
      answers: [
        {
          n: 1,
          attempt: 1,
          question: "which?",
          text: "this one",
          by: "ana",
          at: "2026-01-01T00:01:30.000Z",
        },
      ],
    });
    expect(l.saved!.tickets.b).toEqual({
      status: "pending",
      attempt: 0,
      attempts: [],
      answers: [],
    });
  });

  test("state in the tickets without run.json gets a run record counting the attempts", async () => {
    await files({
      "a.md": "---\nstatus: complete\nattempt: 2\n---\n",
      "b.md": "---\nstatus: failed\nattempt: 1\nreason: boom\n---\n",
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.saved?.run).toEqual({
      schema: "ticket-frontier/run@1",
      run: dir.split("/").pop(),
      dispatched: 3,
    });
    expect(l.saved?.tickets.b).toMatchObject({ status: "failed", reason: "boom" });
  });

  test("run.json counting fewer dispatches than the ticket files show: the files' count wins", async () => {
    // a local run writes its dispatch count lazily; every dispatch is on disk first as
    // the claim in its ticket file
    await files({
      "a.md": "---\nstatus: complete\nattempt: 2\n---\n",
      "b.md": [
        "---",
        "status: claimed",
        "attempt: 1",
        "claimed_by: me",
        'claimed_at: "2026-01-01T00:02:00.000Z"',
        "claim: c1",
        "---",
      ].join("\n"),
      ".frontier/run.json": JSON.stringify({
        schema: "ticket-frontier/run@1",
        run: "r",
        dispatched: 1,
        bound: { dispatches: 5 },
      }),
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.saved?.run).toEqual({
      schema: "ticket-frontier/run@1",
      run: "r",
      dispatched: 3,
      bound: { dispatches: 5 },
    });
  });

  test("run.json counting more dispatches than the ticket files show keeps its count", async () => {
    await files({
      "a.md": "---\nstatus: complete\nattempt: 1\n---\n",
      ".frontier/run.json": JSON.stringify({
        schema: "ticket-frontier/run@1",
        run: "r",
        dispatched: 4,
      }),
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.saved?.run.dispatched).toBe(4);
  });

  test("an attempt recorded past what its ticket file says (the file could not be written) still counts as a dispatch", async () => {
    await files({
      "a.md":
        '---\nstatus: claimed\nattempt: 1\nclaimed_by: me\nclaimed_at: "2026-01-01T00:00:00.000Z"\nclaim: c1\n---\n',
      ".frontier/attempts/a@1.json": JSON.stringify(attempt1),
      ".frontier/attempts/a@2.json": JSON.stringify({ ...attempt1, n: 2, claim: "c2" }),
      ".frontier/run.json": JSON.stringify({
        schema: "ticket-frontier/run@1",
        run: "r",
        dispatched: 1,
        bound: { dispatches: 2 },
      }),
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.saved?.run.dispatched).toBe(2);
  });

  test("a corrupt record is a problem naming its file", async () => {
    await files({
      "a.md": "---\nstatus: failed\nattempt: 1\n---\n",
      ".frontier/attempts/a@1.json": "{not json",
      ".frontier/run.json": '{"schema": "nope"}',
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => [p.kind, p.file])).toEqual([
      ["corrupt-state", ".frontier/attempts/a@1.json"],
      ["corrupt-state", ".frontier/run.json"],
    ]);
  });

  test("an attempt record filed under the wrong number is corrupt", async () => {
    await files({
      "a.md": "---\nstatus: failed\nattempt: 1\n---\n",
      ".frontier/attempts/a@2.json": JSON.stringify(attempt1),
    });
    expect(problemsOf(await loadDirectory(dir))[0]!.kind).toBe("corrupt-state");
  });

  test("state that cannot be read is a problem, not a crash", async () => {
    await files({
      "a.md": "---\nstatus: failed\nattempt: 1\n---\n",
      ".frontier/attempts": "a file, not a folder",
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => [p.kind, p.file])).toEqual([["unreadable-file", ".frontier"]]);
  });
});

describe("files that cannot be read", () => {
  test("a dangling link named like a ticket is reported, the rest still checked", async () => {
    await files({ "a.md": "---\ndepends_on: [nope]\n---\n" });
    await symlink(join(dir, "missing-target"), join(dir, "b.md"));
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => [p.kind, p.file])).toEqual([
      ["unknown-dependency", "a.md"],
      ["unreadable-file", "b.md"],
    ]);
    expect(formatProblem(ps[1]!)).toMatch(/^b\.md: could not read the file: ENOENT/);
  });
});

describe("a status: the author wrote is refused, never passed off as frontier's", () => {
  test("status: complete with nothing frontier writes beside it is a problem with its line", async () => {
    await files({
      "a.md": "---\ntitle: A\nstatus: complete\n---\n# A\n",
      "b.md": "---\nstatus: done\n---\n# B\n",
      "c.md": "---\nstatus: pending\n---\n# C\n",
    });
    const ps = problemsOf(await loadDirectory(dir));
    expect(ps.map((p) => [p.kind, p.file, p.line])).toEqual([
      ["authored-status", "a.md", 3],
      ["authored-status", "b.md", 2],
    ]);
    expect(formatProblem(ps[0]!)).toContain('status: "complete" was not written by frontier');
    expect(formatProblem(ps[0]!)).toContain("delete the line");
  });

  test("a status frontier wrote (with its attempt and updated_at) is its state", async () => {
    await files({
      "a.md": '---\nstatus: complete\nattempt: 1\nupdated_at: "2026-01-02T10:00:00.000Z"\n---\n',
    });
    const l = okLoad(await loadDirectory(dir));
    expect(l.saved?.tickets.a?.status).toBe("complete");
  });
});

describe("a ticket file's name", () => {
  test("a backslash in it is refused at validation, with the rule and the file named", async () => {
    await files({ "ok.md": "# ok\n", "a\\b.md": "---\nid: ab\n---\n\n# ab\n" });
    const ps = problemsOf(await loadDirectory(dir, { cache: false }));
    expect(ps.map((p) => [p.kind, p.file])).toEqual([["invalid-file-name", "a\\b.md"]]);
    expect(formatProblem(ps[0]!)).toMatch(/a\\b\.md.*backslash.*rename it without one/s);
  });
});

describe("a bound of zero is refused wherever it is written", () => {
  test("ticket_bound: 0s in frontier.yml is refused as a ticket's bound: 0s is, with its line and the fix", async () => {
    await files({
      "frontier.yml": "run: t\nticket_bound: 0s\n",
      "a.md": "---\nbound: 0m\n---\nDo a.\n",
      "b.md": "---\n---\nDo b.\n",
    });
    const lines = problemsOf(await loadDirectory(dir)).map((p) => formatProblem(p));
    expect(lines.join("\n")).toMatch(/frontier\.yml:2: .*ticket_bound "0s" is a duration of zero/);
    expect(lines.join("\n")).toMatch(/a\.md:2: .*bound "0m" is a duration of zero/);
  });

  test("bound.duration: 0s is refused the same way", async () => {
    await files({ "frontier.yml": "run: t\nbound:\n  duration: 0s\n", "a.md": "Do a.\n" });
    const text = problemsOf(await loadDirectory(dir))
      .map((p) => formatProblem(p))
      .join("\n");
    expect(text).toMatch(/frontier\.yml:\d+: bound\.duration "0s" is a duration of zero/);
  });
});
