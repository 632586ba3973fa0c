/**
 * Hardening seen from outside: a finished run's state merged into another branch, a
 * ticket deleted mid-run, a fresh run started on GitHub, a protected branch's reason.
 * Each case failed on the code before its fix.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type AdvanceOutcome, advance } from "../../src/github/advance.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import type { RunContext } from "../../src/github/run-context.js";
import { Checkout } from "../../src/github/source.js";
import { refusalWords } from "../../src/report/refusals.js";
import { makeWorld, runContext, stateOf, ticket, type World } from "./harness.js";

let world: World | undefined;
const scratch: string[] = [];
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.cleanup();
  world = undefined;
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

type State = {
  branch: string;
  run: { run: string; base?: string };
  tickets: Record<string, { status: string; attempt: number; attempts: unknown[] }>;
};

/** A checkout of the ticket directory as it is at `ref` (what actions/checkout gives a job). */
function checkoutAt(w: World, ref: string): Checkout {
  const workspace = mkdtempSync(join(tmpdir(), "frontier-co-"));
  scratch.push(workspace);
  mkdirSync(join(workspace, "tickets"), { recursive: true });
  for (const path of w.repo.listFiles(ref, "tickets")) {
    const rel = path.slice("tickets/".length);
    if (rel.includes("/")) continue;
    writeFileSync(join(workspace, path), w.repo.readFile(path, ref) ?? "");
  }
  return new Checkout(workspace, "tickets");
}

/** A context for an event on `branch` whose checkout is that branch's head. */
function at(w: World, branch: string, over: Partial<RunContext> = {}): RunContext {
  const sha = w.repo.head(branch)!;
  return runContext(w, {
    branch,
    sha,
    checkout: checkoutAt(w, sha),
    claimedBy: `github:orch-task.yml@${branch}`,
    checkoutIsHead: true,
    ...over,
  });
}

/** Settle every claim an outcome dispatched, as its job would, until nothing is dispatched. */
async function runToEnd(ctx: RunContext, first: AdvanceOutcome): Promise<AdvanceOutcome> {
  const pending = [...first.dispatched];
  let last = first;
  while (pending.length > 0) {
    const d = pending.shift()!;
    last = await advance(
      ctx,
      settleEvent({
        ticket: d.ticket,
        attempt: d.attempt,
        claim: d.claim,
        outcome: "complete",
        result: `${d.ticket} done`,
        by: "job",
      }),
      `settle ${d.ticket}`,
      { start: false },
    );
    pending.push(...last.dispatched);
  }
  return last;
}

const TWO = Object.fromEntries([ticket("one"), ticket("two", ["one"])]);

/** A two-ticket run finished on branch `pr`, cut from main. */
async function finishedOnPr(): Promise<World> {
  const w = await makeWorld(TWO, { branch: "pr" });
  const ctx = at(w, "pr");
  const end = await runToEnd(ctx, await advance(ctx, advanceOnly, "advance (push)"));
  expect(end.receipt.state).toBe("complete");
  return w;
}

describe("a finished run's state that reaches another branch starts nothing there", () => {
  it("merged by fast-forward: the push on main dispatches nothing and its tickets stay complete", async () => {
    world = await finishedOnPr();
    const runs = world.fake.allRuns().length;
    world.repo.createBranch("main", world.repo.head("pr")!);
    const head = world.repo.head("main");
    const out = await advance(at(world, "main"), advanceOnly, "advance (push)");
    expect(out.dispatched).toEqual([]);
    expect(world.fake.allRuns()).toHaveLength(runs);
    expect(world.repo.head("main")).toBe(head);
    const state = stateOf(world, "main") as State;
    expect(state.tickets.one?.status).toBe("complete");
    expect(state.tickets.two?.status).toBe("complete");
    expect(world.repo.readFile("tickets/one.md", "main")).toMatch(/status: complete/);
    expect(out.result.kind === "rejected" && refusalWords(out.result.why)).toMatch(
      /finished run .* of branch pr/,
    );
  });

  it("merged with a merge commit on a main that moved: the same", async () => {
    world = await finishedOnPr();
    const runs = world.fake.allRuns().length;
    const moved = world.repo.commit("main", { "NOTES.md": "someone else's work\n" });
    const prHead = world.repo.head("pr")!;
    const tree = world.repo.git.expect(prHead, "commit").tree;
    const sig = world.fake.signature("alice");
    const merge = world.repo.git.writeCommit({
      tree,
      parents: [moved, prHead],
      message: "Merge pull request #1 from acme/pr",
      author: sig,
      committer: sig,
    });
    world.repo.refs.set("refs/heads/main", merge);
    const out = await advance(at(world, "main"), advanceOnly, "advance (push)");
    expect(out.dispatched).toEqual([]);
    expect(world.fake.allRuns()).toHaveLength(runs);
    expect(world.repo.head("main")).toBe(merge);
  });

  it("a ticket added later runs on its own: a new run of the branch, the finished run's tickets counting as they ended", async () => {
    world = await finishedOnPr();
    world.repo.createBranch("main", world.repo.head("pr")!);
    await advance(at(world, "main"), advanceOnly, "advance (push of the merge)");
    const [name, text] = ticket("three", ["two"]);
    world.repo.commit("main", { [`tickets/${name}`]: text });
    const ctx = at(world, "main");
    const out = await advance(ctx, advanceOnly, "advance (push)");
    expect(out.dispatched.map((d) => `${d.ticket}#${d.attempt}`)).toEqual(["three#1"]);
    const state = stateOf(world, "main") as State;
    expect(state.branch).toBe("main");
    expect(state.run.base).toBe(ctx.sha);
    expect(state.tickets.one?.status).toBe("complete");
    expect(state.tickets.one?.attempts).toHaveLength(1);
    const end = await runToEnd(ctx, out);
    expect(end.receipt.state).toBe("complete");
    expect(world.fake.allRuns().filter((r) => r.inputs.ticket === "one")).toHaveLength(1);
  });
});

