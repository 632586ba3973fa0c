import { describe, expect, test } from "vitest";
import { quickCommand } from "../../src/cli/argv.js";

describe("validate and status are read without commander only in their plain forms", () => {
  test("the plain forms", () => {
    expect(quickCommand(["validate"])).toEqual({
      command: "validate",
      dir: "tickets",
      json: false,
    });
    expect(quickCommand(["validate", "t"])).toEqual({ command: "validate", dir: "t", json: false });
    expect(quickCommand(["status", "--json", "t"])).toEqual({
      command: "status",
      dir: "t",
      json: true,
    });
    expect(quickCommand(["status", "t", "--json"])).toEqual({
      command: "status",
      dir: "t",
      json: true,
    });
  });

  test("anything else is commander's to read (and to explain)", () => {
    for (const argv of [
      [],
      ["plan", "t"],
      ["run", "t"],
      ["validate", "--help"],
      ["validate", "-h"],
      ["validate", "t", "u"],
      ["validate", "--json", "--json"],
      ["validate", "--jsn"],
      ["validate", "--json=1"],
      ["validate", "--", "t"],
      ["validate", "-"],
      ["validate", ""],
      ["status", "t", "--mermaid"],
      ["--version"],
    ]) {
      expect(quickCommand(argv), JSON.stringify(argv)).toBeUndefined();
    }
  });
});
