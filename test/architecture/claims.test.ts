// The "only X does Y" sentences of docs/ARCHITECTURE.md, held: each names the files that
// may do a thing, and a file of src/ that does it anyway fails the test with its name.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./size.js";

const root = resolve(import.meta.dirname, "../..");
const text = new Map(sourceFiles().map((f) => [f, readFileSync(join(root, f), "utf8")]));

/** The files of src/ whose code (comments aside) matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  const code = (t: string) => t.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...text].filter(([, t]) => pattern.test(code(t))).map(([f]) => f);
}

describe("what docs/ARCHITECTURE.md says only one place does", () => {
  it("workspace/git.ts is the one place that runs git", () => {
    expect(filesMatching(/(?:spawn|execFile|exec)(?:Sync)?\(\s*["'`]git["'`]/)).toEqual([
      "src/workspace/git.ts",
    ]);
    for (const f of filesMatching(/from "node:child_process"/)) {
      expect(["src/workspace/git.ts", "src/local/launch.ts", "src/local/launcher.ts"]).toContain(f);
    }
  });

  it("git runs untrusted unless asked, and only asking who commits is trusted (workspace/changes.ts)", () => {
    expect(filesMatching(/\btrusted: true\b/)).toEqual(["src/workspace/changes.ts"]);
    const uses = text.get("src/workspace/changes.ts")!.match(/\btrusted: true\b/g);
    expect(uses).toHaveLength(1);
  });

  it("a run becomes an engine in core/event.ts only, opened by local/open.ts and github/decide.ts", () => {
    expect(filesMatching(/Frontier\.create\(/)).toEqual(["src/core/event.ts"]);
    expect(filesMatching(/\bopenRun\(/).sort()).toEqual([
      "src/core/event.ts",
      "src/github/decide.ts",
      "src/local/open.ts",
    ]);
  });

  it("the outcome interpreter is called by the two runners' attempt readers only", () => {
    expect(filesMatching(/\binterpretOutcome\(/).sort()).toEqual([
      "src/core/settle.ts",
      "src/github/events.ts",
      "src/local/attempt.ts",
    ]);
  });

  it("a bound's text is judged by one check (core/bound.ts boundProblem)", () => {
    expect(filesMatching(/\bboundProblem\(/).sort()).toEqual([
      "src/core/bound.ts",
      "src/tickets/problems.ts",
    ]);
  });

  it("an attempt's changes are collected by one function for both runners (workspace/changes.ts attemptChanges), and settled by one", () => {
    expect(filesMatching(/\b(?:collectChanges|patchOf|notCollectedReason)\(/).sort()).toEqual([
      "src/github/changes.ts", // notCollectedReason alone: a job's changes its git failed to read
      "src/workspace/changes.ts",
    ]);
    expect(filesMatching(/\b(?:collectChanges|patchOf)\(/)).toEqual(["src/workspace/changes.ts"]);
    expect(filesMatching(/\battemptChanges\(/).sort()).toEqual([
      "src/github/changes.ts",
      "src/local/integrate.ts",
      "src/local/worktree.ts",
      "src/workspace/changes.ts",
    ]);
    expect(filesMatching(/\bsettleChanges\(/).sort()).toEqual([
      "src/github/events.ts",
      "src/local/integrate.ts",
      "src/tickets/outcome-file.ts",
    ]);
  });

  it("a FIFO in a git directory is looked for by one function (workspace/git.ts endlessIn), which collecting changes and the local guard call", () => {
    // read-optional.ts names the kind of a file that should be a setting or a record
    expect(filesMatching(/\.isFIFO\(\)/).sort()).toEqual([
      "src/tickets/read-optional.ts",
      "src/workspace/git.ts",
    ]);
    expect(filesMatching(/\bendlessIn\(/).sort()).toEqual([
      "src/local/guard.ts",
      "src/workspace/changes.ts",
      "src/workspace/git.ts",
    ]);
  });

  it("isDirectory is written once", () => {
    expect(filesMatching(/function isDirectory\(/)).toEqual(["src/tickets/read-optional.ts"]);
  });
});
