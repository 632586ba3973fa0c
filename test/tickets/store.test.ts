import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { applyEdits, RecordExistsError, replaceAtomically } from "../../src/tickets/store.js";
import { writeResult } from "../support/results.js";

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
