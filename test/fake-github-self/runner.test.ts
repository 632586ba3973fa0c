import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  actionEnvForRun,
  makeActionEnv,
  parseFileCommands,
  spawnAction,
} from "../fake-github/runner.js";
import { FakeGitHub, type FakeRepo, makePushPayload } from "../fake-github/server.js";

const ECHO = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "echo-action.mjs");

let fake: FakeGitHub;
let repo: FakeRepo;

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit("main", {
    ".github/workflows/orch-task.yml":
      "name: orch-task\non:\n  workflow_dispatch:\n    inputs:\n      ticket: { required: true }\n",
  });
});

afterEach(async () => {
  await fake.stop();
  fake.assertNoViolations();
});

describe("a runner's environment pointed at the fake", () => {
  it("a spawned action sees its inputs, the event and GITHUB_API_URL; outputs and summary are read back", async () => {
    const env = makeActionEnv({
      fake,
      repo,
      eventName: "push",
      payload: makePushPayload({ repo }),
      inputs: { token: "ghs_job", "max-parallel": "4" },
      runId: 77,
    });
    const result = await spawnAction(ECHO, env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.outputs).toEqual({
      head: repo.head(),
      multi: "line one\nline two",
      event: "push 77 ",
      "issue-author": "github-actions[bot]",
    });
    expect(env.readSummary()).toContain("<h1>done</h1>");
    expect(repo.issues.get(1)?.title).toBe("4");
    env.cleanup();
  });

  it("actionEnvForRun gives a dispatched run's job its inputs and run id", async () => {
    const run = fake.createRun(repo, {
      workflow: "orch-task.yml",
      event: "workflow_dispatch",
      inputs: { ticket: "a" },
    });
    const env = actionEnvForRun(fake, run, { inputs: { token: "t", "max-parallel": "1" } });
    const result = await spawnAction(ECHO, env);
    expect(result.outputs.event).toBe(`workflow_dispatch ${run.id} a`);
    env.cleanup();
  });

  it("a fake runner: onDispatch spawns each dispatched job with its run's environment", async () => {
    const outputs: string[] = [];
    fake.onDispatch(async (run) => {
      const env = actionEnvForRun(fake, run, {
        inputs: { token: "t", "max-parallel": run.inputs.ticket! },
      });
      const result = await spawnAction(path.relative(process.cwd(), ECHO), env);
      outputs.push(result.outputs.event!);
      if (result.code !== 0) fake.setRunStatus(run.id, "completed", "failure");
      env.cleanup();
    });
    const { Octokit } = await import("@octokit/rest");
    const octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "t" });
    for (const ticket of ["a", "b"]) {
      await octokit.actions.createWorkflowDispatch({
        owner: "acme",
        repo: "widgets",
        workflow_id: "orch-task.yml",
        ref: "main",
        inputs: { ticket },
      });
    }
    await fake.idle();
    const [a, b] = repo.runs;
    expect(outputs.sort()).toEqual([
      `workflow_dispatch ${a!.id} a`,
      `workflow_dispatch ${b!.id} b`,
    ]);
    expect(repo.runs.map((r) => r.conclusion)).toEqual(["success", "success"]);
    // each job opened an issue titled with its ticket, as the bot
    expect([...repo.issues.values()].map((i) => `${i.title} ${i.user}`).sort()).toEqual([
      "a github-actions[bot]",
      "b github-actions[bot]",
    ]);
  });

  it("refuses to build an environment around an invalid payload", () => {
    expect(() => makeActionEnv({ fake, repo, eventName: "push", payload: { ref: "x" } })).toThrow(
      /push\$event/,
    );
  });

  it("parses GITHUB_OUTPUT's k=v lines and heredoc blocks", () => {
    expect(parseFileCommands("a=1\nb<<EOF_X\nx\ny\nEOF_X\nc=\n")).toEqual({
      a: "1",
      b: "x\ny",
      c: "",
    });
  });
});
