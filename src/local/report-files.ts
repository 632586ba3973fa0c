/**
 * Writing the reports of a local run to disk: `frontier report --html F --json F
 * --markdown F`, and DIR/.frontier/ after `frontier run`. Each file is written whole
 * (to a temporary name, then renamed: tickets/store.ts) so a reader never sees half a report.
 */
import { join } from "node:path";
import { errorText } from "../core/errors.js";
import type { Receipt } from "../core/model.js";
import { renderHtml } from "../report/html.js";
import { renderMarkdown } from "../report/markdown.js";
import { receiptJson } from "../report/receipt.js";
import { RECEIPT_FILE, REPORT_HTML_FILE, REPORT_MD_FILE } from "../tickets/layout.js";
import { replaceAtomically, WriteError } from "../tickets/store.js";

interface ReportFiles {
  html?: string;
  json?: string;
  markdown?: string;
  /** the ticket directory as a shell word, for the commands the reports name */
  dir?: string;
}

/** Where a local run's reports go: under DIR/.frontier/, the `frontier report` default. */
export function localReports(dir: string): ReportFiles {
  return {
    html: join(dir, REPORT_HTML_FILE),
    json: join(dir, RECEIPT_FILE),
    markdown: join(dir, REPORT_MD_FILE),
  };
}

/** A WriteError whose message says which report it was. */
export class ReportWriteError extends WriteError {}

/** Writes the requested reports. Throws ReportWriteError, naming the file, when one cannot be written. */
export function writeReports(receipt: Receipt, files: ReportFiles): void {
  const dir = files.dir !== undefined ? { dir: files.dir } : {};
  const reports: Array<[string | undefined, string, () => string]> = [
    [files.html, "HTML report", () => renderHtml(receipt, dir)],
    [files.json, "JSON receipt", () => receiptJson(receipt)],
    [
      files.markdown,
      "markdown report",
      () => renderMarkdown(receipt, { marker: `ticket-frontier:${receipt.run}`, ...dir }),
    ],
  ];
  for (const [path, what, render] of reports) {
    if (!path) continue;
    const text = render();
    try {
      replaceAtomically(path, text);
    } catch (error) {
      const cause = errorText(error);
      const fix = "Choose a path in a directory you can write to.";
      throw new ReportWriteError(
        path,
        cause,
        `cannot write the ${what} to ${path}: ${cause}. ${fix}`,
      );
    }
  }
}
