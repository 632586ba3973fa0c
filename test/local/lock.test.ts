/**
 * One live `frontier run` per ticket directory: the lock appears whole or not at all,
 * and a lock that cannot be read is never taken for a dead one.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock, lockPath } from "../../src/local/lock.js";

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "frontier-lock-"));
  mkdirSync(join(d, ".frontier"));
  return d;
}

describe("the lock: no two runners ever hold it", () => {
  it("eight runners starting together: exactly one takes it", async () => {
    const d = dir();
    const results = await Promise.all(Array.from({ length: 8 }, () => acquireLock(d, 0)));
    expect(results.filter((r) => r.kind === "ok")).toHaveLength(1);
  });

  it("a lock file that is still empty (its writer mid-way) is held, not stale", async () => {
    const d = dir();
    writeFileSync(lockPath(d), "");
    const r = await acquireLock(d, 0);
    expect(r.kind).toBe("held");
    if (r.kind === "held") expect(r.message).toContain(lockPath(d));
    expect(existsSync(lockPath(d))).toBe(true);
  });

  it("a lock whose process is gone is taken over by one runner, and released", async () => {
    const d = dir();
    // a pid that is not a live frontier process on this host
    writeFileSync(
      lockPath(d),
      JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), started_at: "x" }),
    );
    const results = await Promise.all(Array.from({ length: 4 }, () => acquireLock(d, 0)));
    const ok = results.filter((r) => r.kind === "ok");
    expect(ok).toHaveLength(1);
    if (ok[0]?.kind === "ok") await ok[0].release();
    expect(existsSync(lockPath(d))).toBe(false);
    // no temporary files left behind
    expect(readdirSync(join(d, ".frontier"))).toEqual([]);
  });
});
