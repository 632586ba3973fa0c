import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJobOutcome } from "../../src/github/events.js";
import { readOutcomeFile } from "../../src/tickets/outcome-file.js";

const dir = mkdtempSync(join(tmpdir(), "frontier-outcome-file-"));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe("one reader of the outcome file, for the local runner and the settle step", () => {
  it("no file, or an empty one, is no outcome", async () => {
    expect(await readOutcomeFile(join(dir, "missing.json"), 100)).toEqual({
      kind: "none",
      exists: false,
    });
    expect(await readOutcomeFile(file("blank.json", " \n"), 100)).toEqual({
      kind: "none",
      exists: true,
    });
  });

  it("a result over max_result_bytes is a bad outcome, whichever path reads it", async () => {
    const path = file("big.json", JSON.stringify({ status: "complete", result: "é".repeat(60) }));
    const local = await readOutcomeFile(path, 100);
    expect(local).toEqual({
      kind: "bad",
      reason:
        "the result in the outcome file is 120 bytes, over max_result_bytes (100): write large output to a file and return its path, or raise max_result_bytes in frontier.yml",
    });
    const settle = await readJobOutcome({ outcomeFile: path, jobStatus: "success" }, 100);
    expect(settle).toEqual({ outcome: "failed", reason: (local as { reason: string }).reason });
  });

  it("a file far over the cap is refused before it is read", async () => {
    const path = file("huge.json", `{"status":"complete","result":"${"x".repeat(70 * 1024)}"}`);
    const read = await readOutcomeFile(path, 10);
    expect(read.kind).toBe("bad");
    expect((read as { reason: string }).reason).toMatch(
      /^the outcome file is \d+ bytes, over max_result_bytes \(10\)/,
    );
  });

  it("the same words for a file that is not JSON or not an outcome, naming the file as given", async () => {
    const notJson = await readOutcomeFile(file("n.json", "{nope"), 100, "out/o.json");
    expect((notJson as { reason: string }).reason).toMatch(
      /^the outcome file \(out\/o\.json\) is not valid JSON \(.*\): write e\.g\. \{"status": "complete", "result": "…"\}$/,
    );
    const wrong = await readOutcomeFile(file("w.json", '{"status":"done"}'), 100);
    expect((wrong as { reason: string }).reason).toMatch(
      /^the outcome file \(\$FRONTIER_OUTCOME_FILE\) is not a valid outcome — status: .*\. It needs "status": one of complete, empty, failed, suspended, limited$/,
    );
  });
});
