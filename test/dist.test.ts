/**
 * dist/ is the action's committed ncc bundle. That it is what `npm run package` makes from
 * src/ now is test/stress/dist.test.ts (a full build, half a minute: CI runs it with the
 * stress runs); here, what the bundle must hold.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const FIXED = ["index.js", "licenses.txt", "package.json"];
const bundles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".js"))
    .sort();

describe("dist/ is the ncc bundle of src/", () => {
  it("holds the bundle (and the chunks ncc splits off), its licenses and package.json {type: module}", () => {
    const files = readdirSync(DIST);
    expect(files).toEqual(expect.arrayContaining(FIXED));
    expect(files.filter((f) => !FIXED.includes(f) && !/^\d+\.index\.js$/.test(f))).toEqual([]);
    expect(JSON.parse(readFileSync(join(DIST, "package.json"), "utf8"))).toEqual({
      type: "module",
    });
  });

  it("reads nothing from inside dist/ (ncc's asset relocator did not rewrite a path the action reads)", () => {
    for (const file of bundles(DIST)) {
      const text = readFileSync(join(DIST, file), "utf8");
      expect(text.match(/__nccwpck_require__\.ab\s*\+\s*["'`]/g) ?? [], file).toEqual([]);
    }
  });
});
