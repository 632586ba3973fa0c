import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { readFiles } from "../../src/tickets/read-files.js";
import { runs } from "../support/runs.js";

const root = mkdtempSync(join(tmpdir(), "frontier-read-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// ASCII, multi-byte UTF-8, a byte order mark, and bytes that are not UTF-8 at all
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }).map((s) => Buffer.from(s, "ascii")) },
  fc.constantFrom("é", "—", "中文", "😀", "\ufeff", "\r\n").map((s) => Buffer.from(s, "utf8")),
  fc.uint8Array({ minLength: 1, maxLength: 4 }).map((a) => Buffer.from(a)),
  fc.constantFrom(Buffer.from([0xe2, 0x80]), Buffer.from([0xff]), Buffer.from([0xc3])),
);
const content = fc.array(piece, { maxLength: 8 }).map((ps) => Buffer.concat(ps));

let dirs = 0;
describe("readFiles reads each file exactly as readFileSync(file, 'utf8') does", () => {
  test("any bytes, any cap, any chunking and buffer size: the same text, or too large by its size (property)", () => {
    fc.assert(
      fc.property(
        fc.array(content, { maxLength: 6 }),
        fc.integer({ min: 0, max: 120 }),
        fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
        (files, cap, chunk, buffer) => {
          const dir = join(root, String(dirs++));
          mkdirSync(dir);
          const paths = files.map((bytes, i) => {
            const path = join(dir, `${i}.md`);
            writeFileSync(path, bytes);
            return path;
          });
          const read = readFiles(paths, cap, chunk, buffer);
          files.forEach((bytes, i) => {
            expect(read[i]).toEqual(
              bytes.length > cap
                ? { kind: "too-large", bytes: bytes.length }
                : { kind: "ok", text: readFileSync(paths[i]!, "utf8") },
            );
          });
        },
      ),
      { numRuns: runs(300) },
    );
  });

  test("a missing file and a directory are unreadable; the files around them are still read", () => {
    const dir = join(root, "mixed");
    mkdirSync(join(dir, "sub.md"), { recursive: true });
    writeFileSync(join(dir, "a.md"), "---\ntitle: é\n---\n");
    writeFileSync(join(dir, "b.md"), "plain");
    const read = readFiles(
      ["a.md", "missing.md", "sub.md", "b.md"].map((f) => join(dir, f)),
      1000,
    );
    expect(read.map((r) => r.kind)).toEqual(["ok", "unreadable", "unreadable", "ok"]);
    expect(read[0]).toEqual({ kind: "ok", text: "---\ntitle: é\n---\n" });
    expect(read[3]).toEqual({ kind: "ok", text: "plain" });
  });

  test("files larger than the first buffer are read whole", () => {
    const dir = join(root, "large");
    mkdirSync(dir);
    const big = "x".repeat(3 * 1024 * 1024);
    const paths = [0, 1, 2].map((i) => join(dir, `${i}.md`));
    for (const p of paths) writeFileSync(p, `${p}\n${big}é`);
    const read = readFiles(paths, 8 * 1024 * 1024);
    paths.forEach((p, i) => {
      expect(read[i]).toEqual({ kind: "ok", text: `${p}\n${big}é` });
    });
  });
});
