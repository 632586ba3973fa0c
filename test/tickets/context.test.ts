import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { AnswerRecord, RunRecord, TicketSpec, TicketState } from "../../src/core/model.js";
import { buildContext, EMPTY_INPUT } from "../../src/tickets/context.js";
import { gatherContext, readContext } from "../../src/tickets/context-io.js";
import { writeResult } from "../support/results.js";

function spec(id: string, over: Partial<TicketSpec> = {}): TicketSpec {
  return {
    id,
    title: id.toUpperCase(),
    file: `${id}.md`,
    dependsOn: [],
    inputs: [],
    writeScope: [],
    priority: 0,
    body: `Do ${id}.`,
    order: 0,
    ...over,
  };
}

const answer: AnswerRecord = {
  n: 1,
  attempt: 1,
  question: "Which region first?",
  text: "eu-west, then us-east.",
  by: "ana",
  at: "2026-01-02T10:00:00.000Z",
};

describe("what an executor is given", () => {
  const plan = spec("plan", {
    title: "Plan the rollout",
    body: "\nWrite the plan.\n",
    dependsOn: ["a", "b", "c"],
    inputs: ["c", "a", "b"],
  });
  const text = buildContext({
    spec: plan,
    run: "release",
    goal: "Ship it",
    attempt: 2,
    inputs: [
      { id: "c", title: "C", status: "complete", result: "result of c\n\n" },
      { id: "a", title: "A", status: "empty", result: undefined },
      { id: "b", title: "B", status: "complete", result: "result of b" },
    ],
    answers: [answer],
  });

  test("the task: title and body", () => {
    expect(text.startsWith("# Plan the rollout\n")).toBe(true);
    expect(text).toContain("Ticket `plan` · run `release` · attempt 2");
    expect(text).toContain("Goal of the run: Ship it");
    expect(text).toContain("## Task\n\nWrite the plan.\n");
  });

  test("each input's result, in inputs order", () => {
    const c = text.indexOf("### c: C (complete)\n\nresult of c\n");
    const a = text.indexOf("### a: A (empty)");
    const b = text.indexOf("### b: B (complete)\n\nresult of b\n");
    expect(c).toBeGreaterThan(0);
    expect(a).toBeGreaterThan(c);
    expect(b).toBeGreaterThan(a);
  });

  test("an empty input appears as an explicit blank, never dropped", () => {
    expect(text).toContain(`### a: A (empty)\n\n${EMPTY_INPUT}\n`);
    expect(EMPTY_INPUT).toBe("(ran, returned nothing)");
  });

  test("the ticket's earlier questions and answers", () => {
    expect(text).toContain(
      "### Question from attempt 1\n\nWhich region first?\n\nAnswer (by ana, 2026-01-02T10:00:00.000Z):\n\neu-west, then us-east.\n",
    );
  });

  test("no inputs and no answers: no such sections", () => {
    const t = buildContext({
      spec: spec("x", { body: "" }),
      run: "r",
      attempt: 1,
      inputs: [],
      answers: [],
    });
    expect(t).not.toContain("## Inputs");
    expect(t).not.toContain("## Earlier questions");
    expect(t).toContain("(no description: the title is the task)");
  });
});

describe("gathering the context from the frontier and the ticket directory", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "frontier-context-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("reads the result of each input's last complete attempt; empty stays blank", async () => {
    const old = writeResult(dir, "a", 1, "old result");
    const fresh = writeResult(dir, "a", 2, "fresh result");
    const specs: Record<string, TicketSpec> = {
      a: spec("a"),
      e: spec("e"),
      t: spec("t", { dependsOn: ["a", "e"], inputs: ["e", "a"] }),
    };
    const attempt = (
      n: number,
      outcome: "complete" | "empty" | "failed",
      result_file?: string,
    ) => ({
      n,
      claim: `c${n}`,
      claimed_by: "me",
      started_at: "s",
      ended_at: "e",
      outcome,
      ...(result_file === undefined ? {} : { result_file }),
    });
    const states: Record<string, TicketState> = {
      a: {
        status: "complete",
        attempt: 3,
        attempts: [
          attempt(1, "complete", old),
          attempt(3, "failed"),
          attempt(2, "complete", fresh),
        ],
        answers: [],
      },
      e: { status: "empty", attempt: 1, attempts: [attempt(1, "empty")], answers: [] },
      t: { status: "claimed", attempt: 2, claim: "k", attempts: [], answers: [answer] },
    };
    const run: RunRecord = { schema: "ticket-frontier/run@1", run: "r", dispatched: 5 };
    const frontier = {
      spec: (id: string) => specs[id],
      state: (id: string) => states[id],
      runRecord: () => run,
    };
    const args = await gatherContext(dir, frontier, "t", { goal: "g" });
    expect(args.inputs).toEqual([
      { id: "e", title: "E", status: "empty", result: undefined },
      { id: "a", title: "A", status: "complete", result: "fresh result" },
    ]);
    expect(args.attempt).toBe(2);
    expect(args.answers).toEqual([answer]);
    const text = await readContext(dir, frontier, "t", { goal: "g" });
    expect(text).toContain(`### e: E (empty)\n\n${EMPTY_INPUT}`);
    expect(text).toContain("### a: A (complete)\n\nfresh result");
    await expect(readContext(dir, frontier, "nope")).rejects.toThrow(/no ticket "nope"/);
  });

  test("the attempt it is for: the live one, the last one once done, else the next", async () => {
    const run: RunRecord = { schema: "ticket-frontier/run@1", run: "r", dispatched: 1 };
    const at = async (state: TicketState | undefined) =>
      (
        await gatherContext(
          dir,
          { spec: () => spec("x"), state: () => state, runRecord: () => run },
          "x",
        )
      ).attempt;
    const base = { attempts: [], answers: [] };
    expect(await at(undefined)).toBe(1);
    expect(await at({ ...base, status: "ready", attempt: 0 })).toBe(1);
    expect(await at({ ...base, status: "claimed", attempt: 2 })).toBe(2);
    expect(await at({ ...base, status: "complete", attempt: 2 })).toBe(2);
    expect(await at({ ...base, status: "ready", attempt: 1 })).toBe(2);
    expect(await at({ ...base, status: "suspended", attempt: 1 })).toBe(2);
  });
});
