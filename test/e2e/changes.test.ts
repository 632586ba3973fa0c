/**
 * Tickets that change the repository, end to end: the built action in every step, each
 * orch-task job a git work tree of the commit that recorded its claim, agents editing
 * files there. One run holds the cases a reviewer meets: a chain whose dependents build
 * on their dependencies' changes (the last one with a binary file, an executable, a
 * symlink, a deletion and a rename), a scope breach, and a conflict with a person's push
 * made while the ticket runs.
 */

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXECUTOR_VARIABLES } from "../support/executor-contract.js";
import { Runner } from "./runner.js";
import { writeTickets } from "./tickets.js";

const write = (ws: string, path: string, content: string | Buffer) => {
  mkdirSync(dirname(join(ws, path)), { recursive: true });
  writeFileSync(join(ws, path), content);
};

const AGENT = {
  GIT_AUTHOR_NAME: "agent",
  GIT_AUTHOR_EMAIL: "agent@example.com",
  GIT_COMMITTER_NAME: "agent",
  GIT_COMMITTER_EMAIL: "agent@example.com",
};

describe("tickets that change the repository, on GitHub", () => {
  const runner = new Runner();
  const bin = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0xfe, 0xc3, 0x28, 10]);
  const seen: Record<string, boolean> = {};
  let pushed = "";

  beforeAll(async () => {
    const dir = writeTickets([
      { id: "api", extra: "write_scope: [src/api/**]\nbound: 90m" },
      { id: "ui", deps: ["api"], extra: "write_scope: [src/ui/**]" },
      { id: "docs", deps: ["ui"], extra: "write_scope: [docs/**]" },
      { id: "loose", extra: "write_scope: [src/loose/**]" },
      { id: "clash", extra: "write_scope: [config/**]" },
      { id: "committer", extra: "write_scope: [lib/**]" },
      { id: "reader", deps: ["committer"], extra: "write_scope: [app/**]" },
    ]);
    await runner.start(dir);
    const sha = runner.repo.commit(
      "main",
      { "docs/old.md": "moves\n", "docs/gone.md": "bye\n", "config/app.json": "{}\n" },
      { message: "docs and config" },
    );
    runner.script = (t, _a, job) => {
      const ws = job.workspace;
      switch (t) {
        case "api":
          write(ws, "src/api/server.ts", "export const port = 8080;\n");
          break;
        case "ui":
          seen.uiHasApi = existsSync(join(ws, "src/api/server.ts"));
          write(ws, "src/ui/app.ts", "import { port } from '../api/server';\n");
          break;
        case "docs":
          seen.docsHasUi = existsSync(join(ws, "src/ui/app.ts"));
          write(ws, "docs/logo.png", bin);
          write(ws, "docs/build.sh", "#!/bin/sh\necho build\n");
          chmodSync(join(ws, "docs/build.sh"), 0o755);
          symlinkSync("build.sh", join(ws, "docs/latest"));
          rmSync(join(ws, "docs/gone.md"));
          renameSync(join(ws, "docs/old.md"), join(ws, "docs/new.md"));
          break;
        case "loose":
          write(ws, "src/loose/ok.ts", "ok\n");
          write(ws, "README.md", "# rewritten by an agent\n");
          break;
        case "committer":
          // what coding agents do when told to finish cleanly
          write(ws, "lib/util.ts", "export const util = 1;\n");
          execFileSync("sh", ["-c", "git add -A && git commit -qm 'lib: util'"], {
            cwd: ws,
            env: { ...process.env, ...AGENT },
          });
          break;
        case "reader":
          seen.readerHasLib = existsSync(join(ws, "lib/util.ts"));
          write(ws, "app/main.ts", "import { util } from '../lib/util';\n");
          break;
        case "clash":
          write(ws, "config/app.json", '{"agent": true}\n');
          pushed = runner.repo.commit(
            "main",
            { "config/app.json": '{"person": true}\n' },
            { message: "a person's push" },
          );
          break;
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

  const commitsOf = (t: string) =>
    runner.repo
      .log("main")
      .filter((c) => new RegExp(`^Frontier-Ticket: ${t}$`, "m").test(c.message));

  it("each dependent's checkout holds its dependencies' changes; each ticket's changes are one commit", () => {
    expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
    expect(seen).toEqual({ uiHasApi: true, docsHasUi: true, readerHasLib: true });
    const state = runner.state();
    for (const t of ["api", "ui", "docs"]) {
      expect(state.tickets[t]?.status, t).toBe("complete");
      expect(commitsOf(t), t).toHaveLength(1);
    }
    expect(runner.repo.readFile("src/api/server.ts")).toBe("export const port = 8080;\n");
    expect(runner.repo.readFile("src/ui/app.ts")).toContain("port");
    // the dependent was dispatched at its dependency's commit
    const ui = runner.jobs.find((j) => j.ticket === "ui");
    expect(ui?.run.inputs.ref).toBe(commitsOf("api")[0]?.sha);
    expect(ui?.run.inputs.base).toBe(runner.jobs.find((j) => j.ticket === "api")?.run.inputs.base);
  });

  it("an agent that commits its change itself lands it on the run's branch, in the ticket's one commit", () => {
    const state = runner.state();
    expect(state.tickets.committer?.status).toBe("complete");
    expect(runner.repo.readFile("lib/util.ts")).toBe("export const util = 1;\n");
    expect(commitsOf("committer")).toHaveLength(1);
    expect(runner.repo.log("main").map((c) => c.message)).not.toContain("lib: util");
    expect(state.tickets.reader?.status).toBe("complete");
  });

  it("a binary file, an executable, a symlink, a deletion and a rename land as they were made", () => {
    const tree = runner.repo.git.expect(runner.repo.head("main") as string, "commit").tree;
    const at = (p: string) => runner.repo.git.lookup(tree, p);
    expect(runner.repo.readBytes("docs/logo.png")).toEqual(bin);
    expect(at("docs/build.sh")?.mode).toBe("100755");
    expect(at("docs/latest")?.mode).toBe("120000");
    expect(runner.repo.readFile("docs/latest")).toBe("build.sh");
    expect(at("docs/gone.md")).toBeUndefined();
    expect(at("docs/old.md")).toBeUndefined();
    expect(runner.repo.readFile("docs/new.md")).toBe("moves\n");
  });

  it("a path outside the write_scope fails the ticket as a scope breach; nothing of it lands", () => {
    const loose = runner.state().tickets.loose;
    expect(loose?.status).toBe("failed");
    expect(String(loose?.attempts[0]?.reason)).toMatch(/^scope-breach: .*README\.md/);
    expect(runner.repo.readFile("README.md")).toBe("# widgets\n");
    expect(runner.repo.readFile("src/loose/ok.ts")).toBeUndefined();
    expect(runner.repo.readFile("tickets/.frontier/results/loose@1.patch")).toContain(
      "+# rewritten by an agent",
    );
  });

  it("a file a person pushed while the ticket ran is a conflict naming path and commit; the push stays", () => {
    const clash = runner.state().tickets.clash;
    expect(clash?.status).toBe("failed");
    expect(String(clash?.attempts[0]?.reason)).toContain(
      `config/app.json (changed by ${pushed.slice(0, 12)})`,
    );
    expect(runner.repo.readFile("config/app.json")).toBe('{"person": true}\n');
  });

  it("the job gets the executor contract's variables, and a timeout from its bound", () => {
    const api = runner.jobs.find((j) => j.ticket === "api");
    expect(Object.keys(api?.context?.exported ?? {}).sort()).toEqual(
      [...EXECUTOR_VARIABLES].sort(),
    );
    expect(api?.context?.exported.FRONTIER_CLAIM).toBe(api?.claim);
    expect(api?.context?.exported.FRONTIER_BOUND).toBe("90m");
    expect(api?.run.inputs.timeout).toBe("90");
    expect(runner.jobs.find((j) => j.ticket === "ui")?.run.inputs.timeout).toBe("60");
    const text = readFileSync(api?.context?.exported.FRONTIER_CONTEXT_FILE as string, "utf8");
    expect(text).toContain("Do api.");
    runner.fake.assertNoViolations();
  });
});
