/**
 * A GitHub on 127.0.0.1: a real HTTP server that answers the REST API the action uses,
 * in memory, for any number of repositories. Every request and every response is checked
 * against GitHub's own OpenAPI description; see README.md in this directory.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { type FlatEntry, GitError, GitStore, type Signature, type TreeMode } from "./git.js";
import {
  applyFileChanges,
  executeRequest as executeGraphQL,
  type GraphQLHost,
  githubError,
  parseRequest as parseGraphQLRequest,
} from "./graphql.js";
import {
  getOperation,
  matchRoute,
  type OperationSpec,
  responseSchema,
  shape,
  validateParams,
  validateRequestBody,
  validateResponse,
} from "./openapi.js";

import { userObject } from "./webhooks.js";

export { BLOB_TEXT_LIMIT, GRAPHQL_SCHEMA_SOURCE, githubSchema } from "./graphql.js";
export { OPENAPI_SOURCE, schemaProblems } from "./openapi.js";
export {
  assertValidPayload,
  makeIssueCommentPayload,
  makePushPayload,
  makeSchedulePayload,
  makeWorkflowDispatchPayload,
  makeWorkflowRunPayload,
  userObject,
  validateEventPayload,
} from "./webhooks.js";

// ---------------------------------------------------------------- public types

export type Role = "none" | "read" | "triage" | "write" | "maintain" | "admin";
const ROLES: Role[] = ["none", "read", "triage", "write", "maintain", "admin"];

export interface TokenInfo {
  /** who the token acts as: `user.login` on everything it creates */
  login: string;
  /** installation tokens (GITHUB_TOKEN, apps) get 403 from GET /user; user tokens get the user */
  kind: "installation" | "user";
  /** REST requests an hour (x-ratelimit-limit); default 1000 for installation, 5000 for user */
  rateLimit?: number;
  /** GraphQL points an hour (each query or mutation costs 1); default 1000 for installation, 5000 for user */
  graphqlRateLimit?: number;
  /**
   * may create, change or delete files under `.github/workflows/` (a PAT with the
   * `workflow` scope, an App with `workflows: write`); default: user tokens yes,
   * installation tokens (GITHUB_TOKEN) no — GitHub refuses their commits by message
   */
  workflows?: boolean;
}

/** The budget a request draws on: REST (`core`) or GraphQL, counted apart as on GitHub. */
export type RateResource = "core" | "graphql";

/** Content-creation limits (GitHub's secondary limits): writes per token per minute and hour. */
export interface SecondaryLimits {
  perMinute: number;
  perHour: number;
}

/** Traffic counters, per token or overall: see `fake.usage(token?)`. */
export interface Usage {
  rest: { reads: number; writes: number };
  graphql: { queries: number; mutations: number };
  /** request body bytes */
  bytesIn: number;
  /** response body bytes */
  bytesOut: number;
}

export interface FakeGitHubOptions {
  /** login of any token not registered with addToken; default "github-actions[bot]" */
  login?: string;
  /** accept tokens never registered (as `login`, installation kind); default true */
  acceptAnyToken?: boolean;
  /** check requests and responses against the OpenAPI description; default true */
  validate?: boolean;
  /** html_url host; default https://github.com */
  serverUrl?: string;
  /**
   * "supported" (GitHub.com since 2026-02-19): `return_run_details: true` answers 200 with the run;
   * "refused" (GHES ≤ 3.20): the field is answered with 400.
   */
  returnRunDetails?: "supported" | "refused";
  /** milliseconds since the epoch; default Date.now. Drives every timestamp the fake writes. */
  now?: () => number;
  /** delay every response by this many milliseconds */
  latencyMs?: number;
  /** how many dispatched runs the onDispatch hooks execute at once; default Infinity */
  runners?: number;
  /**
   * GitHub's content-creation limits: `true` is 80 writes a minute and 500 an hour per token
   * (REST POST/PATCH/PUT/DELETE and GraphQL mutations together); default off.
   */
  secondaryLimits?: boolean | Partial<SecondaryLimits>;
  /** a run shows in the runs listings only this many ms after it was created; default 0 */
  runsListingLagMs?: number;
  /** status of a REST answer when the hour's budget is spent: 403 (default) or 429 */
  primaryLimitStatus?: 403 | 429;
}

export interface RequestRecord {
  seq: number;
  method: string;
  /** pathname, exactly as sent (still percent-encoded) */
  path: string;
  query: string;
  /** GitHub's operationId, e.g. "git/update-ref"; undefined for an unknown route */
  operation?: string;
  /** the OpenAPI path template */
  route?: string;
  status: number;
  login?: string;
  /** the parsed request body, if any */
  body?: unknown;
  /** the kind of the fault that answered it, if one did */
  fault?: FaultKind;
  /** request body size in bytes */
  bytes: number;
  /** response body size in bytes */
  bytesOut: number;
  /** the token string it was sent with */
  token?: string;
  /** for POST /graphql: the document, its variables, and what it is */
  graphql?: {
    query: string;
    variables?: Record<string, unknown>;
    operationName?: string;
    kind: "query" | "mutation" | "subscription";
    rootField?: string;
  };
}

export interface Violation {
  kind: "unknown-route" | "unimplemented" | "request" | "response";
  method: string;
  path: string;
  operation?: string;
  status?: number;
  problems: string[];
}

export interface RequestFilter {
  method?: string;
  /** exact pathname, an OpenAPI template ("/repos/{owner}/{repo}/git/refs/{ref}") or a RegExp on the pathname */
  path?: string | RegExp;
  /**
   * operationId, e.g. "issues/create-comment"; for GraphQL "graphql/query" or
   * "graphql/mutation:createCommitOnBranch" ("graphql/mutation" matches every mutation)
   */
  operation?: string;
  status?: number;
}

export type FaultKind =
  | "error"
  | "secondary-rate-limit"
  | "latency"
  | "non-fast-forward"
  | "race"
  | "refuse-dispatch"
  | "ref-conflict"
  | "graphql-error";

export interface FaultOptions extends RequestFilter {
  /** how many matching requests it answers; default 1; Infinity for all */
  times?: number;
  /** let this many matching requests through first; default 0 */
  after?: number;
}

export interface Fault {
  readonly id: number;
  readonly kind: FaultKind;
  /** how many requests it has answered (or delayed, or raced) */
  fired: number;
  /** requests it will still answer */
  remaining: number;
}

export interface Workflow {
  id: number;
  /** ".github/workflows/orch-task.yml" */
  path: string;
  name: string;
  /** has an `on: workflow_dispatch` trigger */
  dispatchable: boolean;
  /** declared workflow_dispatch inputs; undefined accepts any inputs */
  inputs?: Record<
    string,
    { required?: boolean; default?: string; type?: string; options?: string[] }
  >;
  /** the workflow file's `run-name:` template, if any */
  runNameTemplate?: string;
  /** computes the run's display title (its run-name) from its inputs; wins over the template */
  runName?: (inputs: Record<string, string>, run: FakeRun) => string;
  /**
   * the workflow's `concurrency:` group template: runs whose group is the same run one at
   * a time — one running, one pending; a newer pending run cancels the older pending one
   */
  concurrencyTemplate?: string;
}

export type RunStatus =
  | "queued"
  | "in_progress"
  | "completed"
  | "waiting"
  | "pending"
  | "requested";
export type RunConclusion =
  | "success"
  | "failure"
  | "cancelled"
  | "skipped"
  | "timed_out"
  | "neutral"
  | "action_required"
  | "stale";

export interface FakeRun {
  id: number;
  repo: FakeRepo;
  workflow: Workflow;
  event: string;
  /** the branch (or tag) it runs on, short name */
  ref: string;
  headSha: string;
  inputs: Record<string, string>;
  /** the run-name: `display_title` in the REST API (`name` is the workflow's name) */
  displayTitle: string;
  status: RunStatus;
  conclusion: RunConclusion | null;
  runNumber: number;
  runAttempt: number;
  actor: string;
  createdAt: string;
  updatedAt: string;
  /** aborted when the run is cancelled through the API */
  signal: AbortSignal;
  /** the name of its one job in GET actions/runs/{id}/jobs; default the workflow's name */
  jobName?: string;
}

export type DispatchHook = (run: FakeRun, fake: FakeGitHub) => void | Promise<void>;

export interface Issue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason: "completed" | "not_planned" | "reopened" | "duplicate" | null;
  /** label names */
  labels: string[];
  user: string;
  assignees: string[];
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  reactions: Reaction[];
  /** set for pull requests, which share the issue number space as on GitHub */
  pull?: { head: string; base: string; draft: boolean; merged: boolean };
}

export interface IssueComment {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
  reactions: Reaction[];
}

export interface Reaction {
  id: number;
  content: string;
  user: string;
  createdAt: string;
}

export interface Label {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

export interface CommitInfo {
  sha: string;
  message: string;
  parents: string[];
  tree: string;
  author: Signature;
  committer: Signature;
}

// ---------------------------------------------------------------- errors

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const DOCS = "https://docs.github.com/rest";

function notFound(): HttpError {
  return new HttpError(404, "Not Found");
}

function unprocessable(message: string, errors?: unknown[]): HttpError {
  return new HttpError(422, message, errors ? { errors } : {});
}

/** Whether a token may write under `.github/workflows/` (see TokenInfo.workflows). */
export function mayWriteWorkflows(token: TokenInfo): boolean {
  return token.workflows ?? token.kind === "user";
}

/**
 * GitHub's refusal of a commit or ref update that creates, changes or deletes a workflow
 * file, made with a token without the `workflows` permission: the first such path between
 * the trees `from` and `to`, in GitHub's words; undefined when none.
 */
export function workflowRefusal(git: GitStore, from: string, to: string): string | undefined {
  const DIR = ".github/workflows";
  const dirOf = (tree: string) => {
    const e = git.lookup(tree, DIR);
    return e?.type === "tree" ? git.flatten(e.sha) : new Map<string, FlatEntry>();
  };
  // the same subtree (or none on either side): nothing under it changed
  if (git.lookup(from, DIR)?.sha === git.lookup(to, DIR)?.sha) return undefined;
  const before = dirOf(from);
  const after = dirOf(to);
  const changed = [...new Set([...before.keys(), ...after.keys()])]
    .sort()
    .find(
      (p) => before.get(p)?.sha !== after.get(p)?.sha || before.get(p)?.mode !== after.get(p)?.mode,
    );
  return changed === undefined
    ? undefined
    : `refusing to allow a GitHub App to create or update workflow \`${DIR}/${changed}\` without \`workflows\` permission`;
}

// ---------------------------------------------------------------- repository

export class FakeRepo {
  readonly git = new GitStore();
  readonly refs = new Map<string, string>();
  readonly issues = new Map<number, Issue>();
  readonly comments = new Map<number, IssueComment>();
  readonly labels = new Map<string, Label>();
  readonly permissions = new Map<string, Role>();
  readonly workflows = new Map<string, Workflow>();
  readonly runs: FakeRun[] = [];
  nextNumber = 1;

  constructor(
    readonly fake: FakeGitHub,
    readonly id: number,
    readonly owner: string,
    readonly name: string,
    public defaultBranch: string,
    public isPrivate: boolean,
  ) {
    this.permissions.set(owner, "admin");
    fake.knownUsers.add(owner);
  }

  get fullName(): string {
    return `${this.owner}/${this.name}`;
  }

  // ---- git, for tests

