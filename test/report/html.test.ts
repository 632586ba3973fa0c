import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Receipt } from "../../src/core/model.js";
import { ReportWriteError, writeReports } from "../../src/local/report-files.js";
import { renderHtml } from "../../src/report/html.js";
import { DAGRE_MAX_NODES, HTML_GRAPH_MAX_NODES } from "../../src/report/html-graph.js";
import { exampleReceipt } from "./example.js";
import { makeReceipt } from "./fixtures.js";

/** The <details> of one ticket. */
function ticketBlock(html: string, id: string): string {
  const chunks = html.split('<details class="ticket ');
  return chunks.find((c) => c.includes(`data-id="${id}"`)) ?? "";
}

describe("the HTML report is one self-contained file that makes no network request", () => {
  const html = renderHtml(makeReceipt(15));

  it("loads nothing: no src, no stylesheet link, no url() or @import", () => {
    expect(html).not.toMatch(/\ssrc=/i);
    expect(html).not.toMatch(/<link(?![^>]*rel="icon" href="data:,")/i);
    expect(html).not.toMatch(/url\((?!#arrow)/);
    expect(html).not.toContain("@import");
  });

  it("forbids every request by CSP and allows only its own script, by hash", () => {
    const csp = (
      html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/)?.[1] ?? ""
    ).replaceAll("&#39;", "'");
    expect(csp).toContain("default-src 'none'");
    const script = html.match(/<script>([\s\S]*)<\/script>/)?.[1] ?? "";
    const hash = createHash("sha256").update(script).digest("base64");
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
  });

  it("reads in dark mode and in print", () => {
    expect(html).toContain("@media (prefers-color-scheme: dark)");
    expect(html).toContain("@media print");
  });
});

describe("the HTML report shows the whole record", () => {
  const receipt = makeReceipt(15);
  const html = renderHtml(receipt);

  it("draws every ticket in the graph with its state as a word, not only a colour", () => {
    expect(html.match(/<a href="#ticket-\d+" class="node st-/g)).toHaveLength(15);
    // the state's icon is SVG (no font can lack it), its word is text
    expect(html).toMatch(/<use href="#i-failed"[^>]*\/><text [^>]*class="nstate">failed<\/text>/);
    expect(html).toMatch(/<use href="#i-empty"[^>]*\/><text [^>]*class="nstate">empty<\/text>/);
    expect(html).toContain('<symbol id="i-suspended" viewBox="0 0 16 16">');
    // the edge along which a failure blocked its dependent is marked
    expect(html).toMatch(/class="edge blocking[ "]/);
  });

  it("has a filter with a box per state present", () => {
    const boxes = [
      ...html.matchAll(/<input type="checkbox" value="([a-z]+)" data-filter checked>/g),
    ].map((m) => m[1]);
    expect(boxes.sort()).toEqual(Object.keys(receipt.counts).sort());
  });

  it("gives each ticket its attempts with outcome, reason, duration and who ran them", () => {
    const t2 = ticketBlock(html, "t2");
    expect(t2).toContain('<use href="#i-failed"/></svg>failed');
    expect(t2).toContain("exit 1: boom");
    expect(t2).toContain("<td>2s</td>");
    expect(t2).toContain('<td>local<div class="sub">settled by orch-task</div></td>');
  });

  it("puts results in collapsible blocks, the latest open, rendered as markdown", () => {
    expect(ticketBlock(html, "t8")).toContain(
      '<details class="result" open><summary>Result of attempt 1</summary><div class="md"><p>Result of t8.',
    );
  });

  it("shows questions and their answers, and how to answer an open one", () => {
    const t0 = ticketBlock(html, "t0");
    expect(t0).toContain("Tabs or spaces?");
    expect(t0).toContain("Answer 1 by maintainer");
    expect(t0).toContain("Spaces.");
    const t5 = ticketBlock(html, "t5");
    expect(t5).toContain("Open question:");
    expect(t5).toContain("/answer t5 YOUR ANSWER");
    expect(t5).not.toContain("frontier answer");
  });

  it("walks the blocker chain down to the root", () => {
    const chain = ticketBlock(html, "t12").match(/<div class="chain">([\s\S]*?)<\/div>/)?.[1] ?? "";
    const order = [...chain.matchAll(/<code>(t\d+)<\/code>/g)].map((m) => m[1]);
    expect(order).toEqual(["t10", "t2"]);
    expect(chain).toMatch(/t2<\/code><\/a> <span class="badge st-failed"[\s\S]*root cause/);
    expect(chain).toContain("dep-blocked");
    expect(chain).toContain("dep-failed");
  });

  it("never shows empty as done", () => {
    expect(html).toContain("empty (ran, returned nothing)");
    expect(ticketBlock(html, "t1")).not.toContain("i-complete");
  });

  it("keeps times as UTC instants the page shows in the reader's time zone", () => {
    expect(html).toContain(
      '<dt>started</dt><dd><time datetime="2026-11-30T03:00:00.000Z" title="2026-11-30T03:00:00.000Z">2026-11-30 03:00:00 UTC</time>',
    );
    expect(ticketBlock(html, "t2")).toMatch(/<td><time datetime="[^"]+"/);
  });

  it("outlines the critical path in the graph and names it on its tickets", () => {
    const path = receipt.critical_path;
    expect(path.length).toBeGreaterThan(1);
    expect(html.match(/class="node st-[a-z]+ crit"/g)).toHaveLength(path.length);
    expect(html.match(/class="edge[a-z ]* crit"/g)).toHaveLength(path.length - 1);
    expect(ticketBlock(html, path[0] ?? "")).toContain(`step 1 of ${path.length}`);
  });
});

describe("the task and the results are markdown, shown safely", () => {
  const receipt = makeReceipt(15);
  const t = receipt.tickets[8];
  if (!t) throw new Error("fixture");
  t.task = `# ${t.title}\n\nDo **this**, then:\n\n1. parse\n2. check\n\n<script>alert(1)</script>\n`;
  const attempt = t.attempts[0];
  if (!attempt) throw new Error("fixture");
  attempt.result = [
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "[ok](https://example.com/x) [bad](javascript:alert(1)) ![pic](https://example.com/p.png)",
    "",
    '<img src=x onerror="alert(2)"> <b>bold?</b>',
  ].join("\n");
  const block = ticketBlock(renderHtml(receipt), "t8");

  it("shows the task without repeating its title, its markdown rendered", () => {
    const task = block.match(/<section class="task">([\s\S]*?)<\/section>/)?.[1] ?? "";
    expect(task).toContain("<p>Do <strong>this</strong>, then:</p>");
    expect(task).toContain("<ol>\n<li>parse</li>");
    expect(task).not.toContain("<h1>");
    expect(task).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("renders a result's table and links, never its HTML, scripts or unsafe links", () => {
    expect(block).toContain("<table>");
    expect(block).toContain('<a href="https://example.com/x" rel="noopener noreferrer">ok</a>');
    expect(block).toContain("[bad](javascript:alert(1))");
    expect(block).toContain(
      '<a href="https://example.com/p.png" rel="noopener noreferrer">image: pic</a>',
    );
    expect(block).not.toMatch(/<img|<b>|<script|href="javascript/i);
    expect(block).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });
});

describe("a local run's report speaks of local things", () => {
  const receipt = { ...makeReceipt(15), where: "local" as const };
  for (const t of receipt.tickets) for (const a of t.attempts) delete a.run_url;
  const html = renderHtml(receipt);

  it("says how to answer with `frontier answer DIR TICKET`, not /answer", () => {
    expect(ticketBlock(html, "t5")).toContain(
      '<code>frontier answer DIR t5 "YOUR ANSWER"</code>, then <code>frontier run DIR</code>',
    );
    expect(html).not.toContain("/answer");
  });

  it("has no GitHub run column when no attempt ran on GitHub", () => {
    expect(html).not.toContain("GitHub run");
  });
});

describe("large runs", () => {
  it(`shows the waves instead of drawing more than ${HTML_GRAPH_MAX_NODES} tickets`, () => {
    const n = HTML_GRAPH_MAX_NODES + 1;
    const receipt = makeReceipt(n);
    const html = renderHtml(receipt);
    expect(html).not.toContain('aria-label="Dependency graph');
    expect(html).toContain('<ol class="waves">');
    expect(html.match(/<details class="ticket /g)).toHaveLength(n);
    expect(html.match(/class="chip st-/g)).toHaveLength(n);
  });

  it(`lays out up to ${DAGRE_MAX_NODES} tickets with dagre, more in layers by wave, fitted to the page`, () => {
    expect(renderHtml(exampleReceipt())).toMatch(/<svg [^>]*class="dagre fit"/);
    // a wave too wide for dagre's drawing to fit the page goes to layers too
    expect(renderHtml(makeReceipt(40))).toMatch(/<svg [^>]*class="layers fit"/);
    const receipt = makeReceipt(1_000);
    const big = renderHtml(receipt);
    expect(big).toMatch(/<svg [^>]*class="layers fit"/);
    expect(big.match(/<a href="#ticket-\d+" class="node st-/g)).toHaveLength(1_000);
    expect(big.match(/<text class="band"/g)).toHaveLength(receipt.waves.length);
    // every dependency is drawn from its ticket's band to a later band
    const edges = receipt.tickets.reduce((n, t) => n + new Set(t.depends_on).size, 0);
    expect(big.match(/<path class="edge/g)).toHaveLength(edges);
    // a ticket sits in the column of what it depends on: t10 (blocked by t2) under t2
    const x = (i: number) =>
      big.match(
        new RegExp(
          `<a href="#ticket-${i}" class="node[^"]*"[^>]*>\\s*<title>[^<]*</title>\\s*(?:<rect class="halo"[^>]*/>)?<rect x="([\\d.]+)"`,
        ),
      )?.[1];
    expect(x(10)).toBeDefined();
    expect(x(10)).toBe(x(2));
  });
});

describe("writeReports writes the requested files and nothing else", () => {
  it("writes html, json and markdown; the json parses back to the same receipt", () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-report-"));
    const receipt = makeReceipt(15);
    const files = {
      html: join(dir, "out/a.html"),
      json: join(dir, "a.json"),
      markdown: join(dir, "a.md"),
    };
    writeReports(receipt, files);
    expect(readFileSync(files.html, "utf8")).toBe(renderHtml(receipt));
    expect(Receipt.parse(JSON.parse(readFileSync(files.json, "utf8")))).toEqual(
      Receipt.parse(receipt),
    );
    expect(
      readFileSync(files.markdown, "utf8").startsWith("<!-- ticket-frontier:example -->"),
    ).toBe(true);
    writeReports(receipt, {});
    expect(readdirSync(dir).sort()).toEqual(["a.json", "a.md", "out"]);
  });

  it("says which file it could not write, and how to fix it, without a stack trace", () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-report-"));
    writeFileSync(join(dir, "file"), "not a directory");
    const target = join(dir, "file", "a.json");
    expect(() => writeReports(makeReceipt(3), { json: target })).toThrow(ReportWriteError);
    expect(() => writeReports(makeReceipt(3), { json: target })).toThrow(
      new RegExp(
        `^cannot write the JSON receipt to ${target.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: .*Choose a path`,
      ),
    );
  });
});

describe("a long blocker chain", () => {
  it("shows its first steps, how many it skipped and the root, so the file stays small", () => {
    const n = 3_000;
    const receipt = makeReceipt(1);
    receipt.tickets = Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      title: `Step ${i}`,
      file: `c${i}.md`,
      status: i === 0 ? ("failed" as const) : ("blocked" as const),
      depends_on: i === 0 ? [] : [`c${i - 1}`],
      inputs: i === 0 ? [] : [`c${i - 1}`],
      write_scope: [],
      priority: 0,
      attempt: i === 0 ? 1 : 0,
      reason: i === 0 ? "exit 2" : undefined,
      blocked_by:
        i === 0
          ? undefined
          : {
              ticket: `c${i - 1}`,
              kind: i === 1 ? ("dep-failed" as const) : ("dep-blocked" as const),
              root: "c0",
            },
      attempts: [],
      answers: [],
    }));
    receipt.counts = { failed: 1, blocked: n - 1 };
    receipt.waves = receipt.tickets.map((t) => [t.id]);
    receipt.blockers = [
      {
        root: "c0",
        root_status: "failed",
        reason: "exit 2",
        tickets: receipt.tickets.slice(1).map((t) => t.id),
      },
    ];
    receipt.remainder = [];
    receipt.questions = [];
    const html = renderHtml(receipt);
    expect(html.length).toBeLessThan(n * 4_000);
    const last = ticketBlock(html, `c${n - 1}`);
    const chain = last.match(/<div class="chain">([\s\S]*?)<\/div>/)?.[1] ?? "";
    const ids = [...chain.matchAll(/<code>(c\d+)<\/code>/g)].map((m) => m[1]);
    expect(ids).toEqual(["c2998", "c2997", "c2996", "c2995", "c0"]);
    expect(chain).toContain("… 2,994 more blocked tickets …");
    expect(chain).toMatch(
      /c0<\/code><\/a> <span class="badge st-failed"[^>]*>[\s\S]*?failed<\/span> <strong class="root">root cause<\/strong> — <span class="reason">exit 2/,
    );
    // a short chain ends at its root without a gap
    const near = ticketBlock(html, "c3");
    expect(near).not.toContain("more blocked");
    expect(
      [
        ...(near.match(/<div class="chain">([\s\S]*?)<\/div>/)?.[1] ?? "").matchAll(
          /<code>(c\d+)<\/code>/g,
        ),
      ].map((m) => m[1]),
    ).toEqual(["c2", "c1", "c0"]);
  });
});
