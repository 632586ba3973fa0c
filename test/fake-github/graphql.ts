/**
 * GitHub's GraphQL API, the parts the action uses, over the fake's repositories. Every
 * document is parsed and validated against GitHub's published schema
 * (`@octokit/graphql-schema`) and executed by graphql-js with plain-object resolvers, so a
 * query that passes here is one GitHub would accept. See README.md in this directory.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import {
  buildASTSchema,
  type DocumentNode,
  execute,
  type GraphQLError,
  GraphQLError as GraphQLErrorClass,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  getOperationAST,
  type OperationDefinitionNode,
  parse,
  validate,
} from "graphql";
import { cachedJson, cacheFolder, sourceText } from "./compiled-cache.js";
import type { FlatEntry, GitObject, TreeEntry } from "./git.js";
import type { FakeGitHub, FakeRepo, IssueComment } from "./server.js";

const require = createRequire(import.meta.url);

/** The package's folder (its `exports` hide schema.graphql and package.json from require). */
const SCHEMA_DIR = (() => {
  for (const dir of require.resolve.paths("@octokit/graphql-schema") ?? []) {
    const candidate = path.join(dir, "@octokit", "graphql-schema");
    if (fs.existsSync(path.join(candidate, "schema.graphql"))) return candidate;
  }
  throw new Error("fake-github: @octokit/graphql-schema is not installed (npm ci)");
})();

/** The version of `@octokit/graphql-schema` requests are checked against. */
export const GRAPHQL_SCHEMA_SOURCE = `@octokit/graphql-schema ${
  (
    JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, "package.json"), "utf8")) as {
      version: string;
    }
  ).version
}`;

let cachedSchema: GraphQLSchema | undefined;

/**
 * GitHub's schema, built once per process (~0.2 s). The published SDL defines a couple of
 * fields twice (`EnterpriseOwnerInfo.repositoryDeployKeySetting…`), which graphql-js's SDL
 * check refuses, so the SDL is taken as GitHub serves it (`assumeValidSDL`).
 */
export function githubSchema(): GraphQLSchema {
  if (!cachedSchema) {
    const sdl = fs.readFileSync(path.join(SCHEMA_DIR, "schema.graphql"), "utf8");
    // the parse (most of the cost) once for all test files, keyed by the SDL's bytes
    // (compiled-cache.ts); locations are dropped: only errors in the SDL itself use them
    const dir = cacheFolder("graphql-schema", [sdl, sourceText(import.meta.url)]);
    const document = cachedJson(dir, "schema.graphql", () => parse(sdl, { noLocation: true }));
    cachedSchema = buildASTSchema(document, { assumeValidSDL: true });
  }
  return cachedSchema;
}

/** One entry of a GraphQL answer's `errors`, shaped as GitHub sends it. */
export interface GraphQLErrorEntry {
  type?: string;
  code?: string;
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions?: Record<string, unknown>;
}

export interface ParsedRequest {
  document?: DocumentNode;
  operation?: OperationDefinitionNode;
  kind: "query" | "mutation" | "subscription";
  /** first root field of the operation, e.g. "createCommitOnBranch" */
  rootField?: string;
  /** parse or validation errors, GitHub's shape; empty when the document is valid */
  errors: GraphQLErrorEntry[];
}

/** Parse and validate a request body `{ query, variables, operationName }`. */
export function parseRequest(body: unknown): ParsedRequest {
  const b = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof b.query !== "string") {
    return {
      kind: "query",
      errors: [{ message: "A query attribute must be specified and must be a string." }],
    };
  }
  let document: DocumentNode;
  try {
    document = parse(b.query);
  } catch (error) {
    const e = error as GraphQLError;
    return { kind: "query", errors: [formatError(e)] };
  }
  const operation =
    getOperationAST(document, typeof b.operationName === "string" ? b.operationName : undefined) ??
    undefined;
  const kind = operation?.operation ?? "query";
  const first = operation?.selectionSet.selections.find((s) => s.kind === "Field");
  const rootField = first?.kind === "Field" ? first.name.value : undefined;
  const errors = validate(githubSchema(), document).map(githubValidationError);
  if (errors.length === 0 && !operation) {
    errors.push({
      message:
        typeof b.operationName === "string"
          ? `No operation named "${b.operationName}"`
          : "An operation name is required",
    });
  }
  return { document, operation, kind, rootField, errors };
}

