import { apiFailure } from "./octokit.js";

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

/**
 * Why GitHub refused a commit for a workflow file this token may not write — "refusing to
 * allow a GitHub App (or an OAuth App) to create or update workflow `PATH` without
 * `workflows` permission", matched by its message on every route (its status is not
 * documented) — and what would let it land; undefined for any other error.
 */
export function workflowRefusal(error: unknown): string | undefined {
  const path =
    /refusing to allow an? (?:GitHub|OAuth) App to create or update workflow `([^`]+)`/i.exec(
      apiFailure(error)?.message ?? "",
    )?.[1];
  return path === undefined
    ? undefined
    : `integration refused: GitHub refuses this token a change to the workflow file ${path} (a change under .github/workflows/ needs the workflows permission, which the job's GITHUB_TOKEN can never have) — to let it land, pass a token with that permission in the action's token input (a fine-grained token with Workflows: write, or a GitHub App token with workflows: write), then retry the ticket; the change is kept as evidence, nothing was integrated`;
}
