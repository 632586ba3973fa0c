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

/**
 * The words core writes into the records themselves, not messages: a reason saved in an
 * attempt record or ticket, a worklog detail, a question's placeholder. The files hold them.
 */
const RECORD_WORDS = [
  "claim holder gone",
  "recovered from the attempt record",
  "(no question given)",
  "run cancelled by …",
];

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
  it("no English sentence in src/core/ but the words its records hold", () => {
    const said = coreSentences().filter(
      (f) => !RECORD_WORDS.includes(JSON.parse(f.slice(f.indexOf(" ") + 1))),
    );
    expect(said).toEqual([]);
  });
});
