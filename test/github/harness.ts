/**
 * Shared set-up for the src/github tests: a fake GitHub with one repository holding a
 * ticket directory and the example workflows, and a checkout of it on disk.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DispatchSession } from "../../src/github/dispatch.js";
import { createGitHub, type GitHub } from "../../src/github/octokit.js";
import type { RunContext } from "../../src/github/run-context.js";
import { Checkout } from "../../src/github/source.js";
import { FakeGitHub, type FakeRepo } from "../fake-github/server.js";
import { readRunState } from "../support/run-state.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const EXAMPLES = join(ROOT, "examples", "workflows");

export interface World {
  fake: FakeGitHub;
  repo: FakeRepo;
  /** the checkout (GITHUB_WORKSPACE) */
  workspace: string;
  /** the commit the checkout is at */
  sha: string;
  gh: GitHub;
  cleanup(): Promise<void>;
}

/** Ticket files as {name: text}; `frontier.yml` optional. */
export type TicketFiles = Record<string, string>;

export function ticket(id: string, deps: string[] = [], extra = ""): [string, string] {
  const dep = deps.length > 0 ? `depends_on: [${deps.join(", ")}]\n` : "";
  return [`${id}.md`, `---\n${dep}${extra}---\n\n# ${id}\n\nDo ${id}.\n`];
}

export async function makeWorld(
  tickets: TicketFiles | { dir: string },
  options: { branch?: string; returnRunDetails?: "supported" | "refused" } = {},
): Promise<World> {
  const fake = new FakeGitHub({ returnRunDetails: options.returnRunDetails ?? "supported" });
  await fake.start();
  const repo = fake.createRepo("acme/widgets");
  const files: Record<string, string> = {
    "README.md": "# widgets\n",
    ".github/workflows/orch-task.yml": readFileSync(join(EXAMPLES, "orch-task.yml"), "utf8"),
    ".github/workflows/frontier.yml": readFileSync(join(EXAMPLES, "frontier.yml"), "utf8"),
  };
  const workspace = mkdtempSync(join(tmpdir(), "frontier-ws-"));
  if ("dir" in tickets) {
    cpSync(tickets.dir, join(workspace, "tickets"), { recursive: true });
  } else {
    mkdirSync(join(workspace, "tickets"), { recursive: true });
    for (const [name, text] of Object.entries(tickets))
      writeFileSync(join(workspace, "tickets", name), text);
  }
  repo.commit("main", files, { message: "init" });
  const sha = repo.seed(join(workspace, "tickets"), { into: "tickets", message: "tickets" });
  if (options.branch && options.branch !== "main") repo.createBranch(options.branch, "main");
  const gh = createGitHub({ token: "test-token", baseUrl: fake.baseUrl, fast: true });
  return {
    fake,
    repo,
    workspace,
    sha,
    gh,
    async cleanup() {
      await fake.idle();
      await fake.stop();
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export function runContext(world: World, over: Partial<RunContext> = {}): RunContext {
  const session = new DispatchSession();
  session.findRunDelayMs = 5;
  return {
    gh: world.gh,
    repo: { owner: "acme", repo: "widgets" },
    branch: "main",
    dir: "tickets",
    checkout: new Checkout(world.workspace, "tickets"),
    workflow: "orch-task.yml",
    flags: {},
    sha: world.sha,
    claimedBy: "github:orch-task.yml@main",
    clock: Date.now,
    random: Math.random,
    sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    claimToken: () => `c${randomBytes(6).toString("hex")}`,
    links: { workflowRun: "https://github.com/acme/widgets/actions/runs/1" },
    log: () => {},
    session,
    backoffMs: 5,
    ...over,
  };
}

export function stateOf(world: World, branch = "main"): Record<string, unknown> {
  const state = readRunState(world.repo, "tickets", branch);
  if (state === undefined) throw new Error("no state.json on the branch");
  return state as unknown as Record<string, unknown>;
}
