/**
 * The scheduled sweep finds every live run, on whatever branch it lives. The registry is
 * the branches themselves: a run keeps `DIR/.frontier/live.json` on its branch while it
 * is live (written when it starts, removed when it ends, both in commits it makes
 * anyway), naming its branch. One GraphQL query lists 100 branches with that file's
 * text, so finding every live run costs one request per 100 branches and no write; a
 * branch cut from a run's branch carries a copy naming the original, and is skipped.
 */
import { readJson } from "../core/json.js";
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

/** Branches with a live run of the ticket directory `dir` (at most 2,000 branches looked at). */
export async function findLiveBranches(gh: GitHub, repo: Repo, dir: string): Promise<string[]> {
  const live: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 20; page++) {
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
  // (text that is not JSON is not ours to read)
  const json = readJson(text);
  return json.ok && (json.value as { branch?: unknown } | null)?.branch === branch;
}
