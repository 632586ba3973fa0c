/**
 * The launcher helper (the small process that starts attempts) dying mid-attempt: the
 * attempt still runs in its own process group, so it ends only when that group has
 * ended — never a retry beside it, never an executor outliving `frontier run`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, lines, makeGraph, receipt, startFrontier, ticketOf, until } from "./harness.js";

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});

/** The launcher helpers started by process `parent`. */
function helpersOf(parent: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (ppid === parent && cmd.includes("--frontier-launcher-helper")) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

describe("a dead launcher helper never fails a live attempt", () => {
  it("the attempt ends when its processes have; the retry starts after it, not beside it", async () => {
    const g = makeGraph({ a: { retries: 1 } });
    const log = join(g.marks, "log");
    // attempt 1 runs on for a while after the helper is killed; nothing on stdout (the
    // helper held its pipe), so it is not ended by a broken pipe either
    const exec = `echo "start $FRONTIER_ATTEMPT" >> ${log}; if [ "$FRONTIER_ATTEMPT" = 1 ]; then sleep 1.5; fi; echo "end $FRONTIER_ATTEMPT" >> ${log}; if [ "$FRONTIER_ATTEMPT" = 2 ]; then echo done; fi`;
    const started = startFrontier(["run", g.dir, "--exec", exec]);
    await until(() => lines(log).includes("start 1"), "attempt 1 to start");
    const helpers = helpersOf(started.child.pid!);
    expect(helpers.length).toBeGreaterThan(0);
    for (const pid of helpers) process.kill(pid, "SIGKILL");
    const ran = await started.done;
    expect(lines(log)).toEqual(["start 1", "end 1", "start 2", "end 2"]);
    expect(ran.code).toBe(0);
    const a = ticketOf(receipt(g), "a");
    expect(a.status).toBe("complete");
    expect(a.attempts[0]).toMatchObject({ outcome: "failed" });
    expect(a.attempts[0]?.reason).toMatch(/launcher helper stopped/);
  });

  it("an outcome file written after the helper died is the attempt's outcome", async () => {
    const g = makeGraph({ a: {} });
    const log = join(g.marks, "log");
    const exec = `echo start >> ${log}; sleep 1; printf '{"status":"complete","result":"kept"}' > "$FRONTIER_OUTCOME_FILE"; echo end >> ${log}`;
    const started = startFrontier(["run", g.dir, "--exec", exec]);
    await until(() => lines(log).includes("start"), "the attempt to start");
    for (const pid of helpersOf(started.child.pid!)) process.kill(pid, "SIGKILL");
    const ran = await started.done;
    expect(ran.code).toBe(0);
    expect(lines(log)).toEqual(["start", "end"]);
    const a = ticketOf(receipt(g), "a");
    expect(a.status).toBe("complete");
    expect(readFileSync(join(g.dir, ".frontier", "results", "a@1.md"), "utf8")).toBe("kept");
  });
});