/**
 * graphql-js words validation failures its own way; GitHub (graphql-ruby) words the
 * common ones like this, with an `extensions.code`.
 */
function githubValidationError(e: GraphQLError): GraphQLErrorEntry {
  const base = formatError(e);
  let m = /^Cannot query field "([^"]+)" on type "([^"]+)"\./.exec(e.message);
  if (m) {
    return {
      ...base,
      message: `Field '${m[1]}' doesn't exist on type '${m[2]}'`,
      extensions: { code: "undefinedField", typeName: m[2], fieldName: m[1] },
    };
  }
  m = /^Unknown argument "([^"]+)" on field "([^".]+)\.([^"]+)"\./.exec(e.message);
  if (m) {
    return {
      ...base,
      message: `Field '${m[3]}' doesn't accept argument '${m[1]}'`,
      extensions: {
        code: "argumentNotAccepted",
        name: m[3],
        typeName: "Field",
        argumentName: m[1],
      },
    };
  }
  m = /^Field "([^"]+)" argument "([^"]+)" of type "[^"]+" is required/.exec(e.message);
  if (m) {
    return {
      ...base,
      message: `Field '${m[1]}' is missing required arguments: ${m[2]}`,
      extensions: {
        code: "missingRequiredArguments",
        className: "Field",
        name: m[1],
        arguments: m[2],
      },
    };
  }
  return base;
}

function formatError(e: GraphQLError): GraphQLErrorEntry {
  const out: GraphQLErrorEntry = { message: e.message };
  const ext = { ...(e.extensions ?? {}) } as Record<string, unknown>;
  if (typeof ext.type === "string") {
    out.type = ext.type;
    delete ext.type;
  }
  if (e.path) out.path = [...e.path];
  if (e.locations) out.locations = e.locations.map((l) => ({ line: l.line, column: l.column }));
  if (Object.keys(ext).length > 0) out.extensions = ext;
  return out;
}

/** An error a resolver throws to answer like GitHub: `{ type, message, path, locations }`. */
export function githubError(type: string, message: string): GraphQLError {
  return new GraphQLErrorClass(message, { extensions: { type } });
}

export interface ExecContext {
  fake: FakeGitHub;
  login: string;
  /** the token may write under .github/workflows/ (server.ts mayWriteWorkflows) */
  workflows: boolean;
  /** the rate-limit state after this request was charged */
  rateLimit: () => {
    cost: number;
    limit: number;
    remaining: number;
    resetAt: string;
    used: number;
  };
  /** a field the fake does not model was asked for */
  unmodeled: (field: string) => void;
  /** the request breaks a rule GitHub enforces before running it (pagination bounds) */
  invalid: (problem: string) => void;
}

/** What `createCommitOnBranch` and the comment mutations need from the fake. */
export interface GraphQLHost {
  findRepo(fullName: string): FakeRepo | undefined;
  allRepos(): FakeRepo[];
  serverUrl: string;
  commitOnBranch(
    repo: FakeRepo,
    branch: string,
    input: {
      expectedHeadOid: string;
      message: string;
      additions: { path: string; contents: Buffer }[];
      deletions: string[];
      login: string;
      workflows: boolean;
    },
  ): string;
  addComment(repo: FakeRepo, issueNumber: number, body: string, login: string): IssueComment;
  touchComment(comment: IssueComment): void;
  commentUrl(repo: FakeRepo, comment: IssueComment): string;
}

/** Execute a validated document. Returns GitHub's answer body `{ data, errors? }`. */
export async function executeRequest(
  parsed: ParsedRequest,
  body: unknown,
  context: ExecContext,
  host: GraphQLHost,
): Promise<{ data?: unknown; errors?: GraphQLErrorEntry[] }> {
  const b = body as { variables?: Record<string, unknown>; operationName?: string };
  const result = await execute({
    schema: githubSchema(),
    document: parsed.document!,
    rootValue: rootValue(host),
    contextValue: context,
    variableValues: b.variables ?? undefined,
    operationName: b.operationName ?? undefined,
    fieldResolver,
  });
  const out: { data?: unknown; errors?: GraphQLErrorEntry[] } = {};
  if (result.data !== undefined) out.data = result.data;
  if (result.errors?.length) out.errors = result.errors.map(formatError);
  return out;
}

