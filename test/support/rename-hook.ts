/**
 * `node:fs` with a hook just before each `renameSync` and one just after each `linkSync`, so
 * a test can make a write or a deletion land in the instant between a compare-and-swap's
 * check and its rename — no timing. In a test file:
 *
 *   vi.mock("node:fs", async (real) => (await import("../support/rename-hook.js")).hooked(await real()));
 *
 * then set `renameHook.before` or `linkHook.after` (and reset it between tests).
 */
import type * as fs from "node:fs";

export const renameHook = { before: (_to: string): void => undefined };
export const linkHook = { after: (_from: string): void => undefined };

export function hooked(real: typeof fs): typeof fs {
  const renameSync: typeof real.renameSync = (from, to) => {
    renameHook.before(String(to));
    real.renameSync(from, to);
  };
  const linkSync: typeof real.linkSync = (from, to) => {
    real.linkSync(from, to);
    linkHook.after(String(from));
  };
  return {
    ...real,
    renameSync,
    linkSync,
    default: { ...real, renameSync, linkSync },
  } as typeof fs;
}
