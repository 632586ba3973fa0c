/**
 * What GitHub really does under concurrent writes and lost answers, and what an event
 * must never lose to it: an outcome, a claim's dispatch, a lease that ran out.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { advance } from "../../src/github/advance.js";
import { type FileChanges, graphqlStore, restStore } from "../../src/github/branch.js";
import { performEffects } from "../../src/github/effects.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import type { Head } from "../../src/github/git.js";
import { openQuestionIssue } from "../../src/github/questions.js";
import type { Recorded } from "../../src/github/record.js";
import type { RunView } from "../../src/github/run-context.js";
import { makeWorld, runContext, stateOf, ticket, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.cleanup();
  world = undefined;
});

type State = {
  tickets: Record<
    string,
    { status: string; attempt: number; attempts: Array<{ outcome?: string; reason?: string }> }
  >;
  outbox?: Record<string, { claim: string; status: string }>;
  questions?: Record<string, { issue_number?: number }>;
};

/** The job of ticket a (dispatched by `start`) settles complete. */
const completeA = (start: Awaited<ReturnType<typeof advance>>) =>
  settleEvent({
    ticket: "a",
    attempt: 1,
    claim: start.dispatched[0]?.claim,
    outcome: "complete",
    result: "A",
    by: "job",
  });

const dispatchesOf = (w: World, t: string) =>
  w.fake.allRuns().filter((r) => r.inputs.ticket === t).length;