/**
 * Fields come from plain objects: a value, or a function of the field's arguments. A field
 * the fake does not model answers null and is reported (never a silent fake answer).
 */
const fieldResolver: GraphQLFieldResolver<unknown, ExecContext> = (source, args, context, info) => {
  if (source !== null && typeof source === "object" && info.fieldName in source) {
    const v = (source as Record<string, unknown>)[info.fieldName];
    return typeof v === "function" ? v.call(source, args, context, info) : v;
  }
  context.unmodeled(`${info.parentType.name}.${info.fieldName}`);
  return null;
};

// ---------------------------------------------------------------- object views

type Obj = Record<string, unknown>;

function rootValue(host: GraphQLHost): Obj {
  return {
    repository: (args: { owner: string; name: string }) => {
      const repo = host.findRepo(`${args.owner}/${args.name}`);
      if (!repo) {
        throw githubError(
          "NOT_FOUND",
          `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`,
        );
      }
      return repositoryNode(host, repo);
    },
    rateLimit: (_args: unknown, ctx: ExecContext) => ({ ...ctx.rateLimit(), nodeCount: 0 }),
    node: (args: { id: string }) => nodeById(host, args.id),
    createCommitOnBranch: (args: { input: CreateCommitInput }, ctx: ExecContext) =>
      createCommitOnBranch(host, args.input, ctx),
    addComment: (
      args: { input: { subjectId: string; body: string; clientMutationId?: string } },
      ctx: ExecContext,
    ) => {
      const found = findIssueByNodeId(host, args.input.subjectId);
      if (!found) {
        throw githubError(
          "NOT_FOUND",
          `Could not resolve to a node with the global id of '${args.input.subjectId}'`,
        );
      }
      checkCommentLength(args.input.body);
      const c = host.addComment(found.repo, found.number, args.input.body, ctx.login);
      const node = commentNode(host, found.repo, c);
      return {
        clientMutationId: args.input.clientMutationId ?? null,
        subject: { __typename: "Issue", id: args.input.subjectId },
        commentEdge: { cursor: cursorOf(0), node },
        timelineEdge: null,
      };
    },
    updateIssueComment: (args: {
      input: { id: string; body: string; clientMutationId?: string };
    }) => {
      const found = findCommentByNodeId(host, args.input.id);
      if (!found) {
        throw githubError(
          "NOT_FOUND",
          `Could not resolve to a node with the global id of '${args.input.id}'`,
        );
      }
      checkCommentLength(args.input.body);
      found.comment.body = args.input.body;
      host.touchComment(found.comment);
      return {
        clientMutationId: args.input.clientMutationId ?? null,
        issueComment: commentNode(host, found.repo, found.comment),
      };
    },
  };
}

function checkCommentLength(body: string): void {
  if (body.length > 65536) {
    throw githubError("UNPROCESSABLE", "Body is too long (maximum is 65536 characters)");
  }
}

