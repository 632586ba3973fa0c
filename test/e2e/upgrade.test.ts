/**
 * An orch-task workflow written for an earlier version (docs/github.md, "Upgrading an
 * orch-task workflow"): it declares no `ref` input, so the action dispatches without it
 * and the job checks out `base`. The agent's changes are still collected against what the
 * job checked out — the ones it commits too, which count the same as the ones it leaves.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDENTITY } from "../local/git-repo.js";
import { EXAMPLES, Runner } from "./runner.js";
import { writeTickets } from "./tickets.js";

describe("an orch-task workflow without the ref input", () => {
  const runner = new Runner();

  beforeAll(async () => {
    const dir = writeTickets([
      { id: "committer", extra: "write_scope: [lib/**]" },
      { id: "leaver", extra: "write_scope: [app/**]" },
    ]);
    await runner.start(dir);
    const old = readFileSync(join(EXAMPLES, "orch-task.yml"), "utf8").replace(
      /^ {6}ref: .*\n/m,
      "",
    );
    expect(old).not.toMatch(/^ {6}ref:/m);
    const sha = runner.repo.commit("main", { ".github/workflows/orch-task.yml": old }, {});
    runner.script = (t, _a, job) => {
      const file = join(job.workspace, t === "committer" ? "lib/util.ts" : "app/main.ts");
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `export const ${t} = 1;\n`);
      if (t === "committer") {
        const env = { ...process.env, ...IDENTITY };
        execFileSync("git", ["add", "-A"], { cwd: job.workspace, env });
        execFileSync("git", ["commit", "-qm", "lib: util"], { cwd: job.workspace, env });
      }
      return { status: "complete", result: `${t} done` };
    };
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
  }, 300_000);

  afterAll(async () => {
    await runner.stop();
  });

  it("dispatches without ref, and each job's changes land, the ones its agent committed too", () => {
    expect(runner.jobs.map((j) => j.run.inputs.ref)).toEqual([undefined, undefined]);
    expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
    expect(runner.state().tickets.leaver?.status).toBe("complete");
    expect(runner.repo.readFile("app/main.ts")).toBe("export const leaver = 1;\n");
    expect(runner.state().tickets.committer?.status).toBe("complete");
    expect(runner.repo.readFile("lib/util.ts")).toBe("export const committer = 1;\n");
  });
});