describe("every conflict answer is a conflict: re-read, re-apply, nothing lost", () => {
  it('422 "Reference cannot be updated" on the REST ref update: the outcome is recorded and the dependent dispatched', async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
    const ctx = runContext(world, {
      store: restStore(world.gh, { owner: "acme", repo: "widgets" }, "main"),
    });
    const start = await advance(ctx, advanceOnly, "start");
    world.fake.inject({
      operation: "git/update-ref",
      status: 422,
      message: "Reference cannot be updated",
      times: 2,
    });
    const out = await advance(ctx, completeA(start), "settle a");
    expect(out.result.kind).toBe("ok");
    expect(out.tries).toBe(3);
    const state = stateOf(world) as State;
    expect(state.tickets.a?.status).toBe("complete");
    expect(state.tickets.b?.status).toBe("claimed");
    expect(out.dispatched.map((d) => d.ticket)).toEqual(["b"]);
  });

  it("a GraphQL commit on a head that moved (expected-head mismatch) is re-read and re-applied", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    // a concurrent job's commit lands between this event's read and its commit, twice
    const w = world;
    const store = graphqlStore(w.gh, { owner: "acme", repo: "widgets" }, "main");
    let races = 2;
    const racing = {
      ...store,
      commit: (head: Head, changes: FileChanges, message: string) => {
        if (races-- > 0) w.repo.commit("main", { [`notes-${races}.md`]: "another job\n" });
        return store.commit(head, changes, message);
      },
    };
    const out = await advance({ ...ctx, store: racing }, completeA(start), "settle a");
    expect(out.result.kind).toBe("ok");
    expect(out.tries).toBe(3);
    expect((stateOf(world) as State).tickets.a?.status).toBe("complete");
    // the concurrent commits are kept: compare-and-swap, never last-writer-wins
    expect(world.repo.readFile("notes-0.md", "main")).toBe("another job\n");
    expect(world.repo.readFile("notes-1.md", "main")).toBe("another job\n");
    expect(out.dispatched.map((d) => d.ticket)).toEqual(["b"]);
  });

  it("a job's settle that loses races reads base.json once, and again only when it changed", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    const w = world;
    const base = "tickets/.frontier/base.json";
    const store = graphqlStore(w.gh, { owner: "acme", repo: "widgets" }, "main");
    const textReads: boolean[] = [];
    let races = 3;
    const racing = {
      ...store,
      read: (...args: Parameters<typeof store.read>) => {
        textReads.push(args[0].includes(base));
        return store.read(...args);
      },
      commit: (head: Head, changes: FileChanges, message: string) => {
        races--;
        // the second race rewrites base.json (the same tickets, another blob)
        const also: Record<string, string> =
          races === 1 ? { [base]: `${w.repo.readFile(base, "main")} ` } : {};
        if (races >= 0) w.repo.commit("main", { [`notes-${races}.md`]: "x\n", ...also });
        return store.commit(head, changes, message);
      },
    };
    const out = await advance(
      { ...ctx, store: racing, jobCheckout: true },
      completeA(start),
      "settle a",
    );
    expect(out.result.kind).toBe("ok");
    expect(out.tries).toBe(4);
    // read whole, then by id; after it changed, whole again, then by id
    expect(textReads).toEqual([true, false, false, true, false]);
    expect((stateOf(world) as State).tickets.a?.status).toBe("complete");
    expect(out.dispatched.map((d) => d.ticket)).toEqual(["b"]);
  });

  it("a job's settle takes base.json from its checkout only when it is the branch's: an agent's edit, link, FIFO or junk there is never used", async () => {
    const base = "tickets/.frontier/base.json";
    // what the agent leaves at base.json in its checkout → the reads that ask for its text
    const placed: Array<[string, (path: string, text: string) => void, boolean[]]> = [
      ["the branch's", (path, text) => writeFileSync(path, text), [false]],
      [
        "with Windows line ends",
        (path, text) => writeFileSync(path, text.replace(/\n/g, "\r\n")),
        [false],
      ],
      [
        "a ticket added: it would start at once",
        (path, text) => {
          const snapshot = JSON.parse(text) as { files: Record<string, string> };
          snapshot.files["c.md"] = "---\ntitle: c\n---\nNot the run's.\n";
          writeFileSync(path, `${JSON.stringify(snapshot)}\n`);
        },
        [false, true],
      ],
      ["not JSON", (path) => writeFileSync(path, "{"), [false, true]],
      [
        "a symbolic link to the branch's",
        (path, text) => {
          writeFileSync(`${path}.real`, text);
          symlinkSync(`${path}.real`, path);
        },
        [true],
      ],
      ["a FIFO (never written)", (path) => execFileSync("mkfifo", [path]), [true]],
    ];
    for (const [what, place, expected] of placed) {
      world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
      const ctx = runContext(world);
      const start = await advance(ctx, advanceOnly, "start");
      mkdirSync(join(world.workspace, "tickets/.frontier"), { recursive: true });
      place(join(world.workspace, base), world.repo.readFile(base, "main") as string);
      const store = graphqlStore(world.gh, { owner: "acme", repo: "widgets" }, "main");
      const textReads: boolean[] = [];
      const reading = {
        ...store,
        read: (...args: Parameters<typeof store.read>) => {
          textReads.push(args[0].includes(base));
          return store.read(...args);
        },
      };
      const out = await advance(
        { ...ctx, store: reading, jobCheckout: true },
        completeA(start),
        "settle a",
      );
      // the branch's: read by id alone; another: read again, whole; none to take: read whole
      expect(textReads, what).toEqual(expected);
      expect(
        out.dispatched.map((d) => d.ticket),
        what,
      ).toEqual(["b"]);
      expect(Object.keys((stateOf(world) as State).tickets).sort(), what).toEqual(["a", "b"]);
      world.fake.assertNoViolations();
      await world.cleanup();
      world = undefined;
    }
  });
});

