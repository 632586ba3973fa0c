// Test files share their worker's modules (vitest.config.ts); a file that replaces a module
// with vi.mock must run in a process of its own, or the replacement reaches the files after it.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { MOCKING } from "../../vitest.config.js";

const root = resolve(import.meta.dirname, "../..");

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "stress" ? [] : testFiles(path);
    return e.name.endsWith(".test.ts") ? [relative(root, path)] : [];
  });
}

describe("test files that replace a module", () => {
  it("are exactly the files vitest.config.ts runs each in a process of its own", () => {
    const mocking = testFiles(join(root, "test")).filter((f) =>
      /\bvi\.(mock|doMock)\(/.test(readFileSync(join(root, f), "utf8")),
    );
    expect(mocking.sort()).toEqual([...MOCKING].sort());
  });
});
