/**
 * GitHub's own OpenAPI description (`@octokit/openapi`, api.github.com, dereferenced)
 * as a router and a validator for the fake server.
 *
 * The dereferenced file is 70 MB. Parsing it costs ~1.5 s and a lot of memory, and every
 * test file runs in its own process, so the first process splits it into one small file
 * per operation under node_modules/.cache/fake-github/<version>/ and everyone after reads
 * only the index and the operations it actually meets. Validators are compiled lazily per
 * operation and status, and cached.
 */

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { cachedValidator, cacheFolder, sourceText, standaloneOptions } from "./compiled-cache.js";

const require = createRequire(import.meta.url);
// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv) => Ajv;

export type JsonSchema = Record<string, unknown>;

export interface OperationIndexEntry {
  method: string;
  /** the OpenAPI path template, e.g. /repos/{owner}/{repo}/git/refs/{ref} */
  path: string;
  operationId: string;
  file: string;
}

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: JsonSchema;
}

export interface OperationSpec {
  operationId: string;
  parameters: Parameter[];
  requestBody?: JsonSchema;
  requestBodyRequired: boolean;
  /** status ("200", "default") -> JSON schema of the body, or null for a documented body-less status */
  responses: Record<string, JsonSchema | null>;
}

const PKG_DIR = path.dirname(require.resolve("@octokit/openapi/package.json"));
const SPEC_FILE = path.join(PKG_DIR, "generated", "api.github.com.deref.json");
const PKG_VERSION: string = JSON.parse(
  fs.readFileSync(path.join(PKG_DIR, "package.json"), "utf8"),
).version;

/** Which file the fake validates against: GitHub.com's description, dereferenced. */
export const OPENAPI_SOURCE = `@octokit/openapi@${PKG_VERSION} generated/api.github.com.deref.json`;

const METHODS = ["get", "post", "put", "patch", "delete", "head"];

/** Bump when the split files' format changes. */
const CACHE_FORMAT = 1;
let resolvedCacheDir: string | undefined;

function cacheDir(): string {
  if (resolvedCacheDir) return resolvedCacheDir;
  const name = `openapi-${PKG_VERSION}-f${CACHE_FORMAT}`;
  const preferred = path.resolve(PKG_DIR, "..", "..", ".cache", "fake-github");
  try {
    fs.mkdirSync(preferred, { recursive: true });
    fs.accessSync(preferred, fs.constants.W_OK);
    resolvedCacheDir = path.join(preferred, name);
  } catch {
    // A read-only node_modules (some CI caches): fall back to the temp dir.
    resolvedCacheDir = path.join(os.tmpdir(), "fake-github-cache", name);
    fs.mkdirSync(path.dirname(resolvedCacheDir), { recursive: true });
  }
  return resolvedCacheDir;
}

