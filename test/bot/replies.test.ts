import { describe, expect, it } from "vitest";
import { closest } from "../../src/core/near.js";
import {
  cancelled,
  notSuspended,
  REPLY_MARKER,
  refusal,
  replyBody,
  statusReply,
  unknownTicket,
  who,
} from "../../src/github/replies.js";
import { GITHUB_COMMENT_MAX } from "../../src/report/markdown.js";

describe("replies stay within GitHub's comment limit", () => {
  it("a reply of many long sections is cut under 65,536 characters, with a closed code block", () => {
    const sections = Array.from(
      { length: 40 },
      (_, i) => `section ${i}\n\`\`\`\n${"x".repeat(3_000)}`,
    );
    const body = replyBody(sections);
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX);
    expect(body.startsWith(REPLY_MARKER)).toBe(true);
    expect(body).toContain("reply cut to fit");
    expect((body.match(/^```/gm) ?? []).length % 2).toBe(0);
  });

  it("the /status summary is cut within its budget and closes what it opened", () => {
    const summary = `<details>\n\n${"- line\n".repeat(20_000)}</details>`;
    const reply = statusReply(summary, 10_000);
    expect(reply.length).toBeLessThanOrEqual(10_000);
    expect(reply.trimEnd().endsWith("see the report comment or the HTML report.")).toBe(true);
    expect((reply.match(/<details>/g) ?? []).length).toBe(
      (reply.match(/<\/details>/g) ?? []).length,
    );
  });
});

describe("text from outside is shown, never interpreted", () => {
  it("a login that is not a GitHub login cannot mention anyone", () => {
    expect(who("octocat")).toBe("@octocat");
    expect(who("evil @everyone")).not.toMatch(/@everyone/);
  });

  it("an unknown ticket from a comment is echoed in a code span it cannot leave", () => {
    const text = unknownTicket("a`b", ["build"]);
    expect(text).toContain("a\\`b");
  });

  it("the refusal names the repository and who may steer", () => {
    expect(refusal("bob", "acme", "app", "read")).toBe(
      "@bob, only people with write access to acme/app can steer this run (your permission here: read). Nothing was changed. A maintainer can run the command for you.",
    );
  });

  it("says what state the ticket is in and which questions are open", () => {
    expect(
      notSuspended("plan", "complete", [{ ticket: "deploy", issue: 14 }, { ticket: "db" }]),
    ).toBe(
      "`plan` is complete; it has no open question, so there is nothing to answer. Open questions: `deploy` (#14), `db`.",
    );
  });

  it("lists cancelled runs with links, and the ones GitHub would not cancel with why", () => {
    const text = cancelled(
      "maint",
      ["a", "b"],
      [
        { ticket: "a", id: 5, url: "https://github.com/o/r/actions/runs/5", cancelled: true },
        { ticket: "b", id: 6, cancelled: false, message: "it had already finished" },
      ],
    );
    expect(text).toContain("Run cancelled by @maint: 2 open tickets cancelled (`a`, `b`).");
    expect(text).toContain("[run 5](https://github.com/o/r/actions/runs/5) of `a`: cancelled");
    expect(text).toContain("run 6 of `b`: not cancelled (it had already finished)");
  });
});

describe("a mistyped ticket id gets a suggestion", () => {
  it("suggests the nearest id within a typo's distance, swaps included", () => {
    expect(closest("biuld", ["build", "plan", "ship"])).toBe("build");
    expect(closest("shp", ["build", "plan", "ship"])).toBe("ship");
    expect(closest("deploy", ["build", "plan", "ship"])).toBeUndefined();
  });
});
