import { describe, expect, it } from "vitest";
import { formatDuration, parseBound, parseDuration } from "../../src/core/bound.js";

describe("bound: a duration is the timeout and the lease; other text is passed on", () => {
  it.each([
    ["45s", 45_000],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["1h30m", 5_400_000],
    ["1h 30 min", 5_400_000],
    ["1200ms", 1200],
    ["1.5s", 1500],
    ["0.5h", 1_800_000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(parseBound(text)).toEqual({ raw: text, timeoutMs: ms, leaseMs: ms });
  });

  it.each(["5 tool calls", "soon", "1.5", "h", "", "30 parsecs"])(
    "%j is not a duration: passed to the executor, default lease",
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
      expect(parseBound(text, 60_000)).toEqual({ raw: text, leaseMs: 60_000 });
    },
  );

  it("formats durations for people", () => {
    expect(formatDuration(450)).toBe("450ms");
    expect(formatDuration(90_000)).toBe("1m30s");
    expect(formatDuration(3_600_000)).toBe("1h");
  });
});
