/**
 * Event payloads as GitHub sends them to a workflow (the file at GITHUB_EVENT_PATH),
 * checked against `@octokit/webhooks-schemas`, and builders that produce valid ones.
 *
 * `schedule` has no payload schema there (GitHub sends `{schedule, workflow, repository,
 * sender}`); validateEventPayload checks only that `schedule` is a cron string.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { cachedValidator, cacheFolder, sourceText, standaloneOptions } from "./compiled-cache.js";
import { fill, formatErrors, type JsonSchema, merge } from "./openapi.js";
import type { FakeRepo, FakeRun, Issue, IssueComment } from "./server.js";

const require = createRequire(import.meta.url);
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv) => Ajv;

type Definitions = Record<string, JsonSchema>;

let root: { definitions: Definitions } | undefined;
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();
const derefCache = new Map<string, JsonSchema>();

function schemaRoot(): { definitions: Definitions } {
  root ??= require("@octokit/webhooks-schemas/schema.json") as { definitions: Definitions };
  return root;
}

/** The definition that describes an event (all its actions), e.g. issue_comment -> issue_comment_event. */
export function definitionFor(eventName: string): string | undefined {
  const defs = schemaRoot().definitions;
  if (`${eventName}_event` in defs) return `${eventName}_event`;
  if (`${eventName}$event` in defs) return `${eventName}$event`;
  return undefined;
}

export interface PayloadCheck {
  valid: boolean;
  errors: string[];
  /** the definition used, or a note when there is none */
  schema: string;
}

/** Check an event payload against @octokit/webhooks-schemas. */
export function validateEventPayload(eventName: string, payload: unknown): PayloadCheck {
  if (eventName === "schedule") {
    const ok =
      typeof payload === "object" &&
      payload !== null &&
      typeof (payload as { schedule?: unknown }).schedule === "string";
    return {
      valid: ok,
      errors: ok ? [] : ["(root) a schedule payload needs a `schedule` cron string"],
      schema: "none: @octokit/webhooks-schemas has no schedule event",
    };
  }
  const def = definitionFor(eventName);
  if (!def)
    return { valid: false, errors: [`no webhook schema for event '${eventName}'`], schema: "none" };
  let fn = validators.get(def);
  if (!fn) {
    // compiled once for all test files: the cache's key covers the schemas' bytes, ajv's
    // version and this file (compiled-cache.ts)
    fn = cachedValidator(validatorDir(), def, () => ({
      ajv: webhookAjv(),
      fn: webhookAjv().getSchema(`urn:webhooks:${def}`)!,
    }));
    validators.set(def, fn);
  }
  const valid = fn(payload) as boolean;
  return { valid, errors: valid ? [] : formatErrors(fn.errors), schema: def };
}

function webhookAjv(): Ajv {
  if (!ajv) {
    // Each definition becomes its own schema, so compiling one event compiles only what
    // it reaches, and inlineRefs: false compiles shared ones (repository, user) once.
    ajv = new Ajv({ strict: false, allErrors: true, inlineRefs: false, code: standaloneOptions() });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(schemaRoot().definitions)) {
      ajv.addSchema(rewriteRefs(schema) as JsonSchema, `urn:webhooks:${name}`);
    }
  }
  return ajv;
}

let validatorFolder: string | undefined;

function validatorDir(): string {
  validatorFolder ??= cacheFolder("webhooks", [
    fs.readFileSync(require.resolve("@octokit/webhooks-schemas/schema.json"), "utf8"),
    sourceText(import.meta.url),
  ]);
  return validatorFolder;
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema" || k === "$id") continue;
    out[k] =
      k === "$ref" && typeof v === "string" && v.startsWith("#/definitions/")
        ? `urn:webhooks:${v.slice("#/definitions/".length)}`
        : rewriteRefs(v);
  }
  return out;
}

/** Throws with the schema's complaints if a payload is not valid. */
export function assertValidPayload(eventName: string, payload: unknown): void {
  const check = validateEventPayload(eventName, payload);
  if (!check.valid) {
    throw new Error(
      `${eventName} payload does not match ${check.schema}:\n  ${check.errors.join("\n  ")}`,
    );
  }
}