  /** The commit a branch, `refs/...` name, tag or sha points at; undefined if none. */
  resolve(ref: string = this.defaultBranch): string | undefined {
    if (/^[0-9a-f]{40}$/i.test(ref) && this.git.get(ref)?.type === "commit")
      return ref.toLowerCase();
    const candidates = ref.startsWith("refs/")
      ? [ref]
      : [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/${ref}`];
    for (const c of candidates) {
      const sha = this.refs.get(c);
      if (sha) return sha;
    }
    return undefined;
  }

  /** Head commit of a branch (default branch if omitted). */
  head(branch: string = this.defaultBranch): string | undefined {
    return this.refs.get(`refs/heads/${branch}`);
  }

  /**
   * Commit files on a branch as a push would (no CAS, no request logged): `null` deletes.
   * Creates the branch (from the default branch's head, or as a root commit) if missing.
   */
  commit(
    branch: string,
    files: Record<string, string | Buffer | null>,
    options: { message?: string; author?: string; from?: string } = {},
  ): string {
    const parent = this.head(branch) ?? (options.from ? this.resolve(options.from) : this.head());
    const flat = parent
      ? this.git.flatten(this.git.expect(parent, "commit").tree)
      : new Map<string, FlatEntry>();
    for (const [p, content] of Object.entries(files)) {
      const clean = p.replace(/^\/+/, "");
      if (content === null) {
        flat.delete(clean);
        for (const k of [...flat.keys()]) if (k.startsWith(`${clean}/`)) flat.delete(k);
      } else {
        flat.set(clean, { mode: "100644", type: "blob", sha: this.git.writeBlob(content) });
      }
    }
    const sig = this.fake.signature(options.author ?? this.owner);
    const sha = this.git.writeCommit({
      tree: this.git.buildTree(flat),
      parents: parent ? [parent] : [],
      message: options.message ?? "commit",
      author: sig,
      committer: sig,
    });
    this.refs.set(`refs/heads/${branch}`, sha);
    return sha;
  }

  /**
   * Commit every file under a local directory (e.g. a copy of tickets-example/) to a branch,
   * under `into` (default: the repository root). Skips .git and node_modules.
   */
  seed(dir: string, options: { branch?: string; into?: string; message?: string } = {}): string {
    const files: Record<string, Buffer> = {};
    const walk = (d: string, rel: string) => {
      for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
        if (entry.name === ".git" || entry.name === "node_modules") continue;
        const abs = path.join(d, entry.name);
        const r = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) walk(abs, r);
        else if (entry.isFile()) files[r] = fs.readFileSync(abs);
      }
    };
    walk(dir, "");
    const into = options.into?.replace(/^\/+|\/+$/g, "");
    const placed: Record<string, Buffer> = {};
    for (const [p, c] of Object.entries(files)) placed[into ? `${into}/${p}` : p] = c;
    return this.commit(options.branch ?? this.defaultBranch, placed, {
      message: options.message ?? `seed from ${path.basename(dir)}`,
    });
  }

  /** Create a branch at a ref or sha (default: the default branch's head). */
  createBranch(name: string, from: string = this.defaultBranch): string {
    const sha = this.resolve(from);
    if (!sha) throw new Error(`createBranch: ${from} does not resolve in ${this.fullName}`);
    this.refs.set(`refs/heads/${name}`, sha);
    return sha;
  }

  /** A file's text at a ref (default branch if omitted); undefined if absent. */
  readFile(filePath: string, ref: string = this.defaultBranch): string | undefined {
    const buf = this.readBytes(filePath, ref);
    return buf?.toString("utf8");
  }

  readBytes(filePath: string, ref: string = this.defaultBranch): Buffer | undefined {
    const sha = this.resolve(ref);
    if (!sha) return undefined;
    const entry = this.git.lookup(this.git.expect(sha, "commit").tree, filePath);
    if (entry?.type !== "blob") return undefined;
    return this.git.expect(entry.sha, "blob").content;
  }

  /** Paths of every file at a ref, optionally only those under a directory. */
  listFiles(ref: string = this.defaultBranch, under?: string): string[] {
    const sha = this.resolve(ref);
    if (!sha) return [];
    const all = [...this.git.flatten(this.git.expect(sha, "commit").tree).keys()];
    if (!under) return all.sort();
    const prefix = `${under.replace(/\/+$/, "")}/`;
    return all.filter((p) => p.startsWith(prefix)).sort();
  }

  /** Commits reachable from a branch, newest first. */
  log(branch: string = this.defaultBranch): CommitInfo[] {
    const head = this.resolve(branch);
    if (!head) return [];
    return this.git.log(head).map((c) => ({
      sha: c.sha,
      message: c.message,
      parents: c.parents,
      tree: c.tree,
      author: c.author,
      committer: c.committer,
    }));
  }

  // ---- people, issues, pulls, workflows, for tests

  /** Give a user a role on this repository (none < read < triage < write < maintain < admin). */
  setPermission(login: string, role: Role): void {
    this.permissions.set(login, role);
    this.fake.knownUsers.add(login);
  }

  /** The role GitHub would report for a user, or undefined where it answers 404 (no such user). */
  roleOf(login: string): Role | undefined {
    const set = this.permissions.get(login);
    if (set) return set;
    if (!this.fake.knownUsers.has(login)) return undefined;
    return this.isPrivate ? "none" : "read";
  }

  /** Open an issue as a user (default: the repository owner). */
  createIssue(input: { title: string; body?: string; labels?: string[]; user?: string }): Issue {
    const at = this.fake.isoNow();
    const issue: Issue = {
      id: this.fake.nextId(),
      number: this.nextNumber++,
      title: input.title,
      body: input.body ?? null,
      state: "open",
      stateReason: null,
      labels: [],
      user: input.user ?? this.owner,
      assignees: [],
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      reactions: [],
    };
    this.fake.knownUsers.add(issue.user);
    issue.labels = this.ensureLabels(input.labels ?? []);
    this.issues.set(issue.number, issue);
    return issue;
  }

  /** Comment on an issue or PR as a user — how a test makes a human type `/answer …`. */
  addComment(issueNumber: number, body: string, user: string): IssueComment {
    const issue = this.issues.get(issueNumber);
    if (!issue) throw new Error(`addComment: no issue #${issueNumber} in ${this.fullName}`);
    const at = this.fake.isoNow();
    const comment: IssueComment = {
      id: this.fake.nextId(),
      issueNumber,
      body,
      user,
      createdAt: at,
      updatedAt: at,
      reactions: [],
    };
    this.fake.knownUsers.add(user);
    this.comments.set(comment.id, comment);
    issue.updatedAt = at;
    return comment;
  }

  /** Comments on one issue or PR, oldest first. */
  commentsOn(issueNumber: number): IssueComment[] {
    return [...this.comments.values()]
      .filter((c) => c.issueNumber === issueNumber)
      .sort((a, b) => a.id - b.id);
  }

  /** Open a pull request from `head` into `base` (default branch). It gets an issue number. */
  openPull(input: {
    head: string;
    base?: string;
    title?: string;
    body?: string;
    user?: string;
    draft?: boolean;
  }): Issue {
    const issue = this.createIssue({
      title: input.title ?? `Merge ${input.head}`,
      body: input.body,
      user: input.user,
    });
    issue.pull = {
      head: input.head,
      base: input.base ?? this.defaultBranch,
      draft: input.draft ?? false,
      merged: false,
    };
    return issue;
  }

  /**
   * Register a workflow without a file in the tree. Workflows are otherwise found as
   * `.github/workflows/<file>` on the default branch (or the dispatched ref), read from YAML.
   */
  addWorkflow(file: string, options: Partial<Omit<Workflow, "id" | "path">> = {}): Workflow {
    const p = file.includes("/") ? file : `.github/workflows/${file}`;
    const existing = this.workflows.get(p);
    const wf: Workflow = {
      id: existing?.id ?? this.fake.nextId(),
      path: p,
      name: options.name ?? existing?.name ?? path.basename(p).replace(/\.ya?ml$/, ""),
      dispatchable: options.dispatchable ?? true,
      inputs: options.inputs,
      runNameTemplate: options.runNameTemplate,
      runName: options.runName,
    };
    this.workflows.set(p, wf);
    return wf;
  }

  ensureLabels(names: string[]): string[] {
    const out: string[] = [];
    for (const name of names) {
      const key = name.toLowerCase();
      let label = this.labels.get(key);
      if (!label) {
        label = { id: this.fake.nextId(), name, color: "ededed", description: null };
        this.labels.set(key, label);
      }
      if (!out.includes(label.name)) out.push(label.name);
    }
    return out;
  }
}

// ---------------------------------------------------------------- server

interface Ctx {
  method: string;
  rawPath: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  headers: http.IncomingHttpHeaders;
  login: string;
  token: TokenInfo;
  tokenKey: string;
  repo: () => FakeRepo;
  /** undefined for GraphQL */
  op?: OperationSpec;
  /** set for GraphQL */
  graphql?: { kind: string; rootField?: string };
}

interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** send body as-is (raw media type), skip JSON and response validation */
  raw?: string | Buffer;
  /** run after the response has been sent */
  after?: () => void;
}

type Handler = (ctx: Ctx) => Result | Promise<Result>;

interface FaultRecord extends Fault {
  filter: RequestFilter;
  after: number;
  seen: number;
  apply: (ctx: Ctx) => Promise<Result | undefined>;
  predicate: (ctx: Ctx) => boolean;
  /** run the operation before answering with the fault */
  applied?: boolean;
}

/** what a GraphQL query or mutation costs here (GitHub: 1 for most, more for wide connections) */
const GRAPHQL_COST = 1;

const CONTENT_CREATION_MESSAGE =
  "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.";

const SECONDARY_DOCS =
  "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";

const SECONDARY_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.";

export class FakeGitHub {
  readonly options: Required<
    Omit<
      FakeGitHubOptions,
      | "now"
      | "latencyMs"
      | "runners"
      | "secondaryLimits"
      | "runsListingLagMs"
      | "primaryLimitStatus"
    >
  >;
  readonly repos = new Map<string, FakeRepo>();
  readonly tokens = new Map<string, TokenInfo>();
  readonly knownUsers = new Set<string>();
  /** every request, in order */
  readonly requests: RequestRecord[] = [];
  /** requests or responses that did not match GitHub's OpenAPI description */
  readonly violations: Violation[] = [];
  /** errors thrown by onDispatch hooks */
  readonly hookErrors: { run: number; error: unknown }[] = [];
  readonly faults: Fault[] = [];
  latencyMs: number;
  now: () => number;
  /**
   * How many dispatched runs onDispatch hooks execute at once (runner capacity); the
   * rest stay `queued` until a runner frees. Default Infinity.
   */
  runners: number;
  /**
   * GitHub's content-creation limits per token, counted over REST writes and GraphQL
   * mutations together; `false` (default) never limits.
   */
  secondaryLimits: SecondaryLimits | false;
  /** a run shows in GET actions/runs (and a workflow's runs) only this many ms after creation */
  runsListingLagMs: number;
  /** status of a REST answer once the hour's budget is spent: 403 (default) or 429 */
  primaryLimitStatus: 403 | 429;
  /**
   * the `type` of GraphQL's rate-limit error: "RATE_LIMITED" (documented, default) or
   * "RATE_LIMIT" (what GitHub has also been seen to send)
   */
  graphqlRateLimitType: "RATE_LIMITED" | "RATE_LIMIT" = "RATE_LIMITED";

  private server?: http.Server;
  private port = 0;
  private idCounter = 1000;
  private seq = 0;
  private faultSeq = 0;
  private userIds = new Map<string, number>();
  private dispatchHooks: DispatchHook[] = [];
  private pending = new Set<Promise<void>>();
  private runNameFn?: (inputs: Record<string, string>, run: FakeRun) => string;
  private rateState = new Map<string, { used: number; reset: number }>();
  private contentWrites = new Map<string, number[]>();
  private traffic = new Map<string, Usage>();
  private runCreatedMs = new Map<number, number>();
  private aborters = new Map<number, AbortController>();
  private handlers: Record<string, Handler>;

  constructor(options: FakeGitHubOptions = {}) {
    this.options = {
      login: options.login ?? "github-actions[bot]",
      acceptAnyToken: options.acceptAnyToken ?? true,
      validate: options.validate ?? true,
      serverUrl: options.serverUrl ?? "https://github.com",
      returnRunDetails: options.returnRunDetails ?? "supported",
    };
    this.now = options.now ?? Date.now;
    this.latencyMs = options.latencyMs ?? 0;
    this.runners = options.runners ?? Number.POSITIVE_INFINITY;
    const sl = options.secondaryLimits;
    this.secondaryLimits =
      sl === undefined || sl === false
        ? false
        : { perMinute: 80, perHour: 500, ...(sl === true ? {} : sl) };
    this.runsListingLagMs = options.runsListingLagMs ?? 0;
    this.primaryLimitStatus = options.primaryLimitStatus ?? 403;
    this.knownUsers.add(this.options.login);
    this.handlers = this.makeHandlers();
  }

  // ---- lifecycle

