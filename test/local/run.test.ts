/**
 * `frontier run` end to end (SPEC §3, §4, §6): the real CLI, real child processes,
 * small shell executors. Executors count their runs in `marks/runs` so "nothing complete
 * re-runs" is checked by counting, never by timing.
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Changes } from "../../src/core/engine.js";
import type { AttemptRecord, WorklogEntry } from "../../src/core/model.js";
import { splitForStart } from "../../src/local/run.js";
import { RUN_FILE } from "../../src/tickets/layout.js";
import {
  CLI,
  concurrency,
  counted,
  executions,
  fileStatus,
  frontier,
  lines,
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

/** Saves its context as marks/<ticket>.ctx and answers "result of <ticket>". */
function echoExec(marks: string): string {
  return counted(marks, `cat > ${marks}/$FRONTIER_TICKET.ctx; echo "result of $FRONTIER_TICKET"`);
}

function ctx(marks: string, id: string): string {
  return readFileSync(join(marks, `${id}.ctx`), "utf8");
}

describe("dependents receive their inputs' results", () => {
  it("runs a diamond in dependency order and hands each dependent its inputs", async () => {
    const g = makeGraph({
      a: {},
      b: { depends_on: ["a"] },
      c: { depends_on: ["a"] },
      d: { depends_on: ["b", "c"] },
    });
    const ran = await run(g, echoExec(g.marks));
    expect(ran.code).toBe(0);
    const r = receipt(g);
    expect(r.state).toBe("complete");
    expect(r.counts.complete).toBe(4);
    expect(ctx(g.marks, "b")).toContain("result of a");
    expect(ctx(g.marks, "d")).toContain("result of b");
    expect(ctx(g.marks, "d")).toContain("result of c");
    expect(executions(g)).toEqual({ a: 1, b: 1, c: 1, d: 1 });
    expect(fileStatus(g, "d")).toBe("complete");
  });

  it("passes an empty result on as an explicit blank, never dropped", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    const exec = counted(
      g.marks,
      `cat > ${g.marks}/$FRONTIER_TICKET.ctx; [ "$FRONTIER_TICKET" = a ] || echo done`,
    );
    const ran = await run(g, exec);
    expect(ran.code).toBe(0);
    const r = receipt(g);
    expect(ticketOf(r, "a").status).toBe("empty");
    expect(ticketOf(r, "b").status).toBe("complete");
    const context = ctx(g.marks, "b");
    expect(context).toContain("a");
    expect(context).toMatch(/returned nothing|empty/i);
  });
});

describe("a failure blocks exactly its dependents", () => {
  it("closes the failed ticket's dependents as blocked while an independent branch completes", async () => {
    const g = makeGraph({
      a: {},
      b: { depends_on: ["a"] },
      d: { depends_on: ["b"] },
      c: {},
      e: { depends_on: ["c"] },
    });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = a ]; then echo "connection refused by db:5432" >&2; exit 3; fi; echo ok`,
    );
    const ran = await run(g, exec);
    expect(ran.code).toBe(1);
    const r = receipt(g);
    expect(r.state).toBe("failed");
    expect(ticketOf(r, "a")).toMatchObject({ status: "failed" });
    expect(ticketOf(r, "a").attempts[0]?.reason).toContain("connection refused by db:5432");
    expect(ticketOf(r, "b").blocked_by).toEqual({ ticket: "a", kind: "dep-failed", root: "a" });
    expect(ticketOf(r, "d").blocked_by).toEqual({ ticket: "b", kind: "dep-blocked", root: "a" });
    expect(ticketOf(r, "c").status).toBe("complete");
    expect(ticketOf(r, "e").status).toBe("complete");
    expect(executions(g)).toEqual({ a: 1, c: 1, e: 1 });
  });
});

describe("an attempt past its bound is stopped", () => {
  it("kills the sleeping executor's whole process group and fails it with reason timeout; its dependent is blocked", async () => {
    const g = makeGraph({ slow: { bound: "1s" }, other: {}, after: { depends_on: ["slow"] } });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = slow ]; then echo $$ > ${g.marks}/pgid; sleep 60 & sleep 60; fi; echo ok`,
    );
    const ran = await run(g, exec);
    expect(ran.code).toBe(1);
    const slow = ticketOf(receipt(g), "slow");
    expect(slow.status).toBe("failed");
    expect(slow.attempts[0]).toMatchObject({ outcome: "failed", reason: "timeout" });
    const pgid = Number(readFileSync(join(g.marks, "pgid"), "utf8"));
    expect(await groupGone(pgid)).toEqual([]);
    expect(ticketOf(receipt(g), "other").status).toBe("complete");
    expect(ticketOf(receipt(g), "after")).toMatchObject({
      status: "blocked",
      blocked_by: { ticket: "slow", kind: "dep-failed", root: "slow" },
    });
  });
});

