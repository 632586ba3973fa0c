import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
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
  it("no file is no outcome; a blank one is told apart (it fails the attempt)", async () => {
    expect(await readOutcomeFile(join(dir, "missing.json"), 100)).toEqual({ kind: "none" });
    expect(await readOutcomeFile(file("blank.json", " \n"), 100)).toEqual({
      kind: "bad",
      reason: expect.stringMatching(/^the outcome file \(\$FRONTIER_OUTCOME_FILE\) is empty/),
    });
  });

  it("a result over max_result_bytes fails the attempt the same way, whichever runner reads it", async () => {
    const path = file("big.json", JSON.stringify({ status: "complete", result: "é".repeat(60) }));
    const settle = await readJobOutcome({ outcomeFile: path, jobStatus: "success" }, 100);
    expect(settle).toEqual({
      outcome: "failed",
      reason:
        "the result in the outcome file is 120 bytes, over max_result_bytes (100): write large output to a file and return its path, or raise max_result_bytes in frontier.yml",
    });
  });

  it("so is a question or a reason over max_result_bytes: each goes into the run's records, which later events read and write", async () => {
    const said = { question: "a log pasted whole ".repeat(10), reason: "é".repeat(60) };
    for (const [status, key] of [
      ["suspended", "question"],
      ["failed", "reason"],
    ] as const) {
      const path = file(`${key}.json`, JSON.stringify({ status, [key]: said[key] }));
      expect(await readJobOutcome({ outcomeFile: path, jobStatus: "success" }, 100)).toEqual({
        outcome: "failed",
        reason: `the ${key} in the outcome file is ${Buffer.byteLength(said[key])} bytes, over max_result_bytes (100): write large output to a file and return its path, or raise max_result_bytes in frontier.yml`,
      });
    }
  });

  it("a file far over the cap is refused after reading at most the cap and a byte", async () => {
    const path = file("huge.json", `{"status":"complete","result":"${"x".repeat(70 * 1024)}"}`);
    const read = await readOutcomeFile(path, 10);
    expect(read.kind).toBe("bad");
    expect((read as { reason: string }).reason).toMatch(
      /^the outcome file \(\$FRONTIER_OUTCOME_FILE\) is \d+ bytes, over max_result_bytes \(10\)/,
    );
  });

  it("a symbolic link is never followed: not to /dev/zero, not to a file elsewhere, nothing quoted", async () => {
    const zero = join(dir, "zero.json");
    symlinkSync("/dev/zero", zero);
    const secret = file("secret.txt", "TOP-SECRET first bytes");
    const outside = join(dir, "outside.json");
    symlinkSync(secret, outside);
    for (const path of [zero, outside]) {
      const read = await readOutcomeFile(path, 100);
      expect(read.kind).toBe("bad");
      const reason = (read as { reason: string }).reason;
      expect(reason).toMatch(/is a symbolic link, so it was not read/);
      expect(reason).not.toContain("TOP-SECRET");
    }
  });

  it("a FIFO or a directory is refused without blocking, saying what it is", async () => {
    const fifo = join(dir, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    // nothing ever writes the FIFO: a reader that opened it would wait for ever
    const read = await readOutcomeFile(fifo, 100);
    expect(read).toEqual({
      kind: "bad",
      reason: expect.stringMatching(
        /^the outcome file \(\$FRONTIER_OUTCOME_FILE\) is a FIFO, so it was not read/,
      ),
    });
    const folder = join(dir, "folder.json");
    mkdirSync(folder);
    expect((await readOutcomeFile(folder, 100)) as { reason: string }).toMatchObject({
      kind: "bad",
      reason: expect.stringMatching(/is a directory, so it was not read/),
    });
  });

  it("a negative usage is no valid outcome: it would give a run's usage bound back what other attempts spent", async () => {
    const report = { status: "complete", result: "done", usage: { tokens: 120, cost_usd: -5 } };
    const path = file("refund.json", JSON.stringify(report));
    const settle = await readJobOutcome({ outcomeFile: path, jobStatus: "success" }, 100);
    expect(settle).toEqual({
      outcome: "failed",
      reason: expect.stringMatching(
        /^the outcome file \(.*\) is not a valid outcome — usage\.cost_usd: /,
      ),
    });
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
