/**
 * A run is pinned to its base: a comment steering a run that lives on a pull request's
 * branch is handled by a workflow that checked out the DEFAULT branch, whose tickets
 * may differ. The run must keep its own tickets (as they were at base), and the
 * ticket files on its branch must keep their own text: only the engine's fields change.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Outcome } from "../../src/core/model.js";
import { advance } from "../../src/github/advance.js";
import { handleComment } from "../../src/github/commands.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import type { ActionSettings } from "../../src/github/inputs.js";
import { createGitHub, type GitHub } from "../../src/github/octokit.js";
import { type ActionContext, createActionContext } from "../../src/github/run-context.js";
import type { GitHubState } from "../../src/github/state.js";
import { ENGINE_FIELDS } from "../../src/tickets/field-table.js";
import type { EngineFields } from "../../src/tickets/fields.js";
import { editFrontMatter } from "../../src/tickets/writeback.js";
import {
  FakeGitHub,
  type FakeRepo,
  makeIssueCommentPayload,
  type RequestRecord,
} from "../fake-github/server.js";
import { readRunState } from "../support/run-state.js";

const DIR = "tickets";
const FEATURE = "feature";

const MAIN_TICKETS: Record<string, string> = {
  "frontier.yml": "run: demo\n",
  "build.md": '---\ntitle: "Build (as on main)"\n---\n\nMain says: build it the old way.\n',
  // on main, ship also waits for extra
  "ship.md": "---\ntitle: Ship\ndepends_on: [build, extra]\n---\n\nShip it.\n",
  "extra.md": "---\ntitle: Only on main\n---\n\nThis ticket is not part of the PR's run.\n",
};
// the pull request's branch: build's title and body differ, extra does not exist
const FEATURE_TICKETS: Record<string, string> = {
  "frontier.yml": "run: demo\n",
  "build.md":
    "---\ntitle: \"Build (the PR's)\"\n# an author's comment stays\n---\n\nThe PR says: build it the new way.\n",
  "ship.md": "---\ntitle: Ship\ndepends_on: [build]\n---\n\nShip it.\n",
};

const NO_ENGINE_FIELDS = Object.fromEntries(
  ENGINE_FIELDS.map((k) => [k, undefined]),
) as EngineFields;

interface World {
  fake: FakeGitHub;
  repo: FakeRepo;
  gh: GitHub;
  /** checkouts: of the PR's branch at base, and of the default branch */
  featureWs: string;
  mainWs: string;
  base: string;
  log: string[];
  ran: string[];
  script: Record<string, Outcome[]>;
  /** while set, dispatched jobs wait for release() before they settle */
  hold: boolean;
  release(): void;
  context(ws: string, sha: string, ref: string, event: string, payload?: object): ActionContext;
  state(): GitHubState;
}

let world: World | undefined;
afterEach(async () => {
  if (!world) return;
  world.release();
  await world.fake.idle();
  await world.fake.stop();
  world.fake.assertNoViolations();
  rmSync(world.featureWs, { recursive: true, force: true });
  rmSync(world.mainWs, { recursive: true, force: true });
  world = undefined;
});

function checkout(files: Record<string, string>): string {
  const ws = mkdtempSync(join(tmpdir(), "frontier-run-base-"));
  mkdirSync(join(ws, DIR), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ws, DIR, name), text);
  return ws;
}

function prefixed(files: Record<string, string | null>): Record<string, string | null> {
  return Object.fromEntries(Object.entries(files).map(([n, t]) => [`${DIR}/${n}`, t]));
}