// ---------------------------------------------------------------- shaping

function deref(node: unknown, stack: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((n) => deref(n, stack));
  if (typeof node !== "object" || node === null) return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === "string") {
    const name = obj.$ref.replace("#/definitions/", "");
    if (stack.includes(name)) return {};
    const cached = derefCache.get(name);
    if (cached) return cached;
    const resolved = deref(schemaRoot().definitions[name], [...stack, name]) as JsonSchema;
    if (stack.length === 0) derefCache.set(name, resolved);
    return resolved;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = deref(v, stack);
  return out;
}

function definition(name: string): JsonSchema {
  let d = derefCache.get(`def:${name}`);
  if (!d) {
    d = deref({ $ref: `#/definitions/${name}` }) as JsonSchema;
    derefCache.set(`def:${name}`, d);
  }
  return d;
}

/** Drop keys a strict (additionalProperties: false) schema does not allow. */
function prune(schema: JsonSchema | undefined, value: unknown): unknown {
  if (!schema || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => prune(schema.items as JsonSchema, v));
  const subs: JsonSchema[] = [schema, ...((schema.allOf as JsonSchema[]) ?? [])];
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (branches) {
    const obj = branches.find((b) => b.type === "object" || b.properties || b.allOf);
    if (obj) return prune(obj, value);
  }
  const props: Record<string, JsonSchema> = {};
  let strict = false;
  for (const s of subs) {
    Object.assign(props, (s.properties as Record<string, JsonSchema>) ?? {});
    if (s.additionalProperties === false) strict = true;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (strict && !(k in props)) continue;
    out[k] = prune(props[k], v);
  }
  return out;
}

function shapeEvent(def: string, overlay: Record<string, unknown>): Record<string, unknown> {
  const schema = definition(def);
  const base = fill(schema);
  return prune(schema, merge(schema, base, overlay)) as Record<string, unknown>;
}

// ---------------------------------------------------------------- real-looking parts

const WEB = "https://github.com";
const API = "https://api.github.com";

/** A GitHub user object as the REST API and webhook payloads show it (one shape for both). */
export function userObject(
  login: string,
  id: number,
  api: string = API,
  web: string = WEB,
): Record<string, unknown> {
  const u = `${api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: "",
    url: u,
    html_url: `${web}/${login.replace(/\[bot\]$/, "")}`,
    followers_url: `${u}/followers`,
    following_url: `${u}/following{/other_user}`,
    gists_url: `${u}/gists{/gist_id}`,
    starred_url: `${u}/starred{/owner}{/repo}`,
    subscriptions_url: `${u}/subscriptions`,
    organizations_url: `${u}/orgs`,
    repos_url: `${u}/repos`,
    events_url: `${u}/events{/privacy}`,
    received_events_url: `${u}/received_events`,
    type: login.endsWith("[bot]") ? "Bot" : "User",
    site_admin: false,
  };
}

function user(login: string, id = 1): Record<string, unknown> {
  return userObject(login, id);
}

export interface RepoRef {
  owner: string;
  name: string;
  id?: number;
  defaultBranch?: string;
  private?: boolean;
}

function repoRef(repo: FakeRepo | RepoRef): Required<RepoRef> {
  if ("fullName" in repo) {
    return {
      owner: repo.owner,
      name: repo.name,
      id: repo.id,
      defaultBranch: repo.defaultBranch,
      private: repo.isPrivate,
    };
  }
  return { id: 1, defaultBranch: "main", private: false, ...repo };
}

function repository(repo: FakeRepo | RepoRef): Record<string, unknown> {
  const r = repoRef(repo);
  const full = `${r.owner}/${r.name}`;
  const api = `${API}/repos/${full}`;
  return {
    id: r.id,
    node_id: `R_${r.id}`,
    name: r.name,
    full_name: full,
    private: r.private,
    visibility: r.private ? "private" : "public",
    owner: user(r.owner, 2),
    html_url: `${WEB}/${full}`,
    url: api,
    git_url: `git://github.com/${full}.git`,
    ssh_url: `git@github.com:${full}.git`,
    clone_url: `${WEB}/${full}.git`,
    svn_url: `${WEB}/${full}`,
    default_branch: r.defaultBranch,
    master_branch: r.defaultBranch,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    pushed_at: "2026-01-01T00:00:00Z",
    fork: false,
    archived: false,
    disabled: false,
    has_issues: true,
  };
}