  /** Listen on 127.0.0.1, on a random port. Returns the base URL (also `baseUrl`). */
  async start(): Promise<string> {
    if (this.server) return this.baseUrl;
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
          res.end(JSON.stringify({ message: `fake-github crashed: ${(error as Error).message}` }));
        }
      });
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** e.g. http://127.0.0.1:41234 — pass as Octokit's baseUrl or GITHUB_API_URL */
  get baseUrl(): string {
    if (!this.server) throw new Error("FakeGitHub: call start() first");
    return `http://127.0.0.1:${this.port}`;
  }

  // ---- setup

  createRepo(
    fullName: string,
    options: { defaultBranch?: string; private?: boolean } = {},
  ): FakeRepo {
    const [owner, name] = fullName.split("/");
    if (!owner || !name) throw new Error(`createRepo: expected "owner/name", got ${fullName}`);
    const repo = new FakeRepo(
      this,
      this.nextId(),
      owner,
      name,
      options.defaultBranch ?? "main",
      options.private ?? false,
    );
    this.repos.set(fullName.toLowerCase(), repo);
    return repo;
  }

  repo(fullName: string): FakeRepo {
    const repo = this.repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`FakeGitHub: no repository ${fullName}; createRepo() it first`);
    return repo;
  }

  /** Register a token. `kind: "user"` tokens can read GET /user. */
  addToken(token: string, info: Partial<TokenInfo> & { login: string }): void {
    this.tokens.set(token, {
      kind: info.kind ?? "installation",
      login: info.login,
      rateLimit: info.rateLimit,
      graphqlRateLimit: info.graphqlRateLimit,
      ...(info.workflows !== undefined ? { workflows: info.workflows } : {}),
    });
    this.knownUsers.add(info.login);
  }

  /** Make a login exist (so the permission endpoint answers "none"/"read" rather than 404). */
  addUser(login: string): void {
    this.knownUsers.add(login);
  }

  /** The default run-name for dispatched runs whose workflow has no runName function of its own. */
  setRunName(fn: (inputs: Record<string, string>, run: FakeRun) => string): void {
    this.runNameFn = fn;
  }

  /**
   * Called for every dispatched run, after the dispatch has been answered. The run is
   * `in_progress` while the hook runs; if the hook leaves it unfinished it is completed
   * with `success` (or `failure` if the hook throws; the error lands in hookErrors).
   */
  onDispatch(hook: DispatchHook): () => void {
    this.dispatchHooks.push(hook);
    return () => {
      this.dispatchHooks = this.dispatchHooks.filter((h) => h !== hook);
    };
  }

  /** Resolves when no onDispatch hook is running (including runs they dispatched). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  // ---- runs

  allRuns(): FakeRun[] {
    return [...this.repos.values()].flatMap((r) => r.runs).sort((a, b) => a.id - b.id);
  }

  run(id: number): FakeRun {
    const run = this.allRuns().find((r) => r.id === id);
    if (!run) throw new Error(`FakeGitHub: no run ${id}`);
    return run;
  }

  /** Set a run's status (and conclusion when completed). */
  setRunStatus(id: number, status: RunStatus, conclusion: RunConclusion | null = null): FakeRun {
    const run = this.run(id);
    run.status = status;
    run.conclusion = status === "completed" ? (conclusion ?? "success") : null;
    run.updatedAt = this.isoNow();
    return run;
  }

  /** Record a run that no dispatch made (a push run, a schedule run), e.g. for workflow_run payloads. */
  createRun(
    repo: FakeRepo,
    input: {
      workflow: string;
      event: string;
      ref?: string;
      headSha?: string;
      inputs?: Record<string, string>;
      actor?: string;
    },
  ): FakeRun {
    const wf = this.findWorkflow(repo, input.workflow) ?? repo.addWorkflow(input.workflow);
    const ref = input.ref ?? repo.defaultBranch;
    return this.recordRun(repo, wf, {
      event: input.event,
      ref,
      headSha: input.headSha ?? repo.resolve(ref) ?? "0".repeat(40),
      inputs: input.inputs ?? {},
      actor: input.actor ?? repo.owner,
    });
  }

  // ---- faults

  /** Answer matching requests with an error status (500, 502, 503, or any other). */
  inject(
    options: FaultOptions & {
      status: number;
      message?: string;
      headers?: Record<string, string>;
      /** delay before answering */
      latencyMs?: number;
      /**
       * The request takes effect first and only the answer is an error (a 502 from a
       * proxy after GitHub did the work): a client that retries blindly does it twice.
       */
      applied?: boolean;
    },
  ): Fault {
    const fault = this.addFault("error", options, async () => {
      if (options.latencyMs) await sleep(options.latencyMs);
      return errorResult(
        options.status,
        options.message ?? defaultMessage(options.status),
        options.headers,
      );
    });
    (fault as FaultRecord).applied = options.applied === true;
    return fault;
  }

  /** GitHub's secondary rate limit: 403 (default) or 429 with `retry-after` seconds. */
  injectSecondaryRateLimit(
    options: FaultOptions & { status?: 403 | 429; retryAfter?: number } = {},
  ): Fault {
    return this.addFault("secondary-rate-limit", options, async () => {
      const headers: Record<string, string> = { "retry-after": String(options.retryAfter ?? 1) };
      return errorResult(options.status ?? 403, SECONDARY_MESSAGE, headers, {
        documentation_url:
          "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
      });
    });
  }

  /** Delay matching requests by `ms`, then answer them normally. */
  injectLatency(options: FaultOptions & { ms: number }): Fault {
    return this.addFault("latency", { times: Infinity, ...options }, async () => {
      await sleep(options.ms);
      return undefined;
    });
  }

  /** The next ref update(s) answer 422 "Update is not a fast forward", changing nothing. */
  forceNonFastForward(options: FaultOptions & { repo?: string; branch?: string } = {}): Fault {
    return this.addFault(
      "non-fast-forward",
      { operation: "git/update-ref", ...options, path: options.path },
      async (ctx) => {
        if (!this.refFilter(ctx, options)) return undefined;
        return errorResult(422, "Update is not a fast forward");
      },
      (ctx) => this.refFilter(ctx, options),
    );
  }

  /**
   * Just before the next ref update(s), another commit lands on the branch (a concurrent
   * job): the update then meets a real compare-and-swap conflict, unless the client
   * forces. `files` is what the concurrent commit writes (default: one marker file).
   */
  raceNextRefUpdate(
    options: FaultOptions & {
      repo?: string;
      branch?: string;
      files?: (n: number) => Record<string, string | null>;
      message?: string;
    } = {},
  ): Fault {
    const fault = this.addFault(
      "race",
      { operation: "git/update-ref", ...options },
      async (ctx) => {
        this.landConcurrentCommit(ctx, fault.fired, options);
        return undefined;
      },
      (ctx) => this.refFilter(ctx, options),
    );
    return fault;
  }

  /**
   * GitHub's answers to a ref write that loses a race inside GitHub: `PATCH git/refs/…`
   * answers 422 "Reference cannot be updated", `POST git/refs` 422 "Reference update
   * failed" (both by default; `operation` narrows). Nothing changes, unless `applied`
   * (the write landed, only the answer is the error) or `raceFirst` (another job's commit
   * lands on the branch first, as with raceNextRefUpdate, and the client's write does not).
   */
  refUpdateConflict(
    options: FaultOptions & {
      message?: string;
      repo?: string;
      branch?: string;
      applied?: boolean;
      raceFirst?: boolean;
      files?: (n: number) => Record<string, string | null>;
    } = {},
  ): Fault {
    const operations = options.operation
      ? [options.operation]
      : ["git/update-ref", "git/create-ref"];
    const fault = this.addFault(
      "ref-conflict",
      { ...options, operation: undefined },
      async (ctx) => {
        const create = ctx.op?.operationId === "git/create-ref";
        if (options.raceFirst) this.landConcurrentCommit(ctx, fault.fired, options);
        return errorResult(
          422,
          options.message ?? (create ? "Reference update failed" : "Reference cannot be updated"),
        );
      },
      (ctx) => operations.includes(ctx.op?.operationId ?? "") && this.refFilter(ctx, options),
    );
    (fault as FaultRecord).applied = options.applied === true;
    return fault;
  }

  /**
   * Answer matching GraphQL requests with HTTP 200 and a GraphQL error, as GitHub does for
   * errors found while running an operation: `{ data: { <field>: null }, errors: [{ type,
   * message, path }] }`. `applied: true` runs the operation first (a mutation lands).
   */
  injectGraphQLError(
    options: FaultOptions & { type: string; message?: string; applied?: boolean },
  ): Fault {
    const fault = this.addFault(
      "graphql-error",
      options,
      async (ctx) => {
        const field = ctx.graphql?.rootField;
        return {
          status: 200,
          body: {
            data: field ? { [field]: null } : null,
            errors: [
              {
                type: options.type,
                ...(field ? { path: [field] } : {}),
                locations: [{ line: 1, column: 1 }],
                message: options.message ?? defaultGraphQLMessage(options.type),
              },
            ],
          },
        };
      },
      (ctx) => ctx.graphql !== undefined,
    );
    (fault as FaultRecord).applied = options.applied === true;
    return fault;
  }

  /** A commit by another job lands on the branch a ref write targets (see raceNextRefUpdate). */
  private landConcurrentCommit(
    ctx: Ctx,
    n: number,
    options: { files?: (n: number) => Record<string, string | null>; message?: string },
  ): void {
    const repo = ctx.repo();
    const create = ctx.op?.operationId === "git/create-ref";
    const body = (ctx.body ?? {}) as { ref?: string; sha?: string };
    const full = create ? (body.ref ?? "") : refName(ctx.params.ref ?? "");
    if (!full.startsWith("refs/heads/")) return;
    const branch = full.slice("refs/heads/".length);
    const files = options.files?.(n) ?? {
      [`.fake-github/race-${n}.txt`]: `concurrent commit ${n}\n`,
    };
    const from = create && body.sha && !repo.refs.has(full) ? body.sha : undefined;
    if (from) repo.refs.set(full, from.toLowerCase());
    repo.commit(branch, files, { message: options.message ?? `concurrent commit ${n}` });
  }

  /** Dispatches of a workflow answer 422 with GitHub's message (default: no workflow_dispatch trigger). */
  refuseDispatch(
    options: FaultOptions & { workflow?: string; status?: number; message?: string } = {},
  ): Fault {
    return this.addFault(
      "refuse-dispatch",
      { operation: "actions/create-workflow-dispatch", ...options },
      async () =>
        errorResult(
          options.status ?? 422,
          options.message ?? "Workflow does not have 'workflow_dispatch' trigger",
        ),
      (ctx) =>
        options.workflow === undefined ||
        ctx.params.workflow_id === options.workflow ||
        path.basename(ctx.params.workflow_id ?? "") === options.workflow,
    );
  }

  clearFaults(): void {
    for (const f of this.faults) (f as FaultRecord).remaining = 0;
    this.faults.length = 0;
  }

  // ---- log

  countRequests(filter: RequestFilter | ((r: RequestRecord) => boolean) = {}): number {
    return this.findRequests(filter).length;
  }

  findRequests(filter: RequestFilter | ((r: RequestRecord) => boolean) = {}): RequestRecord[] {
    const fn =
      typeof filter === "function" ? filter : (r: RequestRecord) => matchesFilter(r, filter);
    return this.requests.filter(fn);
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** Throws with every violation listed, if there are any. */
  assertNoViolations(): void {
    if (this.violations.length === 0) return;
    const lines = this.violations.map(
      (v) =>
        `${v.kind}: ${v.method} ${v.path}${v.operation ? ` (${v.operation})` : ""}${v.status ? ` -> ${v.status}` : ""}\n    ${v.problems.join("\n    ")}`,
    );
    throw new Error(
      `fake GitHub saw ${this.violations.length} OpenAPI violation(s):\n${lines.join("\n")}`,
    );
  }

  /**
   * Set the primary rate limit state of a token (or of every token seen so far when
   * omitted), for REST (`resource: "core"`, the default) or GraphQL.
   */
  setRateLimit(options: {
    token?: string;
    used: number;
    resetInSeconds?: number;
    resource?: RateResource;
  }): void {
    const resource = options.resource ?? "core";
    const reset = Math.floor(this.now() / 1000) + (options.resetInSeconds ?? 3600);
    if (options.token) {
      this.rateState.set(`${resource}:${options.token}`, { used: options.used, reset });
      return;
    }
    for (const k of [...this.rateState.keys()]) {
      if (k.startsWith(`${resource}:`)) this.rateState.set(k, { used: options.used, reset });
    }
  }

  /**
   * What was sent and received, for one token or (omitted) overall: REST reads (GET/HEAD)
   * and writes, GraphQL queries and mutations, request and response body bytes. Every
   * request counts, whatever it was answered (errors, faults, limits included).
   */
  usage(token?: string): Usage {
    if (token !== undefined) return cloneUsage(this.traffic.get(token) ?? emptyUsage());
    const total = emptyUsage();
    for (const u of this.traffic.values()) {
      total.rest.reads += u.rest.reads;
      total.rest.writes += u.rest.writes;
      total.graphql.queries += u.graphql.queries;
      total.graphql.mutations += u.graphql.mutations;
      total.bytesIn += u.bytesIn;
      total.bytesOut += u.bytesOut;
    }
    return total;
  }

  // ---- helpers shared with FakeRepo

  nextId(): number {
    return ++this.idCounter;
  }

  isoNow(): string {
    return new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  signature(login: string): Signature {
    return {
      name: login,
      email: `${this.userId(login)}+${login}@users.noreply.github.com`,
      date: this.isoNow(),
    };
  }

  userId(login: string): number {
    let id = this.userIds.get(login);
    if (!id) {
      id = 100 + this.userIds.size;
      this.userIds.set(login, id);
    }
    return id;
  }

  // ================================================================ request handling

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = (req.method ?? "GET").toUpperCase();
    const rawPath = url.pathname.replace(/\/+$/, "") || "/";
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBuffer = Buffer.concat(chunks);
    const rawBody = rawBuffer.toString("utf8");
    const record: RequestRecord = {
      seq: ++this.seq,
      method,
      path: rawPath,
      query: url.search,
      status: 0,
      bytes: rawBuffer.length,
      bytesOut: 0,
    };
    this.requests.push(record);
    const isGraphQL = method === "POST" && rawPath === "/graphql";

    if (this.latencyMs > 0) await sleep(this.latencyMs);

    const send = (
      result: Result,
      tokenKey?: string,
      op?: OperationSpec,
      resource: RateResource = "core",
    ) => {
      record.status = result.status;
      const headers: Record<string, string> = {
        "x-github-request-id": `FAKE:${record.seq}`,
        "x-github-media-type": "github.v3; format=json",
        ...this.rateHeaders(tokenKey, resource),
        ...(result.headers ?? {}),
      };
      let payload: string | Buffer = "";
      if (result.raw !== undefined) {
        payload = result.raw;
      } else if (result.body !== undefined) {
        let body: unknown = result.body;
        if (op) {
          const schema = responseSchema(op, result.status);
          if (schema) body = shape(schema, body);
          if (this.options.validate && !record.fault) {
            const problems = validateResponse(op, result.status, body);
            if (problems.length > 0) {
              this.violations.push({
                kind: "response",
                method,
                path: rawPath,
                operation: op.operationId,
                status: result.status,
                problems,
              });
            }
          }
        }
        payload = JSON.stringify(body);
        headers["content-type"] ??= "application/json; charset=utf-8";
      } else if (op && this.options.validate && !record.fault) {
        const problems = validateResponse(op, result.status, undefined);
        if (problems.length > 0 && result.status < 300 && result.status !== 204) {
          this.violations.push({
            kind: "response",
            method,
            path: rawPath,
            operation: op.operationId,
            status: result.status,
            problems,
          });
        }
      }
      record.bytesOut = Buffer.byteLength(payload);
      this.countUsage(tokenKey ?? "", record);
      res.writeHead(result.status, headers);
      res.end(payload);
      if (result.after) setImmediate(result.after);
    };

    // ---- route
    let op: OperationSpec | undefined;
    let params: Record<string, string> = {};
    if (isGraphQL) {
      record.operation = "graphql/query";
      record.route = "/graphql";
    } else {
      const match = matchRoute(method, rawPath);
      if (!match) {
        this.violations.push({
          kind: "unknown-route",
          method,
          path: rawPath,
          problems: [`no operation in GitHub's OpenAPI description matches ${method} ${rawPath}`],
        });
        send(errorResult(404, "Not Found"));
        return;
      }
      record.operation = match.entry.operationId;
      record.route = match.entry.path;
      op = getOperation(match.entry);
      params = match.params;
    }

    // ---- auth
    const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    if (!auth) {
      if (isGraphQL) {
        send(
          errorResult(401, "This endpoint requires you to be authenticated.", undefined, {
            documentation_url:
              "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql",
          }),
        );
      } else send(errorResult(401, "Requires authentication"), undefined, op);
      return;
    }
    const tokenKey = auth[1]!;
    let token = this.tokens.get(tokenKey);
    if (!token) {
      if (!this.options.acceptAnyToken) {
        send(errorResult(401, "Bad credentials"), undefined, op);
        return;
      }
      token = { login: this.options.login, kind: "installation" };
    }
    record.login = token.login;
    record.token = tokenKey;

    // ---- body
    let body: unknown;
    if (rawBody.trim() !== "") {
      try {
        body = JSON.parse(rawBody);
      } catch {
        send(errorResult(400, "Problems parsing JSON"), tokenKey, op);
        return;
      }
    }
    record.body = body;

    if (isGraphQL) {
      await this.handleGraphQL(record, body, tokenKey, token, req.headers, send);
      return;
    }
    op = op!;

    // ---- primary rate limit (GET /rate_limit is free, as on GitHub)
    if (op.operationId !== "rate-limit/get") {
      const u = this.usageOf(tokenKey, "core");
      if (u.used >= this.limitOf(token, "core")) {
        send(
          errorResult(
            this.primaryLimitStatus,
            `API rate limit exceeded for ${token.kind === "installation" ? "installation" : "user"} ID ${this.userId(token.login)}.`,
            undefined,
            {
              documentation_url:
                "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
            },
          ),
          tokenKey,
          op,
        );
        return;
      }
      u.used++;
    }

    // ---- secondary (content creation) limit, when switched on
    if (method !== "GET" && method !== "HEAD") {
      const limited = this.secondaryLimit(tokenKey);
      if (limited) {
        record.fault = "secondary-rate-limit";
        send(limited, tokenKey, op);
        return;
      }
    }

    // ---- OpenAPI check of the request
    if (this.options.validate) {
      const paramProblems = validateParams(op, params, url.searchParams);
      const bodyProblems =
        method === "GET" || method === "HEAD" || (method === "DELETE" && body === undefined)
          ? []
          : validateRequestBody(op, body);
      const problems = [...paramProblems, ...bodyProblems];
      if (problems.length > 0) {
        this.violations.push({
          kind: "request",
          method,
          path: rawPath,
          operation: op.operationId,
          problems,
        });
        send(
          errorResult(422, `Invalid request.\n\n${problems.join("\n")}`, undefined, {
            errors: problems.map((p) => ({
              resource: op!.operationId,
              code: "invalid",
              message: p,
            })),
          }),
          tokenKey,
          op,
        );
        return;
      }
    }

    const ctx: Ctx = {
      method,
      rawPath,
      params,
      query: url.searchParams,
      body,
      headers: req.headers,
      login: token.login,
      token,
      tokenKey,
      op,
      repo: () => {
        const r = this.repos.get(`${params.owner}/${params.repo}`.toLowerCase());
        if (!r) throw notFound();
        return r;
      },
    };

    const handler = this.handlers[op.operationId];
    const finalOp = op;
    try {
      // ---- faults
      const faulted = await this.runFaults(record, ctx, handler);
      if (faulted) {
        send(faulted, tokenKey, finalOp);
        return;
      }

      // ---- the operation
      if (!handler) {
        this.violations.push({
          kind: "unimplemented",
          method,
          path: rawPath,
          operation: op.operationId,
          problems: [`GitHub documents ${op.operationId}, but the fake does not implement it`],
        });
        send(
          errorResult(404, `Not Found (fake GitHub does not implement ${op.operationId})`),
          tokenKey,
        );
        return;
      }
      const result = await handler(ctx);
      send(result, tokenKey, op);
    } catch (error) {
      if (error instanceof HttpError) {
        send(errorResult(error.status, error.message, error.headers, error.extra), tokenKey, op);
      } else if (error instanceof GitError) {
        send(errorResult(error.status, error.message), tokenKey, op);
      } else {
        send(errorResult(500, `fake GitHub: ${(error as Error).message}`), tokenKey);
      }
    }
  }

  /**
   * The faults that match a request, in order: the first that answers wins (its result is
   * returned); latency and race faults act and let the request go on (undefined).
   */
  private async runFaults(
    record: RequestRecord,
    ctx: Ctx,
    handler: Handler | undefined,
  ): Promise<Result | undefined> {
    for (const fault of this.faults as FaultRecord[]) {
      if (fault.remaining <= 0) continue;
      if (!matchesFilter(record, fault.filter)) continue;
      if (!fault.predicate(ctx)) continue;
      fault.seen++;
      if (fault.seen <= fault.after) continue;
      fault.remaining--;
      fault.fired++;
      if (fault.applied && handler) {
        // The request takes effect; only its answer is lost.
        const done = await Promise.resolve()
          .then(() => handler(ctx))
          .catch(() => undefined);
        done?.after?.();
      }
      const result = await fault.apply(ctx);
      if (result) {
        record.fault = fault.kind;
        return result;
      }
    }
    return undefined;
  }

  // ================================================================ GraphQL

  private async handleGraphQL(
    record: RequestRecord,
    body: unknown,
    tokenKey: string,
    token: TokenInfo,
    headers: http.IncomingHttpHeaders,
    send: (result: Result, tokenKey?: string, op?: OperationSpec, resource?: RateResource) => void,
  ): Promise<void> {
    const answer = (result: Result) => send(result, tokenKey, undefined, "graphql");
    const parsed = parseGraphQLRequest(body);
    const b = (body ?? {}) as { query?: string; variables?: unknown; operationName?: string };
    record.graphql = {
      query: typeof b.query === "string" ? b.query : "",
      variables: (b.variables as Record<string, unknown> | undefined) ?? undefined,
      operationName: b.operationName,
      kind: parsed.kind,
      rootField: parsed.rootField,
    };
    record.operation =
      parsed.kind === "mutation" ? `graphql/mutation:${parsed.rootField ?? ""}` : "graphql/query";

    // ---- the GraphQL budget (its own, as on GitHub)
    const u = this.usageOf(tokenKey, "graphql");
    const limit = this.limitOf(token, "graphql");
    if (u.used >= limit) {
      answer({
        status: 200,
        body: {
          errors: [
            {
              type: this.graphqlRateLimitType,
              code: "graphql_rate_limit",
              message: `API rate limit already exceeded for ${token.kind === "installation" ? "installation" : "user"} ID ${this.userId(token.login)}.`,
            },
          ],
        },
      });
      return;
    }

    // ---- parse and validate against GitHub's schema
    if (parsed.errors.length > 0) {
      if (this.options.validate) {
        this.violations.push({
          kind: "request",
          method: "POST",
          path: "/graphql",
          operation: record.operation,
          problems: parsed.errors.map(
            (e) =>
              `${e.message}${e.locations?.[0] ? ` (line ${e.locations[0].line}, column ${e.locations[0].column})` : ""}`,
          ),
        });
      }
      answer({ status: 200, body: { errors: parsed.errors } });
      return;
    }
    u.used += GRAPHQL_COST;

    // ---- secondary (content creation) limit: mutations count with REST writes
    if (parsed.kind === "mutation") {
      const limited = this.secondaryLimit(tokenKey);
      if (limited) {
        record.fault = "secondary-rate-limit";
        answer(limited);
        return;
      }
    }

    const problems: string[] = [];
    const unmodeled = new Set<string>();
    const execute: Handler = async () => {
      const out = await executeGraphQL(
        parsed,
        body,
        {
          fake: this,
          login: token.login,
          workflows: mayWriteWorkflows(token),
          rateLimit: () => ({
            cost: GRAPHQL_COST,
            limit,
            used: u.used,
            remaining: Math.max(0, limit - u.used),
            resetAt: new Date(u.reset * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          }),
          unmodeled: (field) => unmodeled.add(field),
          invalid: (problem) => problems.push(problem),
        },
        this.graphqlHost(),
      );
      // graphql-js answers without `data` when the variables do not fit the operation:
      // GitHub refuses those before running anything too.
      if (out.data === undefined && out.errors) {
        problems.push(...out.errors.map((e) => e.message));
      }
      return { status: 200, body: out };
    };
    const ctx: Ctx = {
      method: "POST",
      rawPath: "/graphql",
      params: {},
      query: new URLSearchParams(),
      body,
      headers,
      login: token.login,
      token,
      tokenKey,
      repo: () => {
        throw notFound();
      },
      graphql: { kind: parsed.kind, rootField: parsed.rootField },
    };
    const report = () => {
      if (!this.options.validate) return;
      if (problems.length > 0) {
        this.violations.push({
          kind: "request",
          method: "POST",
          path: "/graphql",
          operation: record.operation,
          problems: [...problems],
        });
      }
      if (unmodeled.size > 0) {
        this.violations.push({
          kind: "unimplemented",
          method: "POST",
          path: "/graphql",
          operation: record.operation,
          problems: [...unmodeled].map(
            (f) => `GitHub's schema has ${f}, but the fake does not model it (answered null)`,
          ),
        });
      }
    };
    try {
      const faulted = await this.runFaults(record, ctx, execute);
      if (faulted) {
        report();
        answer(faulted);
        return;
      }
      const result = await execute(ctx);
      report();
      answer(result);
    } catch (error) {
      answer(errorResult(500, `fake GitHub: ${(error as Error).message}`));
    }
  }
  private addFault(
    kind: FaultKind,
    options: FaultOptions,
    apply: (ctx: Ctx) => Promise<Result | undefined>,
    predicate: (ctx: Ctx) => boolean = () => true,
  ): Fault {
    const fault: FaultRecord = {
      id: ++this.faultSeq,
      kind,
      fired: 0,
      remaining: options.times ?? 1,
      filter: { method: options.method, path: options.path, operation: options.operation },
      after: options.after ?? 0,
      seen: 0,
      apply,
      predicate,
    };
    this.faults.push(fault);
    return fault;
  }

  private refFilter(ctx: Ctx, options: { repo?: string; branch?: string }): boolean {
    if (
      options.repo &&
      `${ctx.params.owner}/${ctx.params.repo}`.toLowerCase() !== options.repo.toLowerCase()
    ) {
      return false;
    }
    if (options.branch) {
      const ref =
        ctx.op?.operationId === "git/create-ref"
          ? String((ctx.body as { ref?: string } | undefined)?.ref ?? "")
          : refName(ctx.params.ref ?? "");
      if (ref !== `refs/heads/${options.branch}`) return false;
    }
    return true;
  }

  private limitOf(token: TokenInfo, resource: RateResource): number {
    const set = resource === "graphql" ? token.graphqlRateLimit : token.rateLimit;
    return set ?? (token.kind === "installation" ? 1000 : 5000);
  }

  private usageOf(tokenKey: string, resource: RateResource): { used: number; reset: number } {
    const nowS = Math.floor(this.now() / 1000);
    const key = `${resource}:${tokenKey}`;
    let u = this.rateState.get(key);
    if (!u || u.reset <= nowS) {
      u = { used: 0, reset: nowS + 3600 };
      this.rateState.set(key, u);
    }
    return u;
  }

  private rateHeaders(
    tokenKey: string | undefined,
    resource: RateResource,
  ): Record<string, string> {
    if (!tokenKey) return {};
    const token = this.tokens.get(tokenKey) ?? {
      login: this.options.login,
      kind: "installation" as const,
    };
    const u = this.usageOf(tokenKey, resource);
    const limit = this.limitOf(token, resource);
    return {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(Math.max(0, limit - u.used)),
      "x-ratelimit-reset": String(u.reset),
      "x-ratelimit-used": String(u.used),
      "x-ratelimit-resource": resource,
    };
  }

  private countUsage(tokenKey: string, record: RequestRecord): void {
    let u = this.traffic.get(tokenKey);
    if (!u) {
      u = emptyUsage();
      this.traffic.set(tokenKey, u);
    }
    if (record.operation?.startsWith("graphql/")) {
      if (record.operation.startsWith("graphql/mutation")) u.graphql.mutations++;
      else u.graphql.queries++;
    } else if (record.method === "GET" || record.method === "HEAD") u.rest.reads++;
    else u.rest.writes++;
    u.bytesIn += record.bytes;
    u.bytesOut += record.bytesOut;
  }

  /**
   * Count one content-creating request against the token's secondary limits; the answer
   * GitHub gives when it is over them (nothing is counted then), else undefined.
   */
  private secondaryLimit(tokenKey: string): Result | undefined {
    const limits = this.secondaryLimits;
    if (!limits) return undefined;
    const now = this.now();
    const hour = (this.contentWrites.get(tokenKey) ?? []).filter((t) => t > now - 3_600_000);
    const minute = hour.filter((t) => t > now - 60_000);
    let freeAt: number | undefined;
    if (minute.length >= limits.perMinute)
      freeAt = minute[minute.length - limits.perMinute]! + 60_000;
    if (hour.length >= limits.perHour) {
      freeAt = Math.max(freeAt ?? 0, hour[hour.length - limits.perHour]! + 3_600_000);
    }
    this.contentWrites.set(tokenKey, hour);
    if (freeAt !== undefined) {
      const retryAfter = Math.max(1, Math.ceil((freeAt - now) / 1000));
      return errorResult(
        403,
        CONTENT_CREATION_MESSAGE,
        { "retry-after": String(retryAfter) },
        { documentation_url: SECONDARY_DOCS },
      );
    }
    hour.push(now);
    return undefined;
  }

  /** The fake's side of GraphQL: repositories, commits through the git store, comments. */
  private graphqlHost(): GraphQLHost {
    return {
      findRepo: (fullName) => this.repos.get(fullName.toLowerCase()),
      allRepos: () => [...this.repos.values()],
      serverUrl: this.options.serverUrl,
      commitOnBranch: (repo, branch, input) => {
        const ref = `refs/heads/${branch}`;
        const head = repo.refs.get(ref);
        // The compare-and-swap: the branch must still be where the client saw it.
        if (!head || head !== input.expectedHeadOid.toLowerCase()) {
          throw githubError(
            "STALE_DATA",
            `Expected branch to point to "${input.expectedHeadOid}" but it did not.  Pull and try again.`,
          );
        }
        const parent = repo.git.expect(head, "commit");
        const flat = applyFileChanges(repo.git.flatten(parent.tree), head, {
          deletions: input.deletions,
          additions: input.additions.map((a) => ({
            path: a.path,
            sha: repo.git.writeBlob(a.contents),
          })),
        });
        const tree = repo.git.buildTree(flat);
        const refused = input.workflows ? undefined : workflowRefusal(repo.git, parent.tree, tree);
        if (refused) throw githubError("FORBIDDEN", refused);
        const sig = this.signature(input.login);
        const sha = repo.git.writeCommit({
          tree,
          parents: [head],
          message: input.message,
          author: sig,
          committer: sig,
        });
        repo.refs.set(ref, sha);
        return sha;
      },
      addComment: (repo, issueNumber, body, login) => repo.addComment(issueNumber, body, login),
      touchComment: (c) => {
        c.updatedAt = this.isoNow();
      },
      commentUrl: (repo, c) => {
        const issue = repo.issues.get(c.issueNumber);
        return this.htmlUrl(
          `/${repo.fullName}/${issue?.pull ? "pull" : "issues"}/${c.issueNumber}#issuecomment-${c.id}`,
        );
      },
    };
  }

  // ================================================================ object views

  private apiUrl(p: string): string {
    return `${this.baseUrl}${p}`;
  }

  private htmlUrl(p: string): string {
    return `${this.options.serverUrl}${p}`;
  }

  userView(login: string): Record<string, unknown> {
    const api = this.apiUrl("").replace(/\/$/, "");
    const web = this.htmlUrl("").replace(/\/$/, "");
    return { ...userObject(login, this.userId(login), api, web), user_view_type: "public" };
  }

  private repoView(repo: FakeRepo): Record<string, unknown> {
    const api = this.apiUrl(`/repos/${repo.fullName}`);
    const at = "2026-01-01T00:00:00Z";
    return {
      id: repo.id,
      node_id: `R_${repo.id}`,
      name: repo.name,
      full_name: repo.fullName,
      owner: this.userView(repo.owner),
      private: repo.isPrivate,
      visibility: repo.isPrivate ? "private" : "public",
      html_url: this.htmlUrl(`/${repo.fullName}`),
      url: api,
      git_url: `git://github.com/${repo.fullName}.git`,
      ssh_url: `git@github.com:${repo.fullName}.git`,
      clone_url: this.htmlUrl(`/${repo.fullName}.git`),
      svn_url: this.htmlUrl(`/${repo.fullName}`),
      default_branch: repo.defaultBranch,
      fork: false,
      archived: false,
      disabled: false,
      has_issues: true,
      created_at: at,
      updated_at: at,
      pushed_at: at,
      permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
    };
  }

  private labelView(repo: FakeRepo, name: string): Record<string, unknown> {
    const label = repo.labels.get(name.toLowerCase());
    const l = label ?? { id: 0, name, color: "ededed", description: null };
    return {
      id: l.id,
      node_id: `LA_${l.id}`,
      url: this.apiUrl(`/repos/${repo.fullName}/labels/${encodeURIComponent(l.name)}`),
      name: l.name,
      description: l.description,
      color: l.color,
      default: false,
    };
  }

  private reactionsRollup(url: string, reactions: Reaction[]): Record<string, unknown> {
    const count = (c: string) => reactions.filter((r) => r.content === c).length;
    return {
      url,
      total_count: reactions.length,
      "+1": count("+1"),
      "-1": count("-1"),
      laugh: count("laugh"),
      confused: count("confused"),
      heart: count("heart"),
      hooray: count("hooray"),
      eyes: count("eyes"),
      rocket: count("rocket"),
    };
  }

  private association(repo: FakeRepo, login: string): string {
    if (login === repo.owner) return "OWNER";
    const role = repo.permissions.get(login);
    if (role && ROLES.indexOf(role) >= ROLES.indexOf("triage")) return "COLLABORATOR";
    return "NONE";
  }

  private issueView(repo: FakeRepo, issue: Issue): Record<string, unknown> {
    const api = this.apiUrl(`/repos/${repo.fullName}/issues/${issue.number}`);
    const kind = issue.pull ? "pull" : "issues";
    const view: Record<string, unknown> = {
      id: issue.id,
      node_id: `I_${issue.id}`,
      url: api,
      repository_url: this.apiUrl(`/repos/${repo.fullName}`),
      labels_url: `${api}/labels{/name}`,
      comments_url: `${api}/comments`,
      events_url: `${api}/events`,
      html_url: this.htmlUrl(`/${repo.fullName}/${kind}/${issue.number}`),
      number: issue.number,
      state: issue.state,
      state_reason: issue.stateReason,
      title: issue.title,
      body: issue.body,
      user: this.userView(issue.user),
      labels: issue.labels.map((n) => this.labelView(repo, n)),
      assignee: issue.assignees[0] ? this.userView(issue.assignees[0]) : null,
      assignees: issue.assignees.map((a) => this.userView(a)),
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: repo.commentsOn(issue.number).length,
      closed_at: issue.closedAt,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      author_association: this.association(repo, issue.user),
      reactions: this.reactionsRollup(`${api}/reactions`, issue.reactions),
    };
    if (issue.pull) {
      view.pull_request = {
        url: this.apiUrl(`/repos/${repo.fullName}/pulls/${issue.number}`),
        html_url: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}`),
        diff_url: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}.diff`),
        patch_url: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}.patch`),
        merged_at: null,
      };
    }
    return view;
  }

  private commentView(repo: FakeRepo, c: IssueComment): Record<string, unknown> {
    const api = this.apiUrl(`/repos/${repo.fullName}/issues/comments/${c.id}`);
    const issue = repo.issues.get(c.issueNumber);
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      url: api,
      html_url: this.htmlUrl(
        `/${repo.fullName}/${issue?.pull ? "pull" : "issues"}/${c.issueNumber}#issuecomment-${c.id}`,
      ),
      body: c.body,
      user: this.userView(c.user),
      created_at: c.createdAt,
      updated_at: c.updatedAt,
      issue_url: this.apiUrl(`/repos/${repo.fullName}/issues/${c.issueNumber}`),
      author_association: this.association(repo, c.user),
      reactions: this.reactionsRollup(`${api}/reactions`, c.reactions),
    };
  }

  private reactionView(r: Reaction): Record<string, unknown> {
    return {
      id: r.id,
      node_id: `REA_${r.id}`,
      user: this.userView(r.user),
      content: r.content,
      created_at: r.createdAt,
    };
  }

  private pullView(repo: FakeRepo, issue: Issue): Record<string, unknown> {
    const pull = issue.pull!;
    const api = this.apiUrl(`/repos/${repo.fullName}/pulls/${issue.number}`);
    const branchView = (ref: string) => ({
      label: `${repo.owner}:${ref}`,
      ref,
      sha: repo.head(ref) ?? "0".repeat(40),
      user: this.userView(repo.owner),
      repo: this.repoView(repo),
    });
    return {
      ...this.issueView(repo, issue),
      url: api,
      html_url: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}`),
      diff_url: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}.diff`),
      patch_url: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}.patch`),
      issue_url: this.apiUrl(`/repos/${repo.fullName}/issues/${issue.number}`),
      commits_url: `${api}/commits`,
      review_comments_url: `${api}/comments`,
      review_comment_url: this.apiUrl(`/repos/${repo.fullName}/pulls/comments{/number}`),
      comments_url: this.apiUrl(`/repos/${repo.fullName}/issues/${issue.number}/comments`),
      statuses_url: this.apiUrl(`/repos/${repo.fullName}/statuses/${repo.head(pull.head) ?? ""}`),
      node_id: `PR_${issue.id}`,
      head: branchView(pull.head),
      base: branchView(pull.base),
      draft: pull.draft,
      merged: pull.merged,
      merged_at: null,
      merge_commit_sha: null,
      requested_reviewers: [],
      requested_teams: [],
      _links: {
        self: { href: api },
        html: { href: this.htmlUrl(`/${repo.fullName}/pull/${issue.number}`) },
        issue: { href: this.apiUrl(`/repos/${repo.fullName}/issues/${issue.number}`) },
        comments: { href: this.apiUrl(`/repos/${repo.fullName}/issues/${issue.number}/comments`) },
        review_comments: { href: `${api}/comments` },
        review_comment: { href: this.apiUrl(`/repos/${repo.fullName}/pulls/comments{/number}`) },
        commits: { href: `${api}/commits` },
        statuses: {
          href: this.apiUrl(`/repos/${repo.fullName}/statuses/${repo.head(pull.head) ?? ""}`),
        },
      },
      auto_merge: null,
      reactions: undefined,
    };
  }

  private refView(repo: FakeRepo, ref: string, sha: string): Record<string, unknown> {
    return {
      ref,
      node_id: `REF_${Buffer.from(ref).toString("base64url")}`,
      url: this.apiUrl(`/repos/${repo.fullName}/git/${ref}`),
      object: {
        type: "commit",
        sha,
        url: this.apiUrl(`/repos/${repo.fullName}/git/commits/${sha}`),
      },
    };
  }

  private gitCommitView(repo: FakeRepo, sha: string): Record<string, unknown> {
    const c = repo.git.expect(sha, "commit");
    return {
      sha,
      node_id: `C_${sha}`,
      url: this.apiUrl(`/repos/${repo.fullName}/git/commits/${sha}`),
      html_url: this.htmlUrl(`/${repo.fullName}/commit/${sha}`),
      author: c.author,
      committer: c.committer,
      message: c.message,
      tree: { sha: c.tree, url: this.apiUrl(`/repos/${repo.fullName}/git/trees/${c.tree}`) },
      parents: c.parents.map((p) => ({
        sha: p,
        url: this.apiUrl(`/repos/${repo.fullName}/git/commits/${p}`),
        html_url: this.htmlUrl(`/${repo.fullName}/commit/${p}`),
      })),
      verification: {
        verified: false,
        reason: "unsigned",
        signature: null,
        payload: null,
        verified_at: null,
      },
    };
  }

  private commitView(repo: FakeRepo, sha: string, withFiles: boolean): Record<string, unknown> {
    const c = repo.git.expect(sha, "commit");
    const loginOf = (sig: Signature) => {
      const m = /^\d+\+(.+)@users\.noreply\.github\.com$/.exec(sig.email);
      return m ? this.userView(m[1]!) : null;
    };
    const view: Record<string, unknown> = {
      sha,
      node_id: `C_${sha}`,
      url: this.apiUrl(`/repos/${repo.fullName}/commits/${sha}`),
      html_url: this.htmlUrl(`/${repo.fullName}/commit/${sha}`),
      comments_url: this.apiUrl(`/repos/${repo.fullName}/commits/${sha}/comments`),
      commit: {
        url: this.apiUrl(`/repos/${repo.fullName}/git/commits/${sha}`),
        author: c.author,
        committer: c.committer,
        message: c.message,
        comment_count: 0,
        tree: { sha: c.tree, url: this.apiUrl(`/repos/${repo.fullName}/git/trees/${c.tree}`) },
        verification: {
          verified: false,
          reason: "unsigned",
          signature: null,
          payload: null,
          verified_at: null,
        },
      },
      author: loginOf(c.author),
      committer: loginOf(c.committer),
      parents: c.parents.map((p) => ({
        sha: p,
        url: this.apiUrl(`/repos/${repo.fullName}/commits/${p}`),
        html_url: this.htmlUrl(`/${repo.fullName}/commit/${p}`),
      })),
    };
    if (withFiles) {
      const after = repo.git.flatten(c.tree);
      const before = c.parents[0]
        ? repo.git.flatten(repo.git.expect(c.parents[0], "commit").tree)
        : new Map<string, FlatEntry>();
      const files: Record<string, unknown>[] = [];
      for (const p of new Set([...before.keys(), ...after.keys()])) {
        const a = before.get(p);
        const b = after.get(p);
        if (a?.sha === b?.sha) continue;
        const status = !a ? "added" : !b ? "removed" : "modified";
        files.push({
          sha: (b ?? a)!.sha,
          filename: p,
          status,
          additions: 0,
          deletions: 0,
          changes: 0,
          blob_url: this.htmlUrl(`/${repo.fullName}/blob/${sha}/${p}`),
          raw_url: this.htmlUrl(`/${repo.fullName}/raw/${sha}/${p}`),
          contents_url: this.apiUrl(`/repos/${repo.fullName}/contents/${p}?ref=${sha}`),
        });
      }
      view.files = files;
      view.stats = { additions: 0, deletions: 0, total: 0 };
    }
    return view;
  }

  private runView(run: FakeRun): Record<string, unknown> {
    const repo = run.repo;
    const api = this.apiUrl(`/repos/${repo.fullName}/actions/runs/${run.id}`);
    const minimalRepo = this.repoView(repo);
    return {
      id: run.id,
      name: run.workflow.name,
      node_id: `WFR_${run.id}`,
      check_suite_id: run.id + 1,
      check_suite_node_id: `CS_${run.id + 1}`,
      head_branch: run.ref,
      head_sha: run.headSha,
      path: run.workflow.path,
      display_title: run.displayTitle,
      run_number: run.runNumber,
      run_attempt: run.runAttempt,
      event: run.event,
      status: run.status,
      conclusion: run.conclusion,
      workflow_id: run.workflow.id,
      url: api,
      html_url: this.htmlUrl(`/${repo.fullName}/actions/runs/${run.id}`),
      pull_requests: [],
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      run_started_at: run.createdAt,
      actor: this.userView(run.actor),
      triggering_actor: this.userView(run.actor),
      jobs_url: `${api}/jobs`,
      logs_url: `${api}/logs`,
      check_suite_url: this.apiUrl(`/repos/${repo.fullName}/check-suites/${run.id + 1}`),
      artifacts_url: `${api}/artifacts`,
      cancel_url: `${api}/cancel`,
      rerun_url: `${api}/rerun`,
      workflow_url: this.apiUrl(`/repos/${repo.fullName}/actions/workflows/${run.workflow.id}`),
      head_commit: null,
      repository: minimalRepo,
      head_repository: minimalRepo,
    };
  }

  private workflowView(repo: FakeRepo, wf: Workflow): Record<string, unknown> {
    return {
      id: wf.id,
      node_id: `W_${wf.id}`,
      name: wf.name,
      path: wf.path,
      state: "active",
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      url: this.apiUrl(`/repos/${repo.fullName}/actions/workflows/${wf.id}`),
      html_url: this.htmlUrl(`/${repo.fullName}/blob/${repo.defaultBranch}/${wf.path}`),
      badge_url: this.htmlUrl(
        `/${repo.fullName}/workflows/${encodeURIComponent(wf.name)}/badge.svg`,
      ),
    };
  }

  // ================================================================ workflows and runs

  /** A workflow by numeric id or file name: registered, else read from the tree at `ref`. */
  findWorkflow(repo: FakeRepo, idOrFile: string, ref?: string): Workflow | undefined {
    if (/^\d+$/.test(idOrFile)) {
      return [...repo.workflows.values()].find((w) => w.id === Number(idOrFile));
    }
    const p = idOrFile.includes("/") ? idOrFile : `.github/workflows/${idOrFile}`;
    const registered = repo.workflows.get(p);
    const text =
      repo.readFile(p, ref ?? repo.defaultBranch) ?? (ref ? repo.readFile(p) : undefined);
    if (text === undefined) return registered;
    const fromFile = parseWorkflow(text, p);
    const wf: Workflow = {
      id: registered?.id ?? this.nextId(),
      path: p,
      name: registered?.name ?? fromFile.name,
      dispatchable: fromFile.dispatchable,
      inputs: fromFile.inputs,
      runNameTemplate: fromFile.runNameTemplate,
      runName: registered?.runName,
      concurrencyTemplate: fromFile.concurrencyTemplate,
    };
    repo.workflows.set(p, wf);
    return wf;
  }

  private recordRun(
    repo: FakeRepo,
    wf: Workflow,
    input: {
      event: string;
      ref: string;
      headSha: string;
      inputs: Record<string, string>;
      actor: string;
    },
  ): FakeRun {
    const at = this.isoNow();
    const aborter = new AbortController();
    const run: FakeRun = {
      id: this.nextId() * 10,
      repo,
      workflow: wf,
      event: input.event,
      ref: input.ref,
      headSha: input.headSha,
      inputs: input.inputs,
      displayTitle: wf.name,
      status: "queued",
      conclusion: null,
      runNumber: repo.runs.filter((r) => r.workflow.id === wf.id).length + 1,
      runAttempt: 1,
      actor: input.actor,
      createdAt: at,
      updatedAt: at,
      signal: aborter.signal,
    };
    this.aborters.set(run.id, aborter);
    this.runCreatedMs.set(run.id, this.now());
    run.displayTitle = this.runNameFor(wf, run);
    repo.runs.push(run);
    return run;
  }

  private runNameFor(wf: Workflow, run: FakeRun): string {
    if (wf.runName) return wf.runName(run.inputs, run);
    if (this.runNameFn) return this.runNameFn(run.inputs, run);
    if (wf.runNameTemplate) return substitute(wf.runNameTemplate, wf, run);
    return wf.name;
  }

  /** concurrency group → the run holding it, and the one pending behind it */
  private groups = new Map<
    string,
    { holder: number; pending?: { run: FakeRun; go: (ok: boolean) => void } }
  >();

  /** Wait until `run` holds its concurrency group; false when a newer run cancelled it while it waited. */
  private acquireGroup(group: string, run: FakeRun): Promise<boolean> {
    const g = this.groups.get(group);
    if (!g) {
      this.groups.set(group, { holder: run.id });
      return Promise.resolve(true);
    }
    // GitHub keeps one running and one pending: a newer pending run cancels the older one
    if (g.pending) {
      const older = g.pending;
      this.setRunStatus(older.run.id, "completed", "cancelled");
      older.go(false);
    }
    return new Promise((resolve) => {
      g.pending = { run, go: resolve };
    });
  }

  private releaseGroup(group: string): void {
    const g = this.groups.get(group);
    if (!g) return;
    if (g.pending) {
      const next = g.pending;
      g.holder = next.run.id;
      delete g.pending;
      next.go(true);
    } else this.groups.delete(group);
  }

  private busyRunners = 0;
  private runnerQueue: (() => void)[] = [];

  private takeRunner(): Promise<void> {
    if (this.busyRunners < this.runners) {
      this.busyRunners++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.runnerQueue.push(resolve));
  }

  private releaseRunner(): void {
    const next = this.runnerQueue.shift();
    if (next) next();
    else this.busyRunners--;
  }

  private startHooks(run: FakeRun): void {
    if (this.dispatchHooks.length === 0) return;
    const hooks = [...this.dispatchHooks];
    const group = run.workflow.concurrencyTemplate
      ? `${run.repo.fullName}\0${substitute(run.workflow.concurrencyTemplate, run.workflow, run)}`
      : undefined;
    const p = (async () => {
      if (group !== undefined && !(await this.acquireGroup(group, run))) return;
      try {
        await this.runHooks(run, hooks);
      } finally {
        if (group !== undefined) this.releaseGroup(group);
      }
    })();
    this.pending.add(p);
    p.finally(() => this.pending.delete(p));
  }

  private async runHooks(run: FakeRun, hooks: DispatchHook[]): Promise<void> {
    await this.takeRunner();
    try {
      // Cancelled while it waited for a runner: it never starts, as on GitHub.
      // (a function, because hooks change the status behind TypeScript's narrowing)
      const done = () => run.status === "completed";
      if (done()) return;
      if (run.status === "queued") this.setRunStatus(run.id, "in_progress");
      for (const hook of hooks) await hook(run, this);
      if (!done()) this.setRunStatus(run.id, "completed", "success");
    } catch (error) {
      this.hookErrors.push({ run: run.id, error });
      if (run.status !== "completed") this.setRunStatus(run.id, "completed", "failure");
    } finally {
      this.releaseRunner();
    }
  }

  // ================================================================ handlers

  private makeHandlers(): Record<string, Handler> {
    const h: Record<string, Handler> = {};

    // ---- meta
    h["users/get-authenticated"] = (ctx) => {
      if (ctx.token.kind === "installation") {
        throw new HttpError(403, "Resource not accessible by integration");
      }
      return { status: 200, body: { ...this.userView(ctx.login), name: ctx.login, email: null } };
    };
    h["rate-limit/get"] = (ctx) => {
      const state = (resource: RateResource) => {
        const u = this.usageOf(ctx.tokenKey, resource);
        const limit = this.limitOf(ctx.token, resource);
        return { limit, remaining: Math.max(0, limit - u.used), reset: u.reset, used: u.used };
      };
      const core = state("core");
      return {
        status: 200,
        body: {
          resources: {
            core,
            graphql: state("graphql"),
            search: { ...core, limit: 30, used: 0, remaining: 30 },
          },
          rate: core,
        },
      };
    };
    h["repos/get"] = (ctx) => ({ status: 200, body: this.repoView(ctx.repo()) });

    // ---- git data
    h["git/create-blob"] = (ctx) => {
      const repo = ctx.repo();
      const { content, encoding } = ctx.body as { content: string; encoding?: string };
      const buf =
        encoding === "base64" ? Buffer.from(content, "base64") : Buffer.from(content, "utf8");
      const sha = repo.git.writeBlob(buf);
      return {
        status: 201,
        headers: { location: this.apiUrl(`/repos/${repo.fullName}/git/blobs/${sha}`) },
        body: { sha, url: this.apiUrl(`/repos/${repo.fullName}/git/blobs/${sha}`) },
      };
    };
    h["git/get-blob"] = (ctx) => {
      const repo = ctx.repo();
      const blob = repo.git.get(ctx.params.file_sha!);
      if (blob?.type !== "blob") throw notFound();
      if (isRawAccept(ctx.headers.accept)) return rawResult(ctx.headers.accept!, blob.content);
      return {
        status: 200,
        body: {
          sha: blob.sha,
          node_id: `B_${blob.sha}`,
          size: blob.content.length,
          url: this.apiUrl(`/repos/${repo.fullName}/git/blobs/${blob.sha}`),
          content: base64Lines(blob.content),
          encoding: "base64",
        },
      };
    };
    h["git/create-tree"] = (ctx) => {
      const repo = ctx.repo();
      const body = ctx.body as {
        base_tree?: string;
        tree: {
          path?: string;
          mode?: TreeMode;
          type?: "blob" | "tree" | "commit";
          sha?: string | null;
          content?: string;
        }[];
      };
      let flat = new Map<string, FlatEntry>();
      if (body.base_tree) {
        // Strict, as GitHub is: a commit's sha is not a tree's (read the commit's tree first).
        const base = repo.git.get(body.base_tree);
        if (base?.type !== "tree") throw unprocessable("base_tree is not a valid tree oid");
        flat = repo.git.flatten(base.sha);
      }
      for (const e of body.tree) {
        const p = e.path ?? "";
        if (
          p === "" ||
          p.startsWith("/") ||
          p.endsWith("/") ||
          p.split("/").some((s) => s === "" || s === "." || s === "..")
        ) {
          throw unprocessable(
            `tree.path contains a malformed path component: ${JSON.stringify(p)}`,
          );
        }
        if (e.sha !== undefined && e.content !== undefined) {
          throw unprocessable("tree.sha and tree.content cannot both be set");
        }
        const removeUnder = () => {
          flat.delete(p);
          for (const k of [...flat.keys()]) if (k.startsWith(`${p}/`)) flat.delete(k);
          // a file where a directory must go gives way
          const parts = p.split("/");
          for (let i = 1; i < parts.length; i++) flat.delete(parts.slice(0, i).join("/"));
        };
        if (e.sha === null) {
          removeUnder();
          continue;
        }
        if (e.content !== undefined) {
          removeUnder();
          flat.set(p, {
            mode: e.mode === "100755" ? "100755" : "100644",
            type: "blob",
            sha: repo.git.writeBlob(e.content),
          });
          continue;
        }
        if (!e.sha) throw unprocessable("tree.sha or tree.content is required");
        const type = e.type ?? (e.mode === "040000" ? "tree" : "blob");
        const obj = repo.git.get(e.sha);
        if (type === "tree") {
          if (obj?.type !== "tree") throw unprocessable(`tree.sha ${e.sha} is not a valid tree`);
          removeUnder();
          for (const [sub, entry] of repo.git.flatten(obj.sha)) flat.set(`${p}/${sub}`, entry);
        } else if (type === "commit") {
          removeUnder();
          flat.set(p, { mode: "160000", type: "commit", sha: e.sha });
        } else {
          if (obj?.type !== "blob") throw unprocessable(`tree.sha ${e.sha} is not a valid blob`);
          removeUnder();
          flat.set(p, { mode: e.mode ?? "100644", type: "blob", sha: obj.sha });
        }
      }
      const sha = repo.git.buildTree(flat);
      return { status: 201, body: this.treeBody(repo, sha, false) };
    };
    h["git/get-tree"] = (ctx) => {
      const repo = ctx.repo();
      const o = repo.git.get(ctx.params.tree_sha!) ?? undefined;
      const bySha = o?.type === "tree" ? o.sha : o?.type === "commit" ? o.tree : undefined;
      const commit = bySha ? undefined : repo.resolve(ctx.params.tree_sha!);
      const sha = bySha ?? (commit ? repo.git.expect(commit, "commit").tree : undefined);
      if (!sha) throw notFound();
      const recursive =
        ctx.query.has("recursive") &&
        ctx.query.get("recursive") !== "false" &&
        ctx.query.get("recursive") !== "0";
      return { status: 200, body: this.treeBody(repo, sha, recursive) };
    };
    h["git/create-commit"] = (ctx) => {
      const repo = ctx.repo();
      const body = ctx.body as {
        message: string;
        tree: string;
        parents?: string[];
        author?: { name: string; email: string; date?: string };
        committer?: { name: string; email: string; date?: string };
      };
      if (repo.git.get(body.tree)?.type !== "tree") throw unprocessable(`Tree SHA does not exist`);
      for (const p of body.parents ?? []) {
        if (repo.git.get(p)?.type !== "commit")
          throw unprocessable(`Parent SHA does not exist or is not a commit object`);
      }
      const me = this.signature(ctx.login);
      const author = body.author ? { ...body.author, date: body.author.date ?? me.date } : me;
      const committer = body.committer
        ? { ...body.committer, date: body.committer.date ?? me.date }
        : author;
      const sha = repo.git.writeCommit({
        tree: body.tree,
        parents: body.parents ?? [],
        message: body.message,
        author,
        committer,
      });
      return {
        status: 201,
        headers: { location: this.apiUrl(`/repos/${repo.fullName}/git/commits/${sha}`) },
        body: this.gitCommitView(repo, sha),
      };
    };
    h["git/get-commit"] = (ctx) => {
      const repo = ctx.repo();
      const o = repo.git.get(ctx.params.commit_sha!);
      if (o?.type !== "commit") throw notFound();
      return { status: 200, body: this.gitCommitView(repo, o.sha) };
    };
    h["git/get-ref"] = (ctx) => {
      const repo = ctx.repo();
      const ref = refName(ctx.params.ref!);
      const sha = repo.refs.get(ref);
      if (!sha) throw notFound();
      return { status: 200, body: this.refView(repo, ref, sha) };
    };
    h["git/list-matching-refs"] = (ctx) => {
      const repo = ctx.repo();
      const prefix = refName(ctx.params.ref!);
      const list = [...repo.refs.entries()]
        .filter(([r]) => r.startsWith(prefix))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([r, sha]) => this.refView(repo, r, sha));
      return { status: 200, body: list };
    };
    h["git/create-ref"] = (ctx) => {
      const repo = ctx.repo();
      const { ref, sha } = ctx.body as { ref: string; sha: string };
      if (!/^refs\/[^/]+\/.+/.test(ref)) {
        throw unprocessable(
          `Reference name is invalid: ${ref} (it must start with 'refs' and have at least two slashes)`,
        );
      }
      if (repo.refs.has(ref)) throw unprocessable("Reference already exists");
      if (repo.git.get(sha)?.type !== "commit") throw unprocessable("Object does not exist");
      repo.refs.set(ref, sha.toLowerCase());
      return {
        status: 201,
        headers: { location: this.apiUrl(`/repos/${repo.fullName}/git/${ref}`) },
        body: this.refView(repo, ref, sha.toLowerCase()),
      };
    };
    h["git/update-ref"] = (ctx) => {
      const repo = ctx.repo();
      const ref = refName(ctx.params.ref!);
      const { sha, force } = ctx.body as { sha: string; force?: boolean };
      const current = repo.refs.get(ref);
      if (!current) throw unprocessable("Reference does not exist");
      if (repo.git.get(sha)?.type !== "commit") throw unprocessable("Object does not exist");
      const next = sha.toLowerCase();
      // The compare-and-swap: without force, the new commit must descend from the current head.
      if (!force && !repo.git.isAncestor(current, next)) {
        throw unprocessable("Update is not a fast forward");
      }
      const refused = mayWriteWorkflows(ctx.token)
        ? undefined
        : workflowRefusal(
            repo.git,
            repo.git.expect(current, "commit").tree,
            repo.git.expect(next, "commit").tree,
          );
      // (GitHub does not document the status of this refusal; 422 here, matched by message)
      if (refused) throw unprocessable(refused);
      repo.refs.set(ref, next);
      return { status: 200, body: this.refView(repo, ref, next) };
    };
    h["git/delete-ref"] = (ctx) => {
      const repo = ctx.repo();
      const ref = refName(ctx.params.ref!);
      if (!repo.refs.delete(ref)) throw unprocessable("Reference does not exist");
      return { status: 204 };
    };

    // ---- commits, branches, contents
    h["repos/get-commit"] = (ctx) => {
      const repo = ctx.repo();
      const sha = repo.resolve(ctx.params.ref!) ?? prefixSha(repo, ctx.params.ref!);
      if (!sha) throw unprocessable(`No commit found for SHA: ${ctx.params.ref}`);
      return { status: 200, body: this.commitView(repo, sha, true) };
    };
    h["repos/list-commits"] = (ctx) => {
      const repo = ctx.repo();
      const from = ctx.query.get("sha") ?? repo.defaultBranch;
      const head = repo.resolve(from);
      if (!head) {
        if (repo.refs.size === 0) throw new HttpError(409, "Git Repository is empty.");
        throw notFound();
      }
      let commits = repo.git.log(head);
      const filePath = ctx.query.get("path");
      if (filePath) {
        // as `git log -- path`: a change of the path's mode (a chmod) is a change of it
        const at = (tree: string) => {
          const e = repo.git.lookup(tree, filePath);
          return e && `${e.mode} ${e.sha}`;
        };
        commits = commits.filter((c) => {
          const parent = c.parents[0]
            ? at(repo.git.expect(c.parents[0], "commit").tree)
            : undefined;
          return at(c.tree) !== parent;
        });
      }
      const page = paginate(commits, ctx.query);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((c) => this.commitView(repo, c.sha, false)),
      };
    };
    h["repos/get-branch"] = (ctx) => {
      const repo = ctx.repo();
      const sha = repo.head(ctx.params.branch!);
      if (!sha) throw new HttpError(404, "Branch not found");
      return {
        status: 200,
        body: {
          name: ctx.params.branch,
          commit: this.commitView(repo, sha, false),
          _links: {
            html: this.htmlUrl(`/${repo.fullName}/tree/${ctx.params.branch}`),
            self: this.apiUrl(`/repos/${repo.fullName}/branches/${ctx.params.branch}`),
          },
          protected: false,
          protection: {
            enabled: false,
            required_status_checks: { enforcement_level: "off", contexts: [], checks: [] },
          },
          protection_url: this.apiUrl(
            `/repos/${repo.fullName}/branches/${ctx.params.branch}/protection`,
          ),
        },
      };
    };
    h["repos/create-or-update-file-contents"] = (ctx) => {
      const repo = ctx.repo();
      const b = ctx.body as { message: string; content: string; sha?: string; branch?: string };
      const filePath = (ctx.params.path ?? "").replace(/^\/+|\/+$/g, "");
      const branch = b.branch ?? repo.defaultBranch;
      const head = repo.head(branch);
      if (!head && repo.refs.size > 0) throw new HttpError(404, `Branch ${branch} not found`);
      const existing = head
        ? repo.git.lookup(repo.git.expect(head, "commit").tree, filePath)
        : undefined;
      // The Contents API's own compare-and-swap is on the file's blob sha: 409 when stale.
      if (existing && !b.sha) throw unprocessable(`Invalid request.\n\n"sha" wasn't supplied.`);
      if (existing && b.sha !== existing.sha)
        throw new HttpError(409, `${filePath} does not match ${b.sha}`);
      if (!existing && b.sha) throw new HttpError(409, `${filePath} does not match ${b.sha}`);
      const sha = repo.commit(
        branch,
        { [filePath]: Buffer.from(b.content, "base64") },
        { message: b.message, author: ctx.login },
      );
      const entry = repo.git.lookup(repo.git.expect(sha, "commit").tree, filePath)!;
      return {
        status: existing ? 200 : 201,
        body: {
          content: this.contentEntry(repo, branch, filePath, entry, false),
          commit: this.gitCommitView(repo, sha),
        },
      };
    };
    h["repos/delete-file"] = (ctx) => {
      const repo = ctx.repo();
      const b = ctx.body as { message: string; sha: string; branch?: string };
      const filePath = (ctx.params.path ?? "").replace(/^\/+|\/+$/g, "");
      const branch = b.branch ?? repo.defaultBranch;
      const head = repo.head(branch);
      if (!head) throw new HttpError(404, `Branch ${branch} not found`);
      const existing = repo.git.lookup(repo.git.expect(head, "commit").tree, filePath);
      if (!existing) throw notFound();
      if (b.sha !== existing.sha) throw new HttpError(409, `${filePath} does not match ${b.sha}`);
      const sha = repo.commit(
        branch,
        { [filePath]: null },
        { message: b.message, author: ctx.login },
      );
      return { status: 200, body: { content: null, commit: this.gitCommitView(repo, sha) } };
    };
    h["repos/get-content"] = (ctx) => {
      const repo = ctx.repo();
      const ref = ctx.query.get("ref") ?? repo.defaultBranch;
      const sha = repo.resolve(ref);
      if (!sha) throw new HttpError(404, `No commit found for the ref ${ref}`);
      const filePath = (ctx.params.path ?? "").replace(/^\/+|\/+$/g, "");
      const tree = repo.git.expect(sha, "commit").tree;
      const entry = repo.git.lookup(tree, filePath);
      if (!entry) throw notFound();
      // a submodule: its commit and its url from .gitmodules, no content (in a directory's
      // listing GitHub calls it a file)
      if (entry.type === "commit") {
        const modules = repo.git.lookup(tree, ".gitmodules");
        const text = modules ? repo.git.expect(modules.sha, "blob").content.toString("utf8") : "";
        const at = text.split(/^\[/m).find((s) => s.includes(`path = ${filePath}\n`));
        const url = /^\s*url = (\S+)$/m.exec(at ?? "")?.[1] ?? null;
        const body = this.contentEntry(repo, ref, filePath, entry, false);
        return { status: 200, body: { ...body, submodule_git_url: url } };
      }
      if (entry.type === "blob") {
        const blob = repo.git.expect(entry.sha, "blob");
        if (isRawAccept(ctx.headers.accept)) return rawResult(ctx.headers.accept!, blob.content);
        return { status: 200, body: this.contentEntry(repo, ref, filePath, entry, true) };
      }
      if (entry.type === "tree") {
        const dir = repo.git.expect(entry.sha, "tree");
        return {
          status: 200,
          body: dir.entries.map((e) =>
            this.contentEntry(repo, ref, filePath ? `${filePath}/${e.name}` : e.name, e, false),
          ),
        };
      }
      throw notFound();
    };

    // ---- issues
    h["issues/create"] = (ctx) => {
      const repo = ctx.repo();
      const b = ctx.body as {
        title: string | number;
        body?: string | null;
        labels?: (string | { name?: string })[];
        assignees?: string[];
      };
      checkCommentBody(b.body ?? "", "Issue"); // an issue's body has a comment's limit
      const issue = repo.createIssue({
        title: String(b.title),
        body: b.body ?? undefined,
        labels: labelNames(b.labels),
        user: ctx.login,
      });
      issue.assignees = b.assignees ?? [];
      return {
        status: 201,
        headers: { location: this.apiUrl(`/repos/${repo.fullName}/issues/${issue.number}`) },
        body: this.issueView(repo, issue),
      };
    };
    h["issues/get"] = (ctx) => {
      const repo = ctx.repo();
      return {
        status: 200,
        body: this.issueView(repo, this.issueOr404(repo, ctx.params.issue_number!)),
      };
    };
    h["issues/update"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      const b = ctx.body as {
        title?: string | number | null;
        body?: string | null;
        state?: "open" | "closed";
        state_reason?: Issue["stateReason"];
        labels?: (string | { name?: string })[];
        assignees?: string[];
      };
      if (b.title !== undefined && b.title !== null) issue.title = String(b.title);
      if (b.body !== undefined) issue.body = b.body;
      if (b.state && b.state !== issue.state) {
        issue.state = b.state;
        issue.closedAt = b.state === "closed" ? this.isoNow() : null;
        issue.stateReason = b.state === "closed" ? (b.state_reason ?? "completed") : "reopened";
      } else if (b.state_reason !== undefined) {
        issue.stateReason = b.state_reason;
      }
      if (b.labels) issue.labels = repo.ensureLabels(labelNames(b.labels));
      if (b.assignees) issue.assignees = b.assignees;
      issue.updatedAt = this.isoNow();
      return { status: 200, body: this.issueView(repo, issue) };
    };
    h["issues/list-for-repo"] = (ctx) => {
      const repo = ctx.repo();
      const q = ctx.query;
      const state = q.get("state") ?? "open";
      const labels = (q.get("labels") ?? "")
        .split(",")
        .map((l) => l.trim().toLowerCase())
        .filter(Boolean);
      const creator = q.get("creator");
      const assignee = q.get("assignee");
      const since = q.get("since");
      let list = [...repo.issues.values()].filter(
        (i) =>
          (state === "all" || i.state === state) &&
          labels.every((l) => i.labels.some((x) => x.toLowerCase() === l)) &&
          (!creator || i.user.toLowerCase() === creator.toLowerCase()) &&
          (!assignee ||
            (assignee === "none"
              ? i.assignees.length === 0
              : assignee === "*"
                ? i.assignees.length > 0
                : i.assignees.includes(assignee))) &&
          (!since || i.updatedAt >= since),
      );
      const sort = q.get("sort") ?? "created";
      const dir = q.get("direction") ?? "desc";
      const key = (i: Issue) =>
        sort === "updated"
          ? i.updatedAt
          : sort === "comments"
            ? String(repo.commentsOn(i.number).length).padStart(9, "0")
            : String(i.number).padStart(9, "0");
      list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.number - b.number));
      if (dir === "desc") list = list.reverse();
      const page = paginate(list, q);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((i) => this.issueView(repo, i)),
      };
    };
    h["issues/list-comments"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      const since = ctx.query.get("since");
      const list = repo.commentsOn(issue.number).filter((c) => !since || c.updatedAt >= since);
      const page = paginate(list, ctx.query);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((c) => this.commentView(repo, c)),
      };
    };
    h["issues/list-comments-for-repo"] = (ctx) => {
      const repo = ctx.repo();
      const list = [...repo.comments.values()].sort((a, b) => a.id - b.id);
      const page = paginate(list, ctx.query);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((c) => this.commentView(repo, c)),
      };
    };
    h["issues/create-comment"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      const body = (ctx.body as { body: string }).body;
      checkCommentBody(body);
      const c = repo.addComment(issue.number, body, ctx.login);
      return {
        status: 201,
        headers: { location: this.apiUrl(`/repos/${repo.fullName}/issues/comments/${c.id}`) },
        body: this.commentView(repo, c),
      };
    };
    h["issues/get-comment"] = (ctx) => {
      const repo = ctx.repo();
      return {
        status: 200,
        body: this.commentView(repo, this.commentOr404(repo, ctx.params.comment_id!)),
      };
    };
    h["issues/update-comment"] = (ctx) => {
      const repo = ctx.repo();
      const c = this.commentOr404(repo, ctx.params.comment_id!);
      const body = (ctx.body as { body: string }).body;
      checkCommentBody(body);
      c.body = body;
      c.updatedAt = this.isoNow();
      return { status: 200, body: this.commentView(repo, c) };
    };
    h["issues/delete-comment"] = (ctx) => {
      const repo = ctx.repo();
      const c = this.commentOr404(repo, ctx.params.comment_id!);
      repo.comments.delete(c.id);
      return { status: 204 };
    };

    // ---- labels
    h["issues/create-label"] = (ctx) => {
      const repo = ctx.repo();
      const b = ctx.body as { name: string; color?: string; description?: string };
      if (repo.labels.has(b.name.toLowerCase())) {
        throw unprocessable("Validation Failed", [
          { resource: "Label", code: "already_exists", field: "name" },
        ]);
      }
      const label: Label = {
        id: this.nextId(),
        name: b.name,
        color: (b.color ?? "ededed").replace(/^#/, ""),
        description: b.description ?? null,
      };
      repo.labels.set(b.name.toLowerCase(), label);
      return { status: 201, body: this.labelView(repo, label.name) };
    };
    h["issues/get-label"] = (ctx) => {
      const repo = ctx.repo();
      if (!repo.labels.has(ctx.params.name!.toLowerCase())) throw notFound();
      return { status: 200, body: this.labelView(repo, ctx.params.name!) };
    };
    h["issues/list-labels-for-repo"] = (ctx) => {
      const repo = ctx.repo();
      const page = paginate([...repo.labels.values()], ctx.query);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((l) => this.labelView(repo, l.name)),
      };
    };
    h["issues/list-labels-on-issue"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      return { status: 200, body: issue.labels.map((n) => this.labelView(repo, n)) };
    };
    h["issues/add-labels"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      const b = ctx.body as
        | { labels?: (string | { name: string })[] }
        | string[]
        | { name: string }[];
      const names = labelNames(Array.isArray(b) ? b : b.labels);
      for (const n of repo.ensureLabels(names)) if (!issue.labels.includes(n)) issue.labels.push(n);
      issue.updatedAt = this.isoNow();
      return { status: 200, body: issue.labels.map((n) => this.labelView(repo, n)) };
    };
    h["issues/set-labels"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      const b = ctx.body as { labels?: (string | { name: string })[] } | string[];
      issue.labels = repo.ensureLabels(labelNames(Array.isArray(b) ? b : b?.labels));
      return { status: 200, body: issue.labels.map((n) => this.labelView(repo, n)) };
    };
    h["issues/remove-label"] = (ctx) => {
      const repo = ctx.repo();
      const issue = this.issueOr404(repo, ctx.params.issue_number!);
      const name = ctx.params.name!.toLowerCase();
      const before = issue.labels.length;
      issue.labels = issue.labels.filter((l) => l.toLowerCase() !== name);
      if (issue.labels.length === before) throw new HttpError(404, "Label does not exist");
      return { status: 200, body: issue.labels.map((n) => this.labelView(repo, n)) };
    };

    // ---- reactions
    const react = (ctx: Ctx, target: { reactions: Reaction[] }): Result => {
      const content = (ctx.body as { content: string }).content;
      const existing = target.reactions.find((r) => r.user === ctx.login && r.content === content);
      if (existing) return { status: 200, body: this.reactionView(existing) };
      const r: Reaction = { id: this.nextId(), content, user: ctx.login, createdAt: this.isoNow() };
      target.reactions.push(r);
      return { status: 201, body: this.reactionView(r) };
    };
    const listReactions = (ctx: Ctx, target: { reactions: Reaction[] }): Result => {
      const content = ctx.query.get("content");
      const page = paginate(
        target.reactions.filter((r) => !content || r.content === content),
        ctx.query,
      );
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((r) => this.reactionView(r)),
      };
    };
    const unreact = (ctx: Ctx, target: { reactions: Reaction[] }): Result => {
      const id = Number(ctx.params.reaction_id);
      const i = target.reactions.findIndex((r) => r.id === id);
      if (i < 0) throw notFound();
      target.reactions.splice(i, 1);
      return { status: 204 };
    };
    h["reactions/create-for-issue-comment"] = (ctx) =>
      react(ctx, this.commentOr404(ctx.repo(), ctx.params.comment_id!));
    h["reactions/list-for-issue-comment"] = (ctx) =>
      listReactions(ctx, this.commentOr404(ctx.repo(), ctx.params.comment_id!));
    h["reactions/delete-for-issue-comment"] = (ctx) =>
      unreact(ctx, this.commentOr404(ctx.repo(), ctx.params.comment_id!));
    h["reactions/create-for-issue"] = (ctx) =>
      react(ctx, this.issueOr404(ctx.repo(), ctx.params.issue_number!));
    h["reactions/list-for-issue"] = (ctx) =>
      listReactions(ctx, this.issueOr404(ctx.repo(), ctx.params.issue_number!));
    h["reactions/delete-for-issue"] = (ctx) =>
      unreact(ctx, this.issueOr404(ctx.repo(), ctx.params.issue_number!));

    // ---- search (issues and PRs only)
    h["search/issues-and-pull-requests"] = (ctx) => {
      const q = parseSearch(ctx.query.get("q") ?? "");
      const hits: { repo: FakeRepo; issue: Issue }[] = [];
      for (const repo of this.repos.values()) {
        if (q.repos.length > 0 && !q.repos.includes(repo.fullName.toLowerCase())) continue;
        for (const issue of repo.issues.values()) {
          if (q.kind === "issue" && issue.pull) continue;
          if (q.kind === "pr" && !issue.pull) continue;
          if (q.state && issue.state !== q.state) continue;
          if (q.author && issue.user.toLowerCase() !== q.author) continue;
          const labels = issue.labels.map((l) => l.toLowerCase());
          if (!q.labels.every((l) => labels.includes(l))) continue;
          const hay = [
            q.in.includes("title") ? issue.title : "",
            q.in.includes("body") ? (issue.body ?? "") : "",
            q.in.includes("comments")
              ? repo
                  .commentsOn(issue.number)
                  .map((c) => c.body)
                  .join("\n")
              : "",
          ]
            .join("\n")
            .toLowerCase();
          if (!q.terms.every((t) => hay.includes(t))) continue;
          hits.push({ repo, issue });
        }
      }
      hits.sort((a, b) => b.issue.id - a.issue.id);
      const page = paginate(hits, ctx.query);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: {
          total_count: hits.length,
          incomplete_results: false,
          // The search item's `body` is a non-nullable optional string: omitted when empty.
          items: page.items.map(({ repo, issue }) => ({
            ...this.issueView(repo, issue),
            body: issue.body ?? undefined,
            score: 1,
          })),
        },
      };
    };

    // ---- people
    h["repos/get-collaborator-permission-level"] = (ctx) => {
      const repo = ctx.repo();
      const login = ctx.params.username!;
      const role = repo.roleOf(login);
      if (!role) throw notFound();
      // The legacy `permission` maps maintain to write and triage to read; role_name is exact.
      const legacy = role === "maintain" ? "write" : role === "triage" ? "read" : role;
      const at = (r: Role) => ROLES.indexOf(role) >= ROLES.indexOf(r);
      return {
        status: 200,
        body: {
          permission: legacy,
          role_name: role,
          user: {
            ...this.userView(login),
            permissions: {
              pull: at("read"),
              triage: at("triage"),
              push: at("write"),
              maintain: at("maintain"),
              admin: at("admin"),
            },
            role_name: role,
          },
        },
      };
    };

    // ---- pulls
    h["pulls/list"] = (ctx) => {
      const repo = ctx.repo();
      const q = ctx.query;
      const state = q.get("state") ?? "open";
      const head = q.get("head");
      const base = q.get("base");
      const list = [...repo.issues.values()].filter((i) => {
        if (!i.pull) return false;
        if (state !== "all" && i.state !== state) return false;
        if (head) {
          const [owner, branch] = head.includes(":") ? head.split(":", 2) : [repo.owner, head];
          if (owner!.toLowerCase() !== repo.owner.toLowerCase() || branch !== i.pull.head)
            return false;
        }
        if (base && i.pull.base !== base) return false;
        return true;
      });
      list.sort((a, b) => b.number - a.number);
      const page = paginate(list, q);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: page.items.map((i) => this.pullView(repo, i)),
      };
    };
    h["pulls/get"] = (ctx) => {
      const repo = ctx.repo();
      const issue = repo.issues.get(Number(ctx.params.pull_number));
      if (!issue?.pull) throw notFound();
      return {
        status: 200,
        body: {
          ...this.pullView(repo, issue),
          mergeable: true,
          rebaseable: true,
          mergeable_state: "clean",
          merged_by: null,
          comments: repo.commentsOn(issue.number).length,
          review_comments: 0,
          maintainer_can_modify: false,
          commits: 1,
          additions: 0,
          deletions: 0,
          changed_files: 0,
        },
      };
    };

    // ---- actions
    h["actions/create-workflow-dispatch"] = (ctx) => {
      const repo = ctx.repo();
      const b = ctx.body as {
        ref: string;
        inputs?: Record<string, unknown>;
        return_run_details?: boolean;
      };
      if (b.return_run_details !== undefined && this.options.returnRunDetails === "refused") {
        // An older GHES: the field is not part of its API.
        throw new HttpError(
          400,
          'Invalid request.\n\n"return_run_details" is not a permitted key.',
        );
      }
      const refShort = b.ref.replace(/^refs\/(heads|tags)\//, "");
      const headSha = repo.resolve(b.ref);
      const wf = this.findWorkflow(repo, ctx.params.workflow_id!, headSha ? b.ref : undefined);
      if (!wf) throw notFound();
      if (!headSha) throw unprocessable(`No ref found for: ${b.ref}`);
      if (!wf.dispatchable)
        throw unprocessable("Workflow does not have 'workflow_dispatch' trigger");
      const raw = b.inputs ?? {};
      if (JSON.stringify(raw).length > 65535) {
        throw unprocessable(
          "inputs are too large: the inputs object may be at most 65,535 characters as JSON",
        );
      }
      const inputs: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) {
        // Strings always; a boolean or number only where the input is declared so.
        const type = wf.inputs?.[k]?.type;
        const ok =
          typeof v === "string" ||
          (typeof v === "boolean" && type === "boolean") ||
          (typeof v === "number" && type === "number");
        if (!ok) throw unprocessable(`Provided value for input '${k}' is not a string`);
        const options = wf.inputs?.[k]?.options;
        if (type === "choice" && options && !options.includes(String(v))) {
          throw unprocessable(
            `Provided value '${String(v)}' for input '${k}' not in the list of allowed values`,
          );
        }
        inputs[k] = String(v);
      }
      if (wf.inputs) {
        const unexpected = Object.keys(inputs).filter((k) => !(k in wf.inputs!));
        if (unexpected.length > 0)
          throw unprocessable(`Unexpected inputs provided: ${JSON.stringify(unexpected)}`);
        for (const [name, spec] of Object.entries(wf.inputs)) {
          if (inputs[name] === undefined) {
            if (spec.default !== undefined) inputs[name] = spec.default;
            else if (spec.required) throw unprocessable(`Required input '${name}' not provided`);
          }
        }
      }
      const run = this.recordRun(repo, wf, {
        event: "workflow_dispatch",
        ref: refShort,
        headSha,
        inputs,
        actor: ctx.login,
      });
      const after = () => this.startHooks(run);
      if (b.return_run_details === true) {
        return {
          status: 200,
          body: {
            workflow_run_id: run.id,
            run_url: this.apiUrl(`/repos/${repo.fullName}/actions/runs/${run.id}`),
            html_url: this.htmlUrl(`/${repo.fullName}/actions/runs/${run.id}`),
          },
          after,
        };
      }
      return { status: 204, after };
    };
    const listRuns = (ctx: Ctx, runs: FakeRun[]): Result => {
      const q = ctx.query;
      const listedBefore = this.now() - this.runsListingLagMs;
      const filtered = runs
        .filter(
          (r) =>
            // GitHub's listings lag behind: a new run shows up only after a while.
            (this.runsListingLagMs <= 0 || (this.runCreatedMs.get(r.id) ?? 0) <= listedBefore) &&
            (!q.get("event") || r.event === q.get("event")) &&
            (!q.get("branch") || r.ref === q.get("branch")) &&
            (!q.get("actor") || r.actor === q.get("actor")) &&
            (!q.get("head_sha") || r.headSha === q.get("head_sha")) &&
            (!q.get("status") ||
              r.status === q.get("status") ||
              r.conclusion === q.get("status")) &&
            (!q.get("created") || matchesCreated(r.createdAt, q.get("created")!)),
        )
        .sort((a, b) => b.id - a.id);
      const page = paginate(filtered, q);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: {
          total_count: filtered.length,
          workflow_runs: page.items.map((r) => this.runView(r)),
        },
      };
    };
    h["actions/list-workflow-runs-for-repo"] = (ctx) => listRuns(ctx, ctx.repo().runs);
    h["actions/list-workflow-runs"] = (ctx) => {
      const repo = ctx.repo();
      const wf = this.findWorkflow(repo, ctx.params.workflow_id!);
      if (!wf) throw notFound();
      return listRuns(
        ctx,
        repo.runs.filter((r) => r.workflow.id === wf.id),
      );
    };
    h["actions/get-workflow-run"] = (ctx) => {
      const repo = ctx.repo();
      const run = repo.runs.find((r) => r.id === Number(ctx.params.run_id));
      if (!run) throw notFound();
      return { status: 200, body: this.runView(run) };
    };
    h["actions/list-jobs-for-workflow-run"] = (ctx) => {
      const repo = ctx.repo();
      const run = repo.runs.find((r) => r.id === Number(ctx.params.run_id));
      if (!run) throw notFound();
      // One job per run, mirroring the run: enough to read "how did the job end".
      const api = this.apiUrl(`/repos/${repo.fullName}/actions/jobs/${run.id + 5}`);
      const done = run.status === "completed";
      const job = {
        id: run.id + 5,
        node_id: `CR_${run.id + 5}`,
        run_id: run.id,
        run_url: this.apiUrl(`/repos/${repo.fullName}/actions/runs/${run.id}`),
        run_attempt: run.runAttempt,
        head_sha: run.headSha,
        head_branch: run.ref,
        workflow_name: run.workflow.name,
        name: run.jobName ?? run.workflow.name,
        url: api,
        html_url: this.htmlUrl(`/${repo.fullName}/actions/runs/${run.id}/job/${run.id + 5}`),
        status: run.status === "completed" || run.status === "in_progress" ? run.status : "queued",
        conclusion: done ? (run.conclusion === "stale" ? "cancelled" : run.conclusion) : null,
        created_at: run.createdAt,
        started_at: run.createdAt,
        completed_at: done ? run.updatedAt : null,
        check_run_url: this.apiUrl(`/repos/${repo.fullName}/check-runs/${run.id + 5}`),
        labels: ["ubuntu-latest"],
        runner_id: null,
        runner_name: null,
        runner_group_id: null,
        runner_group_name: null,
        steps: [],
      };
      return { status: 200, body: { total_count: 1, jobs: [job] } };
    };
    h["actions/cancel-workflow-run"] = (ctx) => {
      const repo = ctx.repo();
      const run = repo.runs.find((r) => r.id === Number(ctx.params.run_id));
      if (!run) throw notFound();
      if (run.status === "completed")
        throw new HttpError(409, "Cannot cancel a workflow run that is completed.");
      this.setRunStatus(run.id, "completed", "cancelled");
      this.aborters.get(run.id)?.abort();
      return { status: 202, body: {} };
    };
    h["actions/get-workflow"] = (ctx) => {
      const repo = ctx.repo();
      const wf = this.findWorkflow(repo, ctx.params.workflow_id!);
      if (!wf) throw notFound();
      return { status: 200, body: this.workflowView(repo, wf) };
    };
    h["actions/list-repo-workflows"] = (ctx) => {
      const repo = ctx.repo();
      for (const p of repo.listFiles(repo.defaultBranch, ".github/workflows")) {
        if (/\.ya?ml$/.test(p)) this.findWorkflow(repo, p);
      }
      const list = [...repo.workflows.values()];
      const page = paginate(list, ctx.query);
      return {
        status: 200,
        headers: this.linkHeader(ctx, page),
        body: {
          total_count: list.length,
          workflows: page.items.map((w) => this.workflowView(repo, w)),
        },
      };
    };

    return h;
  }

  private treeBody(repo: FakeRepo, sha: string, recursive: boolean): Record<string, unknown> {
    const entries: Record<string, unknown>[] = [];
    const walk = (treeSha: string, prefix: string) => {
      for (const e of repo.git.expect(treeSha, "tree").entries) {
        const p = prefix ? `${prefix}/${e.name}` : e.name;
        const kind = e.type === "tree" ? "trees" : e.type === "blob" ? "blobs" : "commits";
        const item: Record<string, unknown> = {
          path: p,
          mode: e.mode,
          type: e.type,
          sha: e.sha,
          url: this.apiUrl(`/repos/${repo.fullName}/git/${kind}/${e.sha}`),
        };
        if (e.type === "blob") item.size = repo.git.expect(e.sha, "blob").content.length;
        entries.push(item);
        if (recursive && e.type === "tree") walk(e.sha, p);
      }
    };
    walk(sha, "");
    return {
      sha,
      url: this.apiUrl(`/repos/${repo.fullName}/git/trees/${sha}`),
      tree: entries,
      truncated: false,
    };
  }

  private contentEntry(
    repo: FakeRepo,
    ref: string,
    filePath: string,
    e: { type: string; sha: string; mode: string },
    withContent: boolean,
  ): Record<string, unknown> {
    const type =
      e.type === "tree"
        ? "dir"
        : e.type === "commit"
          ? "submodule"
          : e.mode === "120000"
            ? "symlink"
            : "file";
    const self = this.apiUrl(
      `/repos/${repo.fullName}/contents/${filePath}?ref=${encodeURIComponent(ref)}`,
    );
    const kind = e.type === "tree" ? "trees" : "blobs";
    const git = this.apiUrl(`/repos/${repo.fullName}/git/${kind}/${e.sha}`);
    const html = this.htmlUrl(
      `/${repo.fullName}/${type === "dir" ? "tree" : "blob"}/${ref}/${filePath}`,
    );
    const blob = e.type === "blob" ? repo.git.expect(e.sha, "blob") : undefined;
    const out: Record<string, unknown> = {
      type,
      size: blob?.content.length ?? 0,
      name: path.posix.basename(filePath),
      path: filePath,
      sha: e.sha,
      url: self,
      git_url: git,
      html_url: html,
      download_url: blob ? this.htmlUrl(`/${repo.fullName}/raw/${ref}/${filePath}`) : null,
      _links: { self, git, html },
    };
    if (withContent && blob) {
      out.content = base64Lines(blob.content);
      out.encoding = "base64";
    }
    return out;
  }

  private issueOr404(repo: FakeRepo, n: string): Issue {
    const issue = repo.issues.get(Number(n));
    if (!issue) throw notFound();
    return issue;
  }

  private commentOr404(repo: FakeRepo, id: string): IssueComment {
    const c = repo.comments.get(Number(id));
    if (!c) throw notFound();
    return c;
  }

  private linkHeader(ctx: Ctx, page: Page<unknown>): Record<string, string> {
    if (page.last <= 1) return {};
    const link = (n: number, rel: string) => {
      const q = new URLSearchParams(ctx.query);
      q.set("page", String(n));
      q.set("per_page", String(page.perPage));
      return `<${this.baseUrl}${ctx.rawPath}?${q.toString()}>; rel="${rel}"`;
    };
    const parts: string[] = [];
    if (page.page > 1) parts.push(link(page.page - 1, "prev"));
    if (page.page < page.last) parts.push(link(page.page + 1, "next"));
    parts.push(link(page.last, "last"));
    if (page.page > 1) parts.push(link(1, "first"));
    return { link: parts.join(", ") };
  }
}

