/** The streams and environment a command talks to (the CLI and the local runner): passed in, so tests can drive them in-process. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** Exit codes of SPEC §6. */
export const EXIT = {
  complete: 0,
  failed: 1,
  usage: 2,
  suspended: 3,
  limited: 4,
  cancelled: 5,
} as const;

export function line(stream: NodeJS.WritableStream, text = ""): void {
  stream.write(`${text}\n`);
}
