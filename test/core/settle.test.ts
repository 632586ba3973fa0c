/**
 * One interpreter of outcomes for both runners (core/settle.ts): the rules on their own,
 * and a parity check that feeds the same outcome files through the local runner's
 * attempt and the action's settle step and compares what each would settle.
 */
import { writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBound } from "../../src/core/bound.js";
import type { ChangedPath } from "../../src/core/changes.js";
import { executorVariables, formatRunBound, parseRunBound } from "../../src/core/executor.js";
import { compileScope } from "../../src/core/scope.js";
import { interpretOutcome, type Observation, planSettle as plan4 } from "../../src/core/settle.js";
import { readJobOutcome } from "../../src/github/events.js";
import { startAttempt } from "../../src/local/attempt.js";
import { outcomeReason } from "../../src/tickets/outcome-file.js";
import { EXECUTOR_VARIABLES } from "../support/executor-contract.js";

const CAP = 200;
type Plan = Parameters<typeof plan4>;
/** The settle plan, its reasons worded as both runners word them. */
const planSettle = (i: Plan[0], c: Plan[1], s: Plan[2]) => plan4(i, c, s, outcomeReason);

/** What the local runner settles for an executor that writes `outcome` and prints `stdout`. */
async function viaLocalRunner(outcome: string | undefined, stdout = "") {
  const cwd = await mkdtemp(join(tmpdir(), "frontier-parity-"));
  const script = join(cwd, "executor.sh");
  const body =
    outcome === undefined ? "" : `cat > "$FRONTIER_OUTCOME_FILE" <<'EOF'\n${outcome}\nEOF\n`;
  writeFileSync(script, `${body}printf '%s' '${stdout}'\n`);
  const run = startAttempt({
    command: `sh ${script}`,
    cwd,
    scratch: cwd,
    tag: "attempt",
    contextFile: join(cwd, "context.md"),
    context: "task\n",
    baseEnv: process.env,
    maxResultBytes: CAP,
  });
  const r = await run.done;
  return pick(r);
}

/** What the settle step settles for a job that wrote `outcome` and succeeded. */
async function viaSettleStep(outcome: string | undefined) {
  const cwd = await mkdtemp(join(tmpdir(), "frontier-parity-"));
  const path = join(cwd, "outcome.json");
  if (outcome !== undefined) writeFileSync(path, `${outcome}\n`);
  return pick(await readJobOutcome({ outcomeFile: path, jobStatus: "success" }, CAP));
}

function pick(r: {
  outcome: string;
  result?: string;
  question?: string;
  reason?: string;
  usage?: Record<string, number>;
}) {
  const out: Record<string, unknown> = { outcome: r.outcome };
  for (const k of ["result", "question", "reason", "usage"] as const) {
    if (r[k] !== undefined) out[k] = r[k];
  }
  return out;
}

describe("both runners settle the same outcome file the same way", () => {
  const cases: Array<[string, string, Record<string, unknown>]> = [
    [
      "complete with a result and usage",
      '{"status":"complete","result":"R","usage":{"tokens":3}}',
      { outcome: "complete", result: "R", usage: { tokens: 3 } },
    ],
    ["complete without a result is empty", '{"status":"complete"}', { outcome: "empty" }],
    ["a blank result is empty", '{"status":"complete","result":"  \\n"}', { outcome: "empty" }],
    ["empty", '{"status":"empty"}', { outcome: "empty" }],
    [
      "suspended with a question",
      '{"status":"suspended","question":"Which region?"}',
      { outcome: "suspended", question: "Which region?" },
    ],
    [
      "suspended without a question fails",
      '{"status":"suspended"}',
      {
        outcome: "failed",
        reason:
          'the outcome file says "suspended" but gives no "question": add the question the ticket is waiting on',
      },
    ],
    [
      "failed without a reason",
      '{"status":"failed"}',
      { outcome: "failed", reason: "the executor reported failed" },
    ],
    [
      "limited",
      '{"status":"limited","usage":{"tokens":9}}',
      { outcome: "limited", reason: "the ticket's bound ran out", usage: { tokens: 9 } },
    ],
    [
      "a result over the cap fails, never truncated",
      JSON.stringify({ status: "complete", result: "x".repeat(CAP + 1) }),
      {
        outcome: "failed",
        reason: `the result in the outcome file is ${CAP + 1} bytes, over max_result_bytes (${CAP}): write large output to a file and return its path, or raise max_result_bytes in frontier.yml`,
      },
    ],
    ["a blank file fails", "   ", { outcome: "failed", reason: expect.stringMatching(/is empty/) }],
  ];
  for (const [name, outcome, expected] of cases) {
    it(name, async () => {
      const local = await viaLocalRunner(outcome);
      const github = await viaSettleStep(outcome);
      expect(local).toEqual(expected);
      expect(github).toEqual(local);
    });
  }

  it("a JSON error is the same failure, worded the same but for the file's name", async () => {
    const local = await viaLocalRunner("{nope");
    const github = await viaSettleStep("{nope");
    expect(local.outcome).toBe("failed");
    expect(String(github.reason).replace(/\(.*?outcome\.json\)/, "($FRONTIER_OUTCOME_FILE)")).toBe(
      local.reason,
    );
  });
});