// ---------------------------------------------------------------- builders

export interface PushPayloadInput {
  repo: FakeRepo | RepoRef;
  /** "refs/heads/main" or "main" */
  ref?: string;
  before?: string;
  /** the pushed head; with a FakeRepo, defaults to the branch head */
  after?: string;
  /** pushed commits, oldest first; with a FakeRepo, defaults to commits between before and after */
  commits?: {
    id: string;
    message: string;
    added?: string[];
    modified?: string[];
    removed?: string[];
  }[];
  pusher?: string;
  sender?: string;
}

/** A `push` event payload. */
export function makePushPayload(input: PushPayloadInput): Record<string, unknown> {
  const r = repoRef(input.repo);
  const ref = input.ref?.startsWith("refs/")
    ? input.ref
    : `refs/heads/${input.ref ?? r.defaultBranch}`;
  const live = "fullName" in input.repo ? input.repo : undefined;
  const after = input.after ?? live?.resolve(ref) ?? "0".repeat(40);
  let before = input.before;
  let commits = input.commits;
  if (live && after !== "0".repeat(40) && (!commits || !before)) {
    const log = live.log(after);
    before ??= log[1]?.sha ?? "0".repeat(40);
    if (!commits) {
      const taken = [];
      for (const c of log) {
        if (c.sha === before) break;
        taken.push({ id: c.sha, message: c.message });
      }
      commits = taken.reverse().slice(-20);
    }
  }
  before ??= "0".repeat(40);
  const full = `${r.owner}/${r.name}`;
  const pusher = input.pusher ?? r.owner;
  const toCommit = (c: NonNullable<PushPayloadInput["commits"]>[number]) => ({
    id: c.id,
    tree_id:
      live?.git.get(c.id)?.type === "commit"
        ? (live.git.get(c.id) as { tree: string }).tree
        : "0".repeat(40),
    distinct: true,
    message: c.message,
    timestamp: "2026-01-01T00:00:00Z",
    url: `${WEB}/${full}/commit/${c.id}`,
    author: { name: pusher, email: `${pusher}@users.noreply.github.com`, username: pusher },
    committer: { name: pusher, email: `${pusher}@users.noreply.github.com`, username: pusher },
    added: c.added ?? [],
    modified: c.modified ?? [],
    removed: c.removed ?? [],
  });
  const list = (commits ?? []).map(toCommit);
  return shapeEvent("push$event", {
    ref,
    before,
    after,
    created: before === "0".repeat(40),
    deleted: after === "0".repeat(40),
    forced: false,
    base_ref: null,
    compare: `${WEB}/${full}/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`,
    commits: list,
    head_commit: list.length > 0 ? list[list.length - 1] : null,
    repository: repository(input.repo),
    pusher: { name: pusher, email: `${pusher}@users.noreply.github.com` },
    sender: user(input.sender ?? pusher, 3),
  });
}

export interface WorkflowDispatchPayloadInput {
  repo: FakeRepo | RepoRef;
  /** "refs/heads/main" or "main" */
  ref?: string;
  /** ".github/workflows/frontier.yml" */
  workflow: string;
  inputs?: Record<string, string> | null;
  sender?: string;
}

