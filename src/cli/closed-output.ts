/**
 * `frontier status | head -1`: the reader goes away, and the next write to stdout fails
 * with EPIPE. That is the reader's choice, not an error: the command ends quietly (a
 * run keeps running its attempts to their end; it only stops printing).
 */
export function quietWhenClosed(stream: NodeJS.WritableStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    // EIO: the terminal itself is gone (a closed window, a dropped SSH session)
    if (error.code === "EPIPE" || error.code === "EIO" || error.code === "ERR_STREAM_DESTROYED")
      return;
    throw error;
  });
}
