// After ncc: dist/ holds an ES module bundle (core 3 and octokit are ESM-only), so
// Node must be told. Run by `npm run package`; writes DIST/package.json.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const out = process.argv[2] ?? "dist";
writeFileSync(join(out, "package.json"), `${JSON.stringify({ type: "module" }, null, 2)}\n`);
