/**
 * `frontier validate --for github` warns of a write_scope that reaches
 * `.github/workflows/`: GitHub refuses a change to a workflow file made with the job's
 * GITHUB_TOKEN, so such an attempt fails unless the action is given another token.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateCommand } from "../../src/cli/validate.js";
import type { CliIo } from "../../src/terminal/io.js";

function captured(): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const stream = (add: (s: string) => void) =>
    ({
      write: (s: string) => {
        add(String(s));
        return true;
      },
    }) as unknown as NodeJS.WritableStream;
  return {
    io: {
      stdout: stream((s) => {
        out += s;
      }),
      stderr: stream((s) => {
        err += s;
      }),
      isTTY: false,
      env: {},
    },
    out: () => out,
    err: () => err,
  };
}

function directory(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "frontier-wf-")), "tickets");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("a write_scope that reaches .github/workflows/", () => {
  const dir = directory({
    "frontier.yml": "run: t\n",
    "ci.md": '---\nwrite_scope: [".github/**"]\n---\nFix CI.\n',
    "all.md": '---\nwrite_scope: ["**"]\n---\nAnything.\n',
    "yaml.md": '---\nwrite_scope: [".github/workflows/*.yml"]\n---\nOne kind.\n',
    "src.md": "---\nwrite_scope: [src/**, .github/ISSUE_TEMPLATE/**]\n---\nCode.\n",
  });

  it("validate --for github warns, naming the ticket, the line and the token that lets it land; it still passes", async () => {
    const c = captured();
    expect(await validateCommand(dir, { json: false, for: "github" }, c.io)).toBe(0);
    const text = c.err();
    for (const file of ["ci.md", "all.md", "yaml.md"]) {
      expect(text).toMatch(
        new RegExp(
          `${file.replace(".", "\\.")}:2: warning: write_scope reaches \\.github/workflows/`,
        ),
      );
    }
    expect(text).not.toContain("src.md");
    expect(text).toMatch(/workflows permission in the action's token input/);
  });

  it("validate for both runners says it is for a run on GitHub; --for local leaves it out", async () => {
    const both = captured();
    expect(await validateCommand(dir, { json: false }, both.io)).toBe(0);
    expect(both.err()).toMatch(/ci\.md:2: warning: for a run on GitHub: write_scope reaches/);
    const local = captured();
    expect(await validateCommand(dir, { json: false, for: "local" }, local.io)).toBe(0);
    expect(local.err()).toBe("");
  });
});
