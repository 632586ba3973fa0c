/** A full disk names the file it could not write, and what to do about it. */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

// the disk "fills up" for every write of a file whose path holds "full"
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const full = (path: unknown) => {
    if (String(path).includes("full")) {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
        code: "ENOSPC",
      });
    }
  };
  // a file opened for writing: its writes fail when its path does
  const opened = new Map<number, unknown>();
  return {
    ...fs,
    openSync: (path: Parameters<typeof fs.openSync>[0], ...rest: unknown[]) => {
      const fd = (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
      opened.set(fd, path);
      return fd;
    },
    writeSync: (fd: number, ...rest: unknown[]) => {
      full(opened.get(fd));
      return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
    },
    writeFileSync: (path: Parameters<typeof fs.writeFileSync>[0], ...rest: unknown[]) => {
      full(path);
      return (fs.writeFileSync as (...a: unknown[]) => void)(path, ...rest);
    },
    appendFileSync: (path: Parameters<typeof fs.appendFileSync>[0], ...rest: unknown[]) => {
      full(typeof path === "number" ? opened.get(path) : path);
      return (fs.appendFileSync as (...a: unknown[]) => void)(path, ...rest);
    },
  };
});

const { applyEdits } = await import("../../src/tickets/store.js");

describe("a full disk", () => {
  it("names the file it could not write and says to free space; no temporary file is left", () => {
    const dir = mkdtempSync(join(tmpdir(), "frontier-store-"));
    expect(() =>
      applyEdits(dir, [
        { path: "ok.md", kind: "replace", content: "fine" },
        { path: "full.md", kind: "replace", content: "x" },
      ]),
    ).toThrow(
      new RegExp(`could not write ${join(dir, "full.md")}: the disk is full.*free some space`),
    );
    expect(readdirSync(dir)).toEqual(["ok.md"]);
    expect(() =>
      applyEdits(dir, [{ path: ".frontier/full.jsonl", kind: "append", content: "{}\n" }]),
    ).toThrow(/could not write .*\.frontier\/full\.jsonl: the disk is full/);
    expect(existsSync(join(dir, "full.md"))).toBe(false);
  });
});
