/** What a `catch` holds, read without a cast: its message, and its code — the one guard in place of `as Error`. */

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of what was thrown (`ENOENT`, `ECONNREFUSED`…), when it has one. */
export function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "string"
    ? error.code
    : undefined;
}
