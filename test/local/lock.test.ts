/**
 * One live `frontier run` per ticket directory: the lock appears whole or not at all,
 * and a lock that cannot be read is never taken for a dead one.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/local/lock.js";
import { LOCK_FILE } from "../../src/tickets/layout.js";
import { counted, executions, makeGraph, startFrontier } from "./harness.js";

function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "frontier-lock-"));
  mkdirSync(join(d, ".frontier"));
  return d;
}

describe("the lock: no two runners ever hold it", () => {
  it("eight runners starting together: exactly one takes it", async () => {
    const d = dir();
    const results = await Promise.all(Array.from({ length: 8 }, () => acquireLock(d, Date.now())));
    expect(results.filter((r) => r.kind === "ok")).toHaveLength(1);
  });

  it("a lock file that is still empty (its writer mid-way) is held, not stale", async () => {
    const d = dir();
    writeFileSync(join(d, LOCK_FILE), "");
    const r = await acquireLock(d, Date.now());
    expect(r.kind).toBe("held");
    if (r.kind === "held") expect(r.message).toContain(join(d, LOCK_FILE));
    expect(existsSync(join(d, LOCK_FILE))).toBe(true);
  });

  it("a lock whose process is gone is taken over by one runner, and released", async () => {
    const d = dir();
    // a pid that is not a live frontier process on this host
    writeFileSync(
      join(d, LOCK_FILE),
      JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), started_at: "x" }),
    );
    const results = await Promise.all(Array.from({ length: 4 }, () => acquireLock(d, Date.now())));
    const ok = results.filter((r) => r.kind === "ok");
    expect(ok).toHaveLength(1);
    if (ok[0]?.kind === "ok") await ok[0].release();
    expect(existsSync(join(d, LOCK_FILE))).toBe(false);
    // no temporary files left behind
    expect(readdirSync(join(d, ".frontier"))).toEqual([]);
  });

  it("a lock in our own pid from before this process started is an earlier process's: taken over", async () => {
    const d = dir();
    const old = new Date(Date.now() - process.uptime() * 1000 - 60_000).toISOString();
    writeFileSync(
      join(d, LOCK_FILE),
      JSON.stringify({ pid: process.pid, host: hostname(), started_at: old }),
    );
    const r = await acquireLock(d, Date.now());
    expect(r.kind).toBe("ok");
    if (r.kind === "ok") await r.release();
  });

  it("eight `frontier run` started together on one directory run every ticket once", async () => {
    const g = makeGraph({ a: {}, b: {}, c: {}, d: { depends_on: ["a"] } });
    const exec = counted(g.marks, "sleep 0.2; echo ok");
    const runs = Array.from({ length: 8 }, () => startFrontier(["run", g.dir, "--exec", exec]));
    const ended = await Promise.all(runs.map((r) => r.done));
    expect(executions(g)).toEqual({ a: 1, b: 1, c: 1, d: 1 });
    // each either ran the graph, found it done, or was refused naming the runner
    for (const r of ended) {
      expect([0, 2]).toContain(r.code);
      if (r.code === 2) expect(r.stderr).toMatch(/another frontier run (of run \S+ )?\(pid \d+/);
    }
  });
});