describe("writing state back never touches what the author wrote", () => {
  it("a ticket file deleted mid-run is not written back; its state lives on in the run's records", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a"), ticket("b", ["a"])]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    // the author removes b while a runs
    world.repo.commit("main", { "tickets/b.md": null }, { message: "drop b" });
    await advance(at(world, "main"), advanceOnly, "advance (push)");
    expect(world.repo.readFile("tickets/b.md", "main")).toBeUndefined();
    // a's job settles from the run's base: b is claimed, and its file stays deleted
    const settled = await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim: start.dispatched[0]!.claim,
        outcome: "complete",
        result: "A",
        by: "job",
      }),
      "settle a",
    );
    expect(settled.dispatched.map((d) => d.ticket)).toEqual(["b"]);
    expect(world.repo.readFile("tickets/b.md", "main")).toBeUndefined();
    expect((stateOf(world) as State).tickets.b?.status).toBe("claimed");
    expect(world.repo.readFile("tickets/a.md", "main")).toMatch(/status: complete/);
  });
});

describe("a fresh run on GitHub archives the old one as `frontier reset` does", () => {
  it("fresh: the old run's records and ticket files move under .frontier/runs/<run>-1/, and the new run starts at the head", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const ctx = runContext(world);
    await runToEnd(ctx, await advance(ctx, advanceOnly, "start"));
    const old = stateOf(world) as State;
    const fresh = at(world, "main");
    const out = await advance(fresh, advanceOnly, "advance (workflow_dispatch)", { fresh: true });
    expect(out.dispatched.map((d) => `${d.ticket}#${d.attempt}`)).toEqual(["a#1"]);
    const archived = world.repo.listFiles("main", `tickets/.frontier/runs/${old.run.run}-1`);
    const rel = archived.map((p) => p.slice(`tickets/.frontier/runs/${old.run.run}-1/`.length));
    expect(rel).toEqual(
      expect.arrayContaining(["state.json", "results/a@1.md", "worklog.jsonl", "tickets/a.md"]),
    );
    expect(world.repo.readFile(`tickets/.frontier/runs/${old.run.run}-1/tickets/a.md`)).toMatch(
      /status: complete/,
    );
    const state = stateOf(world) as State;
    expect(state.run.base).toBe(fresh.sha);
    expect(state.tickets.a?.status).toBe("claimed");
    expect(state.tickets.a?.attempt).toBe(1);
    expect(world.repo.readFile("tickets/.frontier/results/a@1.md")).toBeUndefined();
  });

  it("a run still running is not archived: the fresh run is refused, saying to cancel it first", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    await advance(runContext(world), advanceOnly, "start");
    const head = world.repo.head("main");
    const error = await advance(at(world, "main"), advanceOnly, "fresh", { fresh: true }).catch(
      (e) => e as Error,
    );
    expect((error as Error).message).toMatch(/still running.*Cancel it first/);
    expect(world.repo.head("main")).toBe(head);
  });

  it("a ticket pushed mid-run names the fresh run in its warning, not deleting state.json", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const lines: string[] = [];
    await advance(runContext(world), advanceOnly, "start");
    const [name, text] = ticket("late");
    world.repo.commit("main", { [`tickets/${name}`]: text });
    await advance(at(world, "main", { log: (l) => lines.push(l) }), advanceOnly, "push");
    const warning = lines.find((l) => l.includes("late"));
    expect(warning).toMatch(/fresh/);
    expect(warning).not.toMatch(/delete/);
  });
});

describe("a branch the token may not push to", () => {
  it("quotes GitHub's own reason, not Octokit's first line", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    world.fake.injectGraphQLError({
      operation: "graphql/mutation:createCommitOnBranch",
      type: "FORBIDDEN",
      message: "Repository rule violations found\n\nChanges must be made through a pull request.",
      times: 5,
    });
    const error = await advance(runContext(world), advanceOnly, "start").catch((e) => e as Error);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/may not push to branch main/);
    expect(message).toMatch(
      /GitHub said: Repository rule violations found Changes must be made through a pull request\./,
    );
    expect(message).not.toMatch(/Request failed due to following response errors/);
  });
});

describe("a run still live when its branch was cut stays the run of the branch it lives on", () => {
  it("the cut branch starts its own run; the live copy moves under .frontier/runs/, the original run goes on", async () => {
    world = await makeWorld(Object.fromEntries([ticket("a")]));
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    world.repo.createBranch("next", world.repo.head("main")!);
    const out = await advance(at(world, "next"), advanceOnly, "advance (push)");
    expect(out.dispatched.map((d) => `${d.ticket}#${d.attempt}`)).toEqual(["a#1"]);
    expect((stateOf(world, "next") as State).branch).toBe("next");
    const archived = world.repo.listFiles("next", "tickets/.frontier/runs");
    expect(archived.some((p) => p.endsWith("state.json"))).toBe(true);
    // main's run is untouched and settles as before
    const settled = await advance(
      ctx,
      settleEvent({
        ticket: "a",
        attempt: 1,
        claim: start.dispatched[0]!.claim,
        outcome: "complete",
        result: "A",
        by: "job",
      }),
      "settle a",
    );
    expect(settled.receipt.state).toBe("complete");
  });
});
