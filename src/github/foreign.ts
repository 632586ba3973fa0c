/**
 * A branch cut from a run's branch carries a copy of that run's records. When the new
 * branch starts its own run, the copy moves under `.frontier/runs/<run>-<branch>-<sha>/`
 * in one commit, trees moved by id (nothing is sent again), so no record of either run
 * is overwritten or taken for the other's.
 */

import { errorText } from "../core/errors.js";
import type { BranchRead } from "./branch.js";
import { UserError } from "./errors.js";
import { commitTree } from "./git.js";
import { apiFailure, type GitHub, isPushRefused, isUnclear } from "./octokit.js";
import type { RunContext } from "./run-context.js";
import { frontierDirPath, type GitHubState } from "./state.js";

/** One entry of a tree, as the Git Data API lists it. */
export type TreeEntry = Awaited<
  ReturnType<GitHub["rest"]["git"]["getTree"]>
>["data"]["tree"][number];

/** The entries of the tree `sha` (one request). */
export async function listTree(ctx: RunContext, sha: string): Promise<TreeEntry[]> {
  return (await ctx.gh.rest.git.getTree({ ...ctx.repo, tree_sha: sha })).data.tree;
}

/** The tree at `path` under the tree `root` (one request per path segment), if any. */
export async function subtree(
  ctx: RunContext,
  root: string,
  path: string,
): Promise<string | undefined> {
  let sha: string | undefined = root;
  for (const part of path.split("/").filter(Boolean)) {
    if (!sha) return undefined;
    sha = (await listTree(ctx, sha)).find((e) => e.path === part && e.type === "tree")?.sha;
  }
  return sha;
}

/** `base` (none: an empty tree) with the tree `sha` at `path`, and text `files` (one write). */
export async function putTree(
  ctx: RunContext,
  base: string | undefined,
  path: string,
  sha: string,
  files: ReadonlyArray<{ path: string; content: string }> = [],
): Promise<string> {
  const answer = await ctx.gh.rest.git.createTree({
    ...ctx.repo,
    ...(base ? { base_tree: base } : {}),
    tree: [
      { path, mode: "040000", type: "tree", sha },
      ...files.map((f) => ({ ...f, mode: "100644" as const, type: "blob" as const })),
    ],
  });
  return answer.data.sha;
}

/**
 * Move `.frontier/` of a run copied from another branch to `.frontier/runs/<run>-<branch>-<sha>/`
 * in one commit on the head read (compare-and-swap). Trees are moved by id: no record is sent again.
 */
export async function archiveForeignRun(
  ctx: RunContext,
  at: Pick<BranchRead, "head" | "tree">,
  foreign: GitHubState,
): Promise<void> {
  const frontierDir = frontierDirPath(ctx.dir);
  const old = await subtree(ctx, at.tree, frontierDir);
  if (!old) return;
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 60);
  const name = `${safe(foreign.run.run)}-${safe(foreign.branch)}-${at.head.slice(0, 7)}`;
  const runs = await putTree(ctx, await subtree(ctx, old, "runs"), name, old);
  const answer = await commitFilesAsTree(
    ctx,
    at,
    frontierDir,
    await putTree(ctx, undefined, "runs", runs),
    `frontier: ${ctx.branch} starts its own run; the run copied from ${foreign.branch} is kept under .frontier/runs/${name} [skip ci]`,
  );
  if (answer)
    ctx.log(
      `the state on ${ctx.branch} was copied from ${foreign.branch}: kept under ${frontierDir}/runs/${name}; this branch starts its own run`,
    );
}

/** One commit whose tree replaces the directory `path` by the tree `sha`; false when the branch moved. */
export async function commitFilesAsTree(
  ctx: RunContext,
  { head, tree: rootTree }: Pick<BranchRead, "head" | "tree">,
  path: string,
  sha: string,
  message: string,
): Promise<boolean> {
  // (the directory "" is the repository's root: its tree is the commit's)
  const tree = path === "" ? sha : await putTree(ctx, rootTree, path, sha);
  try {
    return (await commitTree(ctx.gh, ctx.repo, ctx.branch, head, tree, message)).kind === "ok";
  } catch (error) {
    if (isUnclear(error)) return false;
    if (isPushRefused(error)) throw pushRefused(ctx, error);
    throw error;
  }
}

export function pushRefused(ctx: RunContext, error: unknown): UserError {
  // GitHub's own words, on one line: for GraphQL the `errors[].message` (not Octokit's
  // "Request failed due to following response errors" wrapper), for REST the body's
  // `message` and its `errors`
  const said = (apiFailure(error)?.message || errorText(error)).replace(/\s*\n\s*/g, " ").trim();
  return new UserError(
    `the token may not push to branch ${ctx.branch} (GitHub said: ${said}). Ticket Frontier records the run's state by committing to the run's branch: run it on a branch the token can push to — the pull request's branch, or set the action's \`branch\` input to an unprotected branch such as frontier-state — or let GitHub Actions bypass the branch's protection or ruleset. The README's "Branch layouts" section shows each.`,
  );
}