/** A `workflow_dispatch` event payload. */
export function makeWorkflowDispatchPayload(
  input: WorkflowDispatchPayloadInput,
): Record<string, unknown> {
  const r = repoRef(input.repo);
  const ref = input.ref?.startsWith("refs/")
    ? input.ref
    : `refs/heads/${input.ref ?? r.defaultBranch}`;
  const workflow = input.workflow.includes("/")
    ? input.workflow
    : `.github/workflows/${input.workflow}`;
  return shapeEvent("workflow_dispatch$event", {
    inputs: input.inputs === undefined ? {} : input.inputs,
    ref,
    repository: repository(input.repo),
    sender: user(input.sender ?? r.owner, 3),
    workflow,
  });
}

export interface IssueCommentPayloadInput {
  repo: FakeRepo | RepoRef;
  /** a FakeRepo issue/PR, or its fields */
  issue:
    | Issue
    | {
        number: number;
        title?: string;
        body?: string | null;
        user?: string;
        state?: "open" | "closed";
        labels?: string[];
        pull?: boolean;
      };
  /** a FakeRepo comment, or its fields */
  comment: IssueComment | { id?: number; body: string; user: string };
  action?: "created" | "edited" | "deleted";
  sender?: string;
}

/** An `issue_comment` event payload (on an issue, or a PR when the issue has `pull`). */
export function makeIssueCommentPayload(input: IssueCommentPayloadInput): Record<string, unknown> {
  const r = repoRef(input.repo);
  const full = `${r.owner}/${r.name}`;
  const i = input.issue as Partial<Issue> & { number: number; pull?: unknown };
  const c = input.comment as Partial<IssueComment> & { body: string; user: string };
  const isPull = Boolean(i.pull);
  const issueApi = `${API}/repos/${full}/issues/${i.number}`;
  const labels = (i.labels ?? []).map((name, k) => ({
    id: 10 + k,
    node_id: `LA_${10 + k}`,
    url: `${API}/repos/${full}/labels/${encodeURIComponent(name)}`,
    name,
    description: null,
    color: "ededed",
    default: false,
  }));
  const commentId = c.id ?? 1;
  const at = c.createdAt ?? "2026-01-01T00:00:00Z";
  const reactions = (url: string) => ({
    url,
    total_count: 0,
    "+1": 0,
    "-1": 0,
    laugh: 0,
    confused: 0,
    heart: 0,
    hooray: 0,
    eyes: 0,
    rocket: 0,
  });
  const issue: Record<string, unknown> = {
    url: issueApi,
    repository_url: `${API}/repos/${full}`,
    labels_url: `${issueApi}/labels{/name}`,
    comments_url: `${issueApi}/comments`,
    events_url: `${issueApi}/events`,
    html_url: `${WEB}/${full}/${isPull ? "pull" : "issues"}/${i.number}`,
    id: (i as { id?: number }).id ?? 100 + i.number,
    node_id: `I_${i.number}`,
    number: i.number,
    title: i.title ?? `Issue ${i.number}`,
    user: user(typeof i.user === "string" ? i.user : r.owner, 2),
    labels,
    state: i.state ?? "open",
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: 1,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: at,
    closed_at: null,
    author_association: "OWNER",
    active_lock_reason: null,
    body: i.body ?? null,
    reactions: reactions(`${issueApi}/reactions`),
    timeline_url: `${issueApi}/timeline`,
    performed_via_github_app: null,
    state_reason: null,
  };
  if (isPull) {
    issue.pull_request = {
      url: `${API}/repos/${full}/pulls/${i.number}`,
      html_url: `${WEB}/${full}/pull/${i.number}`,
      diff_url: `${WEB}/${full}/pull/${i.number}.diff`,
      patch_url: `${WEB}/${full}/pull/${i.number}.patch`,
      merged_at: null,
    };
  }
  const commentApi = `${API}/repos/${full}/issues/comments/${commentId}`;
  return shapeEvent(`issue_comment$${input.action ?? "created"}`, {
    action: input.action ?? "created",
    issue,
    comment: {
      url: commentApi,
      html_url: `${WEB}/${full}/${isPull ? "pull" : "issues"}/${i.number}#issuecomment-${commentId}`,
      issue_url: issueApi,
      id: commentId,
      node_id: `IC_${commentId}`,
      user: user(c.user, 4),
      created_at: at,
      updated_at: c.updatedAt ?? at,
      author_association: c.user === r.owner ? "OWNER" : "NONE",
      body: c.body,
      reactions: reactions(`${commentApi}/reactions`),
      performed_via_github_app: null,
    },
    changes: input.action === "edited" ? { body: { from: "" } } : undefined,
    repository: repository(input.repo),
    sender: user(input.sender ?? c.user, 4),
  });
}

