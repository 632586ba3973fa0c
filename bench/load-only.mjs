/**
 * `loadDirectory` alone, as a whole process: what `validate` costs without the CLI
 * around it (commander, the reports), to tell the two apart.
 *   node bench/load-only.mjs DIR
 */
import { loadDirectory } from "../build/src/tickets/load.js";

const loaded = await loadDirectory(process.argv[2]);
if (loaded.kind !== "ok") {
  process.stderr.write(
    `${loaded.problems.length} problems; first: ${JSON.stringify(loaded.problems[0])}\n`,
  );
  process.exitCode = 2;
} else {
  process.stdout.write(`${loaded.specs.length} tickets loaded\n`);
}
