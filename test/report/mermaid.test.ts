import { describe, expect, it } from "vitest";
import { MERMAID_LIMITS, mermaidFits, renderMermaidGraph } from "../../src/report/mermaid.js";
import { makeReceipt } from "./fixtures.js";

/** What mermaid shows for a label: entity codes back to their characters. */
function shown(label: string): string[] {
  return label
    .split("<br/>")
    .map((l) => l.replace(/#(\d+);/g, (_, n) => String.fromCodePoint(Number(n))));
}

describe("the mermaid flowchart of the run", () => {
  it("is a top-down flowchart with dependencies pointing at their dependents", () => {
    const r = makeReceipt(15);
    const g = renderMermaidGraph(r);
    expect(g.text.split("\n")[0]).toBe("flowchart TD");
    // each node is `  nN["id<br/>…"]`
    const nodeOf = (id: string) => new RegExp(`^ {2}(n\\d+)\\["${id}<br/>`, "m").exec(g.text)?.[1];
    const from = nodeOf("t2");
    const to = nodeOf("t10");
    expect([from, to]).toEqual(["n2", "n10"]);
    expect(g.text).toContain(`  ${from} --> ${to}`);
    expect(g.edges).toBe(r.tickets.reduce((n, t) => n + t.depends_on.length, 0));
  });

  it("names nodes n0, n1, … whatever the ticket ids, even mermaid keywords", () => {
    const r = makeReceipt(15);
    const ids = [
      "end",
      "graph",
      "class",
      "style",
      "flowchart",
      "click",
      "subgraph",
      "x-->y",
      "a.b",
      "_",
    ];
    r.tickets.slice(0, ids.length).forEach((t, i) => {
      t.id = ids[i] ?? t.id;
    });
    const g = renderMermaidGraph(r);
    const nodes = [...g.text.matchAll(/^ {2}(n\d+)\[/gm)].map((m) => m[1]);
    expect(nodes).toEqual(r.tickets.map((_, i) => `n${i}`));
    for (const line of g.text.split("\n").slice(1))
      expect(line).toMatch(/^ {2}(n\d+\[|n\d+ --> n\d+$|classDef |class )/);
  });

  it("shows each label as written: id, title and the state in words", () => {
    const title = 'He said "hi" --> [x] | `y` <b> %% ; # & end';
    const r = makeReceipt(15, { title: () => title });
    const text = renderMermaidGraph(r, { maxTitle: 200 }).text;
    const label = text.match(/n2\["([^"]*)"\]/)?.[1] ?? "";
    expect(shown(label)).toEqual(["t2", title, "✗ failed"]);
  });

  it("has a class per state present, each with its own colours", () => {
    const r = makeReceipt(15);
    const text = renderMermaidGraph(r).text;
    for (const s of Object.keys(r.counts)) {
      expect(text).toMatch(new RegExp(`classDef st_${s} fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}`));
      expect(text).toMatch(new RegExp(`class (n\\d+,)*n\\d+ st_${s}$`, "m"));
    }
  });

  it("fits GitHub only well inside mermaid's limits (maxTextSize 50,000, maxEdges 500)", () => {
    expect(MERMAID_LIMITS.chars).toBeLessThan(MERMAID_LIMITS.maxTextSize);
    expect(MERMAID_LIMITS.edges).toBeLessThan(MERMAID_LIMITS.maxEdges);
    const small = renderMermaidGraph(makeReceipt(100));
    expect(mermaidFits(small)).toBe(true);
    expect(small.text.length).toBeLessThan(MERMAID_LIMITS.chars);
    expect(mermaidFits(renderMermaidGraph(makeReceipt(MERMAID_LIMITS.nodes + 1)))).toBe(false);
  });
});