async function makeWorld(options: { clutter?: number } = {}): Promise<World> {
  const fake = new FakeGitHub();
  await fake.start();
  const repo = fake.createRepo("acme/app");
  repo.setPermission("maint", "maintain");
  repo.addWorkflow("orch-task.yml", {
    runName: (inputs) => `frontier ${inputs.ticket}#${inputs.attempt} ${inputs.claim}`,
  });
  const clutter: Record<string, string> = {};
  for (let i = 0; i < (options.clutter ?? 0); i++) clutter[`_note-${i}.txt`] = `${i}\n`;
  repo.commit("main", prefixed({ ...FEATURE_TICKETS, ...clutter }), { message: "tickets" });
  repo.createBranch(FEATURE, "main");
  // main moves on after the branch was cut: another title and body, one more ticket
  repo.commit("main", prefixed(MAIN_TICKETS), { message: "tickets on main" });
  const base = repo.head(FEATURE)!;
  const log: string[] = [];
  const waiting: Array<() => void> = [];
  const gh = createGitHub({ token: "ghs_test", baseUrl: fake.baseUrl, fast: true });
  const w: World = {
    fake,
    repo,
    gh,
    featureWs: checkout(FEATURE_TICKETS),
    mainWs: checkout(MAIN_TICKETS),
    base,
    log,
    ran: [],
    script: {},
    hold: false,
    release() {
      w.hold = false;
      for (const r of waiting.splice(0)) r();
    },
    context(ws, sha, ref, event, payload = {}) {
      const settings: ActionSettings = {
        command: "auto",
        tickets: DIR,
        workflow: "orch-task.yml",
        token: "ghs_test",
        settle: {},
        env: {
          apiUrl: fake.baseUrl,
          serverUrl: "https://github.com",
          owner: "acme",
          repo: "app",
          eventName: event,
          sha,
          ref,
          workspace: ws,
          runnerTemp: join(ws, ".runner-temp"),
          runId: 777,
          fastApi: true,
        },
      };
      return createActionContext(
        settings,
        payload as Record<string, unknown>,
        (l) => log.push(l),
        Date.now,
        gh,
      );
    },
    state() {
      const state = readRunState(repo, DIR, FEATURE);
      if (!state) throw new Error("no state.json on the branch");
      return state;
    },
  };
  // the orch-task job: checks out base (run.inputs.base) and settles in its last step
  fake.onDispatch(async (run) => {
    const ticket = run.inputs.ticket!;
    const attempt = Number(run.inputs.attempt);
    w.ran.push(`${ticket}#${attempt}`);
    if (w.hold) await new Promise<void>((r) => waiting.push(r));
    const list = w.script[ticket] ?? ["complete"];
    const outcome = list[Math.min(attempt, list.length) - 1]!;
    const ctx = w.context(
      w.featureWs,
      run.inputs.base!,
      `refs/heads/${FEATURE}`,
      "workflow_dispatch",
    );
    await advance(
      ctx.runContext(FEATURE),
      settleEvent({
        ticket,
        attempt,
        claim: run.inputs.claim!,
        outcome,
        ...(outcome === "failed" ? { reason: "flaky" } : { result: `${ticket} done` }),
        by: "orch-task",
      }),
      `settle ${ticket}#${attempt} ${outcome}`,
      { start: false },
    );
  });
  return w;
}

const ops = (rs: readonly RequestRecord[]) => rs.map((r) => r.operation);

