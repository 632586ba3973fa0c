/**
 * A job whose agent ran out its ticket's bound settles as a timeout from its own settle
 * step — whether the bound is the ticket's or the run's default (`ticket_bound`).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { Runner } from "../e2e/runner.js";
import { writeTickets } from "../e2e/tickets.js";

let runner: Runner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});

/** One ticket whose agent runs past its second and is killed by the job's timeout. */
async function firstAttemptOf(extra: string, settings: string) {
  runner = new Runner();
  const sha = await runner.start(writeTickets([{ id: "slow", extra }], settings));
  // no outcome file: the job's timeout killed the agent step
  runner.script = async () => {
    await sleep(1_300);
    return { killed: true };
  };
  await runner.push(sha);
  await runner.fake.idle();
  return runner.state().tickets.slow?.attempts[0];
}

describe("a job that ran out its bound, settled by its own settle step", () => {
  it("a ticket's own bound: reason timeout", async () => {
    expect(await firstAttemptOf("bound: 1s", "run: e2e\n")).toMatchObject({
      outcome: "failed",
      reason: "timeout",
    });
  });

  it("the run's ticket_bound, for a ticket with none of its own: reason timeout too", async () => {
    expect(await firstAttemptOf("", "run: e2e\nticket_bound: 1s\n")).toMatchObject({
      outcome: "failed",
      reason: "timeout",
    });
  });
});
