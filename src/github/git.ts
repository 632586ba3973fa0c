/**
 * The run's branch as a compare-and-swap register, through the Git Data API: read the
 * head, then write every file of an event in ONE commit whose parent is that head, and
 * move the branch with `force: false`. If the branch moved meanwhile GitHub answers
 * 422 ("Update is not a fast forward", or "Reference cannot be updated" under concurrent
 * writes) and the caller re-reads and re-applies: no update is lost.
 */
import { isUtf8 } from "node:buffer";
import type { ChangeMode } from "../core/changes.js";
import { apiFailure, type GitHub, isConflict, rateLimitOf } from "./octokit.js";

export interface Repo {
  owner: string;
  repo: string;
}

export interface Head {
  /** the commit the branch points at */
  sha: string;
  /** that commit's tree: the base of the next commit's tree */
  tree: string;
}

/** The head of `branch` (one request), or undefined when the branch does not exist. */
export async function readHead(gh: GitHub, repo: Repo, branch: string): Promise<Head | undefined> {
  const answer = await gh.rest.repos.getBranch({ ...repo, branch }).catch((error: unknown) => {
    if (apiFailure(error)?.status !== 404) throw error; // a 404: no branch
  });
  return answer
    ? { sha: answer.data.commit.sha, tree: answer.data.commit.commit.tree.sha }
    : undefined;
}

/** A blob's bytes as UTF-8 text (one request). */
export async function readBlob(gh: GitHub, repo: Repo, sha: string): Promise<string> {
  const blob = await gh.rest.git.getBlob({ ...repo, file_sha: sha });
  return blob.data.encoding === "base64"
    ? Buffer.from(blob.data.content, "base64").toString("utf8")
    : blob.data.content;
}

export interface FileChanges {
  /** path from the repository root → new content (text, or bytes kept exactly) */
  additions: ReadonlyMap<string, string | Uint8Array>;
  deletions: readonly string[];
  /**
   * Entries written by blob id with their mode — an executable, a symlink — which
   * `createCommitOnBranch` cannot write (it makes every file 100644): a commit with any
   * goes through the Git Data API (tree, commit, non-forced ref update). Their blobs are
   * on GitHub already (uploaded before the compare-and-swap loop, or at the start commit).
   */
  entries?: ReadonlyMap<string, { mode: ChangeMode; sha: string }>;
}

/** GitHub refused to store a file's content (push protection: a secret in it): the attempt's reason. */
export class ContentRefused extends Error {
  /** A blob upload's failure: GitHub's refusal of `path`'s content (a 4xx, no rate limit) is one. */
  static of = (path: string) => (error: unknown) => {
    const f = apiFailure(error);
    if (!f || f.status < 400 || f.status >= 500 || rateLimitOf(error)) throw error;
    throw new ContentRefused(
      `integration refused: GitHub refused to store ${path} (${f.message}) — take out what it objects to (push protection refuses a secret), then retry the ticket; nothing was integrated, the attempt record keeps its paths and blob ids`,
    );
  };
}

/**
 * Upload `content` as a blob (one write); GitHub answers its id, git's content id, so
 * the same bytes uploaded again are the same blob.
 */
export async function uploadBlob(gh: GitHub, repo: Repo, content: Uint8Array): Promise<string> {
  const answer = await gh.rest.git.createBlob({
    ...repo,
    content: Buffer.from(content).toString("base64"),
    encoding: "base64",
  });
  return answer.data.sha;
}

type CommitResult = { kind: "ok"; sha: string } | { kind: "moved" };

/**
 * One commit with every file, parent `head`, then a non-forced ref update.
 * `moved`: the branch is no longer at `head` — re-read and re-apply.
 */
export async function commitFiles(
  gh: GitHub,
  repo: Repo,
  branch: string,
  head: Head,
  changes: FileChanges,
  message: string,
): Promise<CommitResult> {
  const blob = { mode: "100644", type: "blob" } as const;
  // a tree entry's `content` is text: bytes that are not UTF-8 go up as a blob first
  const written = await Promise.all(
    [...changes.additions].map(async ([path, content]) => ({
      ...blob,
      path,
      ...(typeof content === "string"
        ? { content }
        : isUtf8(content)
          ? { content: Buffer.from(content).toString("utf8") }
          : { sha: await uploadBlob(gh, repo, content).catch(ContentRefused.of(path)) }),
    })),
  );
  const tree = await gh.rest.git.createTree({
    ...repo,
    base_tree: head.tree,
    // deletions first, as createCommitOnBranch makes them: a file may take a directory's place
    tree: [
      ...changes.deletions.map((path) => ({ ...blob, path, sha: null })),
      ...written,
      ...[...(changes.entries ?? [])].map(([path, e]) => ({ ...blob, path, ...e })),
    ],
  });
  return commitTree(gh, repo, branch, head.sha, tree.data.sha, message);
}

/**
 * A commit of `tree` on `parent`, then the branch moved to it without force (two
 * writes). `moved`: the branch is no longer at `parent` — re-read and re-apply.
 */
export async function commitTree(
  gh: GitHub,
  repo: Repo,
  branch: string,
  parent: string,
  tree: string,
  message: string,
): Promise<CommitResult> {
  const commit = await gh.rest.git.createCommit({ ...repo, message, tree, parents: [parent] });
  try {
    await gh.rest.git.updateRef({
      ...repo,
      ref: `heads/${branch}`,
      sha: commit.data.sha,
      force: false,
      // never re-sent blindly: a lost answer is settled by re-reading the branch
      request: { retries: 0 },
    });
  } catch (error) {
    if (isConflict(error)) return { kind: "moved" };
    throw error;
  }
  return { kind: "ok", sha: commit.data.sha };
}
