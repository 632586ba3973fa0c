#!/usr/bin/env node
// Writes schema/receipt.schema.json and schema/command.schema.json from their zod schemas
// (test/support/schema.ts, loaded from the TypeScript sources by vite: no build needed).
// test/report/schema.test.ts fails when the committed file differs from a fresh generation.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { module: mod } = await runnerImport(join(root, "test/support/schema.ts"), {
  root,
  configFile: false,
  logLevel: "error",
});
for (const [file, text] of [
  ["schema/receipt.schema.json", mod.receiptJsonSchemaText()],
  ["schema/command.schema.json", mod.commandJsonSchemaText()],
]) {
  writeFileSync(join(root, file), text);
  console.log(`gen-schema: wrote ${join(root, file)}`);
}