function repositoryNode(host: GraphQLHost, repo: FakeRepo): Obj {
  return {
    __typename: "Repository",
    id: `R_${repo.id}`,
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: repo.fullName,
    owner: { __typename: "User", login: repo.owner, id: `U_${repo.owner}` },
    url: `${host.serverUrl}/${repo.fullName}`,
    isPrivate: repo.isPrivate,
    visibility: repo.isPrivate ? "PRIVATE" : "PUBLIC",
    isArchived: false,
    isEmpty: repo.refs.size === 0,
    defaultBranchRef: () => {
      const full = `refs/heads/${repo.defaultBranch}`;
      return repo.refs.has(full) ? refNode(host, repo, full) : null;
    },
    ref: (args: { qualifiedName: string }) => {
      const q = args.qualifiedName;
      const candidates = q.startsWith("refs/") ? [q] : [`refs/heads/${q}`, `refs/tags/${q}`];
      const full = candidates.find((c) => repo.refs.has(c));
      return full ? refNode(host, repo, full) : null;
    },
    refs: (
      args: {
        refPrefix: string;
        first?: number | null;
        last?: number | null;
        after?: string | null;
        before?: string | null;
        query?: string | null;
        direction?: "ASC" | "DESC" | null;
      },
      ctx: ExecContext,
    ) => {
      const bound = paginationBound("refs", args, ctx);
      const prefix = args.refPrefix;
      let names = [...repo.refs.keys()]
        .filter((r) => r.startsWith(prefix) && r.length > prefix.length)
        .filter((r) => !args.query || r.slice(prefix.length).includes(args.query))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (args.direction === "DESC") names = names.reverse();
      return connection(names, args, bound, (full) => refNode(host, repo, full, prefix));
    },
    object: (args: { expression?: string | null; oid?: string | null }) => {
      if (args.oid) return objectNode(host, repo, args.oid);
      if (!args.expression) return null;
      return resolveExpression(host, repo, args.expression);
    },
  };
}

function paginationBound(
  name: string,
  args: { first?: number | null; last?: number | null },
  ctx: ExecContext,
): number {
  const n = args.first ?? args.last;
  if (n === undefined || n === null) {
    const message = `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`;
    ctx.invalid(message);
    throw githubError("MISSING_PAGINATION_BOUNDARIES", message);
  }
  if (n > 100 || n < 0) {
    const which = args.first !== undefined && args.first !== null ? "first" : "last";
    const message = `Requesting ${n} records on the \`${name}\` connection exceeds the \`${which}\` limit of 100 records.`;
    ctx.invalid(message);
    throw githubError("EXCESSIVE_PAGINATION", message);
  }
  return n;
}

function cursorOf(index: number): string {
  return Buffer.from(String(index + 1)).toString("base64");
}

function indexOfCursor(cursor: string): number {
  const n = Number(Buffer.from(cursor, "base64").toString("utf8"));
  return Number.isInteger(n) ? n - 1 : -1;
}

function connection<T>(
  all: T[],
  args: {
    first?: number | null;
    last?: number | null;
    after?: string | null;
    before?: string | null;
  },
  bound: number,
  view: (item: T) => Obj,
): Obj {
  let start = 0;
  let end = all.length;
  if (args.after) start = Math.max(0, indexOfCursor(args.after) + 1);
  if (args.before) end = Math.min(end, Math.max(0, indexOfCursor(args.before)));
  let from = start;
  let to = end;
  if (args.first !== undefined && args.first !== null) to = Math.min(end, start + bound);
  else from = Math.max(start, end - bound);
  const slice = all.slice(from, to).map((item, i) => ({ item, index: from + i }));
  const nodes = slice.map((s) => view(s.item));
  return {
    totalCount: all.length,
    nodes,
    edges: slice.map((s, i) => ({ cursor: cursorOf(s.index), node: nodes[i] })),
    pageInfo: {
      hasNextPage: to < end,
      hasPreviousPage: from > start,
      startCursor: slice.length > 0 ? cursorOf(slice[0]!.index) : null,
      endCursor: slice.length > 0 ? cursorOf(slice[slice.length - 1]!.index) : null,
    },
  };
}

/** `name` is what follows `prefix` (refs(refPrefix:)) or the short branch/tag name. */
function refNode(host: GraphQLHost, repo: FakeRepo, full: string, prefix?: string): Obj {
  const p = prefix ?? /^refs\/(heads|tags)\//.exec(full)?.[0] ?? "refs/";
  return {
    __typename: "Ref",
    id: `REF_${Buffer.from(full).toString("base64url")}`,
    name: full.slice(p.length),
    prefix: p,
    repository: () => repositoryNode(host, repo),
    target: () => {
      const sha = repo.refs.get(full);
      return sha ? objectNode(host, repo, sha) : null;
    },
  };
}