describe("a question suspends its chain until it is answered", () => {
  it("parks the ticket, and after `frontier answer` the next run shows question and answer without re-running what is complete", async () => {
    const g = makeGraph({
      setup: {},
      ask: { depends_on: ["setup"] },
      after: { depends_on: ["ask"] },
      side: {},
    });
    const exec = counted(
      g.marks,
      `cat > ${g.marks}/$FRONTIER_TICKET.ctx
       if [ "$FRONTIER_TICKET" = ask ] && ! grep -q "EUR only" ${g.marks}/ask.ctx; then
         echo "Which currencies must the refund path support?"; exit 75
       fi
       echo "did $FRONTIER_TICKET"`,
    );
    const first = await run(g, exec);
    expect(first.code).toBe(3);
    let r = receipt(g);
    expect(r.state).toBe("suspended");
    expect(ticketOf(r, "ask").status).toBe("suspended");
    expect(ticketOf(r, "after").status).toBe("pending");
    expect(ticketOf(r, "side").status).toBe("complete");

    const answered = await frontier(["answer", g.dir, "ask", "EUR only, for now"]);
    expect(answered.code).toBe(0);

    const second = await run(g, exec);
    expect(second.code).toBe(0);
    r = receipt(g);
    expect(r.state).toBe("complete");
    const context = ctx(g.marks, "ask");
    expect(context).toContain("Which currencies must the refund path support?");
    expect(context).toContain("EUR only, for now");
    expect(executions(g)).toEqual({ setup: 1, side: 1, ask: 2, after: 1 });
  });
});

describe("retries make new attempts and keep the earlier ones", () => {
  it("retries automatically (retries: 1) and records both attempts", async () => {
    const g = makeGraph({ flaky: { retries: 1 }, next: { depends_on: ["flaky"] } });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = flaky ] && [ "$FRONTIER_ATTEMPT" = 1 ]; then echo "503 from provider" >&2; exit 1; fi; echo ok`,
    );
    const ran = await run(g, exec);
    expect(ran.code).toBe(0);
    const flaky = ticketOf(receipt(g), "flaky");
    expect(flaky.status).toBe("complete");
    expect(flaky.attempts.map((a) => [a.n, a.outcome])).toEqual([
      [1, "failed"],
      [2, "complete"],
    ]);
    expect(flaky.attempts[0]?.reason).toContain("503 from provider");
  });

  it("retries by hand with `frontier retry`, unblocking its dependents and keeping attempt 1", async () => {
    const g = makeGraph({ flaky: {}, next: { depends_on: ["flaky"] } });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = flaky ] && [ ! -e ${g.marks}/fixed ]; then echo broken >&2; exit 1; fi; echo ok`,
    );
    expect((await run(g, exec)).code).toBe(1);
    expect(ticketOf(receipt(g), "next").status).toBe("blocked");
    writeFileSync(join(g.marks, "fixed"), "");
    expect((await frontier(["retry", g.dir, "flaky"])).code).toBe(0);
    expect((await run(g, exec)).code).toBe(0);
    const flaky = ticketOf(receipt(g), "flaky");
    expect(flaky.attempts.map((a) => [a.n, a.outcome])).toEqual([
      [1, "failed"],
      [2, "complete"],
    ]);
    expect(ticketOf(receipt(g), "next").status).toBe("complete");
  });
});

