import { defineConfig } from "vitest/config";

/** Only for `npm run bench`: the GitHub measurements through the e2e harness. */
export default defineConfig({
  test: {
    include: ["bench/github.e2e.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 3_600_000,
    pool: "forks",
  },
});
