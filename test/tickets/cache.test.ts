/**
 * The ticket cache (src/tickets/cache.ts): a load that uses it gives exactly what a
 * cold load gives — specs, problems, warnings, saved state — after every kind of change
 * to the files, and a cache that is damaged, foreign or not a file is never trusted.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { cachePath, lastLoad } from "../../src/tickets/cache.js";
import { type LoadOptions, loadDirectory } from "../../src/tickets/load.js";
import { frontier } from "../cli/harness.js";
import { runs } from "../support/runs.js";

/**
 * The racily-clean margin in these tests: longer than any clock tick of the file
 * systems tests run on, so a file changed in the tick it was read in is still never
 * trusted, while files written a little earlier are — and the cache is exercised.
 */
const MARGIN = 40;

/**
 * Wait until every file in the directory is older than a load begun now would count as
 * racily clean, by the file system's own clock (the one the cache reads): a probe file's
 * time must pass the newest file's by the margin and more. Sleeping a fixed time is not
 * enough for tests that count what was reused: on a busy virtual machine the kernel's
 * coarse clock can lag by tens of milliseconds.
 */
async function settle(): Promise<void> {
  const probe = `${dir}.probe`;
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const st = statSync(join(dir, name));
    newest = Math.max(newest, st.mtimeMs, st.ctimeMs);
  }
  try {
    for (;;) {
      writeFileSync(probe, "");
      const wait = newest + MARGIN + 100 - statSync(probe).mtimeMs;
      if (wait <= 0) return;
      await new Promise((r) => setTimeout(r, wait));
    }
  } finally {
    rmSync(probe, { force: true });
  }
}
/** A pause past the margin by the wall clock: enough for tests that only compare loads. */
const pause = () => new Promise((r) => setTimeout(r, MARGIN + 30));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "frontier-cache-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** What `validate` and `status` load: no bodies, through the cache. */
const warm = (opts: LoadOptions = {}) =>
  loadDirectory(dir, { bodies: false, cacheMarginMs: MARGIN, ...opts });
const cold = (opts: LoadOptions = {}) =>
  loadDirectory(dir, { ...opts, bodies: false, cache: false });

/** A warm load equals a cold one, with and without the executor checks. */
async function same(): Promise<{
  reused: number;
  read: number;
  written: boolean;
}> {
  const w = await warm();
  const counts = { ...lastLoad };
  expect(w).toStrictEqual(await cold());
  expect(await warm({ localExecutors: true })).toStrictEqual(await cold({ localExecutors: true }));
  return counts;
}

/** Give `path` the very times (to the nanosecond) `ref` has: `touch -r`. */
function forgeTimes(path: string, ref: string): void {
  execFileSync("touch", ["-r", ref, path]);
}

function put(name: string, text: string): void {
  writeFileSync(join(dir, name), text);
}

const A = "---\nid: a\ntitle: Alpha\n---\n# A\n\nDo a.\n";
const B = "---\ntitle: Beta\ndepends_on: [a]\n---\nDo b.\n";
const C = "---\ndepends_on:\n  - a\n  - b  # both\n---\nDo c, é and 😀.\n";

async function primed(): Promise<void> {
  put("a.md", A);
  put("b.md", B);
  put("c.md", C);
  await settle();
  await warm();
  expect(lastLoad.written).toBe(true);
  const again = await same();
  // nothing changed: every file from the cache, and the cache is not written again
  expect(again).toEqual({ reused: 3, read: 0, written: false });
}