export interface WorkflowRunPayloadInput {
  /** a run recorded by the fake (dispatched or createRun) */
  run: FakeRun;
  action?: "completed" | "requested" | "in_progress";
  sender?: string;
}

/** A `workflow_run` event payload for a run the fake knows (completed by default). */
export function makeWorkflowRunPayload(input: WorkflowRunPayloadInput): Record<string, unknown> {
  const run = input.run;
  const repo = run.repo;
  const action = input.action ?? "completed";
  const full = repo.fullName;
  const api = `${API}/repos/${full}/actions/runs/${run.id}`;
  const head = repo.git.get(run.headSha);
  const headCommit =
    head?.type === "commit"
      ? {
          id: head.sha,
          tree_id: head.tree,
          message: head.message,
          timestamp: head.committer.date,
          author: { name: head.author.name, email: head.author.email },
          committer: { name: head.committer.name, email: head.committer.email },
        }
      : null;
  const conclusion = action === "completed" ? (run.conclusion ?? "success") : null;
  const status =
    action === "completed" ? "completed" : action === "requested" ? "requested" : "in_progress";
  const workflowRun = {
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    check_suite_url: `${API}/repos/${full}/check-suites/${run.id + 1}`,
    check_suite_id: run.id + 1,
    check_suite_node_id: `CS_${run.id + 1}`,
    conclusion,
    created_at: run.createdAt,
    event: run.event,
    head_branch: run.ref,
    head_commit: headCommit,
    head_repository: repository(repo),
    head_sha: run.headSha,
    html_url: `${WEB}/${full}/actions/runs/${run.id}`,
    id: run.id,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    node_id: `WFR_${run.id}`,
    name: run.workflow.name,
    path: run.workflow.path,
    display_title: run.displayTitle,
    pull_requests: [],
    repository: repository(repo),
    rerun_url: `${api}/rerun`,
    run_number: run.runNumber,
    run_attempt: run.runAttempt,
    run_started_at: run.createdAt,
    previous_attempt_url: null,
    status,
    updated_at: run.updatedAt,
    url: api,
    workflow_id: run.workflow.id,
    workflow_url: `${API}/repos/${full}/actions/workflows/${run.workflow.id}`,
    actor: user(run.actor, 3),
    triggering_actor: user(run.actor, 3),
  };
  return shapeEvent(`workflow_run$${action}`, {
    action,
    repository: repository(repo),
    sender: user(input.sender ?? run.actor, 3),
    workflow: {
      badge_url: `${WEB}/${full}/workflows/${encodeURIComponent(run.workflow.name)}/badge.svg`,
      created_at: "2026-01-01T00:00:00Z",
      html_url: `${WEB}/${full}/blob/${repo.defaultBranch}/${run.workflow.path}`,
      id: run.workflow.id,
      name: run.workflow.name,
      node_id: `W_${run.workflow.id}`,
      path: run.workflow.path,
      state: "active",
      updated_at: "2026-01-01T00:00:00Z",
      url: `${API}/repos/${full}/actions/workflows/${run.workflow.id}`,
    },
    workflow_run: workflowRun,
  });
}

export interface SchedulePayloadInput {
  repo: FakeRepo | RepoRef;
  schedule?: string;
  workflow: string;
}

/** A `schedule` event payload (no schema exists to check it against). */
export function makeSchedulePayload(input: SchedulePayloadInput): Record<string, unknown> {
  return {
    schedule: input.schedule ?? "*/15 * * * *",
    workflow: input.workflow.includes("/") ? input.workflow : `.github/workflows/${input.workflow}`,
    repository: repository(input.repo),
  };
}
