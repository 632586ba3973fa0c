import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobStartedAt } from "../../src/github/context-step.js";
import { parseRunName } from "../../src/github/dispatch.js";
import { readJobOutcome, readWorkflowRun } from "../../src/github/events.js";
import type { ActionContext } from "../../src/github/run-context.js";

const dir = mkdtempSync(join(tmpdir(), "frontier-events-"));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe("the settle step reads the job's outcome", () => {
  it("from the outcome file, the local executor's JSON protocol", async () => {
    const job = await readJobOutcome(
      {
        outcomeFile: file("a.json", '{"status":"complete","result":"R","usage":{"tokens":3}}'),
        jobStatus: "success",
      },
      1000,
    );
    expect(job).toEqual({ outcome: "complete", result: "R", usage: { tokens: 3 } });
  });

  it("an outcome file that is not the protocol fails the attempt and says what to write", async () => {
    const bad = await readJobOutcome({ outcomeFile: file("b.json", "{nope") }, 1000);
    expect(bad.outcome).toBe("failed");
    expect(bad.reason).toMatch(/not valid JSON.*\{"status": "complete"/);
    const wrong = await readJobOutcome({ outcomeFile: file("c.json", '{"status":"done"}') }, 1000);
    expect(wrong).toMatchObject({ outcome: "failed" });
    expect(wrong.reason).toMatch(/status/);
  });

  it("from the outcome input with a result file", async () => {
    const job = await readJobOutcome(
      { outcome: "complete", resultFile: file("r.md", "text") },
      1000,
    );
    expect(job).toEqual({ outcome: "complete", result: "text" });
  });

  it("a result file over the size cap fails the attempt, never truncated", async () => {
    const job = await readJobOutcome(
      { outcome: "complete", resultFile: file("big.md", "x".repeat(2000)) },
      1000,
    );
    expect(job.outcome).toBe("failed");
    expect(job.reason).toMatch(/2000 bytes, over max_result_bytes \(1000\)/);
  });

  it("a result file the agent made a symbolic link (to the settle step's own environment, its token there) is not read: the attempt fails", async () => {
    const link = join(dir, "linked.md");
    symlinkSync("/proc/self/environ", link);
    const job = await readJobOutcome({ outcome: "complete", resultFile: link }, 100_000);
    expect(job.result ?? "").not.toContain("PATH=");
    expect(job.outcome).toBe("failed");
    expect(job.reason).toMatch(/^input result-file: .*linked\.md could not be read/);
  });

  it("a job that succeeded but reported no outcome fails: a result nobody produced never reaches its dependents", async () => {
    const job = await readJobOutcome(
      { outcomeFile: join(dir, "missing.json"), jobStatus: "success" },
      1000,
    );
    expect(job.outcome).toBe("failed");
    expect(job.reason).toMatch(/succeeded but reported no outcome.*FRONTIER_OUTCOME_FILE/);
  });

  it("a cancelled or failed job without an outcome fails with the job's status as the reason", async () => {
    expect((await readJobOutcome({ jobStatus: "cancelled" }, 1000)).reason).toMatch(/cancelled/);
    expect((await readJobOutcome({ jobStatus: "failure" }, 1000)).reason).toMatch(/failed before/);
  });
});

describe("when the job started, as the context step noted it in the job's temporary directory (the agent's too)", () => {
  const noted = (make: (file: string) => void) => {
    const temp = mkdtempSync(join(dir, "temp-"));
    mkdirSync(join(temp, "ticket-frontier"));
    make(join(temp, "ticket-frontier", "started-api-1"));
    const ctx = { settings: { env: { runnerTemp: temp } } } as unknown as ActionContext;
    return jobStartedAt(ctx, "api", 1);
  };

  it("is read from the file the context step wrote", async () => {
    expect(await noted((f) => writeFileSync(f, "1700000000000"))).toBe(1700000000000);
  });

  it("a FIFO the agent put in its place does not stall the settle step: the start is unknown", async () => {
    expect(await noted((f) => execFileSync("mkfifo", [f]))).toBeUndefined();
  }, 5_000);
});

describe("orch-task runs are recognised by their run-name", () => {
  it("round-trips ticket, attempt and claim", () => {
    expect(parseRunName("frontier plan.v2#3 cabc123")).toEqual({
      ticket: "plan.v2",
      attempt: 3,
      claim: "cabc123",
    });
    expect(parseRunName("CI on main")).toBeUndefined();
  });

  it("a workflow_run of a job that ended well, or of another workflow, is nothing to do", () => {
    const ok = readWorkflowRun({
      workflow_run: {
        display_title: "frontier a#1 c1",
        status: "completed",
        conclusion: "success",
      },
    });
    expect(ok.kind).toBe("ignore");
    const other = readWorkflowRun({
      workflow_run: { display_title: "Build", status: "completed", conclusion: "failure" },
    });
    expect(other.kind).toBe("ignore");
  });

  it("a job that ended failed, cancelled or timed out is a dead job to settle", () => {
    const dead = readWorkflowRun({
      workflow_run: {
        display_title: "frontier a#2 c9",
        status: "completed",
        conclusion: "timed_out",
        head_branch: "feature",
        html_url: "https://github.com/o/r/actions/runs/5",
      },
    });
    expect(dead).toEqual({
      kind: "dead",
      job: {
        ticket: "a",
        attempt: 2,
        claim: "c9",
        branch: "feature",
        conclusion: "timed_out",
        url: "https://github.com/o/r/actions/runs/5",
      },
    });
  });
});

describe("a job that ran out of its bound", () => {
  it("a workflow_run that ended timed_out settles the attempt as reason: timeout", async () => {
    const { deadJobEvent } = await import("../../src/github/events.js");
    const { openRun } = await import("../../src/core/event.js");
    const f = openRun({
      specs: [
        {
          id: "a",
          title: "A",
          file: "a.md",
          dependsOn: [],
          inputs: [],
          writeScope: [],
          priority: 0,
          body: "",
          order: 0,
        },
      ],
      settings: { run: "r" },
      saved: undefined,
      flags: {},
      now: 0,
    });
    const [claim] = f.claimReady(0, "job", () => "c1");
    expect(claim?.claim).toBe("c1");
    const view = {
      state: undefined,
      questions: {},
      report: undefined,
      outbox: {},
      files: new Map(),
      moved: new Map(),
    };
    const r = deadJobEvent({
      ticket: "a",
      attempt: 1,
      claim: "c1",
      branch: "main",
      conclusion: "timed_out",
      url: "https://github.com/o/r/actions/runs/9",
    })(f, 1000, view);
    expect(r.kind).toBe("ok");
    expect(f.state("a")?.attempts[0]).toMatchObject({ outcome: "failed", reason: "timeout" });
  });
});
