/**
 * The run's branch as a compare-and-swap register, through the Git Data API: read the
 * head, then write every file of an event in ONE commit whose parent is that head, and
 * move the branch with `force: false`. If the branch moved meanwhile GitHub answers
 * 422 ("Update is not a fast forward", or "Reference cannot be updated" under concurrent
 * writes) and the caller re-reads and re-applies: no update is lost.
 */
import { isUtf8 } from "node:buffer";
import type { ChangeMode } from "../core/changes.js";
import { apiFailure, type GitHub, isConflict } from "./octokit.js";

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
  try {
    const answer = await gh.rest.repos.getBranch({ ...repo, branch });
    return { sha: answer.data.commit.sha, tree: answer.data.commit.commit.tree.sha };
  } catch (error) {
    if (apiFailure(error)?.status === 404) return undefined;
    throw error;
  }
}

/**
 * A file's text at a commit, or undefined when there is no such file. Files over the
 * contents API's 1 MB are read through the blob API (up to 100 MB).
 */
export async function readText(
  gh: GitHub,
  repo: Repo,
  path: string,
  ref: string,
): Promise<string | undefined> {
  let data: unknown;
  try {
    data = (await gh.rest.repos.getContent({ ...repo, path, ref })).data;
  } catch (error) {
    if (apiFailure(error)?.status === 404) return undefined;
    throw error;
  }
  if (Array.isArray(data) || typeof data !== "object" || data === null) return undefined;
  const file = data as {
    type?: string;
    content?: string;
    encoding?: string;
    sha?: string;
    size?: number;
  };
  if (file.type !== "file") return undefined;
  if (
    file.encoding === "base64" &&
    typeof file.content === "string" &&
    (file.content !== "" || file.size === 0)
  ) {
    return Buffer.from(file.content, "base64").toString("utf8");
  }
  if (!file.sha) return undefined;
  const blob = await gh.rest.git.getBlob({ ...repo, file_sha: file.sha });
  return blob.data.encoding === "base64"
    ? Buffer.from(blob.data.content, "base64").toString("utf8")
    : blob.data.content;
}

export interface FileWrite {
  /** path from the repository root */
  path: string;
  /** text, or bytes kept exactly (bytes that are not UTF-8 go up as a blob first) */
  content: string | Uint8Array;
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

export type CommitResult = { kind: "ok"; sha: string } | { kind: "moved" };

/**
 * One commit with every file, parent `head`, then a non-forced ref update.
 * `moved`: the branch is no longer at `head` — re-read and re-apply.
 */
export async function commitFiles(
  gh: GitHub,
  repo: Repo,
  branch: string,
  head: Head,
  files: readonly FileWrite[],
  message: string,
  deletions: readonly string[] = [],
  entries: ReadonlyMap<string, { mode: ChangeMode; sha: string }> = new Map(),
): Promise<CommitResult> {
  // a tree entry's `content` is text: bytes that are not UTF-8 go up as a blob first
  const written = await Promise.all(
    files.map(async (f) => ({
      path: f.path,
      mode: "100644" as const,
      type: "blob" as const,
      ...(typeof f.content === "string"
        ? { content: f.content }
        : isUtf8(f.content)
          ? { content: Buffer.from(f.content).toString("utf8") }
          : { sha: await uploadBlob(gh, repo, f.content) }),
    })),
  );
  const tree = await gh.rest.git.createTree({
    ...repo,
    base_tree: head.tree,
    tree: [
      ...written,
      ...[...entries].map(([path, e]) => ({
        path,
        mode: e.mode as "100644" | "100755" | "120000",
        type: "blob" as const,
        sha: e.sha,
      })),
      ...deletions.map((path) => ({
        path,
        mode: "100644" as const,
        type: "blob" as const,
        sha: null,
      })),
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
