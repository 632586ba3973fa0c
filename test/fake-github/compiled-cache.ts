/**
 * What the fake compiles from GitHub's descriptions, kept on disk between test files (each
 * runs in its own process): ajv validators as standalone code, and the parsed GraphQL SDL.
 *
 * Every cache folder's name carries a hash of everything its contents follow from — the
 * packages' versions, the description's own bytes where cheap, and the source of the file
 * that builds them — so a changed package or a changed transform reads a new, empty folder
 * rather than a stale one. Files are written to a temporary name and renamed: a reader sees
 * a whole file or none. Anything unreadable is compiled again.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { _, type Ajv, type Code, type ValidateFunction } from "ajv";

const require = createRequire(import.meta.url);

/** Bump when what is written here changes shape. */
const FORMAT = 1;

function versionOf(pkg: string): string {
  return (require(`${pkg}/package.json`) as { version: string }).version;
}

/** The code that generates the cached files: ajv and ajv-formats, and this file. */
const TOOLING = [
  `ajv@${versionOf("ajv")}`,
  `ajv-formats@${versionOf("ajv-formats")}`,
  `graphql@${versionOf("graphql")}`,
  `f${FORMAT}`,
  fs.readFileSync(fileURLToPath(import.meta.url), "utf8"),
].join("\n");

let root: string | undefined;

/** node_modules/.cache/fake-github, or the temp dir when node_modules is read-only. */
export function cacheRoot(): string {
  if (root) return root;
  const preferred = path.resolve(
    path.dirname(require.resolve("ajv/package.json")),
    "..",
    ".cache",
    "fake-github",
  );
  try {
    fs.mkdirSync(preferred, { recursive: true });
    fs.accessSync(preferred, fs.constants.W_OK);
    root = preferred;
  } catch {
    root = path.join(os.tmpdir(), "fake-github-cache");
    fs.mkdirSync(root, { recursive: true });
  }
  return root;
}

/**
 * A cache folder `<name>-<hash>` whose hash covers `inputs` (versions, source texts,
 * description bytes) and the tooling above.
 */
export function cacheFolder(name: string, inputs: string[]): string {
  const hash = createHash("sha256");
  for (const input of [TOOLING, ...inputs]) hash.update(`${input.length}:`).update(input);
  const dir = path.join(cacheRoot(), `${name}-${hash.digest("hex").slice(0, 16)}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** The text of a source file beside this one, for a cache key. */
export function sourceText(moduleUrl: string): string {
  return fs.readFileSync(fileURLToPath(moduleUrl), "utf8");
}

export function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

function fileFor(dir: string, key: string, ext: string): string {
  return path.join(dir, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}${ext}`);
}

/**
 * ajv options that let a compiled validator be written as standalone code; the formats
 * are ajv-formats' full set, which is what `addFormats(ajv)` adds.
 */
export function standaloneOptions(): { source: true; formats: Code } {
  return { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` };
}

const standalone = require("ajv/dist/standalone").default as (
  ajv: Ajv,
  fn: ValidateFunction,
) => string;

/**
 * The validator for `key`: loaded from `dir` when compiled before, else `compile()`d (by an
 * ajv made with `code: standaloneOptions()`, which only a miss needs) and written there for
 * the next process.
 */
export function cachedValidator(
  dir: string,
  key: string,
  compile: () => { ajv: Ajv; fn: ValidateFunction },
): ValidateFunction {
  const file = fileFor(dir, key, ".cjs");
  try {
    const code = fs.readFileSync(file, "utf8");
    const mod: { exports: { default?: ValidateFunction } } = { exports: {} };
    new Function("require", "module", "exports", code)(require, mod, mod.exports);
    if (typeof mod.exports.default === "function") return mod.exports.default;
  } catch {
    // not cached yet, or unreadable: compile it
  }
  const { ajv, fn } = compile();
  try {
    writeAtomically(file, standalone(ajv, fn));
  } catch {
    // a validator ajv cannot write as code is still used; it is compiled each time
  }
  return fn;
}

/** A JSON value kept under `key` in `dir`, made by `make()` the first time. */
export function cachedJson<T>(dir: string, key: string, make: () => T): T {
  const file = fileFor(dir, key, ".json");
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as T;
  } catch {
    // not cached yet, or unreadable
  }
  const value = make();
  try {
    writeAtomically(file, JSON.stringify(value));
  } catch {
    // read-only: made again next time
  }
  return value;
}
