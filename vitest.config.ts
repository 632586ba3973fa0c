import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // scale and stress runs: `npm run test:stress` (CI runs both)
    exclude: ["test/stress/**", "**/node_modules/**"],
    setupFiles: ["test/support/fast-check-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // two files at a time: most of the suite waits on the processes it spawns, so two
    // workers on a 2-core machine take about two thirds of the time one does
    maxWorkers: 2,
  },
});
