import { errorText } from "./errors.js";

/** JSON text read without throwing: the value, or what `JSON.parse` said is wrong with it. */
export type JsonRead = { ok: true; value: unknown } | { ok: false; error: string };

export function readJson(text: string): JsonRead {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: errorText(error) };
  }
}
