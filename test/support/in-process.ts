/** A command run in this process: streams that keep what it writes, and a ticket directory. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../../src/terminal/io.js";

/** Streams that keep what is written, for a command run in this process. */
export function captured(): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const stream = (add: (s: string) => void) =>
    ({
      write: (s: string) => {
        add(String(s));
        return true;
      },
    }) as unknown as NodeJS.WritableStream;
  return {
    io: {
      stdout: stream((s) => {
        out += s;
      }),
      stderr: stream((s) => {
        err += s;
      }),
      isTTY: false,
      env: {},
    },
    out: () => out,
    err: () => err,
  };
}

export function directory(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "frontier-dir-")), "tickets");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
