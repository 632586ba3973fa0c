/**
 * `node:fs` with a hook just before each `renameSync`, so a test can make a write land in
 * the instant between a compare-and-swap's check and its rename — no timing. In a test file:
 *
 *   vi.mock("node:fs", async (real) => (await import("../support/rename-hook.js")).hooked(await real()));
 *
 * then set `renameHook.before` (and reset it between tests).
 */
import type * as fs from "node:fs";

export const renameHook = { before: (_to: string): void => undefined };

export function hooked(real: typeof fs): typeof fs {
  const renameSync: typeof real.renameSync = (from, to) => {
    renameHook.before(String(to));
    real.renameSync(from, to);
  };
  return { ...real, renameSync, default: { ...real, renameSync } } as typeof fs;
}
