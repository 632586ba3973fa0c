import { execFileSync } from "node:child_process";
import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  applyEdits,
  RecordExistsError,
  RecyclingStore,
  replaceAtomically,
  writeResult,
} from "../../src/tickets/store.js";
import type { FileEdit } from "../../src/tickets/writeback.js";
import { runs } from "../support/runs.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "frontier-store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the local store applies FileEdits", () => {
  test("replace writes the whole file and leaves no temporary file behind", async () => {
    await writeFile(join(dir, "a.md"), "old");
    applyEdits(dir, [{ path: "a.md", kind: "replace", content: "new" }]);
    expect(await readFile(join(dir, "a.md"), "utf8")).toBe("new");
    expect(await readdir(dir)).toEqual(["a.md"]);
  });

  test("replace is atomic: a reader sees the old file or the new one, never a mix", async () => {
    const path = join(dir, "big.md");
    const a = "a".repeat(1 << 20);
    const b = "b".repeat(1 << 20);
    await writeFile(path, a);
    let stop = false;
    const seen = new Set<string>();
    const reader = (async () => {
      while (!stop) {
        const text = await readFile(path, "utf8");
        seen.add(text === a ? "a" : text === b ? "b" : "torn");
      }
    })();
    for (let i = 0; i < 20; i++) replaceAtomically(path, i % 2 === 0 ? b : a);
    stop = true;
    await reader;
    expect(seen.has("torn")).toBe(false);
  });

  test("replace creates missing directories (.frontier/run.json on the first run)", async () => {
    applyEdits(dir, [{ path: ".frontier/run.json", kind: "replace", content: "{}\n" }]);
    expect(await readFile(join(dir, ".frontier/run.json"), "utf8")).toBe("{}\n");
  });

  test("create never overwrites: different content is an error naming the file", async () => {
    const edit = { path: ".frontier/attempts/a@1.json", kind: "create" as const, content: "one" };
    applyEdits(dir, [edit]);
    expect(() => applyEdits(dir, [{ ...edit, content: "two" }])).toThrow(RecordExistsError);
    expect(() => applyEdits(dir, [{ ...edit, content: "two" }])).toThrow(
      /attempts\/a@1\.json already exists/,
    );
    expect(await readFile(join(dir, edit.path), "utf8")).toBe("one");
  });

  test("create of identical content is fine: a redelivered event is idempotent", async () => {
    const edit = { path: ".frontier/answers/a@1.json", kind: "create" as const, content: "same" };
    applyEdits(dir, [edit]);
    applyEdits(dir, [edit]);
    expect(await readFile(join(dir, edit.path), "utf8")).toBe("same");
    expect(await readdir(join(dir, ".frontier/answers"))).toEqual(["a@1.json"]);
  });

  test("append adds to the worklog and never rewrites it", async () => {
    applyEdits(dir, [{ path: ".frontier/worklog.jsonl", kind: "append", content: "1\n" }]);
    applyEdits(dir, [{ path: ".frontier/worklog.jsonl", kind: "append", content: "2\n" }]);
    expect(await readFile(join(dir, ".frontier/worklog.jsonl"), "utf8")).toBe("1\n2\n");
  });

  test("edits apply in order", async () => {
    applyEdits(dir, [
      { path: "x.md", kind: "replace", content: "1" },
      { path: "x.md", kind: "replace", content: "2" },
    ]);
    expect(await readFile(join(dir, "x.md"), "utf8")).toBe("2");
  });
});

describe("writeResult stores an attempt's result once", () => {
  test("returns the path relative to the ticket directory", async () => {
    const rel = writeResult(dir, "plan", 2, "the result\n");
    expect(rel).toBe(".frontier/results/plan@2.md");
    expect(await readFile(join(dir, rel), "utf8")).toBe("the result\n");
  });

  test("never overwrites another attempt's result", async () => {
    writeResult(dir, "plan", 1, "first");
    expect(() => writeResult(dir, "plan", 1, "second")).toThrow(RecordExistsError);
    expect(writeResult(dir, "plan", 1, "first")).toBe(".frontier/results/plan@1.md");
  });
});

