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

import { basename } from "node:path/posix";
import { errorText } from "../core/errors.js";
import { UserError } from "./errors.js";
import { commitFiles, type FileChanges, type Head, type Repo, readBlob, readHead } from "./git.js";
import { type GitHub, isConflict, isUnclear, rateLimitOf } from "./octokit.js";

export type { FileChanges };

export interface BranchRead {
  /** the head commit */
  head: string;
  /** the head commit's tree (the base of a commit through the Git Data API) */
  tree: string;
  /** path → text, for each file asked for that exists */
  files: Map<string, string>;
  /** directory path → its files (name → text), for each directory asked for that exists */
  dirs: Map<string, Map<string, string>>;
  /** path → the id of what is at that path in the head commit (absent: nothing), for each probe */
  oids?: Map<string, string>;
  /** path → the mode of what is at that path in the head commit (`40000`: a directory), for each probe */
  modes?: Map<string, string>;
  /** the newest commits of the branch, head first: id and message body */
  history?: Array<{ oid: string; body: string }>;
}

/** What a read looks at besides the files and directories: ids of paths, recent commits. */
export interface ReadExtra {
  /** paths whose ids at the head are wanted (what an attempt's changes touch) */
  probes?: readonly string[];
  /** how many of the newest commits to read (their ids and message bodies) */
  history?: number;
}

/** A directory's mode, as both stores read it (the REST API's `040000` too). */
export const TREE = "40000";

/** Probes per query: GitHub limits a query's nodes; more paths are read in further queries at the same head. */
const PROBES_PER_QUERY = 250;

const FILE_FIELDS = "oid object { ... on Blob { text isTruncated } }";

/** A file as the read's query answers it (FILE_FIELDS). */
type Entry = { oid: string; object: { text?: string | null; isTruncated?: boolean } | null };

/** GraphQL variables `$<prefix><i>` for `list`: their declarations and their values. */
function pathVariables(prefix: string, list: readonly string[]) {
  return {
    params: list.map((_, i) => `, $${prefix}${i}: String!`).join(""),
    values: Object.fromEntries(list.map((p, i) => [`${prefix}${i}`, p])),
  };
}

