/**
 * 520 results of about a megabyte each (each under the 1 MiB cap) into one ticket: the
 * run completes with its receipt and reports, `frontier report` works, and the runner's
 * memory stays far from the results' total (520 MB).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, counted, makeGraph } from "../local/harness.js";

const N = 520;

describe(`a fan-in of ${N} results of ~1 MB`, () => {
  it("runs to the end with its receipt and reports; the context and the receipt are capped; peak memory stays low", () => {
    const producers = Array.from({ length: N }, (_, i) => `p${i}`);
    const g = makeGraph({
      ...Object.fromEntries(producers.map((id) => [id, {}])),
      fan: { depends_on: producers },
    });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = fan ]; then wc -c < "$FRONTIER_CONTEXT_FILE" > ${g.marks}/fan.size; echo fanned; else head -c 1000000 /dev/zero | tr '\\0' x; fi`,
    );
    // the runner's peak resident memory, in KiB, from GNU time's %M
    const ran = spawnSync(
      "sh",
      [
        "-c",
        `command -v /usr/bin/time >/dev/null && exec /usr/bin/time -f 'maxrss %M' node ${CLI} run ${g.dir} --exec '${exec.replaceAll("'", "'\\''")}' --max-parallel 8 || exec node ${CLI} run ${g.dir} --exec '${exec.replaceAll("'", "'\\''")}' --max-parallel 8`,
      ],
      { encoding: "utf8", env: { ...process.env, CI: "1" }, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(ran.status, ran.stderr.slice(-2000)).toBe(0);
    expect(Number(readFileSync(join(g.marks, "fan.size"), "utf8"))).toBeLessThan(9 * 1024 * 1024);
    expect(statSync(join(g.dir, ".frontier", "receipt.json")).size).toBeLessThan(10 * 1024 * 1024);
    expect(statSync(join(g.dir, ".frontier", "report.md")).size).toBeGreaterThan(0);
    const rss = /maxrss (\d+)/.exec(ran.stderr);
    if (rss) {
      console.log(
        `[stress] fan-in of ${N} ~1 MB results: runner peak RSS ${Math.round(Number(rss[1]) / 1024)} MiB`,
      );
      expect(Number(rss[1])).toBeLessThan(400 * 1024);
    }
    const report = spawnSync(
      process.execPath,
      [CLI, "report", g.dir, "--json", join(g.root, "r.json")],
      {
        encoding: "utf8",
      },
    );
    expect(report.status, report.stderr).toBe(0);
  });
});
