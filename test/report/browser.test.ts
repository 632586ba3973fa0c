/**
 * The HTML report in a real headless Chromium (Debian's /usr/bin/chromium, installed by
 * .ci/run with apt-get; never a downloaded browser): every ticket is there, nothing
 * is fetched, nothing logs an error, and the state filter works.
 *
 * Set FRONTIER_UPDATE_DOCS=1 to also refresh docs/report-comment-example.md for the
 * README; the README's screenshot is made by `npm run docs:screenshot`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Receipt } from "../../src/core/model.js";
import { renderHtml } from "../../src/report/html.js";
import { renderMarkdown } from "../../src/report/markdown.js";
import { MERMAID_LIMITS, renderMermaidGraph } from "../../src/report/mermaid.js";
import { exampleReceipt } from "./example.js";
import { codingReceipt, makeReceipt } from "./fixtures.js";

/**
 * The browser: FRONTIER_BROWSER (any Chrome or Chromium), else the usual places. On a
 * machine with none the test is skipped, saying how to get one — except in CI, where it
 * must run.
 */
const CHROMIUM = [
  process.env.FRONTIER_BROWSER,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
].find((p): p is string => p !== undefined && p !== "" && existsSync(p));
const NO_BROWSER =
  "no Chromium at /usr/bin/chromium (or FRONTIER_BROWSER): install Debian's chromium (apt-get install -y --no-install-recommends chromium), or set FRONTIER_BROWSER to a Chrome or Chromium";
const MERMAID_JS = new URL("../../node_modules/mermaid/dist/mermaid.min.js", import.meta.url)
  .pathname;
const OUT = new URL("../../test-output/", import.meta.url);
const DOCS = new URL("../../docs/", import.meta.url);

let browser: Browser;
let server: Server;
let base = "";
const pages = new Map<string, string>();

