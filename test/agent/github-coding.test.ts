/**
 * The built-in agent on coding tickets through the action: each orch-task job runs the
 * bundle's context step, its `command: agent` step (a fake GitHub Models with the job's
 * token) in the job's checkout, and its settle step, against the fake GitHub. The model's
 * edits land as one commit per ticket on the run's branch; an edit outside the scope is a
 * scope breach; an edit that climbs out of the checkout writes nothing.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner } from "../e2e/runner.js";
import { writeTickets } from "../e2e/tickets.js";
import { codingModels, contextOf, FakeModels } from "../fake-models/server.js";

const models = new FakeModels();
const runner = new Runner();

beforeAll(async () => {
  await models.start();
  models.addToken("ghs_test_token");
  codingModels(models);
  runner.env = { FRONTIER_TEST_MODELS_URL: models.baseUrl };
  runner.script = () => ({ agent: {} });
  const dir = writeTickets(
    [
      { id: "api", extra: "write_scope: [app/api/**]" },
      { id: "ui", deps: ["api"], extra: "write_scope: [app/ui/**]" },
      { id: "docs", deps: ["api", "ui"], extra: "write_scope: [docs/**]" },
      { id: "stray", extra: "write_scope: [app/stray/**]" },
      { id: "climb", extra: "write_scope: [app/climb/**]" },
    ],
    "run: e2e\nmodel: fake/coder\n",
  );
  // the tickets that write what they are told
  const { appendFileSync } = await import("node:fs");
  appendFileSync(join(dir, "stray.md"), "\nwrite: app/stray/ok.js\nwrite: README.md\n");
  appendFileSync(join(dir, "climb.md"), "\nwrite: app/climb/ok.js\nwrite: ../../escaped.txt\n");
  const sha = await runner.start(dir);
  const push = await runner.push(sha);
  expect(push.code, push.stdout + push.stderr).toBe(0);
  await runner.fake.idle();
}, 300_000);

afterAll(async () => {
  runner.fake.assertNoViolations();
  await runner.stop();
  await models.stop();
});

const commitsOf = (t: string) =>
  runner.repo.log("main").filter((c) => new RegExp(`^Frontier-Ticket: ${t}$`, "m").test(c.message));

describe("coding tickets run by command: agent, on GitHub", () => {
  it("api → ui → docs: the model's files land as one commit per ticket on the run's branch", () => {
    expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
    const state = runner.state();
    for (const t of ["api", "ui", "docs"]) {
      expect(state.tickets[t]?.status, `${t}: ${state.tickets[t]?.attempts[0]?.reason}`).toBe(
        "complete",
      );
      expect(commitsOf(t), t).toHaveLength(1);
    }
    expect(runner.repo.readFile("app/api/todos.js")).toContain("export function addTodo");
    expect(runner.repo.readFile("app/ui/list.js")).toContain("renderList");
    expect(runner.repo.readFile("docs/todos.md")).toContain("`renderList` (from app/ui/list.js)");
    // the docs ticket's request named what its dependencies changed
    const docs = models.requests.map(contextOf).find((c) => c.startsWith("# Ticket docs"));
    expect(docs).toMatch(/Changed: app\/api\/todos\.js/);
    expect(docs).toMatch(/Changed: app\/ui\/list\.js/);
  });

  it("an edit outside the scope fails as a scope breach naming the path; an edit out of the checkout writes nothing", () => {
    const state = runner.state();
    expect(String(state.tickets.stray?.attempts[0]?.reason)).toMatch(/^scope-breach: .*README\.md/);
    expect(runner.repo.readFile("README.md")).toBe("# widgets\n");
    const climb = state.tickets.climb?.attempts[0];
    expect(climb?.outcome).toBe("failed");
    expect(String(climb?.reason)).toContain(
      '"../../escaped.txt" (it climbs out of the workspace with ..)',
    );
    expect(climb?.changes).toBeUndefined();
    const job = runner.jobs.find((j) => j.ticket === "climb")!;
    expect(existsSync(join(dirname(dirname(job.workspace)), "escaped.txt"))).toBe(false);
    expect(existsSync(join(job.workspace, "app", "climb", "ok.js"))).toBe(false);
  });
});
