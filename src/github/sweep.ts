/**
 * The scheduled sweep finds every live run, on whatever branch it lives. The registry is
 * the branches themselves: a run keeps `DIR/.frontier/live.json` on its branch while it
 * is live (written when it starts, removed when it ends, both in commits it makes
 * anyway), naming its branch. One GraphQL query lists 100 branches with that file's
 * text, so finding every live run costs one request per 100 branches and no write; a
 * branch cut from a run's branch carries a copy naming the original, and is skipped.
 *
 * The runs a live run's claims started are found by their claim token in the runs
 * listing, one listing per workflow however many claims (`findClaimRuns`).
 */
import { type FindRunsOptions, findRunsByClaims } from "./dispatch.js";
import type { Repo } from "./git.js";
import type { GitHub } from "./octokit.js";
import { livePath } from "./state.js";

const QUERY = `query FrontierLiveRuns($owner: String!, $name: String!, $path: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    refs(refPrefix: "refs/heads/", first: 100, after: $after) {
      nodes {
        name
        target {
          ... on Commit {
            file(path: $path) { object { ... on Blob { text } } }
          }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

interface Page {
  repository: {
    refs: {
      nodes: Array<{
        name: string;
        target: { file?: { object?: { text?: string | null } | null } | null } | null;
      }>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    } | null;
  } | null;
}

/** Branches with a live run of the ticket directory `dir` (at most `maxPages` × 100 branches looked at). */
export async function findLiveBranches(
  gh: GitHub,
  repo: Repo,
  dir: string,
  maxPages = 20,
): Promise<string[]> {
  const live: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const data: Page = await gh.graphql<Page>(QUERY, {
      owner: repo.owner,
      name: repo.repo,
      path: livePath(dir),
      after,
    });
    const refs = data.repository?.refs;
    if (!refs) break;
    for (const node of refs.nodes) {
      const text = node.target?.file?.object?.text;
      if (typeof text === "string" && namesBranch(text, node.name)) live.push(node.name);
    }
    if (!refs.pageInfo.hasNextPage || !refs.pageInfo.endCursor) break;
    after = refs.pageInfo.endCursor;
  }
  return live;
}

/** Whether a run's `live.json` or `state.json` names `branch`: the run lives there, not a copy. */
export function namesBranch(text: string, branch: string): boolean {
  try {
    return JSON.parse(text)?.branch === branch;
  } catch {
    return false; // not ours to read
  }
}

/**
 * The runs that carry each claim's token, each looked for in its workflow's runs listing
 * since the earliest of that workflow's claims.
 */
export async function findClaimRuns(
  gh: GitHub,
  repo: Repo,
  claims: ReadonlyArray<{ claim: string; workflow: string; since: number }>,
  options: (workflow: string) => FindRunsOptions = () => ({}),
): Promise<Map<string, { id: number; url: string }>> {
  const byWorkflow = new Map<string, Array<{ claim: string; since: number }>>();
  for (const c of claims) byWorkflow.set(c.workflow, [...(byWorkflow.get(c.workflow) ?? []), c]);
  const found = new Map<string, { id: number; url: string }>();
  for (const [workflow, list] of byWorkflow) {
    const since = Math.min(...list.map((c) => c.since));
    const tokens = new Set(list.map((c) => c.claim));
    const runs = await findRunsByClaims(gh, repo, workflow, tokens, since, options(workflow));
    for (const [k, v] of runs) found.set(k, v);
  }
  return found;
}
