/**
 * Agents are untrusted code, end to end through the built action: what decides an
 * attempt's fate — the graph, the tasks, the settings and caps — comes from the run's
 * records at its base, never from the workspace the agent ran in (SPEC §4b, §5). Agents
 * here delete the tickets, raise the result cap, rewrite a dependent's task and edit a
 * workflow file; a person deletes a pending ticket mid-run. Each case failed on the code
 * before its fix: a settle step that crashed, a cap the agent raised, a task it rewrote, a
 * context step that found no ticket, an outcome lost with a commit GitHub refused.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner } from "./runner.js";
import { writeTickets } from "./tickets.js";

const write = (ws: string, path: string, content: string) => {
  mkdirSync(dirname(join(ws, path)), { recursive: true });
  writeFileSync(join(ws, path), content);
};

const CAP = 300;
const big = "x".repeat(CAP + 100);

describe("agents are untrusted: the run decides from its records at its base", () => {
  const runner = new Runner();
  // a bundle built elsewhere (FRONTIER_E2E_BUNDLE), to try a change before dist/ is rebuilt
  if (process.env.FRONTIER_E2E_BUNDLE) runner.bundle = process.env.FRONTIER_E2E_BUNDLE;
  const contexts: Record<string, { text: string; ticketFile: string }> = {};

  beforeAll(async () => {
    const dir = writeTickets(
      [
        // deletes the whole ticket directory, then its own ticket file
        { id: "vandal", extra: "write_scope: [src/**]" },
        { id: "selfish", extra: "write_scope: [src/**]" },
        // raises the result cap in frontier.yml (in its scope) and reports within it
        { id: "raiser", extra: "write_scope: [tickets/frontier.yml]" },
        { id: "after-raise", deps: ["raiser"] },
        // raises the cap and reports over the base's cap itself
        { id: "greedy", extra: "write_scope: [tickets/frontier.yml]" },
        // rewrites its dependent's task (in its scope)
        { id: "writer", extra: "write_scope: [tickets/victim.md]" },
        { id: "victim", deps: ["writer"] },
        // a pending ticket a person deletes on the branch while its dependency runs
        { id: "keep" },
        { id: "doomed", deps: ["keep"] },
        // a workflow file, through createCommitOnBranch and through the Git Data API
        { id: "wf", extra: 'write_scope: [".github/workflows/**"]' },
        { id: "wf-exec", extra: 'write_scope: [".github/workflows/**", "scripts/**"]' },
        { id: "after-wf", deps: ["wf"] },
      ],
      `run: untrusted\nmax_result_bytes: ${CAP}\n`,
    );
    const sha = await runner.start(dir);
    runner.script = async (t, _a, job) => {
      const ws = job.workspace;
      const exported = job.context?.exported ?? {};
      if (exported.FRONTIER_CONTEXT_FILE) {
        contexts[t] = {
          text: readFileSync(exported.FRONTIER_CONTEXT_FILE, "utf8"),
          ticketFile: existsSync(exported.FRONTIER_TICKET_FILE ?? "")
            ? readFileSync(exported.FRONTIER_TICKET_FILE as string, "utf8")
            : "(missing)",
        };
      }
      switch (t) {
        case "vandal":
          rmSync(join(ws, "tickets"), { recursive: true, force: true });
          break;
        case "selfish":
          rmSync(join(ws, "tickets/selfish.md"));
          break;
        case "raiser":
          write(ws, "tickets/frontier.yml", "run: untrusted\nmax_result_bytes: 100000\n");
          break;
        case "after-raise":
          return { status: "complete", result: big };
        case "greedy":
          write(ws, "tickets/frontier.yml", "run: untrusted\nmax_result_bytes: 100000\n");
          return { status: "complete", result: big };
        case "writer": {
          const file = join(ws, "tickets/victim.md");
          writeFileSync(file, readFileSync(file, "utf8").replace("Do victim.", "Do EVIL."));
          break;
        }
        case "keep": {
          // the author deletes the pending dependent and pushes, while keep runs
          const pushed = runner.repo.commit(
            "main",
            { "tickets/doomed.md": null },
            { message: "drop doomed" },
          );
          const push = await runner.push(pushed);
          expect(push.code, push.stdout + push.stderr).toBe(0);
          break;
        }
        case "wf":
          write(ws, ".github/workflows/ci.yml", "on: push\n");
          break;
        case "wf-exec":
          write(ws, ".github/workflows/ci.yml", "on: pull_request\n");
          write(ws, "scripts/run.sh", "#!/bin/sh\necho run\n");
          chmodSync(join(ws, "scripts/run.sh"), 0o755);
          break;
      }
      return { status: "complete", result: `${t} done` };
    };
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
  }, 600_000);

  afterAll(async () => {
    await runner.stop();
  });

  const attemptOf = (t: string) => runner.state().tickets[t]?.attempts[0] ?? {};

  it("every job's steps ran to the end: no settle or context step crashed", () => {
    expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
    runner.fake.assertNoViolations();
  });

  it("an agent that deletes the ticket directory, or its own ticket, has its breach recorded with evidence", () => {
    for (const t of ["vandal", "selfish"]) {
      expect(runner.state().tickets[t]?.status, t).toBe("failed");
      expect(String(attemptOf(t).reason), t).toMatch(/^scope-breach: .*tickets\/selfish\.md/);
      expect((attemptOf(t).changes as { verdict?: string } | undefined)?.verdict, t).toBe("breach");
    }
    expect(runner.repo.readFile("tickets/vandal.md")).toContain("Do vandal.");
    expect(runner.repo.readFile("tickets/selfish.md")).toContain("Do selfish.");
  });

  it("an agent that raises max_result_bytes has neither its own oversized result nor its dependent's accepted", () => {
    expect(runner.state().tickets.raiser?.status).toBe("complete");
    expect(runner.repo.readFile("tickets/frontier.yml")).toContain("100000");
    for (const t of ["greedy", "after-raise"]) {
      expect(runner.state().tickets[t]?.status, t).toBe("failed");
      expect(String(attemptOf(t).reason), t).toContain(`over max_result_bytes (${CAP})`);
    }
  });

  it("an agent that rewrites its dependent's ticket does not change the dependent's task", () => {
    expect(runner.state().tickets.writer?.status).toBe("complete");
    expect(runner.repo.readFile("tickets/victim.md")).toContain("Do EVIL.");
    expect(contexts.victim?.text).toContain("Do victim.");
    expect(contexts.victim?.text).not.toContain("EVIL");
    expect(contexts.victim?.ticketFile).toContain("Do victim.");
    expect(runner.state().tickets.victim?.status).toBe("complete");
  });

  it("a ticket deleted on the branch mid-run is still the run's: its job runs it as it was at the base", () => {
    expect(runner.repo.readFile("tickets/doomed.md")).toBeUndefined();
    expect(runner.state().tickets.doomed?.status).toBe("complete");
    expect(contexts.doomed?.text).toContain("Do doomed.");
    expect(contexts.doomed?.ticketFile).toContain("Do doomed.");
  });

  it("a workflow file GitHub refuses to the job's token fails its attempt by name, keeps the change, and records the outcome", () => {
    for (const t of ["wf", "wf-exec"]) {
      expect(runner.state().tickets[t]?.status, t).toBe("failed");
      const reason = String(attemptOf(t).reason);
      expect(reason, t).toContain(".github/workflows/ci.yml");
      expect(reason, t).toMatch(/workflows permission/);
      expect(reason, t).toMatch(/token input/);
      expect(runner.state().tickets[t]?.attempts, t).toHaveLength(1);
    }
    expect(runner.repo.readFile(".github/workflows/ci.yml")).toBeUndefined();
    expect(runner.repo.readFile("scripts/run.sh")).toBeUndefined();
    expect(runner.repo.readFile("tickets/.frontier/results/wf@1.patch")).toContain("+on: push");
    expect(runner.state().tickets["after-wf"]?.status).toBe("blocked");
  });
});

describe("what an agent does around the settle step never loses its work or holds the step", () => {
  it("a directory or a FIFO where the step writes its receipt and report: the step ends, says what it could not write, and the state is recorded", async () => {
    const runner = new Runner();
    if (process.env.FRONTIER_E2E_BUNDLE) runner.bundle = process.env.FRONTIER_E2E_BUNDLE;
    try {
      const sha = await runner.start(writeTickets([{ id: "dir" }, { id: "fifo" }]));
      runner.script = (t, _a, job) => {
        const out = dirname(job.context?.exported.FRONTIER_OUTCOME_FILE ?? "");
        if (t === "dir") mkdirSync(join(out, "receipt.json"), { recursive: true });
        else execFileSync("mkfifo", [join(out, "report.html")]);
        return { status: "complete", result: `${t} done` };
      };
      await runner.push(sha);
      await runner.fake.idle();
      const settleOf = (t: string) => runner.jobs.find((j) => j.ticket === t)?.settle;
      expect(runner.state().tickets.dir?.status).toBe("complete");
      expect(runner.state().tickets.fifo?.status).toBe("complete");
      expect(settleOf("dir")?.code).toBe(0);
      expect(settleOf("dir")?.stdout).toContain(
        "::warning::the receipt and HTML report were not written (EISDIR); the run's state is recorded",
      );
      expect(settleOf("fifo")?.code).toBe(0);
    } finally {
      await runner.stop();
    }
  }, 120_000);

  it("a job that settles after its lease ran out (it waited in GitHub's queue) has its changes named and its patch in the step's log", async () => {
    const runner = new Runner();
    if (process.env.FRONTIER_E2E_BUNDLE) runner.bundle = process.env.FRONTIER_E2E_BUNDLE;
    try {
      const sha = await runner.start(
        writeTickets([{ id: "slow", extra: "bound: 4s\nretries: 1\nwrite_scope: [src/**]" }]),
      );
      runner.script = (_t, attempt, job) => {
        write(job.workspace, `src/work-${attempt}.txt`, `hours of work ${attempt}\n`);
        return { status: "complete", result: `slow done ${attempt}` };
      };
      runner.beforeSettle = async (job) => {
        if (job.attempt !== 1) return;
        // the lease runs out before this job's settle step: the sweep reclaims the claim
        const slow = runner.state().tickets.slow as { claimed_at?: string } | undefined;
        const claimed = Date.parse(slow?.claimed_at ?? "");
        await new Promise((res) => setTimeout(res, Math.max(0, claimed + 4500 - Date.now())));
        expect((await runner.schedule()).code).toBe(0);
      };
      await runner.push(sha);
      await runner.fake.idle();
      expect(runner.state().tickets.slow?.attempts[0]).toMatchObject({ reason: "lease-expired" });
      const late = runner.jobs.find((j) => j.ticket === "slow" && j.attempt === 1)?.settle;
      expect(late?.code).toBe(0);
      expect(late?.stdout).toMatch(/::warning::settle slow#1 changed 1 path, none integrated: /);
      // the agent's patch, with workflow commands off around it
      expect(late?.stdout).toMatch(
        /::stop-commands::([0-9a-f-]{36})\n[\s\S]*\+hours of work 1\n[\s\S]*::\1::/,
      );
    } finally {
      await runner.stop();
    }
  }, 120_000);
});