describe("the run bound", () => {
  it("--bound 2 dispatches two tickets and ends limited with exit 4", async () => {
    const g = makeGraph({ a: {}, b: {}, c: {}, d: {} });
    const ran = await run(g, echoExec(g.marks), "--bound", "2");
    expect(ran.code).toBe(4);
    const r = receipt(g);
    expect(r.state).toBe("limited");
    expect(Object.values(executions(g)).reduce((s, n) => s + n, 0)).toBe(2);
    // what never ran is written back as ready when the run ends, and the run record
    // holds every dispatch
    const statuses = ["a", "b", "c", "d"].map((id) => fileStatus(g, id)).sort();
    expect(statuses).toEqual(["complete", "complete", "ready", "ready"]);
    expect(JSON.parse(readFileSync(join(g.dir, RUN_FILE), "utf8")).dispatched).toBe(2);
  });

  it("a dependent written ready only at the end still runs on the next invocation", async () => {
    // b becomes ready when a completes; the bound stops the run before b is claimed
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    expect((await run(g, echoExec(g.marks), "--bound", "1")).code).toBe(4);
    expect(fileStatus(g, "b")).toBe("ready");
    const again = await run(g, echoExec(g.marks), "--bound", "2");
    expect(again.code).toBe(0);
    expect(executions(g)).toEqual({ a: 1, b: 1 });
  });

  it("hands each dispatch what remains of the bound in FRONTIER_RUN_BOUND", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    const exec = counted(
      g.marks,
      `echo "$FRONTIER_TICKET $FRONTIER_RUN_BOUND" >> ${g.marks}/bounds; echo ok`,
    );
    expect((await run(g, exec, "--bound", "5")).code).toBe(0);
    expect(readFileSync(join(g.marks, "bounds"), "utf8")).toBe("a dispatches=4\nb dispatches=3\n");
  });

  it("a nested run never exceeds the bound it inherits", async () => {
    const g = makeGraph({ a: {}, b: {}, c: {} });
    const ran = await frontier(["run", g.dir, "--exec", echoExec(g.marks)], {
      env: { FRONTIER_RUN_BOUND: "dispatches=1" },
    });
    expect(ran.code).toBe(4);
    expect(Object.keys(executions(g))).toHaveLength(1);
  });
});

