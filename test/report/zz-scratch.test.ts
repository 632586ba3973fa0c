import { writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { test } from "vitest";
import { renderHtml } from "../../src/report/html.js";
import { makeReceipt } from "./fixtures.js";

test("scratch", async () => {
  const r = makeReceipt(15, {
    goal: "Ship the report renderers",
    links: { workflow_run: "https://github.com/o/r/actions/runs/1" },
  });
  r.state = "failed";
  const html = renderHtml(r);
  writeFileSync("test-output/scratch.html", html);
  const b = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  for (const scheme of ["light", "dark"] as const) {
    const p = await b.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
    p.on("console", (m) => console.log("console", m.type(), m.text()));
    await p.goto("file://" + process.cwd() + "/test-output/scratch.html");
    await p.screenshot({ path: `test-output/scratch-${scheme}.png`, fullPage: false });
    await p.screenshot({ path: `test-output/scratch-${scheme}-full.png`, fullPage: true });
  }
  await b.close();
});