describe("the interpreter's rules", () => {
  const interpret = (seen: Observation) => interpretOutcome(seen, outcomeReason);
  const none: Observation["file"] = { kind: "none" };
  it("a timeout is a failure with reason timeout, whatever was written", () => {
    expect(
      interpret({
        file: { kind: "ok", value: { status: "complete", result: "r" } },
        timedOut: true,
        maxResultBytes: CAP,
      }),
    ).toEqual({ outcome: "failed", reason: "timeout" });
  });

  it("stdout stands in for a result or a question the outcome file does not give", () => {
    const proc = (text: string) => ({
      code: 0,
      signal: null,
      stdout: { kind: "text" as const, text },
      stderr: "",
    });
    expect(
      interpret({
        file: { kind: "ok", value: { status: "complete" } },
        process: proc("from stdout"),
        maxResultBytes: CAP,
      }),
    ).toEqual({ outcome: "complete", result: "from stdout" });
    expect(
      interpret({
        file: { kind: "ok", value: { status: "suspended" } },
        process: proc(" Which one? \n"),
        maxResultBytes: CAP,
      }),
    ).toEqual({ outcome: "suspended", question: "Which one?" });
  });

  it("exit codes decide when no file does: 0, 75, anything else", () => {
    const end = (code: number, text: string, stderr = "") =>
      interpret({
        file: none,
        process: { code, signal: null, stdout: { kind: "text", text }, stderr },
        maxResultBytes: CAP,
      });
    expect(end(0, "done")).toEqual({ outcome: "complete", result: "done" });
    expect(end(0, " ")).toEqual({ outcome: "empty" });
    expect(end(75, "Q?")).toEqual({ outcome: "suspended", question: "Q?" });
    expect(end(75, "").outcome).toBe("failed");
    expect(end(3, "", "boom")).toEqual({ outcome: "failed", reason: "boom" });
    expect(end(3, "")).toEqual({ outcome: "failed", reason: "exit code 3" });
  });

  it("a job that succeeded without an outcome fails; one that names its outcome is read like a file", () => {
    expect(
      interpret({ file: none, job: { status: "success" }, maxResultBytes: CAP }).reason,
    ).toMatch(/succeeded but reported no outcome/);
    expect(
      interpret({
        file: none,
        job: { outcome: "complete", result: { kind: "text", text: "  " } },
        maxResultBytes: CAP,
      }),
    ).toEqual({ outcome: "empty" });
  });
});

