import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Status } from "../../src/core/model.js";
import { Progress } from "../../src/local/progress.js";

function sink() {
  let text = "";
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

function counts(partial: Partial<Record<Status, number>>): Record<Status, number> {
  return {
    pending: 0,
    ready: 0,
    claimed: 0,
    suspended: 0,
    complete: 0,
    empty: 0,
    failed: 0,
    blocked: 0,
    limited: 0,
    cancelled: 0,
    ...partial,
  };
}

describe("progress when not on a terminal: one plain line per event", () => {
  it("says what started, what finished, how it ended, how long it took, and the counts", () => {
    const out = sink();
    let now = new Date(2026, 10, 30, 12, 1, 0).getTime();
    const progress = new Progress({
      stream: out.stream,
      live: false,
      run: "r",
      total: 12,
      now: () => now,
    });
    progress.started("research-api", 1);
    now += 1200;
    progress.finished("research-api", 1, "complete", 1200, {
      counts: counts({ complete: 3 }),
      running: 2,
    });
    progress.finished(
      "deploy",
      2,
      "failed",
      300,
      { counts: counts({ complete: 3, failed: 1 }), running: 1 },
      "timeout",
    );
    progress.stop();
    expect(out.text().split("\n")).toEqual([
      "12:01:00 start research-api (attempt 1)",
      "12:01:01 done  research-api (attempt 1) complete 1.2s · 3/12 complete, 2 running",
      "12:01:01 done  deploy (attempt 2) failed 0.3s — timeout · 3/12 complete, 1 failed, 1 running",
      "",
    ]);
  });
});
