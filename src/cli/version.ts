/** `frontier --version`, and where this package's own files are. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * This package's root, where package.json, action.yml, dist/ and examples/ are: the nearest
 * folder above this module with a package.json (build/src/cli/ when installed or built,
 * src/cli/ when a test imports it).
 */
export const PACKAGE_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

/** The package's version, from its package.json. */
export function packageVersion(): string {
  return JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")).version;
}
