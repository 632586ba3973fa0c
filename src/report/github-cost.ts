/**
 * What a run costs on GitHub, before it is pushed: the jobs it starts and the API requests
 * and writes it makes, from the per-ticket figures `npm run bench` measures on the fake
 * GitHub (github-measured.ts, rewritten by bench/github.mjs after a full run: the one
 * place those figures live), against the budgets of a workflow's GITHUB_TOKEN.
 */
import { MEASURED_FIGURES } from "./github-measured.js";

/** GitHub's hourly budgets for a workflow's GITHUB_TOKEN, per repository. */
export const GITHUB_TOKEN_BUDGET = {
  /** REST requests an hour */
  rest: 1000,
  /** GraphQL points an hour (a query or mutation here costs 1) */
  graphql: 1000,
  /** content-creating requests an hour (REST writes and GraphQL mutations together) */
  writes: 500,
} as const;

export type Budget = keyof typeof GITHUB_TOKEN_BUDGET;

/** The figures as bench/github.mjs writes them: a typical and a worst case, per ticket. */
export type Measured = typeof MEASURED_FIGURES;

/**
 * The requests of `tickets` tickets at `per` each; `hours`: of each budget the run needs,
 * and `binding`: the budget that takes longest.
 */
function requestCost(tickets: number, per: Measured["typical"]) {
  const graphql = Math.ceil(tickets * per.graphql);
  const rest = Math.ceil(tickets * per.rest);
  const writes = Math.ceil(tickets * per.writes);
  const hours = {
    rest: rest / GITHUB_TOKEN_BUDGET.rest,
    graphql: graphql / GITHUB_TOKEN_BUDGET.graphql,
    writes: writes / GITHUB_TOKEN_BUDGET.writes,
  };
  const binding = (Object.keys(hours) as Budget[]).reduce((a, b) => (hours[b] > hours[a] ? b : a));
  return { requests: graphql + rest, graphql, rest, writes, hours, binding };
}

/**
 * The cost of running `retries` (each ticket's automatic retries) on GitHub: one orch-task
 * job per attempt, and the measured requests per ticket. A retry's requests are a ticket's
 * again, so the most is counted over every attempt.
 */
export function githubCost(retries: readonly number[], figures: Measured = MEASURED_FIGURES) {
  const tickets = retries.length;
  const most = retries.reduce((sum, r) => sum + 1 + r, 0);
  return {
    /** orch-task jobs: one per attempt — every ticket once, and at most this many with retries */
    jobs: { least: tickets, most },
    /** a run without lost races, and the worst density measured */
    typical: requestCost(tickets, figures.typical),
    worst: requestCost(most, figures.worst),
  };
}

export type GithubCost = ReturnType<typeof githubCost>;
