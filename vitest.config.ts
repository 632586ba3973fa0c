import { defineConfig } from "vitest/config";

/**
 * The files that replace a module (`vi.mock`): each needs a module graph of its own. Every
 * other file shares its worker's modules with the files run before it (`isolate: false`):
 * loading the project's modules afresh for each of 100 files was a fifth of the suite's
 * CPU (one run on an idle 2-core machine: 471 s and 820 CPU-s isolated, 370 s and 632 CPU-s
 * shared, with the CA-bundle and bashrc costs of test/support and the recipes test gone
 * too). So a file must leave the process as it found it: its environment variables and its
 * working directory (test/support/leave-as-found.ts fails a file that does not).
 */
export const MOCKING = [
  "test/cli/edit-race.test.ts",
  "test/tickets/store-full.test.ts",
  "test/tickets/writeback-plain.test.ts",
  "test/local/ticket-edits.test.ts",
];

export default defineConfig({
  test: {
    // scale and stress runs: `npm run test:stress` (CI runs both)
    exclude: ["test/stress/**", "**/node_modules/**"],
    setupFiles: ["test/support/fast-check-setup.ts", "test/support/leave-as-found.ts"],
    globalSetup: ["test/support/scratch-root.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // three files at a time on a 2-core machine: most of the suite waits on the processes
    // it spawns (git, the CLI, the action's steps, a browser), and a third file fills
    // those waits — measured on an idle 2-core machine, 394 s against 471 s with two (files
    // isolated); with shared modules a fourth was slower again (423 s against 384 s)
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: "shared", include: ["test/**/*.test.ts"], exclude: MOCKING, isolate: false },
      },
      { extends: true, test: { name: "isolated", include: MOCKING } },
    ],
  },
});
