/**
 * What a run costs on GitHub, said before it is pushed (`frontier plan`): one orch-task
 * job per attempt, and the API requests and writes the benchmark measured per ticket,
 * against GITHUB_TOKEN's hourly budgets. The figures live in one file the bench writes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planCommand } from "../../src/cli/commands.js";
import { GITHUB_TOKEN_BUDGET, githubCost } from "../../src/report/github-cost.js";
import { MEASURED_FIGURES as MEASURED } from "../../src/report/github-measured.js";
import { ROOT, workspace } from "../cli/harness.js";
import { captured } from "../cli/inproc.js";

const figures = {
  ...MEASURED,
  typical: { ...MEASURED.typical, graphql: 2, rest: 1, writes: 2 },
  worst: { ...MEASURED.worst, graphql: 3, rest: 1, writes: 2.5 },
};

describe("the cost of a run on GitHub, from the measured per-ticket figures", () => {
  it("one orch-task job per attempt: each ticket once, and at most once more per automatic retry", () => {
    const cost = githubCost([0, 0, 2, 1], figures);
    expect(cost.jobs).toEqual({ least: 4, most: 7 });
  });

  it("requests and writes are the per-ticket figures times the tickets; the worst case counts every retry", () => {
    const cost = githubCost(new Array(1000).fill(0), figures);
    expect(cost.typical).toMatchObject({ graphql: 2000, rest: 1000, requests: 3000, writes: 2000 });
    expect(cost.worst).toMatchObject({ graphql: 3000, writes: 2500 });
    expect(githubCost([1, 1], figures).worst.writes).toBe(10);
  });

  it("the hours of GITHUB_TOKEN's budgets, and the one that binds: writes, 500 an hour", () => {
    expect(GITHUB_TOKEN_BUDGET).toEqual({ rest: 1000, graphql: 1000, writes: 500 });
    const cost = githubCost(new Array(1000).fill(0), figures);
    expect(cost.typical.hours).toEqual({ rest: 1, graphql: 2, writes: 4 });
    expect(cost.typical.binding).toBe("writes");
    expect(cost.worst.hours.writes).toBe(5);
  });

  it("the figures come from one file that says where they come from, and the bench is what writes it", () => {
    expect(MEASURED.source).toMatch(/npm run bench/);
    for (const run of [MEASURED.typical, MEASURED.worst]) {
      for (const k of ["graphql", "rest", "writes"] as const) expect(run[k]).toBeGreaterThan(0);
    }
    const bench = readFileSync(join(ROOT, "bench", "github.mjs"), "utf8");
    expect(bench).toMatch(/"src", "report", "github-measured\.ts"/);
  });
});

describe("frontier plan says what the run will cost on GitHub", () => {
  it("jobs, API requests and writes, the hours of the write budget, and where the figures come from", async () => {
    const { dir } = workspace({
      "a.md": "---\n---\n# A\n",
      "b.md": "---\ndepends_on: [a]\nretries: 2\n---\n# B\n",
    });
    const c = captured();
    expect(await planCommand(dir, { json: false, mermaid: false }, c.io, 0)).toBe(0);
    const out = c.stdout();
    const cost = githubCost([0, 2]);
    expect(out).toContain("on GitHub:");
    expect(out).toContain("2 orch-task jobs (one per attempt, up to 4 with retries)");
    expect(out).toContain(
      `about ${cost.typical.requests} (GraphQL ${cost.typical.graphql}, REST ${cost.typical.rest}), ${cost.typical.writes} writes`,
    );
    expect(out).toMatch(
      /needs 0\.\d\d hours of GITHUB_TOKEN's write budget \(500 writes an hour\)/,
    );
    expect(out).toContain(`measured by \`npm run bench\` on ${MEASURED.measured_at.slice(0, 10)}`);
  });

  it("a run longer than an hour of the write budget says it takes at least that long", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`t${i}.md`] = "---\n---\n# T\n";
    const { dir } = workspace(files);
    const c = captured();
    await planCommand(dir, { json: false, mermaid: false }, c.io, 0);
    expect(c.stdout()).toMatch(
      /needs 1\.\d hours of GITHUB_TOKEN's write budget .*: the run takes at least that long there/,
    );
  });
});
