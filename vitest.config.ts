import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // scale and stress runs: `npm run test:stress` (CI runs both)
    exclude: ["test/stress/**", "**/node_modules/**"],
    setupFiles: ["test/support/fast-check-setup.ts"],
    globalSetup: ["test/support/scratch-root.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // three files at a time on a 2-core machine: most of the suite waits on the processes
    // it spawns (git, the CLI, the action's steps, a browser), and a third file fills
    // those waits — measured on an idle 2-core machine, 394 s against 471 s with two
    maxWorkers: 3,
  },
});