describe("nothing is lost to an unclear answer", () => {
  it("a commit whose answer was lost, with another commit landing before the re-read: its claims are dispatched by this event, once", async () => {
    world = await makeWorld(
      Object.fromEntries([ticket("a"), ticket("b", ["a"]), ticket("c", ["a"])]),
    );
    const base = runContext(world);
    const start = await advance(base, advanceOnly, "start");
    // the settle's commit lands, its answer is lost (502) ...
    world.fake.inject({
      operation: "graphql/mutation:createCommitOnBranch",
      status: 502,
      applied: true,
      times: 1,
    });
    // ... and another commit lands before the event reads the branch again
    const w = world;
    const ctx = runContext(world, {
      sleep: async () => {
        w.repo.commit("main", { "notes.md": "another job\n" }, { message: "another commit" });
      },
    });
    const out = await advance(ctx, completeA(start), "settle a");
    expect(out.result.kind).toBe("ok");
    expect(out.dispatched.map((d) => d.ticket).sort()).toEqual(["b", "c"]);
    const state = stateOf(world) as State;
    expect(state.tickets.a?.status).toBe("complete");
    expect(state.tickets.b?.status).toBe("claimed");
    // recorded once: one attempt record, not a second settle on top
    expect(state.tickets.a?.attempts).toHaveLength(1);
    expect(dispatchesOf(world, "b")).toBe(1);
    expect(dispatchesOf(world, "c")).toBe(1);
  });

  it("a claim committed by an event that died before dispatching is sent by a later event, after looking for its run", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b")]));
    let now = Date.parse("2026-11-30T10:00:00Z");
    const ctx = runContext(world, { clock: () => now, outboxLagMs: 60_000 });
    // the start's dispatches never happen (the job died after its commit)
    world.fake.inject({ operation: "actions/create-workflow-dispatch", status: 500, times: 2 });
    world.fake.inject({ operation: "actions/list-workflow-runs", status: 500, times: 10 });
    await advance(
      { ...ctx, session: Object.assign(ctx.session, { findRunTries: 1 }) },
      advanceOnly,
      "start",
    );
    world.fake.clearFaults();
    expect(world.fake.allRuns()).toHaveLength(0);
    // an event soon after leaves them alone: a run may just not be listed yet
    now += 10_000;
    const soon = await advance(ctx, advanceOnly, "push");
    expect(soon.dispatched).toEqual([]);
    // past the lag, the next event finds no run carrying the claims and sends them
    now += 60_000;
    const later = await advance(ctx, advanceOnly, "push");
    expect(later.dispatched.map((d) => d.ticket).sort()).toEqual(["a", "b"]);
    const state = stateOf(world) as State;
    expect(state.outbox?.a?.status).toBe("resent");
    expect(dispatchesOf(world, "a")).toBe(1);
    // and once a run carries it, it is never sent again
    now += 120_000;
    await advance(ctx, advanceOnly, "push");
    expect(dispatchesOf(world, "a")).toBe(1);
    expect((stateOf(world) as State).outbox?.a?.status).toBe("sent");
  });
});

describe("leases everywhere: every event reclaims expired claims of its run", () => {
  it("a claim whose lease ran out is failed lease-expired by the next event, and retries apply", async () => {
    world = await makeWorld({
      "a.md": "---\nbound: 10m\nretries: 1\n---\n# a\n",
      ...Object.fromEntries([ticket("b")]),
    });
    let now = Date.parse("2026-11-30T10:00:00Z");
    const ctx = runContext(world, { clock: () => now });
    const start = await advance(ctx, advanceOnly, "start");
    now += 11 * 60_000;
    // b's job settles; a's never started: this event reclaims a
    const out = await advance(
      ctx,
      settleEvent({
        ticket: "b",
        attempt: 1,
        claim: start.dispatched.find((d) => d.ticket === "b")?.claim,
        outcome: "complete",
        result: "B",
        by: "job",
      }),
      "settle b",
    );
    const state = stateOf(world) as State;
    expect(state.tickets.a?.attempts[0]).toMatchObject({
      outcome: "failed",
      reason: "lease-expired",
    });
    expect(state.tickets.a?.attempt).toBe(2);
    expect(out.dispatched.map((d) => `${d.ticket}#${d.attempt}`)).toEqual(["a#2"]);
  });
});

describe("one claim, one agent run", () => {
  it("a second workflow run of a claim another run took settles nothing, and the taker's settle records", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    const claim = start.dispatched[0]?.claim as string;
    await advance(
      ctx,
      (_f, _now, view) => {
        const e = view.outbox.a;
        if (e) view.outbox.a = { ...e, status: "sent", run_id: 111, taken_by: 111 };
        return { kind: "ok", changed: [] };
      },
      "take a#1 for workflow run 111",
      { start: false },
    );
    const other = await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim,
        outcome: "failed",
        reason: "skipped",
        by: "job",
        runId: 222,
      }),
      "settle a (run 222)",
    );
    expect(other.result.kind).toBe("stale");
    expect((stateOf(world) as State).tickets.a?.status).toBe("claimed");
    const taker = await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim,
        outcome: "complete",
        result: "A",
        by: "job",
        runId: 111,
      }),
      "settle a (run 111)",
    );
    expect(taker.result.kind).toBe("ok");
    expect((stateOf(world) as State).tickets.a?.status).toBe("complete");
  });
});

/** A world whose ticket `a` was claimed, then settled suspended asking `question`. */
async function asking(question: string) {
  const w = await makeWorld(Object.fromEntries([ticket("a")]));
  world = w;
  const ctx = runContext(w);
  const start = await advance(ctx, advanceOnly, "start");
  const claim = start.dispatched[0]?.claim;
  const settle = settleEvent({
    ticket: "a",
    attempt: 1,
    claim,
    outcome: "suspended",
    question,
    by: "job",
  });
  return { world: w, ctx, asked: await advance(ctx, settle, "settle a") };
}

