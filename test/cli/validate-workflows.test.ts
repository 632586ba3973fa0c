import { describe, expect, it } from "vitest";
import { validateCommand } from "../../src/cli/validate.js";
import { captured, directory } from "../support/in-process.js";

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