describe("every change to a file's keys gives what a cold load gives", () => {
  test("edit (a different size)", async () => {
    await primed();
    put("b.md", "---\ntitle: Beta, longer now\ndepends_on: [a, c]\n---\nDo b.\n");
    await settle();
    const r = await same();
    expect(r.read).toBe(1);
    expect((await warm()).kind).toBe("invalid"); // b → c → b is a cycle now
  });

  test("edit to the same size, its mtime forged back: the ctime still tells", async () => {
    await primed();
    const path = join(dir, "a.md");
    const ref = join(dir, "_times");
    writeFileSync(ref, "");
    forgeTimes(ref, path);
    const before = statSync(path);
    const edited = A.replace("Alpha", "Omega");
    expect(edited.length).toBe(A.length);
    put("a.md", edited);
    forgeTimes(path, ref);
    expect(statSync(path).size).toBe(before.size);
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
    await settle();
    await same();
    const l = await warm();
    expect(l.kind === "ok" && l.specs[0]!.title).toBe("Omega");
  });

  test("edit to the same size in the same moment the cache was written: never trusted", async () => {
    put("a.md", A);
    // no settling: the file is as new as the load, so its entry is racily clean
    await warm();
    put("a.md", A.replace("Alpha", "Omega"));
    const l = await warm();
    expect(l.kind === "ok" && l.specs[0]!.title).toBe("Omega");
    expect(l).toStrictEqual(await cold());
  });

  test("a racily clean entry is read again, and the cache rewritten, until it is old enough", async () => {
    put("a.md", A);
    // the default margin: the file is racily clean
    await loadDirectory(dir, { bodies: false });
    await loadDirectory(dir, { bodies: false });
    expect(lastLoad).toEqual({ reused: 0, read: 1, written: true });
  });

  test("touch (the same bytes, new times)", async () => {
    await primed();
    const now = new Date();
    utimesSync(join(dir, "c.md"), now, now);
    await settle();
    expect((await same()).read).toBe(1);
  });

  test("rename", async () => {
    await primed();
    renameSync(join(dir, "b.md"), join(dir, "z.md"));
    await settle();
    const r = await same();
    expect(r.read).toBe(1);
    // b is z now: c's dependency on b names no ticket
    const l = await warm();
    expect(l.kind === "invalid" && l.problems.map((p) => [p.kind, p.file])).toEqual([
      ["unknown-dependency", "c.md"],
    ]);
  });

  test("replace: a new file (new inode) of the same size and mtime", async () => {
    await primed();
    const path = join(dir, "a.md");
    const before = statSync(path);
    const tmp = join(dir, "_new");
    writeFileSync(tmp, A.replace("Alpha", "Gamma"));
    forgeTimes(tmp, path);
    renameSync(tmp, path);
    expect(statSync(path).size).toBe(before.size);
    expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
    await settle();
    await same();
    const l = await warm();
    expect(l.kind === "ok" && l.specs[0]!.title).toBe("Gamma");
  });

  test("delete", async () => {
    await primed();
    rmSync(join(dir, "a.md"));
    await settle();
    const r = await same();
    expect(r).toEqual({ reused: 2, read: 0, written: true });
    // b and c name a, which is gone: the graph checks run on the cached specs
    expect((await warm()).kind).toBe("invalid");
  });

  test("add", async () => {
    await primed();
    put("d.md", "---\nid: a\n---\nA second a.\n");
    await settle();
    expect((await same()).read).toBe(1);
    const l = await warm();
    expect(l.kind === "invalid" && l.problems.map((p) => p.kind)).toContain("duplicate-id");
  });

  test("a changed max_file_bytes is a new cache: the cap is applied to every file", async () => {
    await primed();
    put("frontier.yml", "max_file_bytes: 40\n");
    await settle();
    expect((await same()).read).toBe(3);
    const l = await warm();
    expect(l.kind === "invalid" && l.problems.map((p) => p.kind)).toContain("file-too-large");
  });

  test("problems and warnings of a file are kept with it", async () => {
    put("a.md", "---\ndepend_on: [b]\ntitle: [unclosed\n---\n");
    put("b.md", "---\ndepend_on: [a]\n---\n");
    put("c.md", "---\ndepends_on: [b, b]\npriority: -0\nretries: 0\nbound: about an hour\n---\n");
    await settle();
    await warm();
    await settle();
    const r = await same();
    expect(r.written).toBe(false);
  });
});

