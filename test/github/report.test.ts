import { afterEach, describe, expect, it } from "vitest";
import { advance } from "../../src/github/advance.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import { makeWorld, runContext, stateOf, ticket, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.cleanup();
  world = undefined;
});

const MARKER = "<!-- ticket-frontier:report run=";

describe("one sticky report comment per run", () => {
  it("goes on the open pull request of the run's branch, posted when the run starts", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]), {
      branch: "feature",
    });
    const pr = world.repo.openPull({ head: "feature", title: "Add tickets" });
    let now = Date.now();
    const ctx = runContext(world, { branch: "feature", clock: () => now });
    const start = await advance(ctx, advanceOnly, "start");
    const comments = world.repo.commentsOn(pr.number).filter((c) => c.body.includes(MARKER));
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toMatch(/running/i);
    const firstBody = comments[0]?.body;
    const state = stateOf(world, "feature") as {
      report: { issue_number: number; on: string; login: string };
    };
    expect(state.report).toMatchObject({
      issue_number: pr.number,
      on: "pr",
      login: "github-actions[bot]",
    });

    const a = start.dispatched[0];
    now += 31_000;
    await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim: a?.claim,
        outcome: "complete",
        result: "A",
        by: "job",
      }),
      "settle a",
    );
    const after = world.repo.commentsOn(pr.number).filter((c) => c.body.includes(MARKER));
    expect(after).toHaveLength(1);
    expect(after[0]?.id).toBe(comments[0]?.id);
    expect(after[0]?.body).not.toBe(firstBody);
    // no tracking issue when there is a pull request
    expect(
      [...world.repo.issues.values()].filter((i) => i.labels.includes("frontier:run")),
    ).toHaveLength(0);
  });

  it("else goes on a tracking issue it creates once, labelled frontier:run", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const ctx = runContext(world);
    await advance(ctx, advanceOnly, "start");
    const tracking = [...world.repo.issues.values()].filter((i) =>
      i.labels.includes("frontier:run"),
    );
    expect(tracking).toHaveLength(1);
    expect(
      world.repo.commentsOn(tracking[0]?.number ?? 0).filter((c) => c.body.includes(MARKER)),
    ).toHaveLength(1);
  });

  it("is found by its marker AND its author: a comment someone else plants with the marker never counts", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]), {
      branch: "feature",
    });
    const pr = world.repo.openPull({ head: "feature", title: "Add tickets" });
    world.repo.addComment(pr.number, `${MARKER}e2e -->\nI am the report now`, "mallory");
    world.repo.addComment(
      pr.number,
      `${MARKER}${encodeURIComponent("widgets")} -->\nme too`,
      "mallory",
    );
    const ctx = runContext(world, { branch: "feature" });
    await advance(ctx, advanceOnly, "start");
    const planted = world.repo.commentsOn(pr.number).filter((c) => c.user === "mallory");
    expect(planted.map((c) => c.body)).toEqual([
      `${MARKER}e2e -->\nI am the report now`,
      `${MARKER}widgets -->\nme too`,
    ]);
    const ours = world.repo
      .commentsOn(pr.number)
      .filter((c) => c.user === "github-actions[bot]" && c.body.includes(MARKER));
    expect(ours).toHaveLength(1);
    const state = stateOf(world, "feature") as { report: { comment_id: number } };
    expect(state.report.comment_id).toBe(ours[0]?.id);
  });

  it("stays under 65,536 characters for a 600-ticket graph", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) =>
        ticket(`ticket-with-a-long-name-${i}`, i > 0 ? [`ticket-with-a-long-name-${i - 1}`] : []),
      ),
    );
    world = await makeWorld(files);
    const ctx = runContext(world);
    const out = await advance(ctx, advanceOnly, "start");
    expect(out.markdown?.length).toBeLessThan(65_536);
    const comment = world.repo.commentsOn(
      stateOf(world).report
        ? (stateOf(world) as { report: { issue_number: number } }).report.issue_number
        : 0,
    )[0];
    expect(comment?.body.length).toBeLessThan(65_536);
  });

  it("is refreshed at once when its headline changes, else at most every 30 seconds, and says when", async () => {
    world = await makeWorld(
      Object.fromEntries([ticket("a"), ticket("b"), ticket("c"), ticket("d", ["a"])]),
    );
    let now = Date.parse("2026-11-30T10:00:00Z");
    const ctx = runContext(world, { clock: () => now });
    const start = await advance(ctx, advanceOnly, "start");
    const claim = (t: string) => start.dispatched.find((d) => d.ticket === t)?.claim;
    const patches = () => world!.fake.countRequests({ operation: "issues/update-comment" });
    const settle = (t: string, outcome: "complete" | "failed") =>
      advance(
        ctx,
        settleEvent({ ticket: t, attempt: 1, claim: claim(t), outcome, result: t, by: "job" }),
        `settle ${t}`,
      );
    const before = patches();
    now += 5_000;
    await settle("a", "complete"); // same headline, 5 s later: not refreshed
    expect(patches()).toBe(before);
    now += 5_000;
    await settle("b", "failed"); // a failure changes the headline: refreshed at once
    expect(patches()).toBe(before + 1);
    const body = [...world.repo.comments.values()].find((c) => c.body.includes(MARKER))?.body;
    expect(body).toMatch(/Updated 2026-11-30 10:00:10 UTC/);
    now += 31_000;
    await settle("c", "complete"); // 31 s since the last refresh: refreshed
    expect(patches()).toBe(before + 2);
  });

  it("deleted by someone, is posted again and the new one is kept up to date", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b"), ticket("c", ["a"])]));
    let now = Date.now();
    const ctx = runContext(world, { clock: () => now });
    const start = await advance(ctx, advanceOnly, "start");
    const first = (stateOf(world) as { report: { comment_id: number } }).report.comment_id;
    world.repo.comments.delete(first);
    const claim = (t: string) => start.dispatched.find((d) => d.ticket === t)?.claim;
    now += 31_000;
    await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim: claim("a"),
        outcome: "complete",
        result: "A",
        by: "job",
      }),
      "settle a",
    );
    const second = (stateOf(world) as { report: { comment_id: number } }).report.comment_id;
    expect(second).not.toBe(first);
    expect(world.repo.comments.get(second)?.body).toMatch(/\ba\b/);
    const bodyBefore = world.repo.comments.get(second)?.body;
    now += 31_000;
    await advance(
      ctx,
      settleEvent({
        ticket: "b",
        attempt: 1,
        claim: claim("b"),
        outcome: "complete",
        result: "B",
        by: "job",
      }),
      "settle b",
    );
    // the later event updated the comment posted again, not the deleted one
    expect(world.repo.comments.get(second)?.body).not.toBe(bodyBefore);
    const reports = [...world.repo.comments.values()].filter((c) => c.body.includes(MARKER));
    expect(reports).toHaveLength(1);
  });
});
