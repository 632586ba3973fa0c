/** `npm test` leaves nothing in the system's temporary directory: all of it lives in one folder per run. */
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";

describe("a test run's scratch space", () => {
  it("is one folder made for the run, which the processes a test starts use too", () => {
    expect(basename(tmpdir())).toMatch(/^frontier-tests-/);
    // one folder, not one in another per project of the config
    expect(basename(dirname(tmpdir()))).not.toMatch(/^frontier-tests-/);
    const child = execFileSync(process.execPath, ["-p", "require('node:os').tmpdir()"], {
      encoding: "utf8",
    }).trim();
    expect(child).toBe(tmpdir());
  });

  it("has no CA bundle for the processes a test starts to parse: every server a test talks to is on localhost, over http", () => {
    const child = execFileSync(
      process.execPath,
      ["-p", "process.env.NODE_EXTRA_CA_CERTS ?? 'unset'"],
      {
        encoding: "utf8",
      },
    ).trim();
    expect(child).toBe("unset");
  });
});