describe("a question longer than a GitHub issue holds (an agent that pastes its whole log)", () => {
  it("its issue is opened with the question cut to fit, saying so; the record and the next attempt keep it whole", async () => {
    const question = `Which of these failures matters?\n${"FAIL test/x.test.ts > a case\n".repeat(3000)}`;
    const { world: w, asked } = await asking(question);
    expect(asked.deferred).toEqual([]);
    const number = (stateOf(w) as State).questions?.a?.issue_number;
    expect(number).toBeTypeOf("number");
    const body = w.repo.issues.get(number as number)?.body ?? "";
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain("Which of these failures matters?");
    expect(body).toMatch(/cut to fit/);
    expect(body).toContain("/answer");
    expect(asked.frontier.state("a")?.attempts[0]?.question).toBe(question);
  });

  it("a question holding a long run of backticks (its fence longer still) is cut until it fits: its issue is opened", async () => {
    const question = `Which of these? ${"`".repeat(40_000)} the first or the second?`;
    const { world: w, asked } = await asking(question);
    expect(asked.deferred).toEqual([]);
    const number = (stateOf(w) as State).questions?.a?.issue_number;
    const body = w.repo.issues.get(number as number)?.body ?? "";
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toMatch(/Which of these\? `{15000,}…\n\(cut to fit an issue: 40041 characters/);
  });

  it("a run name too long for any issue body (no question can be cut short enough) is GitHub's refusal, never a stack overflow", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const repo = { owner: "acme", repo: "widgets" };
    const q = {
      run: "é".repeat(12_000),
      branch: "main",
      ticket: "a",
      attempt: 1,
      question: "Which?",
    };
    const opened = openQuestionIssue(world.gh, repo, q);
    await expect(opened).rejects.not.toThrow(RangeError);
    await expect(opened).rejects.toMatchObject({ status: 422 });
  });

  it("the cut never splits a character in two (an emoji is two UTF-16 units), wherever it falls", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const repo = { owner: "acme", repo: "widgets" };
    // a lone half of a pair, not followed or preceded by its other half
    const split = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const [attempt, lead] of [
      [1, ""],
      [2, "x"],
    ] as const) {
      const q = { run: "r", branch: "main", ticket: "a", attempt };
      const n = await openQuestionIssue(world.gh, repo, {
        ...q,
        question: lead + "😀".repeat(40_000),
      });
      const body = world.repo.issues.get(n)?.body ?? "";
      expect(body.length).toBeLessThanOrEqual(65_536);
      expect(body).toMatch(/cut to fit/);
      expect(body).not.toMatch(split);
    }
  });
});

describe("two events open the same question's issue at once", () => {
  it("the one the state did not keep is closed once, however many tries its record took", async () => {
    const { world: w, ctx, asked } = await asking("Which region?");
    // an event that read the state before the question's issue was recorded opens it (it
    // finds the one just made by its marker) ...
    const ours = asked.state.questions.a?.issue_number as number;
    const stale = { ...asked.state, questions: { a: { attempt: 1 } } };
    const last = { ...asked, state: stale, sends: [], asked: ["a"], head: "" };
    const learned = await performEffects(ctx, last as unknown as Recorded, [], [], []);
    // ... while another event made its own at the same time and recorded it first
    const other = await ctx.gh.rest.issues.create({ ...ctx.repo, title: "a: Which region?" });
    const theirs = other.data.number;
    const view: RunView = {
      questions: { a: { attempt: 1, issue_number: theirs } },
      report: asked.state.report,
      outbox: {},
      files: new Map(),
      moved: new Map(),
    };
    // the record loses two races: the event runs three times, on three reads
    for (let tries = 0; tries < 3; tries++) learned?.event(asked.frontier, Date.now(), view);
    await learned?.after?.();
    const path = `/repos/acme/widgets/issues/${ours}`;
    expect(w.fake.countRequests({ operation: "issues/update", path })).toBe(1);
    expect(w.repo.issues.get(ours)?.stateReason).toBe("not_planned");
    expect(w.repo.issues.get(theirs)?.state).toBe("open");
  });
});