describe("a comment steers the run of a pull request's branch with the run's own tickets", () => {
  it("/retry from the default branch's checkout: no ticket of main joins the run, and the PR's ticket text stays the PR's", async () => {
    world = await makeWorld();
    const w = world;
    const pr = w.repo.openPull({ head: FEATURE });
    w.script.build = ["failed", "complete"];
    await advance(
      w.context(w.featureWs, w.base, `refs/heads/${FEATURE}`, "push").runContext(FEATURE),
      advanceOnly,
      "advance (push)",
    );
    await w.fake.idle();
    expect(w.state().tickets.build?.status).toBe("failed");
    const digest = w.state().authored_digest;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(w.state().report?.issue_number).toBe(pr.number);

    // the maintainer's comment on the PR: the workflow checked out main
    const c = w.repo.addComment(pr.number, "/retry build", "maint");
    const payload = makeIssueCommentPayload({ repo: w.repo, issue: pr, comment: c });
    w.fake.clearRequests();
    w.hold = true; // the jobs it dispatches wait: the comment's own commit is looked at
    const result = await handleComment(
      w.context(w.mainWs, w.repo.head("main")!, "refs/heads/main", "issue_comment", payload),
    );
    expect(result).toMatchObject({ kind: "handled", ok: true, branch: FEATURE });
    const afterComment = w.state();
    // (a) the default branch's extra ticket is not in the run, though main's ship needs it
    expect(Object.keys(afterComment.tickets).sort()).toEqual(["build", "ship"]);
    expect(afterComment.tickets.build?.status).toBe("claimed");
    expect(afterComment.tickets.ship?.status).toBe("pending");
    // (b) the comment's commit wrote the base's ticket text, byte for byte, but for the
    // engine's fields
    for (const name of ["build.md", "ship.md"]) {
      const now = w.repo.readFile(`${DIR}/${name}`, FEATURE)!;
      expect(now).toMatch(/^status: (claimed|pending)$/m);
      expect(editFrontMatter(now, NO_ENGINE_FIELDS)).toBe(
        w.repo.readFile(`${DIR}/${name}`, w.base),
      );
    }
    expect(w.repo.readFile(`${DIR}/build.md`, FEATURE)).not.toContain("Main says");
    expect(w.repo.readFile(`${DIR}/extra.md`, FEATURE)).toBeUndefined();
    // the run's tickets came from its base.json, read in the query that read the state:
    // no ticket file read through the API, however many there are
    expect(w.fake.countRequests({ operation: "repos/get-content" })).toBe(0);
    expect(w.fake.countRequests({ operation: "graphql/query" })).toBeLessThanOrEqual(3);

    w.release();
    await w.fake.idle();
    const state = w.state();
    expect(w.ran).toEqual(["build#1", "build#2", "ship#1"]);
    expect(Object.keys(state.tickets).sort()).toEqual(["build", "ship"]);
    expect(state.tickets.build?.status).toBe("complete");
    expect(state.tickets.ship?.status).toBe("complete");
    // the digest recorded when the run started stays, whichever checkout the events had
    expect(state.authored_digest).toBe(digest);
    for (const name of ["build.md", "ship.md"]) {
      const now = w.repo.readFile(`${DIR}/${name}`, FEATURE)!;
      expect(now).toMatch(/^status: complete$/m);
      expect(editFrontMatter(now, NO_ENGINE_FIELDS)).toBe(
        w.repo.readFile(`${DIR}/${name}`, w.base),
      );
    }
  });

  it("/status from the default branch's checkout summarises the run's own tickets", async () => {
    world = await makeWorld();
    const w = world;
    const pr = w.repo.openPull({ head: FEATURE });
    await advance(
      w.context(w.featureWs, w.base, `refs/heads/${FEATURE}`, "push").runContext(FEATURE),
      advanceOnly,
      "advance (push)",
    );
    await w.fake.idle();
    const head = w.repo.head(FEATURE);
    const c = w.repo.addComment(pr.number, "/status", "maint");
    const payload = makeIssueCommentPayload({ repo: w.repo, issue: pr, comment: c });
    const result = await handleComment(
      w.context(w.mainWs, w.repo.head("main")!, "refs/heads/main", "issue_comment", payload),
    );
    expect(result).toMatchObject({ kind: "handled", ok: true, branch: FEATURE });
    const reply = w.repo.commentsOn(pr.number).at(-1)!.body ?? "";
    expect(reply).toContain("Build (the PR's)");
    expect(reply).not.toContain("Build (as on main)");
    expect(reply).not.toContain("extra");
    // read-only: nothing committed
    expect(w.repo.head(FEATURE)).toBe(head);
  });

  it("a ticket directory of more than 1,000 entries: the comment reads no listing and no file of it", async () => {
    world = await makeWorld({ clutter: 1000 });
    const w = world;
    const pr = w.repo.openPull({ head: FEATURE });
    w.script.build = ["failed", "complete"];
    await advance(
      w.context(w.featureWs, w.base, `refs/heads/${FEATURE}`, "push").runContext(FEATURE),
      advanceOnly,
      "advance (push)",
    );
    await w.fake.idle();
    const c = w.repo.addComment(pr.number, "/retry build", "maint");
    const payload = makeIssueCommentPayload({ repo: w.repo, issue: pr, comment: c });
    w.fake.clearRequests();
    const result = await handleComment(
      w.context(w.mainWs, w.repo.head("main")!, "refs/heads/main", "issue_comment", payload),
    );
    expect(result).toMatchObject({ kind: "handled", ok: true, branch: FEATURE });
    // the run's tickets are in base.json: no listing, no tree, no read per entry
    expect(w.fake.countRequests({ operation: "git/get-tree" })).toBe(0);
    expect(w.fake.countRequests({ operation: "repos/get-content" })).toBe(0);
    await w.fake.idle();
    expect(Object.keys(w.state().tickets).sort()).toEqual(["build", "ship"]);
    expect(w.state().tickets.ship?.status).toBe("complete");
  });

  it("a settle whose checkout is the run's base reads no ticket through the API", async () => {
    world = await makeWorld();
    const w = world;
    w.hold = true; // build#1's job waits: this test settles it, as its last step would
    await advance(
      w.context(w.featureWs, w.base, `refs/heads/${FEATURE}`, "push").runContext(FEATURE),
      advanceOnly,
      "advance (push)",
    );
    const claim = w.state().tickets.build?.claim;
    expect(claim).toBeDefined();
    // one settle event, its requests counted
    w.fake.clearRequests();
    const out = await advance(
      w
        .context(w.featureWs, w.base, `refs/heads/${FEATURE}`, "workflow_dispatch")
        .runContext(FEATURE),
      settleEvent({
        ticket: "build",
        attempt: 1,
        claim: claim!,
        outcome: "complete",
        result: "built",
        by: "orch-task",
      }),
      "settle build#1 complete",
      { start: false },
    );
    expect(out.dispatched.map((d) => d.ticket)).toEqual(["ship"]);
    // one query (head, state, worklog), one commit, ship's dispatch; the report's headline
    // did not change within 30 s: nothing read per ticket, nothing read at base
    expect(ops(w.fake.requests)).toEqual([
      "graphql/query",
      "graphql/mutation:createCommitOnBranch",
      "actions/create-workflow-dispatch",
    ]);
    expect(w.log.join("\n")).not.toMatch(/checkout's tickets are not the run's/);
    w.release();
  });

  it("a run recorded before the digest was: a checkout at base is used as before, another one reads base", async () => {
    world = await makeWorld();
    const w = world;
    await advance(
      w.context(w.featureWs, w.base, `refs/heads/${FEATURE}`, "push").runContext(FEATURE),
      advanceOnly,
      "advance (push)",
    );
    await w.fake.idle();
    // strip the digest, as an older version wrote state.json
    const state = w.state() as GitHubState & { authored_digest?: string };
    delete state.authored_digest;
    w.repo.commit(FEATURE, {
      [`${DIR}/.frontier/state.json`]: `${JSON.stringify(state, null, 1)}\n`,
    });
    // a push of main's tickets onto the run's branch, checked out at that commit
    const pushed = w.repo.commit(FEATURE, prefixed({ "extra.md": MAIN_TICKETS["extra.md"]! }));
    const ws = checkout({ ...FEATURE_TICKETS, "extra.md": MAIN_TICKETS["extra.md"]! });
    try {
      w.fake.clearRequests();
      const out = await advance(
        w.context(ws, pushed, `refs/heads/${FEATURE}`, "push").runContext(FEATURE),
        advanceOnly,
        "advance (push)",
      );
      expect(Object.keys(out.state.tickets).sort()).toEqual(["build", "ship"]);
      // the checkout is not the run's: the run's tickets come from its base.json
      expect(w.fake.countRequests({ operation: "graphql/query" })).toBeGreaterThanOrEqual(2);
      expect(w.log.join("\n")).toMatch(/extra was added after the run started/);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