/** `<rev>:<path>` (a blob or tree), or `<rev>` (a commit); rev is a sha, branch, tag or HEAD. */
function resolveExpression(host: GraphQLHost, repo: FakeRepo, expression: string): Obj | null {
  const colon = expression.indexOf(":");
  const rev = colon < 0 ? expression : expression.slice(0, colon);
  const sha = rev === "HEAD" || rev === "" ? repo.resolve() : repo.resolve(rev);
  if (!sha) return null;
  const commit = repo.git.get(sha);
  const commitSha = commit?.type === "commit" ? commit.sha : undefined;
  if (colon < 0) return objectNode(host, repo, sha);
  if (!commitSha) return null;
  const filePath = expression.slice(colon + 1);
  const entry = repo.git.lookup(repo.git.expect(commitSha, "commit").tree, filePath);
  if (!entry || entry.type === "commit") return null;
  return objectNode(host, repo, entry.sha);
}

function objectNode(host: GraphQLHost, repo: FakeRepo, oid: string): Obj | null {
  const o = repo.git.get(oid);
  if (!o) return null;
  switch (o.type) {
    case "commit":
      return commitNode(host, repo, o);
    case "tree":
      return treeNode(host, repo, o.sha, "");
    default:
      return blobNode(host, repo, o);
  }
}

/** GitHub answers a blob's `text` up to this many bytes and sets `isTruncated` beyond. */
export const BLOB_TEXT_LIMIT = 512 * 1024;

function isBinary(content: Buffer): boolean {
  if (content.subarray(0, 8000).includes(0)) return true;
  return !isUtf8(content);
}

function isUtf8(content: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(content);
    return true;
  } catch {
    return false;
  }
}

function blobNode(host: GraphQLHost, repo: FakeRepo, o: Extract<GitObject, { type: "blob" }>): Obj {
  const binary = isBinary(o.content);
  const truncated = o.content.length > BLOB_TEXT_LIMIT;
  return {
    __typename: "Blob",
    id: `B_${o.sha}`,
    oid: o.sha,
    abbreviatedOid: o.sha.slice(0, 7),
    byteSize: o.content.length,
    isBinary: binary,
    isTruncated: truncated,
    text: binary ? null : o.content.subarray(0, BLOB_TEXT_LIMIT).toString("utf8"),
    repository: () => repositoryNode(host, repo),
  };
}

function treeNode(host: GraphQLHost, repo: FakeRepo, sha: string, at: string): Obj {
  return {
    __typename: "Tree",
    id: `T_${sha}`,
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    entries: () =>
      repo.git
        .expect(sha, "tree")
        .entries.map((e) => treeEntryNode(host, repo, e, at ? `${at}/${e.name}` : e.name)),
    repository: () => repositoryNode(host, repo),
  };
}

function treeEntryNode(host: GraphQLHost, repo: FakeRepo, e: TreeEntry, entryPath: string): Obj {
  const blob = e.type === "blob" ? repo.git.get(e.sha) : undefined;
  const dot = e.name.lastIndexOf(".");
  return {
    __typename: "TreeEntry",
    name: e.name,
    nameRaw: Buffer.from(e.name).toString("base64"),
    path: entryPath,
    pathRaw: Buffer.from(entryPath).toString("base64"),
    oid: e.sha,
    mode: Number.parseInt(e.mode, 8),
    type: e.type,
    size: blob?.type === "blob" ? blob.content.length : 0,
    extension: dot > 0 ? e.name.slice(dot) : null,
    isGenerated: false,
    submodule: null,
    object: () =>
      e.type === "tree"
        ? treeNode(host, repo, e.sha, entryPath)
        : e.type === "blob"
          ? objectNode(host, repo, e.sha)
          : null,
    repository: () => repositoryNode(host, repo),
  };
}

