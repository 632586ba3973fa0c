/**
 * Who the bot obeys: people with write, maintain or admin permission on the
 * repository, as the collaborator permission endpoint reports it. Never
 * `author_association`: it is unreliable (private org members show as CONTRIBUTOR)
 * and says nothing about what someone may change.
 */
import type { Octokit } from "@octokit/rest";
import { errorText } from "../core/errors.js";
import { apiFailure } from "./octokit.js";

/** GitHub's built-in repository roles, lowest first. */
const BUILT_IN_ROLES = new Set(["none", "read", "triage", "write", "maintain", "admin"]);

const STEERING: ReadonlySet<string> = new Set(["write", "maintain", "admin"]);

/**
 * Bots are never obeyed and never answered, before any API call: the action's own
 * comments (`github-actions[bot]`) and every other app. A loop of bots replying to
 * each other is how a repository burns its rate limit.
 */
export function isBot(user: { login: string; type?: string | null } | null): boolean {
  return !user || user.type === "Bot" || /\[bot\]$/i.test(user.login);
}

export type Permission =
  | { kind: "allowed"; role: string }
  | { kind: "refused"; role: string }
  /** the API could not say (an error other than 404): treated as refused, and said so */
  | { kind: "unknown"; message: string };

/**
 * `role_name` decides when it is a built-in role; a custom role (any other
 * `role_name`) is judged by `permission`, which GitHub reports as the base role the
 * custom role inherits from.
 */
function judge(
  roleName: string | null | undefined,
  permission: string | null | undefined,
): Permission {
  const role = (roleName ?? "").toLowerCase();
  const base = (permission ?? "none").toLowerCase();
  const builtIn = BUILT_IN_ROLES.has(role);
  const shown = builtIn ? role : role === "" ? base : `${role} (based on ${base})`;
  return { kind: STEERING.has(builtIn ? role : base) ? "allowed" : "refused", role: shown };
}

/** What the permission endpoint says about `login` on owner/repo. */
export async function steeringPermission(
  octokit: Octokit,
  owner: string,
  repo: string,
  login: string,
): Promise<Permission> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner,
      repo,
      username: login,
    });
    return judge(data.role_name, data.permission);
  } catch (error) {
    // 404: not a collaborator (or no such user): no access at all.
    if (apiFailure(error)?.status === 404) return { kind: "refused", role: "none" };
    return { kind: "unknown", message: errorText(error) };
  }
}
