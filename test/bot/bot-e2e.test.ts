import { afterEach, describe, expect, it } from "vitest";
import {
  type BotWorld,
  botReplies,
  botWorld,
  DIR,
  questionIssues,
  reactionsOn,
  ticket,
} from "./harness.js";

let world: BotWorld | undefined;
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.stop();
  world = undefined;
});

const GRAPH = {
  plan: ticket({ title: "Plan the migration" }),
  build: ticket({ depends_on: ["plan"] }),
  ship: ticket({ depends_on: ["build"] }),
};

const ROLES = { maint: "maintain", writer: "write", reader: "read", triager: "triage" } as const;

async function suspendedPlan(): Promise<BotWorld> {
  const w = await botWorld(GRAPH, { roles: { ...ROLES } });
  w.script.plan = [
    { outcome: "suspended", question: "Which database should the migration target?" },
    { outcome: "complete", result: "plan: postgres" },
  ];
  await w.start();
  return w;
}

describe("a maintainer's answer on the question issue runs the ticket and its dependents", () => {
  it("a ticket suspends, its question issue opens, a maintainer answers, the ticket and its dependents complete", async () => {
    world = await suspendedPlan();
    const w = world;
    expect(w.state().tickets.plan?.status).toBe("suspended");
    const [issue] = questionIssues(w.repo);
    expect(issue).toBeDefined();
    expect(issue!.state).toBe("open");

    const result = await w.comment(
      issue!.number,
      "/answer Use postgres 16.\nThe replica is read-only.",
      "maint",
    );
    expect(result).toMatchObject({ kind: "handled", ok: true });

    const state = w.state();
    expect(state.tickets.plan?.status).toBe("complete");
    expect(state.tickets.build?.status).toBe("complete");
    expect(state.tickets.ship?.status).toBe("complete");
    expect(state.tickets.plan?.answers).toEqual([
      expect.objectContaining({
        n: 1,
        attempt: 1,
        by: "maint",
        text: "Use postgres 16.\nThe replica is read-only.",
      }),
    ]);
    // The answer is its own immutable file, written in the commit that re-readied the ticket.
    const answerFile = JSON.parse(w.file(`${DIR}/.frontier/answers/plan@1.json`)!);
    expect(answerFile.text).toBe("Use postgres 16.\nThe replica is read-only.");
    expect(w.ran.filter((r) => r.ticket === "plan").map((r) => r.attempt)).toEqual([1, 2]);

    // The question issue is closed, with a reply that links the run.
    const closed = w.repo.issues.get(issue!.number)!;
    expect(closed.state).toBe("closed");
    expect(closed.stateReason).toBe("completed");
    const replies = botReplies(w.repo, issue!.number);
    expect(replies.at(-1)).toMatch(/Recorded the answer to `plan`/);
    expect(replies.at(-1)).toMatch(/\/actions\/runs\/\d+/);
    expect(w.state().questions.plan?.closed).toBe(true);

    const comment = w.repo.commentsOn(issue!.number).find((c) => c.body.startsWith("/answer"))!;
    expect(reactionsOn(w.repo, comment.id)).toEqual(["eyes", "+1"]);
  });
});
