/**
 * The run's branch as a compare-and-swap register, through GraphQL: ONE query reads the
 * head commit and the run's files at exactly that commit (state, worklog, and when asked
 * the tickets of the run's base); ONE `createCommitOnBranch` mutation writes every file of
 * an event as a commit on that head, and fails, changing nothing, when the branch moved.
 * Two requests an event, from the GraphQL budget, and one write.
 *
 * Every answer GitHub gives to a lost race — an expected-head mismatch, "not a fast
 * forward", "Reference cannot be updated", "Reference update failed" — is a conflict: the
 * caller re-reads and re-applies. An answer that says nothing (a 5xx, a timeout, a reset
 * connection) is `unclear`: the write may have landed, and only a re-read can tell.
 */

import { UserError } from "./errors.js";
import { commitFiles, type FileWrite, type Repo, readHead, readText } from "./git.js";
import { apiFailure, type GitHub, isConflict, isRateLimit, isUnclear } from "./octokit.js";

export interface BlobText {
  /** the blob's id (for a read through the REST blob API when GraphQL truncates it) */
  oid: string;
  text: string;
}

export interface BranchRead {
  /** the head commit */
  head: string;
  files: Map<string, BlobText>;
  /** directory path → its files (name → text), for each directory asked for that exists */
  dirs: Map<string, Map<string, BlobText>>;
}

const FILE_FIELDS = "oid object { ... on Blob { text isTruncated isBinary } }";

/**
 * The head of `branch` and the files at `paths` in that very commit, or undefined when the
 * branch does not exist. One GraphQL query (1 point), whatever the number of paths.
 */
export async function readBranch(
  gh: GitHub,
  repo: Repo,
  branch: string,
  paths: readonly string[],
  dirPaths: readonly string[] = [],
): Promise<BranchRead | undefined> {
  const fields = [
    ...paths.map((_, i) => `f${i}: file(path: $p${i}) { ${FILE_FIELDS} }`),
    ...dirPaths.map(
      (_, i) =>
        `d${i}: file(path: $d${i}) { object { ... on Tree { entries { name type ${FILE_FIELDS} } } } }`,
    ),
  ].join("\n          ");
  const params = [
    ...paths.map((_, i) => `, $p${i}: String!`),
    ...dirPaths.map((_, i) => `, $d${i}: String!`),
  ].join("");
  const query = `query FrontierRead($owner: String!, $name: String!, $ref: String!${params}) {
  repository(owner: $owner, name: $name) {
    ref(qualifiedName: $ref) {
      target {
        oid
        ... on Commit {
          ${fields}
        }
      }
    }
  }
}`;
  const variables: Record<string, string> = {
    owner: repo.owner,
    name: repo.repo,
    ref: `refs/heads/${branch}`,
  };
  paths.forEach((p, i) => {
    variables[`p${i}`] = p;
  });
  dirPaths.forEach((p, i) => {
    variables[`d${i}`] = p;
  });
  type Entry = {
    oid: string;
    object: { text?: string | null; isTruncated?: boolean; isBinary?: boolean | null } | null;
  } | null;
  const data = await gh.graphql<{
    repository: { ref: { target: Record<string, unknown> & { oid: string } } | null } | null;
  }>(query, variables);
  if (!data.repository) {
    throw new UserError(`repository ${repo.owner}/${repo.repo} is not visible to the token`);
  }
  const target = data.repository.ref?.target;
  if (!target) return undefined;
  const blobText = async (entry: NonNullable<Entry>): Promise<string> => {
    const blob = entry.object;
    const text = blob?.text ?? undefined;
    if (text !== undefined && !blob?.isTruncated) return text;
    // GraphQL gives no text for a large (or binary-looking) blob: the REST blob API does
    const answer = await gh.rest.git.getBlob({ ...repo, file_sha: entry.oid });
    return answer.data.encoding === "base64"
      ? Buffer.from(answer.data.content, "base64").toString("utf8")
      : answer.data.content;
  };
  const files = new Map<string, BlobText>();
  for (let i = 0; i < paths.length; i++) {
    const entry = target[`f${i}`] as Entry;
    if (!entry?.object) continue;
    files.set(paths[i] as string, { oid: entry.oid, text: await blobText(entry) });
  }
  const dirs = new Map<string, Map<string, BlobText>>();
  for (let i = 0; i < dirPaths.length; i++) {
    const dir = target[`d${i}`] as {
      object: { entries?: Array<NonNullable<Entry> & { name: string; type: string }> } | null;
    } | null;
    const entries = dir?.object?.entries;
    if (!entries) continue;
    const out = new Map<string, BlobText>();
    for (const e of entries) {
      if (e.type !== "blob") continue;
      out.set(e.name, { oid: e.oid, text: await blobText(e) });
    }
    dirs.set(dirPaths[i] as string, out);
  }
  return { head: target.oid, files, dirs };
}

export interface FileChanges {
  /** path from the repository root → new content */
  additions: ReadonlyMap<string, string>;
  deletions: readonly string[];
}

