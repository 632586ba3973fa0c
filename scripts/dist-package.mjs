// After ncc (`npm run package`):
// - dist/ holds an ES module bundle (core 3 and octokit are ESM-only), so Node must be
//   told: write dist/package.json {"type": "module"};
// - ncc writes into dist/ without emptying it, so chunks of an earlier build that the new
//   bundle no longer loads (`__nccwpck_require__.e(ID)` → ID.index.js) are removed.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const out = process.argv[2] ?? "dist";
writeFileSync(join(out, "package.json"), `${JSON.stringify({ type: "module" }, null, 2)}\n`);

const loaded = new Set(["index.js"]);
const queue = ["index.js"];
while (queue.length > 0) {
  const file = join(out, queue.pop());
  if (!existsSync(file)) continue;
  for (const [, id] of readFileSync(file, "utf8").matchAll(/\.e\((\d+)\)/g)) {
    const chunk = `${id}.index.js`;
    if (!loaded.has(chunk)) {
      loaded.add(chunk);
      queue.push(chunk);
    }
  }
}
for (const name of readdirSync(out)) {
  if (/^\d+\.index\.js$/.test(name) && !loaded.has(name)) rmSync(join(out, name));
}