describe("a file one byte over max_file_bytes", () => {
  test("is too large for validate and status (cold and warm) exactly as for a run", async () => {
    put("frontier.yml", "max_file_bytes: 100\n");
    put("a.md", `---\ntitle: A\n---\n${"x".repeat(100 - 17)}\n`);
    expect(statSync(join(dir, "a.md")).size).toBe(101);
    const run = await loadDirectory(dir);
    expect(run.kind).toBe("invalid");
    const message = run.kind === "invalid" ? run.problems[0]?.message : "";
    expect(message).toMatch(/101 bytes/);
    for (const load of [await warm(), await warm(), await cold()]) {
      expect(load.kind).toBe("invalid");
      if (load.kind === "invalid") expect(load.problems[0]?.message).toBe(message);
    }
  });
});

describe("the graph checks run on every load, warm or cold", () => {
  test("duplicates, unknown dependencies and a cycle, found warm as they were found cold", async () => {
    put("a.md", "---\ndepends_on: [c, nope]\n---\n");
    put("b.md", "---\nid: a\n---\n");
    put("c.md", "---\ndepends_on: [a]\n---\n");
    await settle();
    await warm();
    const r = await same();
    expect(r).toEqual({ reused: 3, read: 0, written: false });
    const l = await warm();
    expect(l.kind === "invalid" && l.problems.map((p) => p.kind).sort()).toEqual([
      "cycle",
      "duplicate-id",
      "unknown-dependency",
    ]);
  });
});

