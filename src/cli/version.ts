/** `frontier --version`: the version of the installed package. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's version, from its package.json (found above this module, built or not). */
export function packageVersion(): string {
  let at = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 6; up++) {
    try {
      const pkg = JSON.parse(readFileSync(join(at, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "ticket-frontier" && pkg.version) return pkg.version;
    } catch {
      // not here: one level up
    }
    at = dirname(at);
  }
  return "unknown";
}
