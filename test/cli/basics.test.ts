/**
 * What a user meets on day one: a fresh start, `--version`, `DIR` defaulting to
 * `tickets`, a closed stdout, a never-run graph, a run held by its bound, a finished
 * run that cannot be cancelled, a failed run that also has a question, and what a
 * killed run left behind.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  counted,
  executions,
  fileStatus,
  frontier,
  makeGraph,
  receipt,
  run,
  ticketOf,
} from "../local/harness.js";

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});

const STACK_TRACE = /\n\s+at .+:\d+:\d+|node:internal/;

/** A pid that no process has now. */
function deadPid(): number {
  for (let pid = 4_000_000; ; pid++) {
    try {
      process.kill(pid, 0);
    } catch {
      return pid;
    }
  }
}

describe("frontier --version", () => {
  it("prints the package's version", async () => {
    const r = await frontier(["--version"]);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(CLI, "..", "..", "..", "package.json"), "utf8"));
    expect(r.stdout.trim()).toBe(pkg.version);
  });
});

describe("DIR defaults to tickets for every command", () => {
  it("context, retry, answer, cancel and report find ./tickets", async () => {
    const g = makeGraph({ ask: {}, bad: {} });
    const exec = `case $FRONTIER_TICKET in ask) echo "Which region?"; exit 75 ;; *) exit 3 ;; esac`;
    expect((await run(g, exec)).code).toBe(1);
    const at = { cwd: g.root };
    const context = await frontier(["context", "ask"], at);
    expect(context.code).toBe(0);
    expect(context.stdout).toContain("Do ask.");
    const answer = await frontier(["answer", "ask", "eu-west", "please"], at);
    expect(answer.stderr).toBe("");
    expect(answer.code).toBe(0);
    expect((await frontier(["retry", "bad"], at)).code).toBe(0);
    expect(fileStatus(g, "ask")).toBe("ready");
    expect(fileStatus(g, "bad")).toBe("ready");
    const report = await frontier(["report"], at);
    expect(report.code).toBe(0);
    expect(existsSync(join(g.dir, ".frontier", "report.html"))).toBe(true);
    expect((await frontier(["cancel"], at)).code).toBe(0);
    expect(fileStatus(g, "ask")).toBe("cancelled");
  });
});

describe("a closed stdout ends quietly", () => {
  it("`frontier status | head -1` prints one line and no stack trace", () => {
    const tickets: Parameters<typeof makeGraph>[0] = {};
    for (let i = 0; i < 3000; i++) tickets[`t${i}`] = {};
    const g = makeGraph(tickets);
    const r = spawnSync(
      "sh",
      [
        "-c",
        `"${process.execPath}" "${CLI}" status "${g.dir}" | head -1; echo "exit=\${PIPESTATUS:-?}"`,
      ],
      { encoding: "utf8", env: { ...process.env, CI: "1" } },
    );
    expect(r.stdout.split("\n")[0]).toMatch(/^run test: not started/);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.stderr).toBe("");
  });
});

describe("the run state a user reads", () => {
  it("a graph never run is not started", async () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } });
    const r = await frontier(["status", g.dir]);
    expect(r.stdout).toMatch(/^run test: not started/);
  });

  it("a run limited by --bound says how to go on, and again when run again", async () => {
    const g = makeGraph({ a: {}, b: {}, c: {} });
    const first = await run(g, "echo ok", "--bound", "2");
    expect(first.code).toBe(4);
    expect(first.stderr).toMatch(/raise --bound to go on, e.g. `frontier run .* --bound 3`/);
    const again = await run(g, "echo ok");
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/raise --bound/);
    const on = await run(g, "echo ok", "--bound", "3");
    expect(on.code).toBe(0);
  });

  it("a failed run that also has a question exits 1 and still lists the question", async () => {
    const g = makeGraph({ ask: {}, bad: {} });
    const r = await run(
      g,
      `case $FRONTIER_TICKET in ask) echo "Which region?"; exit 75 ;; *) echo broke >&2; exit 3 ;; esac`,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/run test: failed/);
    expect(r.stderr).toMatch(/ask\s+‖ suspended\s+question: Which region\?/);
    expect(receipt(g).state).toBe("failed");
    const status = await frontier(["status", g.dir]);
    expect(status.stdout).toContain("question from ask: Which region?");
  });

  it("cancel on a finished run refuses and leaves it complete", async () => {
    const g = makeGraph({ a: {} });
    expect((await run(g, "echo ok")).code).toBe(0);
    const r = await frontier(["cancel", g.dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has finished \(complete\); nothing is open to cancel/);
    expect(fileStatus(g, "a")).toBe("complete");
    expect((await frontier(["status", g.dir])).stdout).toMatch(/^run test: complete/);
  });
});