describe("a cache that cannot be trusted is ignored and written anew", () => {
  const damaged: Array<[string, (path: string) => void]> = [
    ["corrupt", (p) => writeFileSync(p, "{not json\n\u0000\u0001")],
    ["truncated", (p) => truncateSync(p, Math.floor(statSync(p).size / 2))],
    ["cut after its header", (p) => truncateSync(p, readFileSync(p).indexOf(10) + 1)],
    ["empty", (p) => writeFileSync(p, "")],
    [
      "of another version",
      (p) => {
        const text = readFileSync(p, "latin1");
        writeFileSync(p, text.replace("ticket-cache@4", "ticket-cache@3"), "latin1");
      },
    ],
    [
      "of another build",
      (p) => {
        const text = readFileSync(p, "latin1");
        writeFileSync(p, text.replace(/"build":"[^"]*"/, '"build":"other"'), "latin1");
      },
    ],
    [
      "cut short by a byte",
      (p) => {
        const bytes = readFileSync(p);
        writeFileSync(p, bytes.subarray(0, bytes.length - 1));
      },
    ],
    [
      "its entries swapped (another file's parse)",
      (p) => {
        const text = readFileSync(p, "latin1");
        writeFileSync(p, text.replace('"Alpha"', '"Zelda"'), "latin1");
      },
    ],
    [
      "a directory",
      (p) => {
        rmSync(p);
        mkdirSync(p);
      },
    ],
  ];

  for (const [what, damage] of damaged) {
    test(what, async () => {
      await primed();
      damage(cachePath(dir));
      // a body or title changed without its keys is the one damage a cache cannot see
      // by itself; every other is refused whole
      const w = await warm();
      if (what.startsWith("its entries")) {
        expect(w.kind === "ok" && w.specs[0]!.title).toBe("Zelda");
        return;
      }
      expect(w).toStrictEqual(await cold());
      expect(lastLoad.reused).toBe(0);
      if (what !== "a directory") {
        expect(lastLoad.written).toBe(true);
        expect((await same()).reused).toBe(3);
      }
    });
  }

  test("a cache written by another version of the parser libraries (yaml, gray-matter) is not trusted", async () => {
    await primed();
    const text = readFileSync(cachePath(dir), "latin1");
    for (const lib of ["yaml", "gray-matter"]) {
      const { version } = JSON.parse(
        readFileSync(join(import.meta.dirname, "../../node_modules", lib, "package.json"), "utf8"),
      ) as { version: string };
      expect(text).toContain(`${lib}@${version}`);
      writeFileSync(cachePath(dir), text.replace(`${lib}@${version}`, `${lib}@0.0.1`), "latin1");
      expect(await warm()).toStrictEqual(await cold());
      expect(lastLoad.reused).toBe(0);
    }
  });

  test("unreadable: ignored (where permissions hold)", async () => {
    await primed();
    chmodSync(cachePath(dir), 0o000);
    expect(await warm()).toStrictEqual(await cold());
    chmodSync(cachePath(dir), 0o600);
  });

  test("a read-only directory: the load works, nothing is written", async () => {
    put("a.md", A);
    mkdirSync(join(dir, ".frontier"));
    writeFileSync(join(dir, ".frontier", "cache"), "not a directory");
    expect(await warm()).toStrictEqual(await cold());
    expect(lastLoad.written).toBe(false);
  });

  test("deleted: rebuilt; never required", async () => {
    await primed();
    rmSync(join(dir, ".frontier"), { recursive: true });
    expect((await same()).written).toBe(true);
    expect(existsSync(cachePath(dir))).toBe(true);
    expect(readFileSync(join(dir, ".frontier", "cache", ".gitignore"), "utf8")).toBe("*\n");
    expect(readdirSync(join(dir, ".frontier", "cache")).sort()).toEqual([".gitignore", "tickets"]);
  });

  test("cache: false neither reads nor writes it", async () => {
    put("a.md", A);
    await cold();
    expect(existsSync(join(dir, ".frontier"))).toBe(false);
  });

  test("a load with bodies neither reads nor writes it, and gives the bodies", async () => {
    put("a.md", A);
    put("b.md", B);
    await settle();
    const full = await loadDirectory(dir);
    expect(existsSync(join(dir, ".frontier"))).toBe(false);
    await primed();
    // a cache whose entries are wrong is not even opened by a load with bodies
    const path = cachePath(dir);
    writeFileSync(path, readFileSync(path, "latin1").replace('"Alpha"', '"Zelda"'), "latin1");
    const again = await loadDirectory(dir);
    expect(again.kind === "ok" && again.specs.map((s) => [s.title, s.body])).toEqual([
      ["Alpha", "# A\n\nDo a.\n"],
      ["Beta", "Do b.\n"],
      ["c", "Do c, é and 😀.\n"],
    ]);
    // without bodies, the same load but for them
    const none = await cold();
    const strip = (l: typeof full) =>
      l.kind === "ok" ? { ...l, specs: l.specs.map((s) => ({ ...s, body: "" })) } : l;
    expect(strip(again)).toStrictEqual(none);
    expect(full.kind === "ok" && full.specs.length).toBe(2);
  });
});

describe("the runner rewrites tickets: the cache never serves their old front matter", () => {
  test("status, run, status", async () => {
    const tickets = join(dir, "tickets");
    mkdirSync(tickets);
    writeFileSync(join(tickets, "a.md"), "---\ntitle: A\n---\nDo a.\n");
    writeFileSync(join(tickets, "b.md"), "---\ntitle: B\ndepends_on: [a]\n---\nDo b.\n");
    await settle();
    expect(frontier(["status", tickets]).stdout).toMatch(/not started/);
    expect(existsSync(cachePath(tickets))).toBe(true);
    const ran = frontier(["run", tickets, "--exec", "echo done"]);
    expect(ran.code).toBe(0);
    const after = frontier(["status", tickets]);
    expect(after.stdout).toMatch(/^run tickets: complete/);
    // and again, from the cache the status above wrote
    expect(frontier(["status", tickets]).stdout).toBe(after.stdout);
    const l = await loadDirectory(tickets, { bodies: false });
    expect(l).toStrictEqual(await loadDirectory(tickets, { bodies: false, cache: false }));
  });
});

/* --------------------------------------------------------------- property */

const TEXTS = [
  A,
  B,
  C,
  "---\nid: b\ntitle: Bee\n---\nDo b.\n",
  "---\ndepends_on: [c]\n---\n# Cycles back\n",
  "---\ndepends_on: [a, nope]\ninputs: [a]\n---\nUnknown dependency.\n",
  "---\ndepend_on: [a]\n---\nA near miss: a warning.\n",
  "---\ndepends_on: [a, a]\n---\nA repeated dependency: a warning.\n",
  "---\ntitle: [broken\n---\nBroken YAML.\n",
  "---\ntitle: &t Anchored\nagent: *t\n---\nThe full YAML path.\n",
  '---\nstatus: complete\nattempt: 1\nupdated_at: "2026-01-02T10:00:00Z"\n---\nDone.\n',
  "---\nstatus: done\n---\nAn authored status.\n",
  "---\nexecutor: review\nbound: 30m\npriority: -0\nretries: 0\n---\n",
  "---\nid: Not An Id\n---\n",
  '---\nwrite_scope: [src/**, ""]\nbound: about an hour\n---\nÜnïcode — body 😀\n',
  "# No front matter\n\nJust a body.\n",
  "",
];
const NAMES = ["a.md", "b.md", "c.md", "d.md", "x y.md"];

type Op =
  | { kind: "write"; name: string; text: number }
  | { kind: "same-size"; name: string }
  | { kind: "touch"; name: string; past: boolean }
  | { kind: "rename"; from: string; to: string }
  | { kind: "replace"; name: string }
  | { kind: "delete"; name: string };

const name = fc.constantFrom(...NAMES);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), name, text: fc.nat(TEXTS.length - 1) }),
  fc.record({ kind: fc.constant("same-size" as const), name }),
  fc.record({ kind: fc.constant("touch" as const), name, past: fc.boolean() }),
  fc.record({ kind: fc.constant("rename" as const), from: name, to: name }),
  fc.record({ kind: fc.constant("replace" as const), name }),
  fc.record({ kind: fc.constant("delete" as const), name }),
);

