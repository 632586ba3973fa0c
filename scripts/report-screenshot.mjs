#!/usr/bin/env node
// `npm run docs:screenshot`: the README's picture of the HTML report. Runs the example
// graph on a fresh copy (as `npm start` does), renders its report in Debian's headless
// Chromium at 1280×900 and writes docs/report-screenshot.png. A generator, not a test:
// the report's behaviour in a browser is checked by test/report/browser.test.ts.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "build", "src", "cli.js");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const out = join(root, "docs", "report-screenshot.png");

if (!existsSync(cli)) {
  console.error("build/src/cli.js is missing: run `npm run build` first");
  process.exit(2);
}
if (!existsSync(chromiumPath)) {
  console.error(
    `${chromiumPath} not found: install Debian's chromium (apt-get install -y --no-install-recommends chromium), or set CHROMIUM`,
  );
  process.exit(2);
}

const dir = join(mkdtempSync(join(tmpdir(), "frontier-example-")), "tickets");
cpSync(join(root, "tickets-example"), dir, {
  recursive: true,
  filter: (src) => !src.includes("/.frontier"),
});
const run = spawnSync(process.execPath, [cli, "run", dir], { encoding: "utf8" });
if (run.status !== 0) {
  console.error(`the example run failed (exit ${run.status}):\n${run.stderr}`);
  process.exit(1);
}
const receipt = JSON.parse(readFileSync(join(dir, ".frontier", "receipt.json"), "utf8"));
const { renderHtml } = await import(join(root, "build", "src", "report", "html.js"));
const html = renderHtml({ ...receipt, where: receipt.where ?? "local" });

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.setContent(html, { waitUntil: "load" });
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1280, height: 900 } });
} finally {
  await browser.close();
}
console.error(`wrote ${out}`);