describe("a fresh start: frontier reset and run --fresh", () => {
  const AUTHORED =
    "---\n# the author's comment\ntitle: A  # kept\ndepends_on: []\n---\n# A\n\nDo a.\n";

  it("reset archives every record of the run and clears the engine fields; the author's text is untouched", async () => {
    const g = makeGraph({ b: { depends_on: ["a"] } });
    writeFileSync(join(g.dir, "a.md"), AUTHORED);
    const exec = counted(g.marks, "echo done");
    expect((await run(g, exec)).code).toBe(0);
    expect(fileStatus(g, "a")).toBe("complete");

    const r = await frontier(["reset", g.dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/records are in .*\.frontier\/runs\/test-1\//);
    expect(readFileSync(join(g.dir, "a.md"), "utf8")).toBe(AUTHORED);
    expect(fileStatus(g, "b")).toBeUndefined();
    const archive = join(g.dir, ".frontier", "runs", "test-1");
    expect(readdirSync(archive).sort()).toEqual(
      expect.arrayContaining(["attempts", "results", "run.json", "tickets", "worklog.jsonl"]),
    );
    expect(readFileSync(join(archive, "tickets", "a.md"), "utf8")).toMatch(/status: complete/);
    // the --exec of the last run is the user's, not the run's: it stays for the next hints
    expect(readdirSync(join(g.dir, ".frontier")).sort()).toEqual(["last-exec.json", "runs"]);
    expect((await frontier(["status", g.dir])).stdout).toMatch(/^run test: not started/);

    // the graph runs again, whole; a second reset archives under the next number
    expect((await run(g, exec)).code).toBe(0);
    expect(executions(g)).toEqual({ a: 2, b: 2 });
    expect((await frontier(["reset", g.dir])).code).toBe(0);
    expect(existsSync(join(g.dir, ".frontier", "runs", "test-2", "run.json"))).toBe(true);
  });

  it("run --fresh is reset then run; --json keeps stdout for the receipt", async () => {
    const g = makeGraph({ a: {} });
    const exec = counted(g.marks, "echo done");
    expect((await run(g, exec)).code).toBe(0);
    const r = await run(g, exec, "--fresh", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).state).toBe("complete");
    expect(executions(g)).toEqual({ a: 2 });
    expect(ticketOf(receipt(g), "a").attempts).toHaveLength(1);
    expect(existsSync(join(g.dir, ".frontier", "runs", "test-1", "run.json"))).toBe(true);
  });
});

describe("what a killed run left behind", () => {
  it("the next run removes its temporary files", async () => {
    const g = makeGraph({ a: {} });
    const pid = deadPid();
    const ticketTemp = join(g.dir, `.a.md.${pid}.0badf00d.tmp`);
    writeFileSync(ticketTemp, "half a ticket");
    expect((await run(g, "echo ok")).code).toBe(0);
    const reportTemp = join(g.dir, ".frontier", `receipt.json.${pid}.tmp`);
    writeFileSync(reportTemp, "{half");
    writeFileSync(join(g.dir, "notes.2024.tmp"), "the author's"); // not ours: stays
    const r = await run(g, "echo ok");
    expect(r.code).toBe(0);
    expect(existsSync(ticketTemp)).toBe(false);
    expect(existsSync(reportTemp)).toBe(false);
    expect(existsSync(join(g.dir, "notes.2024.tmp"))).toBe(true);
  });
});