function fileNameFor(operationId: string): string {
  return `${operationId.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
}

function buildCache(dir: string): void {
  const spec = JSON.parse(fs.readFileSync(SPEC_FILE, "utf8")) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  fs.mkdirSync(tmp, { recursive: true });
  const index: OperationIndexEntry[] = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    const shared = (item.parameters as unknown as Parameter[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as
        | {
            operationId: string;
            parameters?: Parameter[];
            requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
            responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
          }
        | undefined;
      if (!op) continue;
      const responses: Record<string, JsonSchema | null> = {};
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        const content = res.content ?? {};
        const json =
          content["application/json"] ??
          Object.entries(content).find(([type]) => type.includes("json"))?.[1];
        responses[status] = json?.schema ?? null;
      }
      const body = op.requestBody?.content;
      const bodyJson =
        body?.["application/json"] ??
        (body ? Object.entries(body).find(([type]) => type.includes("json"))?.[1] : undefined);
      const spec: OperationSpec = {
        operationId: op.operationId,
        parameters: [...shared, ...(op.parameters ?? [])],
        requestBody: bodyJson?.schema,
        requestBodyRequired: op.requestBody?.required === true,
        responses,
      };
      const file = fileNameFor(op.operationId);
      fs.writeFileSync(path.join(tmp, file), JSON.stringify(spec));
      index.push({
        method: method.toUpperCase(),
        path: template,
        operationId: op.operationId,
        file,
      });
    }
  }
  fs.writeFileSync(path.join(tmp, "index.json"), JSON.stringify(index));
  try {
    fs.renameSync(tmp, dir);
  } catch {
    // Another process finished first: theirs is identical.
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

interface CompiledRoute {
  entry: OperationIndexEntry;
  segments: string[];
  literalCount: number;
}

export interface RouteMatch {
  entry: OperationIndexEntry;
  params: Record<string, string>;
}

let routesByMethod: Map<string, CompiledRoute[]> | undefined;
const operations = new Map<string, OperationSpec>();

function loadIndex(): Map<string, CompiledRoute[]> {
  if (routesByMethod) return routesByMethod;
  const dir = cacheDir();
  if (!fs.existsSync(path.join(dir, "index.json"))) buildCache(dir);
  const index = JSON.parse(
    fs.readFileSync(path.join(dir, "index.json"), "utf8"),
  ) as OperationIndexEntry[];
  const byMethod = new Map<string, CompiledRoute[]>();
  for (const entry of index) {
    const segments = entry.path.split("/").slice(1);
    const literalCount = segments.filter((s) => !s.startsWith("{")).length;
    const list = byMethod.get(entry.method) ?? [];
    list.push({ entry, segments, literalCount });
    byMethod.set(entry.method, list);
  }
  routesByMethod = byMethod;
  return byMethod;
}

/** The operation a request path belongs to, or undefined if GitHub documents none. */
export function matchRoute(method: string, rawPath: string): RouteMatch | undefined {
  const routes = loadIndex().get(method.toUpperCase()) ?? [];
  const parts = rawPath.split("/").slice(1);
  let best: { match: RouteMatch; score: number } | undefined;
  for (const route of routes) {
    const params = matchSegments(route.segments, parts);
    if (!params) continue;
    // An exact segment count beats a greedy last parameter; more literals beat fewer.
    const exact = route.segments.length === parts.length ? 1000 : 0;
    const score = exact + route.literalCount;
    if (!best || score > best.score) best = { match: { entry: route.entry, params }, score };
  }
  return best?.match;
}

/** Parameters whose values may contain "/" unencoded (a file path, a ref like heads/main). */
const SLASHY = new Set(["path", "ref", "branch", "basehead"]);

function matchSegments(template: string[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  // a contents path left out is the repository's root (GitHub's docs for GET .../contents)
  const root = template.at(-1) === "{path}" && template.at(-2) === "contents";
  if (parts.length < template.length - (root ? 1 : 0)) return undefined;
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    const isLast = i === template.length - 1;
    if (t.startsWith("{") && t.endsWith("}")) {
      const name = t.slice(1, -1);
      // The last parameter may span segments (a contents path, a ref like heads/main),
      // whether or not the client encoded its slashes.
      const raw = isLast && SLASHY.has(name) ? parts.slice(i).join("/") : parts[i]!;
      if (raw === "" && !(root && isLast)) return undefined;
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        return undefined;
      }
    } else if (t !== parts[i]) {
      return undefined;
    }
  }
  if (parts.length > template.length) {
    const last = template[template.length - 1]!;
    if (!SLASHY.has(last.slice(1, -1))) return undefined;
  }
  return params;
}

export function getOperation(entry: OperationIndexEntry): OperationSpec {
  let op = operations.get(entry.operationId);
  if (!op) {
    op = JSON.parse(fs.readFileSync(path.join(cacheDir(), entry.file), "utf8")) as OperationSpec;
    operations.set(entry.operationId, op);
  }
  return op;
}

/** Every documented operation, e.g. to list what exists near an unknown route. */
export function allOperations(): OperationIndexEntry[] {
  return [...loadIndex().values()].flat().map((r) => r.entry);
}

// ---------------------------------------------------------------- validation

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    coerceTypes: coerce ? "array" : false,
    inlineRefs: false,
    validateFormats: true,
    code: standaloneOptions(),
    // OpenAPI 3.0 `nullable: true` is understood natively by ajv 8.
  });
  addFormats(ajv);
  // GitHub's description uses formats ajv-formats does not know; accept them.
  for (const f of ["repo.nwo", "ssh-key", "ssh-key fingerprint", "int64", "int32", "binary"]) {
    if (!ajv.formats[f]) ajv.addFormat(f, true);
  }
  return ajv;
}

let validatorFolder: string | undefined;

/** Keyed by the description's version and this file (the schemas' transform, ajv's options). */
function validatorDir(): string {
  validatorFolder ??= cacheFolder("openapi-validators", [
    `${PKG_VERSION}-f${CACHE_FORMAT}`,
    sourceText(import.meta.url),
  ]);
  return validatorFolder;
}

const bodyAjv = makeAjv(false);
const paramAjv = makeAjv(true);
const validators = new Map<string, ValidateFunction | null>();

function compile(ajv: Ajv, key: string, schema: JsonSchema | undefined): ValidateFunction | null {
  if (validators.has(key)) return validators.get(key)!;
  let fn: ValidateFunction | null = null;
  if (schema) {
    try {
      // compiled once for all test files (compiled-cache.ts)
      fn = cachedValidator(validatorDir(), key, () => ({
        ajv,
        fn: ajv.compile(stripUnsupported(ajv, schema, ajv === bodyAjv)),
      }));
    } catch (error) {
      schemaProblems.push(`${key}: ${(error as Error).message}`);
      fn = null;
    }
  }
  validators.set(key, fn);
  return fn;
}

/** Schemas that ajv could not compile: a gap in the check, surfaced rather than hidden. */
export const schemaProblems: string[] = [];

/**
 * OpenAPI 3.0's `nullable: true` becomes `anyOf: [null, schema]`: ajv's own `nullable`
 * support needs a sibling `type` and still rejects null against an `enum`, and GitHub's
 * description has both (`conclusion: {type: string, nullable: true, enum: [...]}`).
 *
 * The dereferenced description repeats the same objects (a repository, a user) hundreds
 * of times, and ajv needs ~1 s to compile one issue schema inlined. So large object
 * schemas are hoisted: registered once per ajv instance under their content hash and
 * referenced with $ref (inlineRefs: false), so each is compiled once and shared.
 */
function stripUnsupported(ajv: Ajv, schema: unknown, hoist: boolean): JsonSchema {
  return toJsonSchema(ajv, schema, hoist) as JsonSchema;
}

const SCHEMA_KEYS_SINGLE = new Set(["items", "additionalProperties", "not"]);
const SCHEMA_KEYS_LIST = new Set(["allOf", "anyOf", "oneOf"]);
const registered = new WeakMap<Ajv, Set<string>>();

function toJsonSchema(ajv: Ajv, node: unknown, hoist: boolean): unknown {
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "example" || key === "examples" || key === "description") continue;
    if (key === "properties" && isObject(value)) {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) props[name] = toJsonSchema(ajv, sub, hoist);
      out[key] = props;
    } else if (SCHEMA_KEYS_SINGLE.has(key) && isObject(value)) {
      out[key] = toJsonSchema(ajv, value, hoist);
    } else if (SCHEMA_KEYS_LIST.has(key) && Array.isArray(value)) {
      // oneOf is read as anyOf: GitHub's branches overlap (a 409 body fits both
      // basic-error and its sibling), so real answers would match "more than one".
      const k = key === "oneOf" ? "anyOf" : key;
      out[k] = value.map((v) => toJsonSchema(ajv, v, hoist));
    } else {
      out[key] = value;
    }
  }
  const nullable = out.nullable === true;
  delete out.nullable;
  const body = hoist ? hoisted(ajv, out) : out;
  return nullable ? { anyOf: [{ type: "null" }, body] } : body;
}

function hoisted(ajv: Ajv, schema: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(schema.properties)) return schema;
  const text = JSON.stringify(schema);
  if (text.length < 400) return schema;
  const id = `urn:fake-github:${createHash("sha1").update(text).digest("hex")}`;
  let ids = registered.get(ajv);
  if (!ids) {
    ids = new Set();
    registered.set(ajv, ids);
  }
  if (!ids.has(id)) {
    ajv.addSchema(schema, id);
    ids.add(id);
  }
  return { $ref: id };
}

export function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 8).map((e) => {
    const where = e.instancePath || "(root)";
    const extra =
      e.keyword === "additionalProperties"
        ? ` '${(e.params as { additionalProperty?: string }).additionalProperty}'`
        : e.keyword === "enum"
          ? ` ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`
          : "";
    return `${where} ${e.message ?? e.keyword}${extra}`;
  });
}

export function validateRequestBody(op: OperationSpec, body: unknown): string[] {
  if (body === undefined) {
    return op.requestBodyRequired ? ["(root) request body is required"] : [];
  }
  const fn = compile(bodyAjv, `${op.operationId} request`, op.requestBody);
  if (!fn) return [];
  return fn(body) ? [] : formatErrors(fn.errors);
}

function withoutFormat(schema: JsonSchema): JsonSchema {
  const { format: _format, ...rest } = schema;
  return rest;
}

export function validateParams(
  op: OperationSpec,
  pathParams: Record<string, string>,
  query: URLSearchParams,
): string[] {
  const problems: string[] = [];
  for (const p of op.parameters) {
    if (p.in !== "path" && p.in !== "query") continue;
    const raw = p.in === "path" ? pathParams[p.name] : (query.get(p.name) ?? undefined);
    if (raw === undefined) {
      if (p.required) problems.push(`${p.in} parameter '${p.name}' is required`);
      continue;
    }
    // GitHub's search-style filters (`created=>=2026-01-01`, `a..b`) are documented with
    // format: date-time but accept ranges and comparisons; check their type, not format.
    const searchSyntax = p.in === "query" && /^[<>]|\.\./.test(raw);
    const schema = p.schema && searchSyntax ? withoutFormat(p.schema) : p.schema;
    const holder = { v: raw as unknown };
    // Coercion happens in place on a parent object.
    const wrapped = compile(
      paramAjv,
      `${op.operationId} ${p.in}:${p.name}${searchSyntax ? ":search" : ""}`,
      schema ? { type: "object", properties: { v: schema } } : undefined,
    );
    if (wrapped && !wrapped(holder)) {
      problems.push(
        ...formatErrors(wrapped.errors).map((e) => `${p.in} parameter '${p.name}': ${e}`),
      );
    }
  }
  return problems;
}

export function responseSchema(op: OperationSpec, status: number): JsonSchema | null | undefined {
  const s = String(status);
  if (s in op.responses) return op.responses[s];
  if ("default" in op.responses) return op.responses.default;
  return undefined;
}

/**
 * Problems with a response the fake is about to send. `undefined` schema (status not
 * documented) is a problem only for success statuses: GitHub answers undocumented
 * error statuses all the time.
 */
export function validateResponse(op: OperationSpec, status: number, body: unknown): string[] {
  const schema = responseSchema(op, status);
  if (schema === undefined) {
    return status < 400 ? [`status ${status} is not documented for ${op.operationId}`] : [];
  }
  if (schema === null) return [];
  const fn = compile(bodyAjv, `${op.operationId} response ${status}`, schema);
  if (!fn) return [];
  return fn(body) ? [] : formatErrors(fn.errors);
}

// ---------------------------------------------------------------- shaping

const FIXED_DATE = "2026-01-01T00:00:00Z";

/**
 * The smallest value that satisfies a schema: required properties only, null where
 * nullable, the first enum value, the first branch of a oneOf/anyOf. The fake builds its
 * objects as `shape(schema, realFields)` so that the many fields it has no opinion about
 * (a repository has ~80) are present and valid, and the fields it does set are checked.
 */
export function fill(schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (schema.nullable === true) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.allOf)) {
    let out: unknown = {};
    for (const sub of schema.allOf as JsonSchema[]) out = merge(sub, out, fill(sub, depth + 1));
    return out;
  }
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    if (branches.some((b) => b.type === "null" || b.nullable === true)) return null;
    return fill(branches[0]!, depth + 1);
  }
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((t) => t !== "null")
    : (schema.type as string | undefined);
  if (Array.isArray(schema.type) && (schema.type as string[]).includes("null")) return null;
  switch (type ?? (schema.properties ? "object" : undefined)) {
    case "string":
      return fillString(schema);
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "array": {
      const n = typeof schema.minItems === "number" ? schema.minItems : 0;
      return Array.from({ length: n }, () => fill(schema.items as JsonSchema, depth + 1));
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const key of (schema.required ?? []) as string[]) {
        out[key] = fill(props[key], depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}

function fillString(schema: JsonSchema): string {
  switch (schema.format) {
    case "date-time":
      return FIXED_DATE;
    case "date":
      return FIXED_DATE.slice(0, 10);
    case "uri":
    case "url":
    case "uri-template":
      return "https://github.com/";
    case "email":
      return "octocat@github.com";
    case "uuid":
      return "00000000-0000-0000-0000-000000000000";
    default: {
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      if (typeof schema.example === "string" && schema.example.length >= min && !schema.pattern) {
        return schema.example;
      }
      return "x".repeat(min);
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Pick the branch of a oneOf/anyOf that fits a value's JSON type. */
function branchFor(schema: JsonSchema, value: unknown): JsonSchema {
  const branches = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches)) return schema;
  const kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  const fits = branches.find((b) => {
    const t = b.type ?? (b.properties ? "object" : undefined);
    if (kind === "number") return t === "integer" || t === "number";
    return t === kind;
  });
  return fits ?? branches[0]!;
}

/** Deep-merge real fields over a base value, filling what the schema requires around them. */
export function merge(schema: JsonSchema | undefined, base: unknown, overlay: unknown): unknown {
  if (overlay === undefined) return base;
  if (!schema) return overlay;
  if (Array.isArray(schema.allOf)) {
    let out = base;
    for (const sub of schema.allOf as JsonSchema[]) out = merge(sub, out, overlay);
    return out;
  }
  if ((schema.oneOf ?? schema.anyOf) && overlay !== null) {
    return merge(branchFor(schema, overlay), base, overlay);
  }
  if (Array.isArray(overlay)) {
    const items = schema.items as JsonSchema | undefined;
    return overlay.map((item) => shape(items, item));
  }
  if (isObject(overlay)) {
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const start = isObject(base) ? { ...base } : fill({ ...schema, nullable: false });
    const out: Record<string, unknown> = isObject(start) ? start : {};
    for (const [key, value] of Object.entries(overlay)) {
      if (value === undefined) continue;
      const sub = props[key];
      // Under allOf, a key another branch describes arrives here without a schema: keep
      // what that branch filled in and lay the value over it.
      out[key] = sub ? merge(sub, out[key], value) : overlayPlain(out[key], value);
    }
    return out;
  }
  return overlay;
}

function overlayPlain(base: unknown, value: unknown): unknown {
  if (!isObject(base) || !isObject(value)) return value;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = overlayPlain(out[k], v);
  return out;
}

/** `fill(schema)` with the given real fields laid over it. */
export function shape(schema: JsonSchema | undefined, overlay: unknown): unknown {
  if (!schema) return overlay;
  if (Array.isArray(overlay)) return merge(schema, undefined, overlay);
  if (isObject(overlay)) {
    const concrete = (schema.oneOf ?? schema.anyOf) ? branchFor(schema, overlay) : schema;
    const base = fill({ ...concrete, nullable: false });
    return merge(concrete, base, overlay);
  }
  return overlay;
}
