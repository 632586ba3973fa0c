/**
 * dist/ is the action's committed ncc bundle: it must be what `npm run package` makes
 * from src/ now. A fresh build goes to a temporary directory and every bundle file must
 * equal the committed one byte for byte (ncc's output is deterministic).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIST = join(ROOT, "dist");
const run = promisify(execFile);
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

  it("a fresh build of src/action.ts equals the committed dist/ — run `npm run package` and commit dist/ when this fails", async () => {
    const out = mkdtempSync(join(tmpdir(), "frontier-dist-"));
    try {
      await run(
        process.execPath,
        [
          join(ROOT, "node_modules", "@vercel", "ncc", "dist", "ncc", "cli.js"),
          "build",
          "src/action.ts",
          "-o",
          out,
          "--minify",
          "--license",
          "licenses.txt",
          "-q",
        ],
        { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
      );
      expect(bundles(out)).toEqual(bundles(DIST));
      for (const file of bundles(out)) {
        const fresh = readFileSync(join(out, file), "utf8");
        const committed = readFileSync(join(DIST, file), "utf8");
        // lengths first, so a failure prints a short message rather than 1 MB of diff
        expect(fresh.length, file).toBe(committed.length);
        expect(fresh === committed, file).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 600_000);
});