// ---------------------------------------------------------------- helpers

interface Page<T> {
  items: T[];
  page: number;
  perPage: number;
  last: number;
}

function paginate<T>(all: T[], q: URLSearchParams): Page<T> {
  const perPage = Math.min(100, Math.max(1, Number(q.get("per_page") ?? 30) || 30));
  const page = Math.max(1, Number(q.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(all.length / perPage));
  return { items: all.slice((page - 1) * perPage, page * perPage), page, perPage, last };
}

function errorResult(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Result {
  return {
    status,
    headers,
    body: { message, documentation_url: DOCS, status: String(status), ...extra },
  };
}

function defaultGraphQLMessage(type: string): string {
  switch (type) {
    case "STALE_DATA":
      return "Expected branch to point to the given oid but it did not.  Pull and try again.";
    case "NOT_FOUND":
      return "Could not resolve to a node.";
    case "FORBIDDEN":
      return "Resource not accessible by integration";
    case "RATE_LIMITED":
      return "API rate limit already exceeded.";
    default:
      return `Something went wrong while executing your query (${type}).`;
  }
}

function defaultMessage(status: number): string {
  switch (status) {
    case 500:
      return "Server Error";
    case 502:
      return "Server Error";
    case 503:
      return "Service Unavailable";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 422:
      return "Validation Failed";
    case 429:
      return "Too Many Requests";
    default:
      return `HTTP ${status}`;
  }
}

function matchesFilter(r: RequestRecord, f: RequestFilter): boolean {
  if (f.method && r.method !== f.method.toUpperCase()) return false;
  if (
    f.operation &&
    r.operation !== f.operation &&
    !(f.operation === "graphql/mutation" && r.operation?.startsWith("graphql/mutation:"))
  ) {
    return false;
  }
  if (f.status !== undefined && r.status !== f.status) return false;
  if (f.path !== undefined) {
    if (f.path instanceof RegExp) {
      if (!f.path.test(r.path)) return false;
    } else if (f.path.includes("{")) {
      if (r.route !== f.path) return false;
    } else if (r.path !== f.path && safeDecode(r.path) !== f.path) {
      return false;
    }
  }
  return true;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** "heads/main" | "refs/heads/main" -> "refs/heads/main" */
function refName(ref: string): string {
  return ref.startsWith("refs/") ? ref : `refs/${ref}`;
}

function prefixSha(repo: FakeRepo, ref: string): string | undefined {
  if (!/^[0-9a-f]{7,39}$/i.test(ref)) return undefined;
  const hits = [...repo.git.objects.values()].filter(
    (o) => o.type === "commit" && o.sha.startsWith(ref.toLowerCase()),
  );
  return hits.length === 1 ? hits[0]!.sha : undefined;
}

function base64Lines(buf: Buffer): string {
  const b64 = buf.toString("base64");
  return `${b64.replace(/(.{60})/g, "$1\n")}\n`;
}

function isRawAccept(accept: string | undefined): boolean {
  return /application\/vnd\.github(?:\.v3)?\.raw/.test(accept ?? "");
}

function rawResult(accept: string, content: Buffer): Result {
  const type =
    /application\/vnd\.github(?:\.v3)?\.raw(\+json)?/.exec(accept)?.[0] ??
    "application/vnd.github.raw";
  return { status: 200, raw: content, headers: { "content-type": `${type}; charset=utf-8` } };
}

function labelNames(labels: (string | { name?: string })[] | undefined): string[] {
  return (labels ?? [])
    .map((l) => (typeof l === "string" ? l : (l.name ?? "")))
    .filter((n) => n !== "");
}

function checkCommentBody(body: string, resource = "IssueComment"): void {
  if (body.length > 65536) {
    throw unprocessable("Validation Failed", [
      {
        resource,
        code: "unprocessable",
        field: "data",
        message: "Body is too long (maximum is 65536 characters)",
      },
    ]);
  }
}

/** GitHub's `created` filter: a date, `>=date`, `<date`, `a..b`, with `*` open ends. */
function matchesCreated(createdAt: string, filter: string): boolean {
  const t = Date.parse(createdAt);
  const parse = (s: string, end: boolean) => {
    if (s === "*") return end ? Infinity : -Infinity;
    const v = Date.parse(s);
    // a bare date covers the whole day
    if (end && /^\d{4}-\d{2}-\d{2}$/.test(s)) return v + 86_399_999;
    return v;
  };
  const range = /^(.+)\.\.(.+)$/.exec(filter);
  if (range) return t >= parse(range[1]!, false) && t <= parse(range[2]!, true);
  const cmp = /^(>=|<=|>|<)(.+)$/.exec(filter);
  if (cmp) {
    const v = parse(cmp[2]!, cmp[1] === "<=" || cmp[1] === ">");
    switch (cmp[1]) {
      case ">=":
        return t >= v;
      case ">":
        return t > v;
      case "<=":
        return t <= v;
      default:
        return t < v;
    }
  }
  return t >= parse(filter, false) && t <= parse(filter, true);
}

function parseWorkflow(
  text: string,
  filePath: string,
): Pick<Workflow, "name" | "dispatchable" | "inputs" | "runNameTemplate" | "concurrencyTemplate"> {
  let doc: Record<string, unknown> = {};
  try {
    doc = (parseYaml(text) as Record<string, unknown>) ?? {};
  } catch {
    // GitHub would show a broken workflow; it cannot be dispatched.
    return { name: filePath, dispatchable: false };
  }
  const on = doc.on ?? doc.true;
  let dispatch: unknown;
  let dispatchable = false;
  if (typeof on === "string") dispatchable = on === "workflow_dispatch";
  else if (Array.isArray(on)) dispatchable = on.includes("workflow_dispatch");
  else if (on && typeof on === "object" && "workflow_dispatch" in on) {
    dispatchable = true;
    dispatch = (on as Record<string, unknown>).workflow_dispatch;
  }
  let inputs: Workflow["inputs"] = dispatchable ? {} : undefined;
  const declared = (
    dispatch as {
      inputs?: Record<
        string,
        { required?: boolean; default?: unknown; type?: string; options?: unknown[] } | null
      >;
    } | null
  )?.inputs;
  if (declared && typeof declared === "object") {
    inputs = {};
    for (const [k, v] of Object.entries(declared)) {
      inputs[k] = {
        required: v?.required === true,
        default: v?.default === undefined ? undefined : String(v.default),
        type: typeof v?.type === "string" ? v.type : "string",
        options: Array.isArray(v?.options) ? v.options.map(String) : undefined,
      };
    }
  }
  return {
    name: typeof doc.name === "string" ? doc.name : filePath,
    dispatchable,
    inputs,
    runNameTemplate: typeof doc["run-name"] === "string" ? doc["run-name"] : undefined,
    concurrencyTemplate: concurrencyGroupOf(doc.concurrency),
  };
}

/** A workflow's `concurrency:` (a group, or `{ group, cancel-in-progress }`) as its group template. */
function concurrencyGroupOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const group = (value as { group?: unknown } | null)?.group;
  return typeof group === "string" ? group : undefined;
}

/** A workflow file's `${{ … }}` template (run-name, concurrency group) for one run. */
function substitute(template: string, wf: Workflow, run: FakeRun): string {
  return template.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    const m = /^(?:github\.event\.)?inputs\.([A-Za-z0-9_-]+)$/.exec(expr);
    if (m) return run.inputs[m[1]!] ?? "";
    if (expr === "github.ref_name") return run.ref;
    if (expr === "github.actor" || expr === "github.triggering_actor") return run.actor;
    if (expr === "github.workflow") return wf.name;
    if (expr === "github.event_name") return run.event;
    if (expr === "github.sha") return run.headSha;
    if (expr === "github.run_id") return String(run.id);
    return "";
  });
}

