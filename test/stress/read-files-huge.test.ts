/**
 * A ticket file too long for one JavaScript string: the reader must say so and go on. It
 * reads half a gigabyte of a sparse file, so it runs with the stress suite.
 */
import { constants } from "node:buffer";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { readFiles } from "../../src/tickets/read-files.js";

const root = mkdtempSync(join(tmpdir(), "frontier-read-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("readFiles on a file longer than a string can hold", () => {
  test("a file too long for one string (cap raised past it) is unreadable, not a crash; the files around it are still read", () => {
    const dir = root;
    const paths = ["a.md", "huge.md", "b.md"].map((f) => join(dir, f));
    writeFileSync(paths[0]!, "---\ntitle: a\n---\n");
    // sparse: no disk, but one more byte of text than a string can hold
    writeFileSync(paths[1]!, "");
    truncateSync(paths[1]!, constants.MAX_STRING_LENGTH + 1);
    writeFileSync(paths[2]!, "é");
    const read = readFiles(paths, constants.MAX_STRING_LENGTH * 2);
    rmSync(paths[1]!);
    expect(read[0]).toEqual({ kind: "ok", text: "---\ntitle: a\n---\n" });
    expect(read[1]).toMatchObject({ kind: "unreadable" });
    expect((read[1] as { message: string }).message).toMatch(/string longer than/);
    expect(read[2]).toEqual({ kind: "ok", text: "é" });
  }, 60_000);
});