function commitNode(
  host: GraphQLHost,
  repo: FakeRepo,
  c: Extract<GitObject, { type: "commit" }>,
): Obj {
  const [headline = "", ...rest] = c.message.split("\n");
  const actor = (s: { name: string; email: string; date: string }) => ({
    name: s.name,
    email: s.email,
    date: s.date,
    user: { __typename: "User", login: s.name },
  });
  return {
    __typename: "Commit",
    id: `C_${c.sha}`,
    oid: c.sha,
    abbreviatedOid: c.sha.slice(0, 7),
    message: c.message,
    messageHeadline: headline,
    messageBody: rest.join("\n").replace(/^\n+/, ""),
    committedDate: c.committer.date,
    authoredDate: c.author.date,
    author: actor(c.author),
    committer: actor(c.committer),
    url: `${host.serverUrl}/${repo.fullName}/commit/${c.sha}`,
    commitUrl: `${host.serverUrl}/${repo.fullName}/commit/${c.sha}`,
    tree: () => treeNode(host, repo, c.tree, ""),
    parents: (
      args: { first?: number | null; last?: number | null; after?: string | null },
      ctx: ExecContext,
    ) => {
      const bound = paginationBound("parents", args, ctx);
      return connection(c.parents, args, bound, (sha) => objectNode(host, repo, sha) ?? {});
    },
    // the commits reachable from this one along first parents, newest first (GitHub's
    // history walks every parent by date; the run's branch is linear)
    history: (
      args: { first?: number | null; last?: number | null; after?: string | null },
      ctx: ExecContext,
    ) => {
      const bound = paginationBound("history", args, ctx);
      const shas: string[] = [];
      let at: string | undefined = c.sha;
      while (at && shas.length < (args.after ? 10_000 : bound)) {
        shas.push(at);
        const o = repo.git.get(at);
        at = o?.type === "commit" ? o.parents[0] : undefined;
      }
      return connection(shas, args, bound, (sha) => objectNode(host, repo, sha) ?? {});
    },
    file: (args: { path: string }) => {
      const p = args.path.replace(/^\/+|\/+$/g, "");
      if (p === "") return null;
      const e = repo.git.lookup(c.tree, p);
      return e ? treeEntryNode(host, repo, e, p) : null;
    },
    repository: () => repositoryNode(host, repo),
  };
}

function commentNode(host: GraphQLHost, repo: FakeRepo, c: IssueComment): Obj {
  return {
    __typename: "IssueComment",
    id: `IC_${c.id}`,
    databaseId: c.id,
    body: c.body,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    url: host.commentUrl(repo, c),
    author: { __typename: "User", login: c.user },
    repository: () => repositoryNode(host, repo),
  };
}

function nodeById(host: GraphQLHost, id: string): Obj | null {
  const comment = findCommentByNodeId(host, id);
  if (comment) return commentNode(host, comment.repo, comment.comment);
  const repoMatch = /^R_(\d+)$/.exec(id);
  if (repoMatch) {
    const repo = host.allRepos().find((r) => r.id === Number(repoMatch[1]));
    if (repo) return repositoryNode(host, repo);
  }
  return null;
}

function findCommentByNodeId(
  host: GraphQLHost,
  id: string,
): { repo: FakeRepo; comment: IssueComment } | undefined {
  const m = /^IC_(\d+)$/.exec(id);
  if (!m) return undefined;
  for (const repo of host.allRepos()) {
    const comment = repo.comments.get(Number(m[1]));
    if (comment) return { repo, comment };
  }
  return undefined;
}