describe("an inherited deadline", () => {
  it("dispatches nothing past it, and the run ends limited", async () => {
    const g = makeGraph({ a: {}, b: {} });
    const ran = await frontier(["run", g.dir, "--exec", echoExec(g.marks)], {
      env: {
        FRONTIER_RUN_BOUND: `dispatches=5 deadline=${new Date(Date.now() - 1000).toISOString()}`,
      },
    });
    expect(ran.code).toBe(4);
    expect(executions(g)).toEqual({});
  });

  it("refuses a FRONTIER_RUN_BOUND it cannot read, saying what it takes", async () => {
    const g = makeGraph({ a: {} });
    const ran = await frontier(["run", g.dir, "--exec", "echo ok"], {
      env: { FRONTIER_RUN_BOUND: "dispatches=lots" },
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("dispatches=N");
  });
});

/** Executors that append `start ID` / `end ID` around a short sleep. */
function intervalExec(marks: string, sleep = "0.3"): string {
  return counted(
    marks,
    `echo "start $FRONTIER_TICKET" >> ${marks}/intervals; sleep ${sleep}; echo "end $FRONTIER_TICKET" >> ${marks}/intervals; echo ok`,
  );
}

describe("caps that hold a ready ticket back", () => {
  it("--max-parallel 2 is reached and never exceeded", async () => {
    const g = makeGraph(Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((id) => [id, {}])));
    const ran = await run(g, intervalExec(g.marks), "--max-parallel", "2");
    expect(ran.code).toBe(0);
    expect(concurrency(join(g.marks, "intervals")).max).toBe(2);
  });

  it("overlapping write scopes and the same agent never run together, while other tickets do", async () => {
    const g = makeGraph({
      "edit-api": { write_scope: ["src/api/**"] },
      "edit-handler": { write_scope: ["src/api/handler.ts"] },
      "review-1": { agent: "reviewer" },
      "review-2": { agent: "reviewer" },
      free: {},
    });
    const ran = await run(g, intervalExec(g.marks, "0.5"));
    expect(ran.code).toBe(0);
    const c = concurrency(join(g.marks, "intervals"));
    expect(c.together("edit-api", "edit-handler")).toBe(false);
    expect(c.together("review-1", "review-2")).toBe(false);
    // The held-back tickets still ran alongside the others.
    expect(c.max).toBeGreaterThanOrEqual(3);
    expect(c.together("edit-api", "review-1") || c.together("edit-api", "review-2")).toBe(true);
  });
});

describe("the outcome file", () => {
  it("wins over the exit code, and its usage is recorded on the attempt", async () => {
    const g = makeGraph({ a: {} });
    const exec = `printf '{"status":"complete","result":"from the file","usage":{"tokens":42}}' > "$FRONTIER_OUTCOME_FILE"; echo noise; exit 7`;
    const ran = await run(g, exec);
    expect(ran.code).toBe(0);
    const a = ticketOf(receipt(g), "a");
    expect(a.status).toBe("complete");
    expect(a.attempts[0]?.result).toBe("from the file");
    expect(a.attempts[0]?.usage).toEqual({ tokens: 42 });
  });
});

describe("--json", () => {
  it("prints exactly one parseable receipt on stdout and the progress on stderr", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    const ran = await run(g, echoExec(g.marks), "--json");
    expect(ran.code).toBe(0);
    const parsed = JSON.parse(ran.stdout);
    expect(parsed.schema).toBe("ticket-frontier/receipt@1");
    expect(parsed.state).toBe("complete");
    expect(ran.stderr).toMatch(/done\s+b \(attempt 1\) complete/);
  });
});

describe("what is on disk when an attempt starts", () => {
  it("a batch writes its records, claims, run record and worklog lines before its attempts start; the other tickets' files after", () => {
    const changes: Changes = {
      tickets: ["a", "b", "c"],
      attempts: [{ ticket: "a", record: { n: 1 } as AttemptRecord }],
      answers: [],
      log: [{ event: "claim", ticket: "b" } as WorklogEntry],
      run: true,
    };
    const { now, rest } = splitForStart(changes, new Set(["b"]));
    expect(now).toEqual({ ...changes, tickets: ["b"] });
    expect(rest).toEqual({ tickets: ["a", "c"], attempts: [], answers: [], log: [], run: false });
  });

  it("its ticket file says claimed and the worklog has its claim line", async () => {
    // a fan-out whose later claims are made in the middle of the run, after exits
    const g = makeGraph({
      a: {},
      b: { depends_on: ["a"] },
      c: { depends_on: ["a"] },
      d: { depends_on: ["a"] },
      e: { depends_on: ["b", "c"] },
      f: {},
      g: { depends_on: ["f"] },
    });
    const exec = counted(
      g.marks,
      [
        `grep -q '^status: claimed' "$FRONTIER_TICKET_FILE" || { echo "ticket not claimed on disk" >&2; exit 1; }`,
        `grep -qF '"event":"claim","ticket":"'"$FRONTIER_TICKET"'"' "$FRONTIER_DIR/.frontier/worklog.jsonl" || { echo "no claim line in the worklog" >&2; exit 1; }`,
        "echo ok",
      ].join("; "),
    );
    const ran = await run(g, exec, "--max-parallel", "2");
    expect(ran.stderr).not.toMatch(/not claimed on disk|no claim line/);
    expect(ran.code).toBe(0);
    expect(receipt(g).counts.complete).toBe(7);
  });
});

describe("running a finished directory again", () => {
  it("does nothing and exits with its state's code", async () => {
    const g = makeGraph({ a: {}, b: {} });
    const exec = counted(g.marks, `[ "$FRONTIER_TICKET" = a ] && exit 1; echo ok`);
    expect((await run(g, exec)).code).toBe(1);
    const again = await run(g, exec);
    expect(again.code).toBe(1);
    expect(executions(g)).toEqual({ a: 1, b: 1 });
    // No executor needed to look at a finished directory.
    expect((await run(g, undefined)).code).toBe(1);
  });
});

