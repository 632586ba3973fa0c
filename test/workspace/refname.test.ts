/** A local run integrates on `frontier/<run>`: any run name gives a branch git accepts. */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { runBranchName } from "../../src/workspace/refname.js";

const accepted = (name: string): boolean => {
  try {
    execFileSync("git", ["check-ref-format", "--branch", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

describe("the run's branch name", () => {
  it("is frontier/<run> for a plain name, slashes and dots kept", () => {
    expect(runBranchName("coding-graph")).toBe("frontier/coding-graph");
    expect(runBranchName("team/q3.review")).toBe("frontier/team/q3.review");
  });

  it("turns what git refuses into dashes, and is accepted by git for any name", () => {
    const names = [
      "Q3 review: API",
      "a..b",
      "x.lock",
      "x.lock.",
      ".hidden/.also",
      "trailing/",
      "//double//slash",
      "ends.",
      "at@{now}",
      "@",
      "tab\there",
      "star*quest?[x]",
      "back\\slash",
      "tilde~caret^colon:",
      "",
      "...",
      "ünïcödé ✓",
      "-leading-dash",
      "a/.lock/b",
    ];
    for (const name of names) {
      const branch = runBranchName(name);
      expect(accepted(branch), `${JSON.stringify(name)} → ${branch}`).toBe(true);
      expect(branch.startsWith("frontier/")).toBe(true);
    }
    expect(runBranchName("Q3 review: API")).toBe("frontier/Q3-review-API");
    expect(runBranchName("")).toBe("frontier/run");
  });
});