function findIssueByNodeId(
  host: GraphQLHost,
  id: string,
): { repo: FakeRepo; number: number } | undefined {
  const m = /^(?:I|PR)_(\d+)$/.exec(id);
  if (!m) return undefined;
  for (const repo of host.allRepos()) {
    for (const issue of repo.issues.values()) {
      if (issue.id === Number(m[1])) return { repo, number: issue.number };
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- createCommitOnBranch

interface CreateCommitInput {
  branch: {
    repositoryNameWithOwner?: string | null;
    branchName?: string | null;
    id?: string | null;
  };
  expectedHeadOid: string;
  message: { headline: string; body?: string | null };
  fileChanges?: {
    additions?: { path: string; contents: string }[] | null;
    deletions?: { path: string }[] | null;
  } | null;
  clientMutationId?: string | null;
}

/** RFC 4648 with padding, checked without backtracking (a nested repeat overflows V8's stack on megabytes) */
const BASE64 = { test: (s: string) => s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s) };

function createCommitOnBranch(host: GraphQLHost, input: CreateCommitInput, ctx: ExecContext): Obj {
  let repo: FakeRepo | undefined;
  let branch: string | undefined;
  if (input.branch.id) {
    const m = /^REF_(.+)$/.exec(input.branch.id);
    const full = m ? Buffer.from(m[1]!, "base64url").toString("utf8") : "";
    repo = host.allRepos().find((r) => r.refs.has(full));
    if (!repo || !full.startsWith("refs/heads/")) {
      throw githubError(
        "NOT_FOUND",
        `Could not resolve to a node with the global id of '${input.branch.id}'`,
      );
    }
    branch = full.slice("refs/heads/".length);
  } else {
    const name = input.branch.repositoryNameWithOwner ?? "";
    repo = host.findRepo(name);
    if (!repo) {
      throw githubError("NOT_FOUND", `Could not resolve to a Repository with the name '${name}'.`);
    }
    branch = (input.branch.branchName ?? "").replace(/^refs\/heads\//, "");
  }
  if (!repo.refs.has(`refs/heads/${branch}`)) {
    throw githubError(
      "NOT_FOUND",
      `Could not resolve to a Ref with the name 'refs/heads/${branch}'.`,
    );
  }
  const additions = input.fileChanges?.additions ?? [];
  const deletions = input.fileChanges?.deletions ?? [];
  const seen = new Set<string>();
  for (const p of [...additions.map((a) => a.path), ...deletions.map((d) => d.path)]) {
    if (seen.has(p)) {
      throw githubError("UNPROCESSABLE", `A path was provided more than once: ${p}`);
    }
    seen.add(p);
    if (
      p === "" ||
      p.startsWith("/") ||
      p.split("/").some((s) => s === "" || s === "." || s === "..")
    ) {
      throw githubError("UNPROCESSABLE", `Invalid path: ${JSON.stringify(p)}`);
    }
  }
  for (const a of additions) {
    if (!BASE64.test(a.contents)) {
      throw githubError(
        "UNPROCESSABLE",
        `The contents of ${a.path} are not valid base64 (RFC 4648, with padding)`,
      );
    }
  }
  const sha = host.commitOnBranch(repo, branch, {
    expectedHeadOid: input.expectedHeadOid,
    message:
      input.message.body !== undefined && input.message.body !== null && input.message.body !== ""
        ? `${input.message.headline}\n\n${input.message.body}`
        : input.message.headline,
    additions: additions.map((a) => ({
      path: a.path,
      contents: Buffer.from(a.contents, "base64"),
    })),
    deletions: deletions.map((d) => d.path),
    login: ctx.login,
    workflows: ctx.workflows,
  });
  return {
    clientMutationId: input.clientMutationId ?? null,
    commit: objectNode(host, repo, sha),
    ref: refNode(host, repo, `refs/heads/${branch}`),
  };
}

/**
 * The commit `createCommitOnBranch` writes, on top of `parent`: deletions (each path must
 * exist, as a file or a directory) then additions (a file replaces a directory in its way,
 * and a directory a file). Returns the new flat tree. Throws GitHub's error otherwise.
 */
export function applyFileChanges(
  flat: Map<string, FlatEntry>,
  parent: string,
  changes: { additions: { path: string; sha: string }[]; deletions: string[] },
): Map<string, FlatEntry> {
  const out = new Map(flat);
  for (const p of changes.deletions) {
    const under = [...out.keys()].filter((k) => k === p || k.startsWith(`${p}/`));
    if (under.length === 0) {
      throw githubError(
        "UNPROCESSABLE",
        `A path was requested for deletion which does not exist as of commit oid \`${parent}\``,
      );
    }
    for (const k of under) out.delete(k);
  }
  for (const a of changes.additions) {
    for (const k of [...out.keys()]) if (k.startsWith(`${a.path}/`)) out.delete(k);
    const parts = a.path.split("/");
    for (let i = 1; i < parts.length; i++) out.delete(parts.slice(0, i).join("/"));
    const before = out.get(a.path);
    out.set(a.path, {
      mode: before?.type === "blob" && before.mode === "100755" ? "100755" : "100644",
      type: "blob",
      sha: a.sha,
    });
  }
  return out;
}