describe("usage errors", () => {
  it("refuses an invalid graph with file:line problems and exit 2, starting nothing", async () => {
    const g = makeGraph({ a: { depends_on: ["nope"] }, b: {} });
    const ran = await run(g, echoExec(g.marks));
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/a\.md(:\d+)?: .*nope/);
    expect(executions(g)).toEqual({});
  });

  it("names the fix when no executor is configured", async () => {
    const g = makeGraph({ a: {} });
    const ran = await run(g, undefined);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--exec/);
    expect(ran.stderr).toMatch(/frontier\.yml/);
  });

  it("says which ticket names an executor frontier.yml does not define", async () => {
    const g = makeGraph({ a: { executor: "gpu" } });
    const ran = await run(g, "echo ok");
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/a\.md:2: executor "gpu" is not defined in frontier\.yml/);
  });

  it("runs a ticket's named executor from frontier.yml", async () => {
    const g = makeGraph(
      { a: { executor: "shout" }, b: {} },
      { run: "t", executor: "echo plain", executors: { shout: "echo LOUD" } },
    );
    expect((await run(g, undefined)).code).toBe(0);
    const r = receipt(g);
    expect(ticketOf(r, "a").attempts[0]?.result?.trim()).toBe("LOUD");
    expect(ticketOf(r, "b").attempts[0]?.result?.trim()).toBe("plain");
  });
});

describe("a usage bound in frontier.yml", () => {
  /** an executor that reports `tokens` of usage and records what remains of the run bound */
  const spender = (marks: string, tokens: number) =>
    counted(
      marks,
      `echo "$FRONTIER_TICKET $FRONTIER_RUN_BOUND" >> ${marks}/bounds; printf '{"status":"complete","result":"ok","usage":{"tokens":${tokens}}}' > "$FRONTIER_OUTCOME_FILE"`,
    );

  it("claims nothing once the total is reached, ends limited naming it, and says how to go on", async () => {
    const g = makeGraph(
      { a: {}, b: { depends_on: ["a"] }, c: { depends_on: ["b"] } },
      { run: "test", bound: { usage: { tokens: 150 } } },
    );
    const ran = await run(g, spender(g.marks, 100));
    expect(ran.code).toBe(4);
    expect(executions(g)).toEqual({ a: 1, b: 1 });
    expect(readFileSync(join(g.marks, "bounds"), "utf8")).toBe(
      "a usage.tokens=150\nb usage.tokens=50\n",
    );
    const r = receipt(g);
    expect(r.state).toBe("limited");
    expect(r.usage).toEqual({ tokens: 200 });
    expect(r.bound?.usage).toEqual({ tokens: 150 });
    expect(r.remainder).toEqual([
      { id: "c", status: "ready", waiting_on: "run bound spent: 200 of 150 tokens used" },
    ]);
    expect(ran.stderr).toContain("raise bound.usage.tokens in");
  });

  it("a nested run inherits what remains and never exceeds it", async () => {
    const g = makeGraph({ a: {}, b: {}, c: {} });
    const ran = await frontier(
      ["run", g.dir, "--max-parallel", "1", "--exec", spender(g.marks, 30)],
      {
        env: { FRONTIER_RUN_BOUND: "usage.tokens=50" },
      },
    );
    expect(ran.code).toBe(4);
    expect(Object.keys(executions(g))).toHaveLength(2);
  });

  it("validate checks the bound's shape, naming the line", async () => {
    const g = makeGraph({ a: {} }, { run: "test", bound: { usage: { tokens: "lots" } } });
    const ran = await frontier(["validate", g.dir]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/frontier\.yml:\d+: bound must be .*usage/);
  });
});