beforeAll(async () => {
  if (CHROMIUM === undefined) {
    if (process.env.CI) throw new Error(NO_BROWSER);
    console.warn(`the browser test is skipped: ${NO_BROWSER}`);
    return;
  }
  mkdirSync(OUT, { recursive: true });
  // A tiny server on 127.0.0.1: the page is fetched over HTTP, so any other request it
  // made (a script, a font, a favicon) would be seen.
  server = createServer((req, res) => {
    if (req.url === "/mermaid.min.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(MERMAID_JS));
      return;
    }
    const body = pages.get(req.url ?? "");
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
});

beforeEach((context) => {
  if (CHROMIUM === undefined) context.skip();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

interface Opened {
  page: Page;
  requests: string[];
  errors: string[];
}

async function open(
  path: string,
  html: string,
  colorScheme: "light" | "dark" = "light",
  timezoneId = "UTC",
): Promise<Opened> {
  pages.set(path, html);
  const page = await browser.newPage({
    viewport: { width: 1280, height: 900 },
    colorScheme,
    timezoneId,
  });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  await page.goto(`${base}${path}`, { waitUntil: "load" });
  return { page, requests, errors };
}

async function visibleTickets(page: Page): Promise<number> {
  return page.locator("details.ticket:visible").count();
}

/**
 * Every character on the page (closed tickets and SVG text included) that the page's
 * fonts cannot draw: drawn in its element's font, it comes out pixel for pixel as the
 * "missing glyph" box of an unassigned code point — the empty box a reader would see.
 */
async function missingGlyphs(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const seen = new Map();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest("script,style")) continue;
      const font = getComputedStyle(el).fontFamily;
      for (const c of n.data) {
        if (c.codePointAt(0) < 128 || /[\\s\\p{Cf}]/u.test(c)) continue;
        seen.set(c + "|" + font, [c, font]);
      }
    }
    const canvas = document.createElement("canvas");
    canvas.width = 64;
    canvas.height = 64;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    const draw = (c, font) => {
      ctx.clearRect(0, 0, 64, 64);
      ctx.font = "40px " + font;
      ctx.fillText(c, 8, 48);
      return Array.from(ctx.getImageData(0, 0, 64, 64).data).join(",");
    };
    const missing = new Set();
    for (const [c, font] of seen.values()) {
      const boxes = [draw("\\u0378", font), draw("\\u{E0FFF}", font), draw("", font)];
      if (boxes.includes(draw(c, font))) missing.add(c);
    }
    return [...missing];
  })()`)) as string[];
}

/** The example's tickets run by the CLI on a fresh copy, as `npm start` does: its receipt. */
function runExample(): Receipt {
  const cli = new URL("../../build/src/cli.js", import.meta.url).pathname;
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  const dir = join(mkdtempSync(join(tmpdir(), "frontier-example-")), "tickets");
  cpSync(new URL("../../tickets-example", import.meta.url).pathname, dir, {
    recursive: true,
    filter: (src) => !src.includes("/.frontier"),
  });
  const run = spawnSync(process.execPath, [cli, "run", dir], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`the example run failed (${run.status}): ${run.stderr}`);
  return JSON.parse(readFileSync(join(dir, ".frontier", "receipt.json"), "utf8")) as Receipt;
}

describe("the HTML report of a 200-ticket run in headless Chromium", () => {
  const receipt = makeReceipt(200);

  it("shows every ticket, makes no request but the page and logs no error; the filter hides and shows by state", async () => {
    const { page, requests, errors } = await open("/report-200.html", renderHtml(receipt));

    // every ticket is there, by id
    const ids = await page
      .locator("details.ticket")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
    expect(ids).toEqual(receipt.tickets.map((t) => t.id));
    expect(await page.locator("svg .node").count()).toBe(200);
    expect(await visibleTickets(page)).toBe(200);
    await expect.poll(() => page.locator("#shown").textContent()).toBe("200 of 200 tickets shown");

    // the state filter: hide blocked tickets
    const blocked = receipt.counts.blocked ?? 0;
    const failed = receipt.counts.failed ?? 0;
    expect(blocked).toBeGreaterThan(0);
    await page.locator('input[data-filter][value="blocked"]').uncheck();
    expect(await visibleTickets(page)).toBe(200 - blocked);
    expect(await page.locator('details.ticket[data-status="blocked"]:visible').count()).toBe(0);
    expect(await page.locator("svg .node.dim").count()).toBe(blocked);
    expect(await page.locator("#shown").textContent()).toBe(
      `${200 - blocked} of 200 tickets shown`,
    );

    // only failed: none, then failed
    await page.locator("#filter-none").click();
    expect(await visibleTickets(page)).toBe(0);
    await page.locator('input[data-filter][value="failed"]').check();
    expect(await visibleTickets(page)).toBe(failed);
    expect(await page.locator("svg .node:not(.dim)").count()).toBe(failed);

    // all again
    await page.locator("#filter-all").click();
    expect(await visibleTickets(page)).toBe(200);

    // find by id or title, together with the state filter
    const term = "t1";
    const matching = receipt.tickets.filter((t) =>
      `${t.id} ${t.title}`.toLowerCase().includes(term),
    );
    await page.locator("#filter-text").fill(term);
    expect(await visibleTickets(page)).toBe(matching.length);
    expect(await page.locator("svg .node:not(.dim)").count()).toBe(matching.length);
    await page.locator('input[data-filter][value="blocked"]').uncheck();
    expect(await visibleTickets(page)).toBe(matching.filter((t) => t.status !== "blocked").length);
    await page.locator("#filter-text").fill("");
    await page.locator("#filter-all").click();
    expect(await visibleTickets(page)).toBe(200);

    // a node in the graph opens its ticket
    const t10 = page.locator('details.ticket[data-id="t10"]');
    expect(await t10.getAttribute("open")).toBeNull();
    await page.locator('svg a.node[href="#ticket-10"]').click();
    await expect.poll(() => t10.getAttribute("open")).not.toBeNull();
    // its blocker chain walks down to the root
    expect(await t10.locator(".chain").textContent()).toContain("t2");

    // the graph opens fitted to the page; it can be shown at full size and fitted again
    const svg = page.locator("#graph svg");
    const fitted = (await svg.boundingBox())?.width ?? 0;
    expect(fitted).toBeLessThanOrEqual(1280);
    await page.locator("#graph-fit").click();
    const natural = (await svg.boundingBox())?.width ?? 0;
    expect(natural).toBeGreaterThan(fitted);
    await page.locator("#graph-fit").click();
    expect((await svg.boundingBox())?.width ?? 0).toBe(fitted);

    await page.screenshot({ path: new URL("report-200.png", OUT).pathname, fullPage: false });
    expect(requests).toEqual([`${base}/report-200.html`]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("reads in dark mode, and prints without the filter and with every ticket expanded", async () => {
    const { page, errors } = await open("/report-200-dark.html", renderHtml(receipt), "dark");
    const bg = await page.evaluate("getComputedStyle(document.body).backgroundColor");
    expect(bg).not.toBe("rgb(255, 255, 255)");
    await page.screenshot({ path: new URL("report-200-dark.png", OUT).pathname });
    await page.emulateMedia({ media: "print" });
    expect(await page.locator(".filter").isVisible()).toBe(false);
    await page.evaluate('window.dispatchEvent(new Event("beforeprint"))');
    expect(await page.locator("details.ticket:not([open])").count()).toBe(0);
    const pdf = await page.pdf({ format: "A4" });
    expect(pdf.byteLength).toBeGreaterThan(1_000);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("the HTML report of a two-ticket coding run, as a newcomer's first run makes it", () => {
  it("draws the graph at its natural size, not blown up to the page's width", async () => {
    const receipt = codingReceipt();
    const { page, errors } = await open("/report-2.html", renderHtml(receipt, { dir: "tickets" }));
    const svg = page.locator("#graph svg");
    const natural = Number(await svg.getAttribute("width"));
    expect(natural).toBeGreaterThan(0);
    expect((await svg.boundingBox())?.width ?? 0).toBeLessThanOrEqual(natural);
    // a ticket's box is as wide as it is drawn (224 px and its outline), its id at text size
    const box = await page.locator("svg .node rect").first().boundingBox();
    expect(box?.width ?? 0).toBeLessThanOrEqual(240);
    const idSize = await page
      .locator("svg .node .nid")
      .first()
      .evaluate((el) => el.getBoundingClientRect().height);
    expect(idSize).toBeLessThan(20);
    await page.screenshot({ path: new URL("report-2.png", OUT).pathname });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the run's branch, its commits, their paths and how to merge it without a click", async () => {
    const { page } = await open("/report-2-changes.html", renderHtml(codingReceipt()));
    for (const text of [
      "frontier/greet-shout",
      "git merge frontier/greet-shout",
      "src/greet.ts",
      "src/shout.ts",
      "a1a1a1a1a1a1",
      "b2b2b2b2b2b2",
    ])
      expect(await page.getByText(text).first().isVisible(), text).toBe(true);
    await page.close();
  });
});

/**
 * The comment's flowchart through the real mermaid (the renderer GitHub uses), with
 * its default limits and strict security, in the browser: it parses, draws every
 * ticket and edge, and hostile titles come out as text.
 */
describe("the comment's mermaid graph renders with mermaid itself", () => {
  interface Rendered {
    ok: boolean;
    error?: string;
    nodes: number;
    edges: number;
    labels: string[];
    elements: string[];
  }

  async function renderWithMermaid(text: string): Promise<Rendered> {
    const { page, errors } = await open(
      "/mermaid.html",
      '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script src="/mermaid.min.js"></script><div id="out"></div>',
    );
    const result = (await page.evaluate(`(async () => {
      mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
      try {
        await mermaid.parse(${JSON.stringify(text)});
        const { svg } = await mermaid.render("g", ${JSON.stringify(text)});
        const out = document.getElementById("out");
        out.innerHTML = svg;
        const root = out.querySelector("svg");
        return {
          ok: true,
          nodes: root.querySelectorAll("g.node").length,
          edges: root.querySelectorAll("path.flowchart-link").length,
          labels: [...root.querySelectorAll("g.node .nodeLabel")].map((n) => n.textContent),
          elements: [...new Set([...root.querySelectorAll("*")].map((n) => n.tagName.toLowerCase()))],
        };
      } catch (e) {
        return { ok: false, error: String(e && e.message || e), nodes: 0, edges: 0, labels: [], elements: [] };
      }
    })()`)) as Rendered;
    expect(errors.filter((e) => !e.startsWith("warning"))).toEqual([]);
    await page.close();
    return result;
  }

  it("draws every ticket and dependency of a run with every state", async () => {
    const receipt = makeReceipt(15);
    const graph = renderMermaidGraph(receipt);
    const r = await renderWithMermaid(graph.text);
    expect(r.error).toBeUndefined();
    expect(r.nodes).toBe(15);
    expect(r.edges).toBe(graph.edges);
    expect(r.labels.find((l) => l.startsWith("t2"))).toContain("✗ failed");
  });

  it(`draws a graph at our limit (${MERMAID_LIMITS.nodes} tickets) within mermaid's default limits`, async () => {
    const receipt = makeReceipt(MERMAID_LIMITS.nodes);
    const graph = renderMermaidGraph(receipt);
    expect(graph.edges).toBeLessThanOrEqual(MERMAID_LIMITS.edges);
    const r = await renderWithMermaid(graph.text);
    expect(r.error).toBeUndefined();
    expect(r.nodes).toBe(MERMAID_LIMITS.nodes);
    expect(r.edges).toBe(graph.edges);
  });

  it("shows hostile titles as text: no node, edge or element comes from a title", async () => {
    const hostile = [
      'x"] --> n1["pwned',
      "end",
      "%% comment",
      "%%{init: {'theme':'dark'}}%%",
      "<img src=x onerror=alert(1)>",
      "</script><script>alert(2)</script>",
      "a | b --> c ]] ) ) `code` ; classDef st_failed fill:#000",
      "click n0 call alert(3)",
      "style: #fff;",
      "line\nbreak",
    ].join(" ");
    const receipt = makeReceipt(15, { title: (i) => `T${i} ${hostile}` });
    const graph = renderMermaidGraph(receipt, { maxTitle: 400 });
    const r = await renderWithMermaid(graph.text);
    expect(r.error).toBeUndefined();
    expect(r.nodes).toBe(15);
    expect(r.edges).toBe(graph.edges);
    expect(r.elements).not.toContain("img");
    expect(r.elements).not.toContain("script");
    const t3 = r.labels.find((l) => l.startsWith("t3")) ?? "";
    expect(t3).toContain('x"] --> n1["pwned');
    expect(t3).toContain("<img src=x onerror=alert(1)>");
    expect(t3).toContain("style: #fff;");
    expect(t3.endsWith("◷ limited")).toBe(true);
  });
});

