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
  engines: { node: string };
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

  it("installs the command under two names: frontier, and the package's own, so `npx ticket-frontier` runs it", () => {
    expect(pkg.bin).toEqual({
      frontier: "build/src/cli.js",
      "ticket-frontier": "build/src/cli.js",
    });
    // npm links the file itself onto PATH: it must say what runs it
    expect(readFileSync(join(ROOT, pkg.bin.frontier!), "utf8")).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
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
      "examples/coding-init/frontier.yml",
      "examples/coding-init/gitignore",
      "examples/coding-init/_bin/stand-in-agent.mjs",
      "examples/starter/frontier.yml",
      "examples/starter/_bin/starter-executor.mjs",
      "build/src/cli.js",
    ]) {
      expect(shipped(path), path).toBe(true);
      expect(existsSync(join(ROOT, path)), path).toBe(true);
    }
  });
});

/** `^20.19.0 || >=22.12.0`, `>=0.6.11 <=0.7.0 || >=0.7.3`: does npm's range admit this version? */
function admits(range: string, version: string): boolean {
  const v = version.split(".").map(Number);
  const cmp = (w: string) => {
    const o = w.split(".").map(Number);
    for (let i = 0; i < 3; i++) if ((v[i] ?? 0) !== (o[i] ?? 0)) return (v[i] ?? 0) - (o[i] ?? 0);
    return 0;
  };
  const holds = (op: string, w: string) => {
    const c = cmp(w);
    if (op === "^") return c >= 0 && v[0] === Number(w.split(".")[0]);
    return { ">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "": c === 0, "=": c === 0 }[op];
  };
  return range
    .split("||")
    .some((set) =>
      [...set.matchAll(/(\^|>=|<=|>|<|=)?\s*v?(\d+(?:\.\d+){0,2})/g)].every((m) =>
        holds(m[1] ?? "", m[2]!),
      ),
    );
}

describe("`npm ci` installs on the Node the package says it needs", () => {
  it("every package in the lock admits the oldest Node of engines (no EBADENGINE warning)", () => {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
    };
    const oldest = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
    expect(oldest, pkg.engines.node).toBeDefined();
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node !== undefined)
      .filter(([, p]) => !admits((p.engines as { node: string }).node, `${oldest}.0`))
      .map(([name, p]) => `${name} ${JSON.stringify(p.engines)}`);
    expect(refusing).toEqual([]);
  });

  it("a tarball `npm pack` leaves in the clone is ignored", () => {
    expect(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n")).toContain("*.tgz");
  });
});
