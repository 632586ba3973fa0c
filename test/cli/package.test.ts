/**
 * What an install of the package holds: a licence matching package.json, entry points that
 * exist, and every file `frontier init --github` copies from the package.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./harness.js";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  license: string;
  main?: string;
  bin: Record<string, string>;
  exports?: Record<string, string>;
  files: string[];
};

describe("the package says what it is and points at files that exist", () => {
  it("LICENSE is the licence package.json names", () => {
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
  });

  it("main, exports and bin name files that exist after the build", () => {
    const targets = [
      ...(pkg.main ? [pkg.main] : []),
      ...Object.values(pkg.exports ?? {}),
      ...Object.values(pkg.bin),
    ];
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(existsSync(join(ROOT, target)), target).toBe(true);
  });

  it("is a command, not a library: importing it by name says so instead of missing a file", async () => {
    // with exports and no "." entry, Node answers ERR_PACKAGE_PATH_NOT_EXPORTED, not a missing index.js
    expect(pkg.main).toBeUndefined();
    expect(Object.keys(pkg.exports ?? {})).not.toContain(".");
  });

  it("ships what `frontier init --github` copies: action.yml, dist/, the example workflows and the agents' steps", () => {
    const shipped = (path: string) => pkg.files.some((f) => path === f || path.startsWith(`${f}/`));
    for (const path of [
      "action.yml",
      "dist/index.js",
      "examples/workflows/frontier.yml",
      "examples/workflows/orch-task.yml",
      "examples/agents/stand-in.yml",
      "examples/agents/codex.yml",
      "examples/agents/claude-code.yml",
      "build/src/cli.js",
    ]) {
      expect(shipped(path), path).toBe(true);
      expect(existsSync(join(ROOT, path)), path).toBe(true);
    }
  });
});