describe("the HTML report of the example run, as `npm start` makes it", () => {
  let receipt: Receipt;
  let local: Receipt;
  let opened: Opened;
  beforeAll(async () => {
    if (CHROMIUM === undefined) return; // skipped, as the first describe says
    receipt = runExample();
    // the local runner says where it ran; a receipt from before that field reads as local here
    local = { ...receipt, where: receipt.where ?? "local" };
    const html = renderHtml(local);
    writeFileSync(new URL("report-example-run.html", OUT), html);
    opened = await open("/example-run.html", html, "light", "Asia/Tokyo");
  }, 60_000);
  afterAll(async () => {
    await opened?.page.close();
  });

  it("shows each ticket's task text", async () => {
    const { page } = opened;
    const task = page.locator('details.ticket[data-id="research-incidents"] .task');
    expect((await task.textContent())?.replace(/\s+/g, " ")).toContain(
      "an empty result is an answer here, and the plan must not invent incidents",
    );
    // the task's own markdown is rendered: its code span is code
    expect(await task.locator("code").first().textContent()).toBe("payments");
  });

  it("renders results as markdown: the inventory's table is a table, the idempotency list a list", async () => {
    const { page } = opened;
    const inventory = page.locator('details.ticket[data-id="inventory-retry-paths"] .result');
    expect(await inventory.locator("table th").first().textContent()).toBe("path");
    expect(await inventory.locator("table tbody tr").count()).toBe(5);
    const idem = page.locator('details.ticket[data-id="research-idempotency"] .result');
    expect(await idem.locator("li").count()).toBeGreaterThanOrEqual(4);
    expect(await idem.locator("strong").first().textContent()).toBe("different");
    expect(await idem.textContent()).not.toContain("**");
  });

  it("draws every state symbol with the fonts a stock Debian has: no empty boxes", async () => {
    expect(await missingGlyphs(opened.page)).toEqual([]);
  });

  it("shows times in the reader's local time", async () => {
    const { page } = opened;
    const started = page.locator("header time").first();
    const iso = (await started.getAttribute("datetime")) ?? "";
    const tokyo = new Date(Date.parse(iso) + 9 * 3_600_000);
    const hh = String(tokyo.getUTCHours()).padStart(2, "0");
    const mm = String(tokyo.getUTCMinutes()).padStart(2, "0");
    expect(await started.textContent()).toContain(`${hh}:${mm}`);
  });

  it('"expand all" opens every ticket and every result', async () => {
    const { page } = opened;
    await page.locator("#expand-all").click();
    expect(await page.locator("#tickets details:not([open])").count()).toBe(0);
    expect(await page.locator("#tickets details.result[open]").count()).toBe(
      receipt.tickets.filter((t) => t.attempts.some((a) => a.result)).length,
    );
    await page.locator("#collapse-all").click();
    expect(await page.locator("details.ticket[open]").count()).toBe(0);
  });

  it("speaks of local things: no GitHub run column, no workflow artifacts", async () => {
    const text = (await opened.page.locator("main").textContent()) ?? "";
    expect(text).not.toMatch(/GitHub run|workflow artifact|\/answer/);
    const md = renderMarkdown(local, { marker: "ticket-frontier:payments-retry-review" });
    expect(md).not.toMatch(/workflow artifact|\/answer|\/retry|\| run \|/);
    expect(md).toContain("`.frontier/report.html`");
    expect(opened.requests).toEqual([`${base}/example-run.html`]);
    expect(opened.errors).toEqual([]);
  });
});

