import { describe, expect, it } from "vitest";
import { STATUSES } from "../../src/core/model.js";
import { GITHUB_COMMENT_MAX, renderMarkdown } from "../../src/report/markdown.js";
import { codingReceipt, makeReceipt } from "./fixtures.js";

const MARKER = "ticket-frontier:example";
const HTML = "https://github.com/o/r/actions/runs/99/artifacts/1";

function section(md: string, heading: string): string {
  const start = md.indexOf(heading);
  if (start < 0) return "";
  const next = md.slice(start + heading.length).search(/\n(####|<details><summary><b>|<sub>)/);
  return next < 0 ? md.slice(start) : md.slice(start, start + heading.length + next);
}

/** The markdown table rows (lines starting with `|`, minus header and separator). */
function rows(text: string): string[] {
  return text.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| ticket |"));
}

describe("the report comment for a run with every state present", () => {
  const receipt = makeReceipt(15, { links: { html_report: HTML } });
  const md = renderMarkdown(receipt, { marker: MARKER });

  it("has every state in the fixture", () => {
    for (const s of STATUSES) expect(receipt.counts[s], s).toBeGreaterThan(0);
  });

  it("starts with the hidden marker, exactly once", () => {
    expect(md.startsWith(`<!-- ${MARKER} -->\n`)).toBe(true);
    expect(md.split(MARKER).length - 1).toBe(1);
  });

  it("names the run's state in the header", () => {
    const header = md.split("\n")[1] ?? "";
    expect(header).toContain("example");
    expect(header).toContain("running");
  });

  it("gives every count with its icon and its word", () => {
    const counts = md.split("\n").find((l) => l.includes("tickets complete**")) ?? "";
    expect(counts).toContain("**3 of 15 tickets complete**");
    for (const [icon, word] of [
      ["✓", "complete"],
      ["◌", "empty"],
      ["●", "claimed"],
      ["○", "ready"],
      ["○", "pending"],
      ["‖", "suspended"],
      ["✗", "failed"],
      ["◷", "limited"],
      ["⊘", "blocked"],
      ["–", "cancelled"],
    ] as const) {
      expect(counts).toMatch(new RegExp(`${icon} \\d+ ${word}`));
    }
  });

  it("never shows empty as done: it is counted apart and says it returned nothing", () => {
    expect(md).toContain("◌ 1 empty (ran, returned nothing)");
    expect(md).not.toMatch(/✓ \d+ empty/);
    const row = rows(md).find((r) => r.startsWith("| `t1` |")) ?? "";
    expect(row).toContain("◌ empty (returned nothing)");
    expect(row).not.toContain("✓");
  });

  it("groups blocked tickets by root cause, with the count", () => {
    const s = section(md, "#### ⊘ Blocked");
    expect(s).toContain("2 tickets by 1 root cause");
    expect(s).toMatch(/✗ `t2` \*\*failed\*\* — timeout: blocks \*\*2\*\* tickets \(`t10`, `t12`\)/);
  });

  it("names each blocked ticket's blocker inline in its row", () => {
    const tickets = rows(section(md, "<details><summary><b>Tickets"));
    const direct = tickets.find((r) => r.startsWith("| `t10` |")) ?? "";
    expect(direct).toContain("⊘ blocked by `t2` (dep-failed)");
    const knockOn = tickets.find((r) => r.startsWith("| `t12` |")) ?? "";
    expect(knockOn).toContain("⊘ blocked by `t10` (dep-blocked, root `t2`)");
  });

  it("lists open questions with exactly how to answer them", () => {
    const s = section(md, "#### ‖ Open question");
    expect(s).toContain("Which license should t5 use?");
    expect(s).toContain("`/answer YOUR ANSWER`");
    expect(s).toContain("`/answer t5 YOUR ANSWER`");
    expect(s).toContain("frontier:question");
  });

  it("lists the open remainder with what holds each ticket", () => {
    const s = section(md, "#### Open remainder");
    const r = rows(s);
    expect(r).toHaveLength(receipt.remainder.length);
    expect(r.find((x) => x.startsWith("| `t11` |"))).toContain("t5 not complete");
    expect(r.find((x) => x.startsWith("| `t5` |"))).toContain("question: Which license");
    // complete and empty tickets are not part of the remainder
    expect(r.some((x) => x.startsWith("| `t0` |") || x.startsWith("| `t1` |"))).toBe(false);
  });

  it("draws the graph as mermaid with a class per state", () => {
    expect(md).toContain("```mermaid\nflowchart TD");
    for (const s of STATUSES) expect(md).toContain(`classDef st_${s} `);
  });

  it("has a row per ticket with state, attempts, duration, executor and the GitHub run", () => {
    const tickets = rows(section(md, "<details><summary><b>Tickets"));
    expect(tickets).toHaveLength(15);
    const failed = tickets.find((r) => r.startsWith("| `t2` |")) ?? "";
    const cells = failed.split(" | ");
    expect(cells[2]).toBe("✗ failed: timeout");
    expect(cells[3]).toBe("2");
    expect(cells[4]).toBe("7s"); // 2.0 s + 4.5 s
    expect(cells[5]).toBe("default");
    expect(cells[6]).toMatch(
      /^\[attempt 2\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/\d+\) \|$/,
    );
    const t0 = tickets.find((r) => r.startsWith("| `t0` |")) ?? "";
    expect(t0.split(" | ")[5]).toBe("agent.yml");
    const ready = tickets.find((r) => r.startsWith("| `t7` |")) ?? "";
    expect(ready).toContain("| ○ ready | 0 | — | default | — |");
  });

  it("links the HTML report", () => {
    expect(md).toContain(`[full HTML report](${HTML})`);
  });

  it("links ticket files when given the repository's blob URL", () => {
    const linked = renderMarkdown(receipt, {
      marker: MARKER,
      repoBlobUrl: "https://github.com/o/r/blob/abc/tickets",
    });
    expect(linked).toContain("[`t2`](https://github.com/o/r/blob/abc/tickets/t2.md)");
  });
});

describe("the comment stays under GitHub's 65,536 characters however large the graph", () => {
  for (const n of [2_000, 20_000]) {
    it(`${n.toLocaleString("en-US")} tickets: under the limit and still useful`, () => {
      const receipt = makeReceipt(n, { links: { html_report: HTML } });
      const md = renderMarkdown(receipt, { marker: MARKER });
      expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX);
      // header, counts, blockers summary and questions are all there
      expect(md.startsWith(`<!-- ${MARKER} -->`)).toBe(true);
      expect(md).toContain(`of ${n.toLocaleString("en-US")} tickets complete**`);
      expect(md).toMatch(/⊘ \d[\d,]* blocked/);
      expect(md).toContain("#### ⊘ Blocked:");
      for (const g of receipt.blockers.slice(0, 3)) {
        expect(md).toContain(`\`${g.root}\` **${g.root_status}**`);
      }
      expect(md).toContain("`/answer t5 YOUR ANSWER`");
      // too big for mermaid: the waves as text instead, folded
      expect(md).not.toContain("```mermaid");
      expect(md).toContain("<details><summary><b>Waves");
      // cut tables say how much is left out and where to find it
      expect(md).toMatch(/… and [\d,]+ more tickets — see the \[HTML report\]\(/);
      // every <details> is closed and every fence is balanced
      expect(md.split("<details>").length).toBe(md.split("</details>").length);
      expect((md.match(/^```/gm) ?? []).length % 2).toBe(0);
    });
  }

  it("stays under the limit with long titles, 500 open questions and 500 root causes", () => {
    const receipt = makeReceipt(2_000, {
      title: (i) => `${"A very long title with | pipes and <tags> ".repeat(8)} ${i}`,
      links: { html_report: HTML },
    });
    receipt.questions = receipt.tickets.slice(0, 500).map((t) => ({
      ticket: t.id,
      attempt: 1,
      question: "Which of these should we pick?\n".repeat(40),
    }));
    receipt.blockers = receipt.tickets.slice(500, 1_000).map((t, i) => ({
      root: t.id,
      root_status: "failed" as const,
      reason: "x".repeat(500),
      tickets: receipt.tickets.slice(1_000 + i, 1_030 + i).map((b) => b.id),
    }));
    const md = renderMarkdown(receipt, { marker: MARKER });
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX);
    expect(md).toMatch(/- … and [\d,]+ more questions — see the \[HTML report\]/);
    expect(md).toMatch(/- … and [\d,]+ more root causes — see the \[HTML report\]/);
    expect(md).toContain("`/answer t0 YOUR ANSWER`");
    expect(md).toContain("tickets complete**");
    expect(md.split("<details>").length).toBe(md.split("</details>").length);
  });

  it("keeps to a smaller maxChars too, with the marker and header first", () => {
    const receipt = makeReceipt(2_000);
    for (const max of [20_000, 5_000, 1_500]) {
      const md = renderMarkdown(receipt, { marker: MARKER, maxChars: max });
      expect(md.length).toBeLessThanOrEqual(max);
      expect(md.startsWith(`<!-- ${MARKER} -->`)).toBe(true);
      expect(md).toContain("tickets complete**");
    }
  });

  it("puts what needs attention first when the ticket table is cut", () => {
    const md = renderMarkdown(makeReceipt(2_000), { marker: MARKER });
    const tickets = rows(section(md, "<details><summary><b>Tickets"));
    expect(tickets[0]).toContain("✗ failed");
    expect(md).toContain("Sorted by what needs attention first.");
  });

  it("draws mermaid up to its limit and folds a graph of more than 40 tickets", () => {
    const md = renderMarkdown(makeReceipt(120), { marker: MARKER });
    expect(md).toContain("<details><summary><b>Graph (120 tickets");
    expect(md).toContain("```mermaid");
  });
});

describe("a local run's report speaks of local things", () => {
  const receipt = { ...makeReceipt(15), where: "local" as const };
  for (const t of receipt.tickets) for (const a of t.attempts) delete a.run_url;
  const md = renderMarkdown(receipt, { marker: MARKER });

  it("says how to answer with `frontier answer DIR TICKET`, never /answer", () => {
    const s = section(md, "#### ‖ Open question");
    expect(s).toContain('`frontier answer DIR TICKET "YOUR ANSWER"`, then `frontier run DIR`');
    expect(s).toContain('To answer: `frontier answer DIR t5 "YOUR ANSWER"`');
    expect(md).not.toContain("/answer");
  });

  it("names the local files and commands, not workflow artifacts or bot commands", () => {
    const footer = md.slice(md.indexOf("<sub>"));
    expect(footer).toContain("`.frontier/report.html`");
    expect(footer).toContain("`frontier retry DIR TICKET`");
    expect(md).not.toMatch(/workflow artifact|\/retry|\/cancel|GitHub/);
  });

  it("has no empty run column", () => {
    const header = md.split("\n").find((l) => l.startsWith("| ticket | title |")) ?? "";
    expect(header).toBe("| ticket | title | state | attempts | duration | executor |");
  });
});

describe("the comment's state symbols are ones every common font draws", () => {
  it("uses no ⏸ or ⧗ (empty boxes with a stock Debian's fonts)", () => {
    const md = renderMarkdown(makeReceipt(40), { marker: MARKER });
    expect(md).not.toMatch(/[⏸⧗]/u);
    expect(md).toContain("‖ 1 suspended");
    expect(md).toContain("◷ 1 limited");
  });
});

describe("a run's changes are in the comment without a click", () => {
  it("on GitHub: the branch, each commit linked with its paths, and its pull request", () => {
    const local = codingReceipt();
    const receipt = {
      ...local,
      where: "github" as const,
      links: { repository: "https://github.com/o/r" },
      branch: { ...local.branch!, merge: "https://github.com/o/r/pull/new/frontier/greet-shout" },
    };
    const md = renderMarkdown(receipt, { marker: MARKER });
    const changes = section(md, "#### Changes (2)");
    expect(changes).toContain(
      "2 commits on `frontier/greet-shout` · merge it through [its pull request](https://github.com/o/r/pull/new/frontier/greet-shout)",
    );
    expect(changes).toContain(
      `- \`shout\` attempt 1: [1 path +3 −0](https://github.com/o/r/commit/${"b2".repeat(20)}) — \`src/shout.ts\``,
    );
    expect(md.slice(0, md.indexOf(changes))).not.toContain("<details>");
  });

  it("an agent's path cannot break out of its code span or ping anyone", () => {
    const receipt = codingReceipt();
    const a = receipt.tickets[0]!.attempts[0]!;
    a.changes!.paths[0]!.path = "src/`x` @team <b>.ts";
    const md = renderMarkdown(receipt, { marker: MARKER });
    expect(md).toContain("src/\\`x\\` @\u200bteam &lt;b&gt;.ts");
  });
});
