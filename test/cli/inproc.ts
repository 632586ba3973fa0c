/** A command's io in memory: stdout and stderr as text, a terminal or not, an environment. */
import { PassThrough } from "node:stream";
import type { CliIo } from "../../src/terminal/io.js";

export interface Captured {
  io: CliIo;
  stdout: () => string;
  stderr: () => string;
}

export function captured(env: NodeJS.ProcessEnv = {}, opts: { tty?: boolean } = {}): Captured {
  const streams = [new PassThrough(), new PassThrough()].map((s) =>
    opts.tty ? Object.assign(s, { isTTY: true, columns: 100, rows: 40 }) : s,
  );
  const texts = ["", ""];
  for (const [i, s] of streams.entries()) {
    s.on("data", (chunk) => {
      texts[i] += String(chunk);
    });
  }
  return {
    io: { stdout: streams[0]!, stderr: streams[1]!, isTTY: !!opts.tty, env },
    stdout: () => texts[0]!,
    stderr: () => texts[1]!,
  };
}
