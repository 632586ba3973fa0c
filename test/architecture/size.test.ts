// No function over 80 lines and no file over 600 in src/ (generated code aside), and no
// English sentences in src/core/: core returns codes and data, the outer layers word them.
// KNOWN lists the offenders that remain: an offender not in it fails the test with its
// file:line, and so does an entry that no longer offends (the list only shrinks).
import { describe, expect, it } from "vitest";
import { coreSentences, longFiles, longFunctions } from "./size.js";

/** `file name` of every function still over the limit. */
const KNOWN_FUNCTIONS: string[] = [];

/** Every file still over the limit. */
const KNOWN_FILES: string[] = [];

/** How many sentences each core file still has (the outer layers should word them). */
const KNOWN_SENTENCES: Record<string, number> = {
  "src/core/engine-state.ts": 4,
  "src/core/engine-types.ts": 1,
  "src/core/constants.ts": 1,
  "src/core/engine.ts": 10,
  "src/core/executor.ts": 1,
};

/** What is over the limit and not known, and what is known and no longer over it. */
function against(found: string[], known: string[], keyOf: (f: string) => string) {
  const keys = new Set(found.map(keyOf));
  return {
    unknown: found.filter((f) => !known.includes(keyOf(f))),
    stale: known.filter((k) => !keys.has(k)),
  };
}

describe("the size budget", () => {
  it("no function over 80 lines", () => {
    // "src/x.ts:12 name: 90 lines" → "src/x.ts name"
    const key = (f: string) => f.replace(/:\d+ (\S+): \d+ lines$/, " $1");
    expect(against(longFunctions(), KNOWN_FUNCTIONS, key)).toEqual({ unknown: [], stale: [] });
  });

  it("no file over 600 lines", () => {
    const key = (f: string) => f.replace(/: \d+ lines$/, "");
    expect(against(longFiles(), KNOWN_FILES, key)).toEqual({ unknown: [], stale: [] });
  });
});

describe("core has no words for people", () => {
  it("no English sentence in src/core/", () => {
    const found = coreSentences();
    const byFile = new Map<string, string[]>();
    for (const f of found) {
      const file = f.slice(0, f.indexOf(":"));
      byFile.set(file, [...(byFile.get(file) ?? []), f]);
    }
    const over = [...byFile].flatMap(([file, list]) =>
      list.length > (KNOWN_SENTENCES[file] ?? 0) ? list : [],
    );
    const stale = Object.entries(KNOWN_SENTENCES)
      .filter(([file, n]) => (byFile.get(file)?.length ?? 0) < n)
      .map(([file, n]) => `${file}: ${byFile.get(file)?.length ?? 0} now, ${n} known`);
    expect({ over, stale }).toEqual({ over: [], stale: [] });
  });
});
