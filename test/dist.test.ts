/**
 * dist/ is the action's committed ncc bundle: it must be what `npm run package` makes
 * from src/ now. A fresh build goes to a temporary directory and its index.js must equal
 * the committed one byte for byte (ncc's output is deterministic).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

describe("dist/ is the ncc bundle of src/", () => {
  it("holds the bundle, its licenses and package.json {type: module}", () => {
    expect(readdirSync(join(ROOT, "dist")).sort()).toEqual([
      "index.js",
      "licenses.txt",
      "package.json",
    ]);
    expect(JSON.parse(readFileSync(join(ROOT, "dist", "package.json"), "utf8"))).toEqual({
      type: "module",
    });
  });

  it("reads nothing from inside dist/ (ncc's asset relocator did not rewrite a path the action reads)", () => {
    const bundle = readFileSync(join(ROOT, "dist", "index.js"), "utf8");
    expect(bundle.match(/__nccwpck_require__\.ab\s*\+\s*["'`]/g) ?? []).toEqual([]);
  });

  it("a fresh build of src/action.ts equals the committed dist/index.js — run `npm run package` and commit dist/ when this fails", async () => {
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
      const fresh = readFileSync(join(out, "index.js"), "utf8");
      const committed = readFileSync(join(ROOT, "dist", "index.js"), "utf8");
      // compare lengths first so a failure prints a short message, not 1 MB of diff
      expect(fresh.length).toBe(committed.length);
      expect(fresh === committed).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 600_000);
});
