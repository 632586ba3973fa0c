/**
 * Colour for a terminal, plain text everywhere else. Decided per stream, by the rules
 * Node applies to its own output (tty.WriteStream#getColorDepth): `FORCE_COLOR` set to
 * `1`, `2`, `3`, `true` or empty turns colour on and any other value off, whatever else
 * is set; otherwise `NO_COLOR` or `NODE_DISABLE_COLORS` (non-empty) or `TERM=dumb` turn
 * it off; otherwise a terminal gets colour and a pipe or file does not.
 *
 * Colour is never the only signal: every state keeps its glyph and its word.
 */
import { styleText } from "node:util";
import type { Status } from "../core/model.js";
import type { CliIo } from "./io.js";

export type Style = "red" | "green" | "yellow" | "blue" | "gray" | "bold" | "dim" | "cyan";

export interface Paint {
  readonly enabled: boolean;
  (style: Style, text: string): string;
}

/** A stream colour is decided for: a terminal's has `isTTY`. */
type Stream = NodeJS.WritableStream & { isTTY?: boolean };

export function colourEnabled(stream: Stream, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return ["", "1", "2", "3", "true"].includes(force);
  if (env.NO_COLOR || env.NODE_DISABLE_COLORS || env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/** A painter for one stream: `paint("red", "failed")`, plain when colour is off. */
export function painter(stream: Stream, env: NodeJS.ProcessEnv): Paint {
  const enabled = colourEnabled(stream, env);
  // Whether to colour is decided above, for this stream: styleText would look at
  // process.stdout instead (validateStream), which is the wrong stream for stderr.
  const paint = (style: Style, text: string) =>
    enabled && text !== "" ? styleText(style, text, { validateStream: false }) : text;
  return Object.assign(paint, { enabled });
}

/** The colour of each state: green done, red failed, yellow waiting on a person. */
export const STATUS_STYLE: Readonly<Record<Status, Style>> = {
  pending: "gray",
  ready: "cyan",
  claimed: "blue",
  complete: "green",
  empty: "yellow",
  failed: "red",
  blocked: "red",
  suspended: "yellow",
  limited: "yellow",
  cancelled: "gray",
};

/** `error: …` on stderr, the word in red on a terminal. */
export function errorLine(io: Pick<CliIo, "stderr" | "env">, message: string): void {
  io.stderr.write(`${painter(io.stderr, io.env)("red", "error:")} ${message}\n`);
}
