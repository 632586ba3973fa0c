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
  },
});
