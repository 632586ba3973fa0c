#!/usr/bin/env node
// Writes schema/receipt.schema.json and schema/command.schema.json from their zod schemas
// (run after `npm run build`).
// test/report/schema.test.ts fails when the committed file differs from a fresh generation.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let mod;
try {
  mod = await import(join(root, "build/src/report/schema.js"));
} catch (err) {
  console.error(
    `gen-schema: cannot load build/src/report/schema.js (${err.message}).\nRun \`npm run build\` first.`,
  );
  process.exit(2);
}
for (const [file, text] of [
  ["schema/receipt.schema.json", mod.receiptJsonSchemaText()],
  ["schema/command.schema.json", mod.commandJsonSchemaText()],
]) {
  writeFileSync(join(root, file), text);
  console.log(`gen-schema: wrote ${join(root, file)}`);
}