describe("state symbols with the fonts a stock Debian has", () => {
  it("no state of a run with every state present falls back to an empty box", async () => {
    const { page, errors } = await open("/every-state.html", renderHtml(makeReceipt(40)));
    expect(await missingGlyphs(page)).toEqual([]);
    // and the check itself sees a missing glyph when there is one
    await page.evaluate('document.body.append("\\u23F8")');
    expect((await missingGlyphs(page)).length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("the README's example comment", () => {
  it("renders a GitHub run with every state present, and its comment", async () => {
    const receipt = exampleReceipt();
    const html = renderHtml(receipt);
    writeFileSync(new URL("report-example.html", OUT), html);
    const { page, requests, errors } = await open("/example.html", html);
    expect(await visibleTickets(page)).toBe(receipt.tickets.length);
    const shot = new URL("report-example.png", OUT).pathname;
    await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: 900 } });
    const html_report = "https://github.com/acme/payments/actions/runs/4209999/artifacts/8812";
    const md = renderMarkdown(
      { ...receipt, links: { ...receipt.links, html_report } },
      {
        marker: "ticket-frontier:payments-retry-review",
        repoBlobUrl: "https://github.com/acme/payments/blob/9f2c4e1a7b3d/tickets",
      },
    );
    writeFileSync(new URL("report-comment-example.md", OUT), md);
    if (process.env.FRONTIER_UPDATE_DOCS === "1")
      writeFileSync(new URL("report-comment-example.md", DOCS), md);
    // GitHub draws the comment with the reader's fonts: in its font stack on a stock
    // Debian, every symbol of the comment (counts, states, mermaid labels) has a glyph
    const stack =
      '-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif,"Apple Color Emoji","Segoe UI Emoji"';
    const shown = await open(
      "/comment.html",
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body style='font-family:${stack}'><div id="md"></div><pre id="code" style="font-family:ui-monospace,SFMono-Regular,'SF Mono',Menlo,Consolas,'Liberation Mono',monospace"></pre>`,
    );
    await shown.page.evaluate(
      `document.getElementById("md").textContent = ${JSON.stringify(md)}; document.getElementById("code").textContent = ${JSON.stringify(md)};`,
    );
    expect(await missingGlyphs(shown.page)).toEqual([]);
    await shown.page.close();
    expect(requests).toEqual([`${base}/example.html`]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
