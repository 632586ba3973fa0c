/**
 * The outbox's rule for a run at its context step (`admit`) and for a settle (`settleRefused`):
 * one claim, one agent run, whatever the runs listing's lag.
 */
import { describe, expect, it } from "vitest";
import { serializesClaims } from "../../src/github/context-step.js";
import { admit, settleRefused, take } from "../../src/github/outbox.js";
import type { OutboxEntry } from "../../src/github/state.js";

const entry = (over: Partial<OutboxEntry> = {}): OutboxEntry => ({
  claim: "c1",
  attempt: 1,
  workflow: "orch-task.yml",
  at: "2026-01-01T00:00:00Z",
  status: "pending",
  sends: 1,
  ...over,
});

describe("a run may run the agent only if no other run of its claim can", () => {
  it("a first send in a workflow that runs one claim's dispatches one after the other runs at once, with no write", () => {
    expect(admit(entry(), 7, true)).toEqual({ kind: "run" });
  });
  it("a first send in a workflow without that concurrency group takes the claim first, however soon it starts", () => {
    expect(admit(entry(), 7, false)).toEqual({ kind: "take" });
  });
  it("the run GitHub named when the claim was dispatched once runs without a take", () => {
    expect(admit(entry({ status: "sent", run_id: 7 }), 7, false)).toEqual({ kind: "run" });
  });
  it("a claim sent more than once is taken first, even in a serialized workflow", () => {
    expect(admit(entry({ status: "resent", sends: 2 }), 7, true)).toEqual({ kind: "take" });
  });
  it("a claim another run took is skipped; the taker runs", () => {
    expect(admit(entry({ taken_by: 5 }), 7, true)).toEqual({ kind: "skip", takenBy: 5 });
    expect(admit(entry({ taken_by: 7 }), 7, false)).toEqual({ kind: "run" });
  });
  it("a take by a second run after the first took it answers the first", () => {
    const outbox = { a: entry() };
    expect(take(outbox, "a", "c1", 5)).toEqual({ kind: "taken" });
    expect(take(outbox, "a", "c1", 7)).toEqual({ kind: "taken-by", runId: 5 });
    expect(take(outbox, "a", "other", 7)).toEqual({ kind: "gone" });
  });
});

describe("a settle from a run that did not carry the claim changes nothing", () => {
  const job = { ticket: "a", attempt: 1, claim: "c1", runId: 7 };
  it("a run another took settles nothing", () => {
    expect(settleRefused(entry({ taken_by: 5 }), job, false)).toMatch(/taken by workflow run 5/);
  });
  it("a run of a claim sent twice that died without taking it leaves it to the other dispatch", () => {
    expect(settleRefused(entry({ status: "resent", sends: 2 }), job, true)).toMatch(
      /the other dispatch carries it/,
    );
    expect(settleRefused(entry(), job, true)).toBeUndefined();
  });
});

/** GitHub's expression syntax, written without a template literal's look. */
const expr = (e: string) => `$${"{{"} ${e} }}`;

describe("whether a workflow runs one claim's dispatches one after the other", () => {
  it("reads the workflow's (or every job's) concurrency group", () => {
    expect(
      serializesClaims(`concurrency:\n  group: frontier-claim-${expr("inputs.claim")}\n`),
    ).toBe(true);
    expect(serializesClaims(`concurrency: x-${expr("inputs.claim")}\n`)).toBe(true);
    expect(
      serializesClaims(
        `jobs:\n  task:\n    concurrency: c-${expr("inputs.claim")}\n    runs-on: x\n`,
      ),
    ).toBe(true);
    expect(
      serializesClaims(
        `concurrency:\n  group: x-${expr("inputs.claim")}\n  cancel-in-progress: true\n`,
      ),
    ).toBe(false);
    expect(serializesClaims(`concurrency: frontier-${expr("github.ref")}\n`)).toBe(false);
    expect(serializesClaims(undefined)).toBe(false);
  });
});