const probeFields = (probes: readonly string[]) =>
  probes.map((_, i) => `o${i}: file(path: $o${i}) { oid mode }`);

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
  extra: ReadExtra = {},
): Promise<BranchRead | undefined> {
  const probes = extra.probes ?? [];
  const firstProbes = probes.slice(0, PROBES_PER_QUERY);
  const fields = [
    "tree { oid }",
    ...(extra.history ? [`history(first: ${extra.history}) { nodes { oid messageBody } }`] : []),
    ...paths.map((_, i) => `f${i}: file(path: $p${i}) { ${FILE_FIELDS} }`),
    ...dirPaths.map(
      (_, i) =>
        `d${i}: file(path: $d${i}) { object { ... on Tree { entries { name type ${FILE_FIELDS} } } } }`,
    ),
    ...probeFields(firstProbes),
  ].join("\n          ");
  const vars = [
    pathVariables("p", paths),
    pathVariables("d", dirPaths),
    pathVariables("o", firstProbes),
  ];
  const query = `query FrontierRead($owner: String!, $name: String!, $ref: String!${vars.map((v) => v.params).join("")}) {
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
  const ref = `refs/heads/${branch}`;
  const data = await gh.graphql<{
    repository: { ref: { target: Record<string, unknown> & { oid: string } } | null } | null;
  }>(
    query,
    Object.assign({ owner: repo.owner, name: repo.repo, ref }, ...vars.map((v) => v.values)),
  );
  if (!data.repository) {
    throw new UserError(`repository ${repo.owner}/${repo.repo} is not visible to the token`);
  }
  const target = data.repository.ref?.target;
  if (!target) return undefined;
  const tree = (target.tree as { oid: string }).oid;
  const read: BranchRead = { head: target.oid, tree, files: new Map(), dirs: new Map() };
  for (const [i, path] of paths.entries()) {
    const entry = target[`f${i}`] as Entry | null;
    if (entry?.object) read.files.set(path, await blobText(gh, repo, entry));
  }
  for (const [i, dir] of dirPaths.entries()) {
    type Listed = Entry & { name: string; type: string };
    const listed = target[`d${i}`] as { object: { entries?: Listed[] } | null } | null;
    const entries = listed?.object?.entries;
    if (!entries) continue;
    const out = new Map<string, string>();
    for (const e of entries) if (e.type === "blob") out.set(e.name, await blobText(gh, repo, e));
    read.dirs.set(dir, out);
  }
  if (extra.history) {
    const nodes = (target.history as { nodes?: Array<{ oid: string; messageBody: string }> })
      ?.nodes;
    read.history = (nodes ?? []).map((n) => ({ oid: n.oid, body: n.messageBody }));
  }
  if (probes.length > 0) [read.oids, read.modes] = await probeIds(gh, repo, target, probes);
  return read;
}

/** An entry's text: GraphQL gives none for a large (or binary-looking) blob, the REST blob API does. */
async function blobText(gh: GitHub, repo: Repo, entry: Entry): Promise<string> {
  const { text, isTruncated } = entry.object ?? {};
  return typeof text === "string" && !isTruncated ? text : readBlob(gh, repo, entry.oid);
}

/**
 * The ids of `probes` at the read's head: the first batch came with the read (`target`),
 * each further one is a query of its own at the same head.
 */
async function probeIds(
  gh: GitHub,
  repo: Repo,
  target: Record<string, unknown> & { oid: string },
  probes: readonly string[],
): Promise<[Map<string, string>, Map<string, string>]> {
  const [oids, modes] = [new Map<string, string>(), new Map<string, string>()];
  for (let from = 0; from < probes.length; from += PROBES_PER_QUERY) {
    const batch = probes.slice(from, from + PROBES_PER_QUERY);
    const at = from === 0 ? target : await readProbes(gh, repo, target.oid, batch);
    for (const [i, path] of batch.entries()) {
      const { oid, mode } = (at[`o${i}`] as { oid?: string; mode?: number } | null) ?? {};
      if (oid) [oids.set(path, oid), modes.set(path, mode?.toString(8) ?? "")];
    }
  }
  return [oids, modes];
}

/** The ids of `paths` in commit `head` (one query): the probes beyond the read's first batch. */
async function readProbes(
  gh: GitHub,
  repo: Repo,
  head: string,
  paths: readonly string[],
): Promise<Record<string, unknown>> {
  const vars = pathVariables("o", paths);
  const query = `query FrontierProbe($owner: String!, $name: String!, $head: GitObjectID!${vars.params}) {
  repository(owner: $owner, name: $name) {
    object(oid: $head) {
      ... on Commit {
        ${probeFields(paths).join("\n        ")}
      }
    }
  }
}`;
  const data = await gh.graphql<{ repository: { object: Record<string, unknown> | null } | null }>(
    query,
    { owner: repo.owner, name: repo.repo, head, ...vars.values },
  );
  return data.repository?.object ?? {};
}

export type CommitAnswer =
  | { kind: "ok"; sha: string }
  /** the branch is no longer at the expected head: re-read and re-apply */
  | { kind: "moved" }
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
      additions: [...changes.additions].map(([path, content]) => {
        const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
        return { path, contents: Buffer.from(bytes).toString("base64") };
      }),
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
    if (isConflict(error)) return { kind: "moved" };
    return unclearOrThrow(error);
  }
}

/** A commit's failure that says nothing (it may have landed) is `unclear`; any other is thrown. */
function unclearOrThrow(error: unknown): CommitAnswer {
  if (!rateLimitOf(error) && isUnclear(error))
    return { kind: "unclear", message: errorText(error) };
  throw error;
}

/** Reads and compare-and-swap commits of one branch: GraphQL, or REST when GraphQL's budget is spent. */
export interface BranchStore {
  readonly api: "graphql" | "rest";
  read(
    paths: readonly string[],
    dirs?: readonly string[],
    extra?: ReadExtra,
  ): Promise<BranchRead | undefined>;
  /** `head`: the head read, with its tree (a Git Data commit builds on it) */
  commit(head: Head, changes: FileChanges, message: string): Promise<CommitAnswer>;
}

export function graphqlStore(gh: GitHub, repo: Repo, branch: string): BranchStore {
  return {
    api: "graphql",
    read: (paths, dirs, extra) => readBranch(gh, repo, branch, paths, dirs, extra),
    commit: (head, changes, message) =>
      (changes.entries?.size ?? 0) > 0
        ? gitDataCommit(gh, repo, branch, head, changes, message)
        : commitOnBranch(gh, repo, branch, head.sha, changes, message),
  };
}

/**
 * A commit through the Git Data API (tree with modes, commit, non-forced ref update): the
 * same compare-and-swap, for what `createCommitOnBranch` cannot write. Three writes.
 */
async function gitDataCommit(...args: Parameters<typeof commitFiles>): Promise<CommitAnswer> {
  try {
    return await commitFiles(...args);
  } catch (error) {
    return unclearOrThrow(error);
  }
}

/**
 * The same register through the REST API: the branch, a tree listing per directory read
 * and a blob per file, and a commit as tree + commit + non-forced ref update. Three writes instead of one, and a
 * separate budget: used when GraphQL's is spent, so an outcome is still recorded.
 */
export function restStore(gh: GitHub, repo: Repo, branch: string): BranchStore {
  return {
    api: "rest",
    async read(paths, dirPaths = [], extra = {}) {
      const head = await readHead(gh, repo, branch);
      if (!head) return undefined;
      // what is at a path: its directory's tree lists its id and mode (each tree listed once)
      type Listed = Map<string, { sha: string; mode: string }>;
      const listings = new Map<string, Promise<Listed | undefined>>();
      const listing = (dir: string) =>
        listings.get(dir) ?? listings.set(dir, listTree(dir)).get(dir);
      const listTree = async (dir: string): Promise<Listed | undefined> => {
        const tree = dir === "" ? { sha: head.tree, mode: TREE } : await entryAt(dir);
        if (tree?.mode !== TREE) return undefined;
        const { data } = await gh.rest.git.getTree({ ...repo, tree_sha: tree.sha });
        const mode = (m = "") => Number.parseInt(m, 8).toString(8);
        return new Map(
          data.tree.map((e) => [e.path ?? "", { sha: e.sha ?? "", mode: mode(e.mode) }]),
        );
      };
      const entryAt = async (path: string) =>
        (await listing(path.slice(0, Math.max(path.lastIndexOf("/"), 0))))?.get(basename(path));
      // a file's text (to 100 MB): a symbolic link, a submodule or a directory has none
      const text = (e?: { sha: string; mode: string }) =>
        e && /^100(644|755)$/.test(e.mode) ? readBlob(gh, repo, e.sha) : undefined;
      const [oids, modes] = [new Map<string, string>(), new Map<string, string>()];
      for (const path of extra.probes ?? []) {
        const entry = await entryAt(path);
        if (entry) [oids.set(path, entry.sha), modes.set(path, entry.mode)];
      }
      const history = extra.history
        ? (
            await gh.rest.repos.listCommits({ ...repo, sha: head.sha, per_page: extra.history })
          ).data.map((c) => ({
            oid: c.sha,
            body: c.commit.message.replace(/^[^\n]*\n*/, ""),
          }))
        : undefined;
      const files = new Map<string, string>();
      for (const path of paths) {
        const got = await text(await entryAt(path));
        if (got !== undefined) files.set(path, got);
      }
      const dirs = new Map<string, Map<string, string>>();
      for (const dir of dirPaths) {
        const listed = await listing(dir);
        if (!listed) continue;
        const out = new Map<string, string>();
        for (const [name, e] of listed) {
          const got = await text(e);
          if (got !== undefined) out.set(name, got);
        }
        dirs.set(dir, out);
      }
      return {
        head: head.sha,
        tree: head.tree,
        files,
        dirs,
        ...(extra.probes ? { oids, modes } : {}),
        ...(history ? { history } : {}),
      };
    },
    // the same commit as the GraphQL store's Git Data route
    commit: (head, changes, message) => gitDataCommit(gh, repo, branch, head, changes, message),
  };
}
