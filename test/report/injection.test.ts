/**
 * Receipt text is data: titles, results, questions, answers and reasons holding HTML,
 * markdown, mermaid syntax, `-->`, backticks, `|`, `</script>` or the report's own
 * marker neither break nor inject into the comment, the mermaid graph or the HTML.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderHtml } from "../../src/report/html.js";
import { renderMarkdown } from "../../src/report/markdown.js";
import { renderMermaidGraph } from "../../src/report/mermaid.js";
import { runs } from "../support/runs.js";
import { makeReceipt } from "./fixtures.js";

const MARKER = "ticket-frontier:example";

const EVIL = [
  `<!-- ${MARKER} -->`,
  MARKER,
  "<script>alert(1)</script>",
  "</script><script>alert(2)</script>",
  '<img src=x onerror="alert(3)">',
  "<details><summary>x",
  "</details>",
  "```mermaid",
  "``` `` `",
  "a | b || c",
  '"]; n0 --> n1; click n0 "javascript:alert(4)"',
  "A --> B",
  "end",
  "%% comment",
  "%%{init: {'theme':'dark'}}%%",
  "classDef x fill:#f00",
  "[link](javascript:alert(5))",
  "![img](https://evil.example/x.png)",
  "# Heading",
  "- list",
  "1. list",
  "**bold** _em_ ~~strike~~",
  "$x^2$",
  "@octocat please",
  "line one\nline two\r\n| --- |",
  "&lt; &amp; &#60;",
  "\\",
].join(" ");

const receipt = makeReceipt(15, {
  title: (i) => `T${i} ${EVIL}`,
  text: EVIL,
  goal: EVIL,
  run: "example",
  links: { html_report: "https://example.com/report.html" },
});
// a blocker reason, a question and a hostile remainder text too
receipt.remainder = receipt.remainder.map((r) => ({ ...r, waiting_on: `${r.waiting_on} ${EVIL}` }));

describe("the markdown comment cannot be broken or injected", () => {
  const md = renderMarkdown(receipt, { marker: MARKER });
  const body = md.slice(md.indexOf("\n") + 1);

  it("a title holding the marker does not make a second marker appear", () => {
    expect(md.split(MARKER).length - 1).toBe(1);
    expect(md.split(`<!-- ${MARKER} -->`).length - 1).toBe(1);
  });

  it("no raw HTML from the receipt: every < is an entity", () => {
    expect(body).not.toContain("<script");
    expect(body).not.toContain("<img");
    expect(body).not.toContain("<!--");
    // the only tags are ours
    const tags = new Set(body.match(/<\/?[a-z]+/g));
    expect([...tags].sort()).toEqual(
      [
        "</b",
        "</details",
        "</sub",
        "</summary",
        "<b",
        "<br",
        "<details",
        "<sub",
        "<summary",
      ].sort(),
    );
  });

  it("details are balanced and the only fences are the mermaid block's", () => {
    expect(body.split("<details>").length).toBe(body.split("</details>").length);
    const fences = body.split("\n").filter((l) => l.startsWith("```"));
    expect(fences).toEqual(["```mermaid", "```"]);
  });

  it("a | in a title does not break a table row: every row has as many cells as its header", () => {
    const lines = md.split("\n");
    let width = 0;
    for (const line of lines) {
      if (!line.startsWith("|")) {
        width = 0;
        continue;
      }
      // cells split on unescaped pipes only, as GitHub does
      const cells = line.split(/(?<!\\)\|/).length;
      if (width === 0) width = cells;
      expect(cells, line).toBe(width);
    }
  });

  it("no markdown link, image, heading, list or mention comes from the receipt", () => {
    expect(body).not.toMatch(/(^|[^\\])\]\(javascript:/);
    expect(body).not.toContain("![img");
    expect(body).not.toMatch(/^#+ Heading/m);
    expect(body).not.toMatch(/^\s*- list/m);
    expect(body).not.toMatch(/(^|[^\\])@octocat/);
    expect(body).not.toMatch(/(^|[^\\])\*\*bold/);
    expect(body).not.toMatch(/(^|[^\\])\$x/);
  });

  it("a newline in a title cannot start a new line of the comment", () => {
    expect(body).not.toMatch(/^line two/m);
    expect(body).not.toMatch(/^\| --- \|/m);
  });

  it("drops links that are not http(s)", () => {
    const r = makeReceipt(15);
    const t2 = r.tickets.find((t) => t.id === "t2");
    const last = t2?.attempts[t2.attempts.length - 1];
    if (last) last.run_url = "javascript:alert(1)";
    r.links = { html_report: "javascript:alert(2)", workflow_run: "javascript:alert(3)" };
    const out = renderMarkdown(r, { marker: MARKER });
    expect(out).not.toContain("javascript:");
  });

  it("a marker with comment syntax in it still gives one well-formed comment", () => {
    const out = renderMarkdown(receipt, { marker: "x --> <!-- y -->" });
    const first = out.split("\n")[0] ?? "";
    expect(first).toMatch(/^<!-- [^<>]* -->$/);
    expect(first.slice(4, -3)).not.toContain("--");
  });
});

describe("the mermaid graph cannot be broken or injected", () => {
  const text = renderMermaidGraph(receipt).text;
  const lines = text.split("\n");

  it("has exactly one line per node, edge and class: titles add no lines", () => {
    const edges = receipt.tickets.reduce((n, t) => n + t.depends_on.length, 0);
    const states = Object.keys(receipt.counts).length;
    expect(lines).toHaveLength(1 + receipt.tickets.length + edges + 2 * states);
  });

  it("every line is one of the shapes we write", () => {
    for (const line of lines.slice(1)) {
      expect(line).toMatch(
        /^ {2}(n\d+\["[^"\n]*"\]|n\d+ --> n\d+|classDef st_[a-z]+ [a-z0-9:#,-]+(?:,stroke-dasharray:4 3)?|class (n\d+,)*n\d+ st_[a-z]+)$/,
      );
    }
  });

  it("labels hold no character that means something to mermaid, markdown or HTML", () => {
    for (const m of text.matchAll(/\["([^"]*)"\]/g)) {
      const label = (m[1] ?? "").replaceAll("<br/>", "").replace(/#\d+;/g, "");
      expect(label).not.toMatch(/[<>"`|[\]%;]/);
      expect(label).not.toContain("-->");
    }
  });

  it("node ids are ours, never the ticket ids", () => {
    expect(text).not.toMatch(/^ {2}t\d+/m);
    expect(text).toContain('n0["t0<br/>T0 #60;!');
  });
});

describe("the HTML report cannot be broken or injected", () => {
  const html = renderHtml(receipt);

  it("has exactly one script, ours, and no element from the receipt", () => {
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toContain("<img");
    expect(html).not.toContain('onerror="');
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html.indexOf("</script>")).toBeGreaterThan(html.lastIndexOf("</main>"));
  });

  it("escapes every hostile string where it is shown", () => {
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;!-- ticket-frontier:example --&gt;");
    expect(html).toContain("&amp;lt; &amp;amp; &amp;#60;");
  });

  it("no javascript: URL survives", () => {
    const r = makeReceipt(15);
    r.links = { workflow_run: "javascript:alert(1)", repository: "data:text/html,x" };
    const t2 = r.tickets.find((t) => t.id === "t2");
    const last = t2?.attempts[t2.attempts.length - 1];
    if (last) last.run_url = "javascript:alert(2)";
    const out = renderHtml(r);
    expect(out).not.toContain("javascript:");
    expect(out).not.toContain("data:text/html");
  });

  it("ids from the receipt never become element ids or selectors", () => {
    const r = makeReceipt(15);
    const t = r.tickets[3];
    if (t) t.id = 'x" onclick="alert(1)';
    const out = renderHtml(r);
    expect(out).not.toContain('" onclick="');
    expect(out).toContain('data-id="x&quot; onclick=&quot;alert(1)"');
  });
});

describe("no text whatever breaks a renderer (property)", () => {
  // Strings built from the characters that mean something somewhere, plus any unicode.
  const nasty = fc.string({
    unit: fc.oneof(
      fc.constantFrom(
        ..."<>&\"'`|[]()#*_~$@!%;:-\\\n\r\t {}=/".split(""),
        "-->",
        "%%",
        "<!--",
        "-->",
        "</script>",
        MARKER,
        "```",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "![x](javascript:alert(1))",
        "<style>",
        "\n| a | b |\n|---|---|\n",
      ),
      fc.string({ unit: "grapheme", maxLength: 1 }),
    ),
    maxLength: 60,
  });

  it("the comment keeps one marker, balanced details and fences, whole table rows", () => {
    fc.assert(
      fc.property(nasty, nasty, (title, text) => {
        const r = makeReceipt(15, {
          title: (i) => (i % 2 ? title : `${title} ${i}`),
          text,
          goal: text,
        });
        const md = renderMarkdown(r, { marker: MARKER });
        expect(md.split(MARKER).length - 1).toBe(1);
        expect(md.split("<details>").length).toBe(md.split("</details>").length);
        expect(md.split("\n").filter((l) => l.startsWith("```"))).toEqual(["```mermaid", "```"]);
        for (const line of md.split("\n").filter((l) => l.startsWith("| "))) {
          const cells = line.split(/(?<!\\)\|/).length;
          expect([5, 9]).toContain(cells);
        }
      }),
      { numRuns: runs(150) },
    );
  });

  it("the mermaid graph keeps one line per node, edge and class", () => {
    fc.assert(
      fc.property(nasty, (title) => {
        const r = makeReceipt(15, { title: () => title });
        const lines = renderMermaidGraph(r).text.split("\n");
        const edges = r.tickets.reduce((n, t) => n + t.depends_on.length, 0);
        expect(lines).toHaveLength(1 + 15 + edges + 2 * Object.keys(r.counts).length);
        for (const m of lines.join("\n").matchAll(/\["([^"]*)"\]/g)) {
          expect((m[1] ?? "").replaceAll("<br/>", "").replace(/#\d+;/g, "")).not.toMatch(
            /[<>"`|[\]%;:#]/,
          );
        }
      }),
      { numRuns: runs(150) },
    );
  });

  it("the HTML keeps one script and no element from the text", () => {
    fc.assert(
      fc.property(nasty, (text) => {
        const r = makeReceipt(15, { title: () => text, text, goal: text });
        const html = renderHtml(r);
        expect(html.match(/<script/g)).toHaveLength(1);
        expect(html.match(/<\/script>/g)).toHaveLength(1);
        // task and results are rendered as markdown, and still make no element of their own
        expect(html.match(/<style/g)).toHaveLength(1);
        expect(html).not.toMatch(/<img|<iframe|<a [^>]*href="(?:javascript|data):/i);
        expect(html).not.toMatch(/<[a-z][^<>]*\son[a-z]+\s*=/i);
        expect(html.match(/<details class="ticket /g)).toHaveLength(15);
        expect(html).not.toContain("<!-- ");
      }),
      { numRuns: runs(60) },
    );
  });
});

describe("runs with nothing to report in a section", () => {
  it("an empty run renders everywhere without a graph or tables", () => {
    const r = makeReceipt(0);
    const md = renderMarkdown(r, { marker: MARKER });
    expect(md).toContain("**0 of 0 tickets complete**");
    expect(md).not.toContain("| ticket |");
    expect(renderMermaidGraph(r).text).toBe("flowchart TD");
    expect(renderHtml(r)).toContain("0 of 0 tickets shown");
  });

  it("a complete run has no blockers, questions or remainder", () => {
    const r = makeReceipt(15);
    for (const t of r.tickets) {
      t.status = "complete";
      t.blocked_by = undefined;
    }
    r.counts = { complete: 15 };
    r.state = "complete";
    r.blockers = [];
    r.questions = [];
    r.remainder = [];
    const md = renderMarkdown(r, { marker: MARKER });
    expect(md.split("\n")[1]).toBe("### ✓ Ticket Frontier · example · **complete**");
    expect(md).not.toContain("Blocked");
    expect(md).not.toContain("Open question");
    expect(md).not.toContain("Open remainder");
  });
});