describe("ticket files edited during the run", () => {
  it("a dependency added to a ticket, or a ticket deleted, before its claim: it does not start, nothing more is claimed, and the next run goes by the new graph", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] }, c: { depends_on: ["a"] } });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = a ]; then touch ${g.marks}/a-started; while [ ! -e ${g.marks}/go ]; do sleep 0.05; done; fi; echo "did $FRONTIER_TICKET"`,
    );
    const started = startFrontier(["run", g.dir, "--exec", exec]);
    await until(() => existsSync(join(g.marks, "a-started")), "a to start");
    // once the run's start is written (its write of a file an author deletes in that instant
    // is a race no check of a file's version closes: the file comes back)
    await until(() => /status: pending/.test(readFileSync(join(g.dir, "c.md"), "utf8")), "c.md");
    // while a runs: b now depends on a new ticket z as well, and c is deleted
    const b = join(g.dir, "b.md");
    writeFileSync(
      b,
      readFileSync(b, "utf8").replace("depends_on:\n  - a", "depends_on:\n  - a\n  - z"),
    );
    writeFileSync(join(g.dir, "z.md"), "---\ntitle: Z\n---\nDo z.\n");
    rmSync(join(g.dir, "c.md"));
    writeFileSync(join(g.marks, "go"), "");
    const ran = await started.done;
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/b\.md \(changed\)/);
    expect(ran.stderr).toMatch(/c\.md \(deleted\)/);
    expect(ran.stderr).not.toContain("internal error");
    expect(executions(g)).toEqual({ a: 1 });

    const again = await run(g, exec);
    expect(again.code, again.stderr).toBe(0);
    expect(executions(g)).toEqual({ a: 1, z: 1, b: 1 });
    const runs = lines(join(g.marks, "runs")).map((l) => l.split(" ")[0]);
    expect(runs.indexOf("z")).toBeLessThan(runs.indexOf("b"));
  });
});

describe("a wide fan-in of large results", () => {
  it("the context carries at most 8 MiB of results and names the file of each input left out; the receipt and reports stay bounded", async () => {
    const producers = Array.from({ length: 12 }, (_, i) => `p${String(i).padStart(2, "0")}`);
    const g = makeGraph({
      ...Object.fromEntries(producers.map((id) => [id, {}])),
      fan: { depends_on: producers },
    });
    const exec = counted(
      g.marks,
      `if [ "$FRONTIER_TICKET" = fan ]; then cp "$FRONTIER_CONTEXT_FILE" ${g.marks}/fan.ctx; echo fanned; else head -c 1000000 /dev/zero | tr '\\0' x; fi`,
    );
    const ran = await run(g, exec, "--max-parallel", "4");
    expect(ran.code, ran.stderr).toBe(0);
    const ctx = readFileSync(join(g.marks, "fan.ctx"), "utf8");
    expect(Buffer.byteLength(ctx)).toBeLessThan(8 * 1024 * 1024 + 64 * 1024);
    // eight results of a million bytes fit in 8 MiB; the other four are named with their file
    const left = [
      ...ctx.matchAll(
        /left out of this context: its result is 1000000 bytes, past the 8388608 bytes of results a context carries — read it from (\S+)\)/g,
      ),
    ].map((m) => m[1]!);
    expect(left).toHaveLength(4);
    for (const path of left) expect(readFileSync(path, "utf8")).toHaveLength(1_000_000);
    expect(ctx.split("x".repeat(1000)).length).toBeGreaterThan(8 * 999);

    const r = receipt(g);
    const results = producers.map((id) => ticketOf(r, id).attempts[0]);
    expect(results.filter((a) => a?.result !== undefined)).toHaveLength(8);
    for (const a of results.filter((a) => a?.result === undefined)) {
      expect(a).toMatchObject({ result_file: expect.stringMatching(/results\/p\d+@1\.md$/) });
    }
    const report = await frontier([
      "report",
      g.dir,
      "--json",
      join(g.root, "r.json"),
      "--html",
      join(g.root, "r.html"),
    ]);
    expect(report.code, report.stderr).toBe(0);
    expect(statSync(join(g.root, "r.json")).size).toBeLessThan(9 * 1024 * 1024);
  });
});
