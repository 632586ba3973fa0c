import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SyncWriter } from "../../src/local/write-sync.js";
import { RecordExistsError } from "../../src/tickets/store.js";

describe("state written by the runner: records never overwritten, files replaced whole", () => {
  it("creates a record once, accepts the same record again, refuses a different one", () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-sync-"));
    const w = new SyncWriter(dir);
    w.apply([{ path: ".frontier/attempts/a@1.json", kind: "create", content: "{}\n" }]);
    w.apply([{ path: ".frontier/attempts/a@1.json", kind: "create", content: "{}\n" }]);
    expect(() =>
      w.apply([{ path: ".frontier/attempts/a@1.json", kind: "create", content: '{"n":1}\n' }]),
    ).toThrow(RecordExistsError);
    expect(readFileSync(join(dir, ".frontier/attempts/a@1.json"), "utf8")).toBe("{}\n");
  });

  it("replaces a ticket file whole and appends to the worklog, leaving no temporary files", () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-sync-"));
    writeFileSync(join(dir, "a.md"), "---\n---\nold\n");
    const w = new SyncWriter(dir);
    w.apply([
      { path: "a.md", kind: "replace", content: "---\nstatus: ready\n---\nold\n" },
      { path: ".frontier/worklog.jsonl", kind: "append", content: '{"n":1}\n' },
      { path: ".frontier/worklog.jsonl", kind: "append", content: '{"n":2}\n' },
    ]);
    expect(readFileSync(join(dir, "a.md"), "utf8")).toBe("---\nstatus: ready\n---\nold\n");
    expect(readFileSync(join(dir, ".frontier/worklog.jsonl"), "utf8")).toBe('{"n":1}\n{"n":2}\n');
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
