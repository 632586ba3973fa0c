import { defineConfig } from "vitest/config";

/** `npm run test:stress`: runs at scale, too slow for `npm test`; CI runs them after it. */
export default defineConfig({
  test: {
    include: ["test/stress/**/*.test.ts"],
    setupFiles: ["test/support/fast-check-setup.ts"],
    globalSetup: ["test/support/scratch-root.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: "forks",
  },
});