/** The same text with one ASCII letter changed: same size, other bytes. */
function sameSize(text: string): string {
  const i = text.search(/[a-z]/);
  if (i < 0) return text;
  return `${text.slice(0, i)}${text[i] === "q" ? "r" : "q"}${text.slice(i + 1)}`;
}

function apply(o: Op): void {
  const path = (n: string) => join(dir, n);
  const exists = (n: string) => existsSync(path(n));
  switch (o.kind) {
    case "write":
      put(o.name, TEXTS[o.text]!);
      break;
    case "same-size": {
      if (!exists(o.name)) return;
      const ref = path("_times");
      writeFileSync(ref, "");
      forgeTimes(ref, path(o.name));
      put(o.name, sameSize(readFileSync(path(o.name), "utf8")));
      forgeTimes(path(o.name), ref);
      rmSync(ref);
      break;
    }
    case "touch": {
      if (!exists(o.name)) return;
      const t = o.past ? new Date(Date.now() - 86_400_000) : new Date();
      utimesSync(path(o.name), t, t);
      break;
    }
    case "rename":
      if (!exists(o.from)) return;
      renameSync(path(o.from), path(o.to));
      break;
    case "replace": {
      if (!exists(o.name)) return;
      const tmp = path("_replacing");
      writeFileSync(tmp, sameSize(readFileSync(path(o.name), "utf8")));
      forgeTimes(tmp, path(o.name));
      renameSync(tmp, path(o.name));
      break;
    }
    case "delete":
      if (exists(o.name)) rmSync(path(o.name));
      break;
  }
}

describe("property: any sequence of changes, loaded warm, equals a cold load", () => {
  test("edits, same-size edits, touches, renames, replaces, deletes and adds", async () => {
    let reused = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ text: fc.nat(TEXTS.length - 1), name }), { maxLength: 4 }),
        fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        async (initial, steps) => {
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir);
          for (const f of initial) put(f.name, TEXTS[f.text]!);
          await pause();
          await warm();
          for (const step of steps) {
            for (const o of step) apply(o);
            await pause();
            const w = await warm();
            reused += lastLoad.reused;
            expect(w).toStrictEqual(await cold());
            expect(await warm({ localExecutors: true })).toStrictEqual(
              await cold({ localExecutors: true }),
            );
          }
        },
      ),
      { numRuns: runs(25) },
    );
    // the cache was used, not just written
    expect(reused).toBeGreaterThan(0);
  }, 120_000);
});