interface SearchQuery {
  repos: string[];
  kind?: "issue" | "pr";
  state?: "open" | "closed";
  author?: string;
  labels: string[];
  in: string[];
  terms: string[];
}

/** The qualifiers of GitHub's issue search the fake understands; free words match as substrings. */
function parseSearch(q: string): SearchQuery {
  const out: SearchQuery = { repos: [], labels: [], in: [], terms: [] };
  const tokens = q.match(/(?:[^\s"]+:)?"[^"]*"|\S+/g) ?? [];
  for (const token of tokens) {
    const m = /^([a-z-]+):(.*)$/i.exec(token);
    const value = (m?.[2] ?? token).replace(/^"|"$/g, "");
    switch (m?.[1]?.toLowerCase()) {
      case "repo":
        out.repos.push(value.toLowerCase());
        break;
      case "is":
      case "type":
        if (value === "issue" || value === "pr") out.kind = value;
        else if (value === "pull-request") out.kind = "pr";
        else if (value === "open" || value === "closed") out.state = value;
        break;
      case "state":
        if (value === "open" || value === "closed") out.state = value;
        break;
      case "author":
        out.author = value.toLowerCase();
        break;
      case "label":
        out.labels.push(value.toLowerCase());
        break;
      case "in":
        out.in.push(...value.split(","));
        break;
      default:
        if (value !== "") out.terms.push(value.toLowerCase());
    }
  }
  if (out.in.length === 0) out.in = ["title", "body"];
  return out;
}

function emptyUsage(): Usage {
  return {
    rest: { reads: 0, writes: 0 },
    graphql: { queries: 0, mutations: 0 },
    bytesIn: 0,
    bytesOut: 0,
  };
}

function cloneUsage(u: Usage): Usage {
  return { ...u, rest: { ...u.rest }, graphql: { ...u.graphql } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
