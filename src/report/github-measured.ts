/**
 * The per-ticket figures `frontier plan` quotes, as \`npm run bench\` last measured them on
 * the fake GitHub. Written by bench/github.mjs after a full run: edit the bench, not this.
 */
export const MEASURED_FIGURES = {
  source: "npm run bench (bench/github.mjs), which rewrites this file after a full run",
  measured_at: "2026-12-04T09:53:20Z",
  typical: {
    what: "100 tickets driven to completion one action step at a time (no race to lose)",
    tickets: 100,
    graphql: 2.04,
    rest: 1.17,
    writes: 2.1,
  },
  worst: {
    what: "1,000 tickets, every job settling the instant it starts, four steps at once",
    tickets: 1000,
    graphql: 3.56,
    rest: 1.07,
    writes: 2.77,
  },
};
