/** `frontier --version`, and where this package's own files are (and a repository's top, for init). */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The nearest directory at or above `from` that holds `name`; `from` itself if none does. */
export function findUp(from: string, name: string): string {
  for (let d = from; ; d = dirname(d)) {
    if (existsSync(join(d, name))) return d;
    if (dirname(d) === d) return from;
  }
}

/**
 * This package's root, where package.json, action.yml, dist/ and examples/ are: the nearest
 * folder above this module with a package.json (build/src/cli/ when installed or built,
 * src/cli/ when a test imports it).
 */
export const PACKAGE_ROOT = findUp(dirname(fileURLToPath(import.meta.url)), "package.json");

/** The package's version, from its package.json. */
export function packageVersion(): string {
  return JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version;
}
