#!/usr/bin/env node
// A stand-in for a coding agent, so coding tickets run before you have one: no model, no
// network. It runs in the ticket's own worktree and writes one file inside the ticket's
// write_scope, naming the files its dependencies wrote — each of them must be there, in
// this worktree, or it fails. Its result (stdout) names the file it wrote.
// Replace it in frontier.yml (`executor:`) with the command that runs your agent.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const ticket = process.env.FRONTIER_TICKET ?? "";
const context = readFileSync(process.env.FRONTIER_CONTEXT_FILE, "utf8");
const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(
  readFileSync(process.env.FRONTIER_TICKET_FILE, "utf8"),
);
// `write_scope: [a/**, "b/*.md"]`, as `frontier new --scope` writes it
const scope = (/^write_scope:\s*\[(.*)\]\s*$/m.exec(front?.[1] ?? "")?.[1] ?? "")
  .split(",")
  .map((s) => s.trim().replace(/^"(.*)"$/, "$1"))
  .filter((s) => s !== "" && !s.startsWith("!"));
if (scope.length === 0) {
  console.error(
    `${ticket} has no write_scope: give it the paths it may change (frontier new ... --scope 'src/**')`,
  );
  process.exit(1);
}
// the first entry: the file it names, else <its folder>/<ticket><the extension it asks for>
const glob = scope[0];
const wild = glob.search(/[*?[{]/);
const file =
  wild < 0
    ? glob
    : `${glob.slice(0, wild).replace(/[^/]*$/, "")}${ticket}${/\*(\.[A-Za-z0-9]+)$/.exec(glob)?.[1] ?? ".md"}`;

const root = execFileSync("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8" }).trim();
// what the tickets this one depends on wrote: their results, in this ticket's context
const inputs = [...context.matchAll(/^stand-in agent wrote (\S+)$/gm)].map((m) => m[1]);
const missing = inputs.filter((f) => !existsSync(join(root, f)));
if (missing.length > 0) {
  console.error(
    `${missing.join(", ")} is not in this worktree: the dependencies' changes did not reach it`,
  );
  process.exit(1);
}
const title = /^# (.+)$/m.exec(context)?.[1] ?? ticket;
const comment = /\.(md|txt)$/.test(file) ? "" : "// ";
mkdirSync(dirname(join(root, file)), { recursive: true });
writeFileSync(
  join(root, file),
  [
    `${comment}${title}: the stand-in agent's change for ${ticket} (attempt ${process.env.FRONTIER_ATTEMPT}).`,
    `${comment}Built on: ${inputs.length > 0 ? inputs.join(", ") : "nothing yet"}.`,
    "",
  ].join("\n"),
);
console.log(`stand-in agent wrote ${file}`);
