/**
 * The floor of loading: one Node process that only reads every ticket file —
 * readdir, then readFile of each `*.md` — and does nothing with them.
 *   node bench/floor-read.mjs DIR
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
let bytes = 0;
let files = 0;
for (const name of readdirSync(dir)) {
  if (!name.endsWith(".md") || name.startsWith(".") || name.startsWith("_")) continue;
  bytes += readFileSync(join(dir, name), "utf8").length;
  files++;
}
process.stdout.write(`${files} files, ${bytes} chars\n`);
