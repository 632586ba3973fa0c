/**
 * Preloaded with `node --import ./bench/lib/maxrss.mjs …`: at exit, writes the process's
 * peak RSS (KB, `process.resourceUsage().maxRSS`) to the file BENCH_MAXRSS_FILE names.
 */
import { writeFileSync } from "node:fs";

const file = process.env.BENCH_MAXRSS_FILE;
if (file) {
  process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
}