describe("settling an attempt's changes", () => {
  const change = (path: string, extra: Partial<ChangedPath> = {}): ChangedPath => ({
    path,
    status: "modified",
    mode: "100644",
    blob: "b".repeat(40),
    ...extra,
  });
  const scope = compileScope(["src/api/**", "docs/api.md"]);
  const start = "a".repeat(40);

  it("changes in scope that nothing else touched are integrated with the outcome", () => {
    const plan = planSettle(
      { outcome: "complete", result: "done" },
      { start, paths: [change("src/api/x.ts"), change("docs/api.md")], moved: new Map() },
      scope,
    );
    expect(plan).toMatchObject({ outcome: "complete", result: "done", changes: "integrate" });
    expect(plan.record?.verdict).toBe("integrated");
    expect(plan.record?.paths.map((p) => p.path)).toEqual(["src/api/x.ts", "docs/api.md"]);
  });

  it("changes the runner cannot take fail the attempt with its reason; nothing is integrated, the change is kept", () => {
    const plan = planSettle(
      { outcome: "complete", result: "done", usage: { tokens: 5 } },
      {
        start,
        paths: [change("src/api/x.ts")],
        moved: new Map(),
        refused: "integration refused: too big",
      },
      scope,
    );
    expect(plan).toMatchObject({
      outcome: "failed",
      reason: "integration refused: too big",
      changes: "evidence",
      usage: { tokens: 5 },
    });
    expect(plan.record?.verdict).toBe("kept");
  });

  it("changes that could not be collected never let an attempt pass as done; a failed one stays as it was", () => {
    const unknown = { start, paths: [], moved: new Map(), refused: "could not be collected" };
    expect(planSettle({ outcome: "complete", result: "done" }, unknown, scope)).toMatchObject({
      outcome: "failed",
      reason: "could not be collected",
      changes: "none",
    });
    expect(planSettle({ outcome: "empty" }, unknown, scope).outcome).toBe("failed");
    expect(planSettle({ outcome: "failed", reason: "crashed" }, unknown, scope)).toMatchObject({
      outcome: "failed",
      reason: "crashed",
    });
  });

  it("a change to the engine's fields of a ticket file is a breach naming it, even inside the scope", () => {
    const wide = compileScope(["**"]);
    const plan = planSettle(
      { outcome: "complete", result: "done" },
      {
        start,
        paths: [change("src/api/x.ts"), change("tickets/b.md")],
        moved: new Map(),
        engineEdits: ["tickets/b.md"],
      },
      wide,
    );
    expect(plan).toMatchObject({ outcome: "failed", changes: "evidence" });
    expect(plan.record?.verdict).toBe("breach");
    expect(plan.reason).toMatch(
      /^scope-breach: changed the fields only the runner writes \(status, .*\) in tickets\/b\.md — leave them as they are; nothing was integrated, the change is kept as evidence$/,
    );
    // with paths outside the scope too, both are said
    const both = planSettle(
      { outcome: "complete", result: "done" },
      {
        start,
        paths: [change("README.md"), change("tickets/b.md")],
        moved: new Map(),
        engineEdits: ["tickets/b.md"],
      },
      compileScope(["tickets/**"]),
    );
    expect(both.reason).toMatch(
      /^scope-breach: changed 1 path outside its write_scope: README\.md — .*; changed the fields only the runner writes .* in tickets\/b\.md/,
    );
  });

  it("a ticket that only changed files, saying nothing, is complete: its changes are its result", () => {
    const plan = planSettle(
      { outcome: "empty" },
      { start, paths: [change("src/api/x.ts", { added: 3, removed: 1 })], moved: new Map() },
      scope,
    );
    expect(plan.outcome).toBe("complete");
    expect(plan.result).toContain("modified src/api/x.ts (+3 −1)");
  });

  it("a path outside the scope is a breach that names every such path; nothing is integrated", () => {
    const plan = planSettle(
      { outcome: "complete", result: "done" },
      {
        start,
        paths: [change("src/api/x.ts"), change("src/ui/y.ts"), change("README.md")],
        moved: new Map(),
      },
      scope,
    );
    expect(plan.outcome).toBe("failed");
    expect(plan.changes).toBe("evidence");
    expect(plan.reason).toMatch(
      /^scope-breach: changed 2 paths outside its write_scope: src\/ui\/y\.ts, README\.md/,
    );
    expect(plan.record?.verdict).toBe("breach");
  });

  it("a rename out of the scope breaches it by its old path", () => {
    const plan = planSettle(
      { outcome: "complete", result: "r" },
      {
        start,
        paths: [change("src/api/moved.ts", { status: "renamed", from: "lib/old.ts" })],
        moved: new Map(),
      },
      scope,
    );
    expect(plan.reason).toMatch(/lib\/old\.ts/);
  });

  it("any change by a ticket without a write_scope is a breach", () => {
    const plan = planSettle(
      { outcome: "complete", result: "r" },
      { start, paths: [change("src/api/x.ts")], moved: new Map() },
      compileScope([]),
    );
    expect(plan.reason).toMatch(
      /^scope-breach: the ticket has no write_scope but changed 1 path: src\/api\/x\.ts/,
    );
  });

  it("a path someone else changed on the branch since the start is a conflict naming path and commit", () => {
    const plan = planSettle(
      { outcome: "complete", result: "r" },
      {
        start,
        paths: [change("src/api/x.ts")],
        moved: new Map([["src/api/x.ts", "c".repeat(40)]]),
      },
      scope,
    );
    expect(plan.outcome).toBe("failed");
    expect(plan.reason).toMatch(/^conflict: src\/api\/x\.ts \(changed by cccccccccccc\)/);
    expect(plan.record?.verdict).toBe("conflict");
  });

  it("an attempt that failed or asked keeps its changes as evidence and integrates nothing", () => {
    for (const interpreted of [
      { outcome: "failed" as const, reason: "boom" },
      { outcome: "suspended" as const, question: "Q?" },
    ]) {
      const plan = planSettle(
        interpreted,
        { start, paths: [change("src/api/x.ts")], moved: new Map() },
        scope,
      );
      expect(plan.outcome).toBe(interpreted.outcome);
      expect(plan.changes).toBe("evidence");
      expect(plan.record?.verdict).toBe("kept");
    }
  });

  it("nothing collected or nothing changed: the settle is the outcome alone", () => {
    expect(planSettle({ outcome: "empty" }, undefined, scope)).toMatchObject({
      outcome: "empty",
      changes: "none",
    });
    expect(
      planSettle({ outcome: "empty" }, { start, paths: [], moved: new Map() }, scope),
    ).toMatchObject({ outcome: "empty", changes: "none" });
  });
});

