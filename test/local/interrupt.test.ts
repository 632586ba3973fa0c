/**
 * Stopping a run (SPEC §3, §6): Ctrl-C records the live attempts as interrupted and a
 * second `frontier run` completes them; after a SIGKILL of the runner, claims held by the
 * dead process are reclaimed at once, and nothing complete runs again.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  counted,
  executions,
  fileStatus,
  type Graph,
  makeGraph,
  receipt,
  run,
  startFrontier,
  ticketOf,
  until,
} from "./harness.js";
import { groupGone } from "./procs.js";

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});

/**
 * `quick-*` tickets finish at once; `slow-*` tickets write their process group to
 * marks/<id>.pgid and wait (on their first run only) until the test is done with them.
 */
function graph(): { g: Graph; exec: string } {
  const g = makeGraph({
    "quick-a": {},
    "quick-b": {},
    "slow-c": { depends_on: ["quick-a"] },
    "slow-d": {},
    after: { depends_on: ["slow-c", "slow-d"] },
  });
  const exec = counted(
    g.marks,
    `case "$FRONTIER_TICKET" in
       slow-*) if [ ! -e ${g.marks}/$FRONTIER_TICKET.pgid ]; then echo $$ > ${g.marks}/$FRONTIER_TICKET.pgid; sleep 60 & sleep 60; fi ;;
     esac
     echo "did $FRONTIER_TICKET"`,
  );
  return { g, exec };
}

function pgid(g: Graph, id: string): number {
  return Number(readFileSync(join(g.marks, `${id}.pgid`), "utf8"));
}

function bothSlowStarted(g: Graph): boolean {
  return (
    existsSync(join(g.marks, "slow-c.pgid")) &&
    existsSync(join(g.marks, "slow-d.pgid")) &&
    fileStatus(g, "quick-a") === "complete" &&
    fileStatus(g, "quick-b") === "complete"
  );
}

describe("Ctrl-C", () => {
  it("stops the live attempts' process groups, records them interrupted, exits 130, and the next run completes them", async () => {
    const { g, exec } = graph();
    const started = startFrontier(["run", g.dir, "--exec", exec], { ownGroup: true });
    await until(() => bothSlowStarted(g), "both slow tickets to start");

    // A second `frontier run` on the same directory is refused while this one lives.
    const second = await run(g, exec);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${started.child.pid}`);

    // Ctrl-C on a terminal: SIGINT to the runner's whole foreground process group.
    process.kill(-(started.child.pid as number), "SIGINT");
    const ran = await started.done;
    expect(ran.code).toBe(130);
    expect(await groupGone(pgid(g, "slow-c"))).toEqual([]);
    expect(await groupGone(pgid(g, "slow-d"))).toEqual([]);
    expect(fileStatus(g, "slow-c")).toBe("ready");
    expect(fileStatus(g, "quick-a")).toBe("complete");

    const resumed = await run(g, exec);
    expect(resumed.code).toBe(0);
    const r = receipt(g);
    expect(ticketOf(r, "slow-c").attempts.map((a) => a.outcome)).toEqual([
      "interrupted",
      "complete",
    ]);
    expect(executions(g)).toEqual({
      "quick-a": 1,
      "quick-b": 1,
      "slow-c": 2,
      "slow-d": 2,
      after: 1,
    });
  });
});

describe("SIGKILL of the runner", () => {
  it("resumes with `frontier run`: dead claims are reclaimed at once and nothing complete runs again", async () => {
    const { g, exec } = graph();
    const started = startFrontier(["run", g.dir, "--exec", exec]);
    await until(() => bothSlowStarted(g), "both slow tickets to start");
    expect(fileStatus(g, "slow-c")).toBe("claimed");

    started.child.kill("SIGKILL");
    await started.done;

    // The claims in the files name a process that no longer exists: reclaimed at once,
    // without waiting for their lease (60 minutes by default).
    const resumed = await run(g, exec);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/reclaimed slow-c/);
    // What the dead runner left running was stopped rather than left beside the re-run.
    expect(await groupGone(pgid(g, "slow-c"))).toEqual([]);
    expect(await groupGone(pgid(g, "slow-d"))).toEqual([]);
    const r = receipt(g);
    expect(r.state).toBe("complete");
    expect(ticketOf(r, "slow-d").attempts.map((a) => a.outcome)).toEqual([
      "interrupted",
      "complete",
    ]);
    expect(executions(g)).toEqual({
      "quick-a": 1,
      "quick-b": 1,
      "slow-c": 2,
      "slow-d": 2,
      after: 1,
    });
  });
});

describe("SIGKILL of the runner with a run bound", () => {
  it("every dispatch counts on resume, though the run record on disk was behind", async () => {
    const { g, exec } = graph();
    const started = startFrontier(["run", g.dir, "--exec", exec]);
    await until(() => bothSlowStarted(g), "both slow tickets to start");
    started.child.kill("SIGKILL");
    await started.done;

    // four dispatches were made (quick-a, quick-b, slow-c, slow-d), each claim on disk
    // in its ticket file before it started; the run record's count is written lazily
    const onDisk = JSON.parse(readFileSync(join(g.dir, ".frontier/run.json"), "utf8")) as {
      dispatched: number;
    };
    expect(onDisk.dispatched).toBeLessThan(4);

    // a bound of 4 is spent: nothing more is dispatched, nothing runs twice
    const resumed = await run(g, exec, "--bound", "4");
    expect(resumed.code).toBe(4);
    expect(receipt(g).state).toBe("limited");
    expect(executions(g)).toEqual({ "quick-a": 1, "quick-b": 1, "slow-c": 1, "slow-d": 1 });
    const after = JSON.parse(readFileSync(join(g.dir, ".frontier/run.json"), "utf8")) as {
      dispatched: number;
    };
    expect(after.dispatched).toBe(4);
    // the interrupted tickets were written back as ready when the run ended
    expect(fileStatus(g, "slow-c")).toBe("ready");
    expect(fileStatus(g, "slow-d")).toBe("ready");
  });
});