describe("the runner's RecyclingStore keeps every guarantee of applyEdits", () => {
  const many = 3 * 96; // well past the spare depth and the spare cap

  test("replaces files whole, again and again, and leaves nothing behind when closed", async () => {
    const rounds = Math.ceil(many / 10);
    const store = new RecyclingStore(dir);
    store.warm();
    for (let i = 0; i < 10; i++) await writeFile(join(dir, `t${i}.md`), `authored ${i}\n`);
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < 10; i++) {
        store.apply([
          {
            path: `t${i}.md`,
            kind: "replace",
            content: `t${i} round ${round}\n`.repeat(round % 3 === 0 ? 1 : round),
          },
        ]);
      }
    }
    for (let i = 0; i < 10; i++) {
      const last = rounds - 1;
      expect(await readFile(join(dir, `t${i}.md`), "utf8")).toBe(
        `t${i} round ${last}\n`.repeat(last % 3 === 0 ? 1 : last),
      );
    }
    await store.close();
    expect((await readdir(dir)).sort()).toEqual(
      [".frontier", ...[...Array(10).keys()].map((i) => `t${i}.md`)].sort(),
    );
    expect(await readdir(join(dir, ".frontier"))).toEqual([]); // the spare folder is gone
  });

  test("a record is never written again, however many files are replaced after it", async () => {
    const store = new RecyclingStore(dir);
    store.warm();
    await writeFile(join(dir, "a.md"), "a\n");
    const records: Record<string, string> = {};
    for (let n = 1; n <= many; n++) {
      const path = `.frontier/attempts/a@${n}.json`;
      records[path] = `{"n": ${n}}\n`;
      store.apply([
        { path, kind: "create", content: records[path] },
        { path: "a.md", kind: "replace", content: `a attempt ${n}\n` },
        { path: ".frontier/run.json", kind: "replace", content: `{"dispatched": ${n}}\n` },
      ]);
    }
    for (const [path, content] of Object.entries(records)) {
      expect(await readFile(join(dir, path), "utf8")).toBe(content);
    }
    expect(() =>
      store.apply([{ path: ".frontier/attempts/a@1.json", kind: "create", content: "other" }]),
    ).toThrow(RecordExistsError);
    store.apply([
      {
        path: ".frontier/attempts/a@1.json",
        kind: "create",
        content: records[".frontier/attempts/a@1.json"]!,
      },
    ]);
    await store.close();
    expect(await readdir(join(dir, ".frontier"))).toEqual(["attempts", "run.json"]);
  });

  test("a ticket hard-linked elsewhere keeps its old content there: that file is never reused", async () => {
    const store = new RecyclingStore(dir);
    await writeFile(join(dir, "a.md"), "authored\n");
    await link(join(dir, "a.md"), join(dir, "backup"));
    for (let n = 0; n < many; n++) {
      store.apply([{ path: `f${n % 7}.md`, kind: "replace", content: `${n}\n` }]);
      if (n === 0) store.apply([{ path: "a.md", kind: "replace", content: "engine\n" }]);
    }
    expect(await readFile(join(dir, "backup"), "utf8")).toBe("authored\n");
    expect(await readFile(join(dir, "a.md"), "utf8")).toBe("engine\n");
    await store.close();
  });

  test("a ticket that is a symbolic link is replaced, and the file it pointed to is never written", async () => {
    const outside = await mkdtemp(join(tmpdir(), "frontier-outside-"));
    try {
      await writeFile(join(outside, "real.md"), "the author's file\n");
      await symlink(join(outside, "real.md"), join(dir, "a.md"));
      const store = new RecyclingStore(dir);
      store.apply([{ path: "a.md", kind: "replace", content: "engine\n" }]);
      for (let n = 0; n < many; n++) {
        store.apply([{ path: `f${n % 7}.md`, kind: "replace", content: `${n}\n` }]);
        store.apply([{ path: `.frontier/results/r${n}.md`, kind: "create", content: `${n}\n` }]);
      }
      expect(await readFile(join(outside, "real.md"), "utf8")).toBe("the author's file\n");
      expect(await readFile(join(dir, "a.md"), "utf8")).toBe("engine\n");
      await store.close();
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("a ticket's mode (read-only, executable) never passes to another ticket or a record", async () => {
    const store = new RecyclingStore(dir);
    store.warm();
    await writeFile(join(dir, "ro.md"), "read-only\n", { mode: 0o444 });
    await writeFile(join(dir, "x.md"), "executable\n", { mode: 0o755 });
    store.apply([
      { path: "ro.md", kind: "replace", content: "engine ro\n" },
      { path: "x.md", kind: "replace", content: "engine x\n" },
    ]);
    for (let n = 0; n < many; n++) {
      store.apply([
        { path: `.frontier/results/r${n}.md`, kind: "create", content: `${n}\n` },
        { path: `f${n % 7}.md`, kind: "replace", content: `${n}\n` },
      ]);
    }
    const mode = 0o666 & ~process.umask();
    const files = Object.keys(await tree(dir)).filter((f) => !f.startsWith(".frontier/.spare"));
    const modes = await Promise.all(
      files.map(async (f) => (await stat(join(dir, f))).mode & 0o777),
    );
    expect(files.filter((_, i) => modes[i] !== mode)).toEqual([]);
    await store.close();
  });

  test("a spare folder or a record folder removed mid-run is made again", async () => {
    const store = new RecyclingStore(dir);
    store.warm();
    for (let n = 0; n < 40; n++) {
      store.apply([
        { path: `.frontier/results/r${n}.md`, kind: "create", content: `${n}\n` },
        { path: `f${n % 3}.md`, kind: "replace", content: `${n}\n` },
      ]);
    }
    await rm(join(dir, ".frontier"), { recursive: true, force: true });
    for (let n = 40; n < 80; n++) {
      store.apply([
        { path: `.frontier/results/r${n}.md`, kind: "create", content: `${n}\n` },
        { path: `f${n % 3}.md`, kind: "replace", content: `${n}\n` },
        { path: ".frontier/run.json", kind: "replace", content: `${n}\n` },
      ]);
    }
    expect(await readFile(join(dir, ".frontier/results/r79.md"), "utf8")).toBe("79\n");
    expect(await readFile(join(dir, "f1.md"), "utf8")).toBe("79\n");
    await store.close();
  });

  test("the spare folder is ignored by git while a run uses it, and gone after", async () => {
    execFileSync("git", ["init", "-q", dir]);
    await writeFile(join(dir, "a.md"), "a\n");
    const store = new RecyclingStore(dir);
    store.warm();
    for (let n = 0; n < 40; n++) {
      store.apply([
        { path: `.frontier/results/r${n}.md`, kind: "create", content: `${n}\n` },
        { path: "a.md", kind: "replace", content: `${n}\n` },
      ]);
    }
    const untracked = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(untracked).not.toContain(".spare");
    expect(untracked).toContain(".frontier/results/r0.md");
    await store.close();
    expect((await readdir(join(dir, ".frontier"))).sort()).toEqual(["results"]);
  });

  test("matches applyEdits on any sequence of edits", async () => {
    const edit = fc.oneof(
      fc.record({
        kind: fc.constant("replace" as const),
        file: fc.integer({ min: 0, max: 4 }),
        content: fc.string({ maxLength: 300 }),
      }),
      fc.record({
        kind: fc.constant("create" as const),
        file: fc.integer({ min: 0, max: 40 }),
        content: fc.constantFrom("x", "y"),
      }),
      fc.record({
        kind: fc.constant("append" as const),
        file: fc.constant(0),
        content: fc.string({ maxLength: 20 }),
      }),
    );
    let k = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { maxLength: 200 }), async (list) => {
        const a = join(dir, `plain-${k}`);
        const b = join(dir, `recycled-${k++}`);
        await mkdir(a);
        await mkdir(b);
        const store = new RecyclingStore(b);
        store.warm();
        const path = (e: { kind: string; file: number }) =>
          e.kind === "replace"
            ? `t${e.file}.md`
            : e.kind === "create"
              ? `.frontier/results/r${e.file}.md`
              : ".frontier/worklog.jsonl";
        for (const e of list) {
          const one: FileEdit = { path: path(e), kind: e.kind, content: e.content };
          let plain: unknown;
          let recycled: unknown;
          try {
            applyEdits(a, [one]);
          } catch (error) {
            plain = (error as Error).name;
          }
          try {
            store.apply([one]);
          } catch (error) {
            recycled = (error as Error).name;
          }
          expect(recycled).toBe(plain);
        }
        await store.close();
        expect(await tree(b)).toEqual(await tree(a));
      }),
      { numRuns: runs(60) },
    );
  });
});

async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else out[path] = await readFile(join(root, path), "utf8");
    }
  };
  await walk("");
  return out;
}
