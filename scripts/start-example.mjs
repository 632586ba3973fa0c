#!/usr/bin/env node
// `npm start`: run the example ticket graph on a fresh copy, so it can be repeated and the
// committed tickets-example/ stays pristine. The copy lives in .example-run/ (git-ignored).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "tickets-example");
const workdir = join(root, ".example-run");
const tickets = join(workdir, "tickets");
const cli = join(root, "build", "src", "cli.js");
const shown = (p) => relative(process.cwd(), p) || ".";

if (!existsSync(cli)) {
  console.error(
    `${shown(cli)} is missing — run \`npm run build\` first (npm start does it for you).`,
  );
  process.exit(2);
}

rmSync(workdir, { recursive: true, force: true });
// Never copy run state: the example always starts from its pristine form.
cpSync(source, tickets, {
  recursive: true,
  filter: (src) => !src.includes(`${join(source, ".frontier")}`),
});
console.error(`Running the example on a fresh copy: ${shown(tickets)}\n`);

const run = spawnSync(process.execPath, [cli, "run", tickets], { stdio: "inherit", cwd: root });
const code = run.status ?? 1;

const receiptPath = join(tickets, ".frontier", "receipt.json");
if (existsSync(receiptPath)) {
  const receipt = JSON.parse(readFileSync(receiptPath, "utf8"));
  const summary = receipt.tickets?.find((t) => t.id === "summary");
  const last = summary?.attempts?.at(-1);
  console.error("");
  if (last?.result) {
    console.error("The summary ticket's result:\n");
    console.error(
      last.result
        .trim()
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n"),
    );
    console.error("");
  }
  // the run named its receipt and reports in its last line: open the HTML report first
  console.error(
    `Open the HTML report in a browser: ${shown(join(tickets, ".frontier", "report.html"))}`,
  );
  console.error(`Ticket files now carry their state: ${shown(tickets)}/*.md`);
  console.error("Run `npm start` again for a fresh copy; tickets-example/ is never changed.");
}
process.exit(code);
