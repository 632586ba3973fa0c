/**
 * After a local coding run, what a user reads names the run's branch, its commits and how
 * to merge it: `frontier status`, its `--json` receipt, and report.md / report.html under
 * DIR/.frontier/ (examples/coding-graph, in a real repository, in process).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { statusCommand } from "../../src/cli/status.js";
import type { Receipt } from "../../src/core/model.js";
import { commitsOf, exampleRepo, runHere } from "../local/git-repo.js";

async function status(dir: string, json: boolean): Promise<string> {
  const out = new PassThrough();
  let text = "";
  out.on("data", (c: Buffer) => {
    text += c.toString();
  });
  await statusCommand(
    dir,
    { json },
    { stdout: out, stderr: out, isTTY: false, env: {} },
    Date.now(),
  );
  return text;
}

describe("after a local coding run, the branch is named where the user looks", () => {
  it("status, the receipt, report.md and report.html name frontier/<run>, its commits and `git merge`", async () => {
    const repo = exampleRepo();
    const ran = await runHere(repo.dir);
    expect(ran.code).toBe(0);
    const commits = commitsOf(repo.root, `${repo.start}..frontier/coding-graph`);
    expect(commits).toHaveLength(3);
    const short = (sha: string) => sha.slice(0, 10);

    const text = await status(repo.dir, false);
    expect(text).toContain(
      `changes: 3 commits on frontier/coding-graph (from ${short(repo.start)})`,
    );
    expect(text).toContain(`  ${short(commits[0]!.sha)} api: app/api/todos.js`);
    expect(text).toContain(`  ${short(commits[2]!.sha)} docs: docs/todos.md`);
    expect(text).toContain("  merge: git merge frontier/coding-graph");

    const receipt = JSON.parse(await status(repo.dir, true)) as Receipt;
    expect(receipt.branch).toEqual({
      name: "frontier/coding-graph",
      base: repo.start,
      commits: commits.map((c) => ({ commit: c.sha, ticket: c.ticket, attempt: 1 })),
      merge: "git merge frontier/coding-graph",
    });
    const written = JSON.parse(readFileSync(join(repo.dir, ".frontier", "receipt.json"), "utf8"));
    expect(written.branch).toEqual(receipt.branch);

    const md = readFileSync(join(repo.dir, ".frontier", "report.md"), "utf8");
    expect(md).toContain(
      "3 commits on `frontier/coding-graph` · merge: `git merge frontier/coding-graph`",
    );
    expect(md).toContain(`- \`api\` attempt 1: 1 path +`);
    expect(md).toContain(`in \`${short(commits[0]!.sha)}\` — \`app/api/todos.js\``);
    // above the tickets table, outside any fold
    const changes = md.indexOf("#### Changes");
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThan(md.indexOf("Tickets ("));
    expect(md.slice(0, changes)).not.toContain("<details>");

    const html = readFileSync(join(repo.dir, ".frontier", "report.html"), "utf8");
    expect(html).toContain("<code>frontier/coding-graph</code>");
    expect(html).toContain("merge: <code>git merge frontier/coding-graph</code>");
    expect(html).toContain(`<code>${commits[0]!.sha.slice(0, 12)}</code>`);
  }, 60_000);

  it("a run whose tickets ran in place names no branch", async () => {
    const { repoWith, ticket } = await import("../local/git-repo.js");
    const repo = repoWith({
      "tickets/a.md": ticket({ id: "a", title: "A" }),
      "tickets/frontier.yml": "run: plain\nexecutor: echo done\n",
    });
    expect((await runHere(repo.dir)).code).toBe(0);
    expect(await status(repo.dir, false)).not.toContain("changes:");
    expect((JSON.parse(await status(repo.dir, true)) as Receipt).branch).toBeUndefined();
    expect(readFileSync(join(repo.dir, ".frontier", "report.md"), "utf8")).not.toContain(
      "#### Changes",
    );
  }, 60_000);
});
