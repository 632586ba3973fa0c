/**
 * A mistake a user can fix: said as what, where and how, and shown without a stack
 * trace. Anything else that escapes is a bug or an outage and is shown as such.
 */
export class UserError extends Error {
  override readonly name = "UserError";
  /** extra lines (one problem each), printed after the message */
  readonly details: readonly string[];
  /** `invalid-graph`: the ticket directory does not hold together (nothing was started) */
  readonly code: "invalid-graph" | undefined;
  constructor(message: string, details: readonly string[] = [], code?: "invalid-graph") {
    super(message);
    this.details = details;
    this.code = code;
  }
}