export type CommitAnswer =
  | { kind: "ok"; sha: string }
  /** the branch is no longer at the expected head: re-read and re-apply */
  | { kind: "moved"; message: string }
  /** no answer to trust: the commit may have landed — re-read to find out */
  | { kind: "unclear"; message: string };

const COMMIT = `mutation FrontierCommit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}`;

/** One commit of every change on `expectedHead`, or nothing (compare-and-swap). */
export async function commitOnBranch(
  gh: GitHub,
  repo: Repo,
  branch: string,
  expectedHead: string,
  changes: FileChanges,
  message: string,
): Promise<CommitAnswer> {
  const cut = message.indexOf("\n\n");
  const input = {
    branch: { repositoryNameWithOwner: `${repo.owner}/${repo.repo}`, branchName: branch },
    expectedHeadOid: expectedHead,
    message:
      cut < 0
        ? { headline: message }
        : { headline: message.slice(0, cut), body: message.slice(cut + 2) },
    fileChanges: {
      additions: [...changes.additions].map(([path, text]) => ({
        path,
        contents: Buffer.from(text, "utf8").toString("base64"),
      })),
      deletions: changes.deletions.map((path) => ({ path })),
    },
  };
  try {
    const data = await gh.graphql<{ createCommitOnBranch: { commit: { oid: string } } | null }>(
      COMMIT,
      // never re-sent blindly: an answer lost after the commit landed is settled by a re-read
      { input, request: { retries: 0 } },
    );
    const oid = data.createCommitOnBranch?.commit?.oid;
    if (!oid) return { kind: "unclear", message: "GitHub answered without the new commit" };
    return { kind: "ok", sha: oid };
  } catch (error) {
    if (isConflict(error)) return { kind: "moved", message: apiFailure(error)?.message ?? "" };
    if (isRateLimit(error)) throw error;
    if (isUnclear(error)) return { kind: "unclear", message: String((error as Error).message) };
    throw error;
  }
}

/** Reads and compare-and-swap commits of one branch: GraphQL, or REST when GraphQL's budget is spent. */
export interface BranchStore {
  readonly api: "graphql" | "rest";
  read(paths: readonly string[], dirs?: readonly string[]): Promise<BranchRead | undefined>;
  commit(expectedHead: string, changes: FileChanges, message: string): Promise<CommitAnswer>;
}

export function graphqlStore(gh: GitHub, repo: Repo, branch: string): BranchStore {
  return {
    api: "graphql",
    read: (paths, dirs) => readBranch(gh, repo, branch, paths, dirs),
    commit: (head, changes, message) => commitOnBranch(gh, repo, branch, head, changes, message),
  };
}

/**
 * The same register through the REST API: the branch, one contents read per file, and a
 * commit as tree + commit + non-forced ref update. Three writes instead of one, and a
 * separate budget: used when GraphQL's is spent, so an outcome is still recorded.
 */
export function restStore(gh: GitHub, repo: Repo, branch: string): BranchStore {
  const trees = new Map<string, string>();
  return {
    api: "rest",
    async read(paths, dirPaths = []) {
      const head = await readHead(gh, repo, branch);
      if (!head) return undefined;
      trees.set(head.sha, head.tree);
      const files = new Map<string, BlobText>();
      for (const path of paths) {
        const text = await readText(gh, repo, path, head.sha);
        if (text !== undefined) files.set(path, { oid: "", text });
      }
      const dirs = new Map<string, Map<string, BlobText>>();
      for (const dir of dirPaths) {
        let listing: unknown;
        try {
          listing = (await gh.rest.repos.getContent({ ...repo, path: dir, ref: head.sha })).data;
        } catch (error) {
          if (apiFailure(error)?.status === 404) continue;
          throw error;
        }
        if (!Array.isArray(listing)) continue;
        const out = new Map<string, BlobText>();
        for (const e of listing as Array<{ name: string; type: string; path: string }>) {
          if (e.type !== "file") continue;
          const text = await readText(gh, repo, e.path, head.sha);
          if (text !== undefined) out.set(e.name, { oid: "", text });
        }
        dirs.set(dir, out);
      }
      return { head: head.sha, files, dirs };
    },
    async commit(expectedHead, changes, message) {
      let tree = trees.get(expectedHead);
      if (!tree) {
        const commit = await gh.rest.git.getCommit({ ...repo, commit_sha: expectedHead });
        tree = commit.data.tree.sha;
      }
      const writes: FileWrite[] = [...changes.additions].map(([path, content]) => ({
        path,
        content,
      }));
      try {
        const answer = await commitFiles(
          gh,
          repo,
          branch,
          { sha: expectedHead, tree },
          writes,
          message,
          changes.deletions,
        );
        return answer.kind === "ok"
          ? answer
          : { kind: "moved", message: "the branch moved (not a fast forward)" };
      } catch (error) {
        if (isRateLimit(error)) throw error;
        if (isUnclear(error)) return { kind: "unclear", message: String((error as Error).message) };
        throw error;
      }
    },
  };
}