describe("the executor contract", () => {
  it("names every variable the same way for both runners", () => {
    const attempt = {
      run: "r",
      ticket: "t",
      attempt: 2,
      ticketFile: "/w/tickets/t.md",
      dir: "/w/tickets",
      bound: parseBound("30m"),
      leaseUntil: "2026-12-01T10:30:00.000Z",
      runBound: { dispatchesLeft: 3, usage: { tokens: 1000 } },
      claim: "c1",
      contextFile: "/tmp/c.md",
      outcomeFile: "/tmp/o.json",
    };
    const vars = executorVariables(attempt);
    expect(Object.keys(vars)).toEqual([...EXECUTOR_VARIABLES]);
    expect(vars.FRONTIER_RUN_BOUND).toBe("dispatches=3 usage.tokens=1000");
    expect([vars.FRONTIER_BOUND, vars.FRONTIER_DEADLINE]).toEqual(["30m", attempt.leaseUntil]);
    // a bound in words sets no deadline; no bound, no text
    const words = executorVariables({ ...attempt, bound: parseBound("5 tool calls") });
    expect([words.FRONTIER_BOUND, words.FRONTIER_DEADLINE]).toEqual(["5 tool calls", ""]);
    const none = executorVariables({ ...attempt, bound: undefined });
    expect([none.FRONTIER_BOUND, none.FRONTIER_DEADLINE]).toEqual(["", ""]);
  });

  it("FRONTIER_RUN_BOUND round-trips, usage included, and refuses what it does not know", () => {
    const text = formatRunBound({
      dispatchesLeft: 0,
      deadline: "2026-12-01T10:00:00.000Z",
      usage: { tokens: 1500, cost_usd: 0.25 },
    });
    expect(parseRunBound(text)).toEqual({
      kind: "ok",
      bound: {
        dispatches: 0,
        deadline: "2026-12-01T10:00:00.000Z",
        usage: { cost_usd: 0.25, tokens: 1500 },
      },
    });
    expect(parseRunBound("tokens=5").kind).toBe("bad");
    expect(parseRunBound("").kind).toBe("ok");
  });
});
