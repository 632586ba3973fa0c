import { describe, expect, it } from "vitest";
import { durationHint, formatDuration, parseBound, parseDuration } from "../../src/core/bound.js";
import { boundProblems } from "../../src/tickets/problems.js";

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

describe("bound: durations as people write them are durations; text that only looks like one is flagged", () => {
  it.each([
    ["10 minutes", 600_000],
    ["1 hour", 3_600_000],
    ["2 hours 15 minutes", 8_100_000],
    ["90 secs", 90_000],
    ["2 days", 172_800_000],
    ["1d", 86_400_000],
  ])("%j is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(durationHint(text)).toBeUndefined();
  });

  it.each([
    ["about 10 minutes", /10m/],
    ["10 minutes max", /10m/],
    ["max 3 hrs", /3h/],
    ["1h30", /1h30m/],
    ["half an hour", /digits/],
    ["ten minutes", /digits/],
    ["2 weeks", /digits/],
  ])("%j is not a duration but reads like one: the hint says what to write", (text, fix) => {
    expect(parseDuration(text)).toBeUndefined();
    const hint = durationHint(text);
    expect(hint).toBeDefined();
    // the words are the tickets layer's (tickets/problems.ts)
    expect(boundProblems("bound", text, "t.md", 1).warning?.fix).toMatch(fix);
  });

  it.each(["5 tool calls", "3 steps", "1000 tokens", "a careful review", "two passes"])(
    "%j names no time: no hint",
    (text) => {
      expect(durationHint(text)).toBeUndefined();
    },
  );
});
