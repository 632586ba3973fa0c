/**
 * dist/ is the action's committed ncc bundle: it must be what `npm run package` makes
 * from src/ now. A fresh build goes to a temporary directory and every bundle file must
 * equal the committed one byte for byte (ncc's output is deterministic). A full build takes
 * half a minute, so it runs with the stress runs (`npm run test:stress`, which CI runs).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST = join(ROOT, "dist");
const run = promisify(execFile);
const bundles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".js"))
    .sort();

describe("dist/ is the ncc bundle of src/ now", () => {
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
