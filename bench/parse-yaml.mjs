/**
 * For context: read every ticket and parse its front matter with one YAML parser only,
 * checking nothing.   node bench/parse-yaml.mjs yaml|js-yaml-failsafe DIR
 * `yaml` is the parser of record here; js-yaml (3.x, shipped inside gray-matter) with
 * its failsafe schema is the fastest widely used one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [which, dir] = process.argv.slice(2);
const require = createRequire(import.meta.url);
let parse;
if (which === "yaml") {
  const YAML = require("yaml");
  parse = (text) => YAML.parse(text);
} else if (which === "js-yaml-failsafe") {
  const jsyaml = require("js-yaml");
  parse = (text) => jsyaml.load(text, { schema: jsyaml.FAILSAFE_SCHEMA });
} else {
  throw new Error(`unknown parser ${which}`);
}

let parsed = 0;
for (const name of readdirSync(dir)) {
  if (!name.endsWith(".md")) continue;
  const text = readFileSync(join(dir, name), "utf8");
  if (!text.startsWith("---\n")) continue;
  const end = text.indexOf("\n---", 4);
  const data = parse(text.slice(4, end + 1));
  if (data && typeof data === "object") parsed++;
}
process.stdout.write(`${parsed} front matters parsed with ${which}\n`);
