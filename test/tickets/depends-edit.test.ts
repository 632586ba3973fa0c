/**
 * `frontier dep add / rm` edit a ticket's depends_on and nothing else: the author's bytes
 * stay — other fields, comments, quoting, the list's own style, the body.
 */
import { describe, expect, it } from "vitest";
import { editDependsOn } from "../../src/tickets/depends-edit.js";

const body = "\n# Plan\n\nThe task, with bytes: ünïcödé\n";

describe("editing depends_on keeps the author's bytes", () => {
  it("a flow list: ids added at the end, removed in place, the others as written", () => {
    const text = `---\ntitle: Plan   # the plan\ndepends_on: ["a", b] # why\npriority: 3\n---${body}`;
    expect(editDependsOn(text, ["a", "b", "c"])).toBe(
      `---\ntitle: Plan   # the plan\ndepends_on: ["a", b, c] # why\npriority: 3\n---${body}`,
    );
    expect(editDependsOn(text, ["b"])).toBe(
      `---\ntitle: Plan   # the plan\ndepends_on: [b] # why\npriority: 3\n---${body}`,
    );
  });

  it("a block list stays a block list, with its indent and each line's comment", () => {
    const text = `---\ndepends_on:\n  - a   # first\n  - b\nbound: 10m\n---${body}`;
    expect(editDependsOn(text, ["a", "b", "c"])).toBe(
      `---\ndepends_on:\n  - a   # first\n  - b\n  - c\nbound: 10m\n---${body}`,
    );
    expect(editDependsOn(text, ["b"])).toBe(`---\ndepends_on:\n  - b\nbound: 10m\n---${body}`);
    expect(editDependsOn(text, [])).toBe(`---\ndepends_on: []\nbound: 10m\n---${body}`);
  });

  it("a single id becomes a list; a missing field is added before the closing ---", () => {
    expect(editDependsOn(`---\ndepends_on: a\n---${body}`, ["a", "b"])).toBe(
      `---\ndepends_on: [a, b]\n---${body}`,
    );
    expect(editDependsOn(`---\ntitle: X\n---${body}`, ["a"])).toBe(
      `---\ntitle: X\ndepends_on: [a]\n---${body}`,
    );
    expect(editDependsOn(`# No front matter\n`, ["a"])).toBe(
      `---\ndepends_on: [a]\n---\n# No front matter\n`,
    );
  });

  it("ids YAML would read as other things are quoted; CRLF files stay CRLF", () => {
    expect(editDependsOn(`---\ndepends_on: []\n---${body}`, ["010", "yes"])).toBe(
      `---\ndepends_on: ["010", "yes"]\n---${body}`,
    );
    const crlf = "---\r\ntitle: X\r\n---\r\n# X\r\n";
    expect(editDependsOn(crlf, ["a"])).toBe("---\r\ntitle: X\r\ndepends_on: [a]\r\n---\r\n# X\r\n");
  });
});
