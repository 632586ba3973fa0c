/** What a `catch` holds, read without a cast: its message, and a system error's code. */

/** The message of what was thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The code of a system error (`ENOENT`, `EPERM`…); undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}
