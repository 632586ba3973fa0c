/**
 * GitHub measurements, through the end-to-end harness of test/e2e/ (the built bundle
 * dist/index.js spawned as each step, against the fake GitHub on 127.0.0.1):
 *  - a 100-ticket layered graph from a push to its end: API requests per ticket, by
 *    operation;
 *  - a chain of tickets: the time from the start of a settle step to the dispatch
 *    request it makes for the next ticket (one job at a time, so nothing queues).
 * Run by bench/run.mjs through vitest (the harness is TypeScript):
 *   BENCH_GITHUB_OUT=FILE BENCH_GITHUB_TICKETS=100 npx vitest run --config bench/vitest.github.config.ts
 * Writes one JSON object to BENCH_GITHUB_OUT. Asserts only that the runs complete.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { Runner } from "../test/e2e/runner.js";
import type { RequestRecord } from "../test/fake-github/server.js";

const TICKETS = Number(process.env.BENCH_GITHUB_TICKETS ?? 100);
const CHAIN = Number(process.env.BENCH_GITHUB_CHAIN ?? 6);
const out: Record<string, unknown> = {};
const scratch = mkdtempSync(join(tmpdir(), "bench-github-"));

afterAll(() => {
  if (process.env.BENCH_GITHUB_OUT)
    writeFileSync(process.env.BENCH_GITHUB_OUT, JSON.stringify(out));
  rmSync(scratch, { recursive: true, force: true });
});

/** A layered graph like the engine bench's: 1–3 dependencies each in the layer before. */
function writeTickets(dir: string, n: number, layers: number): void {
  mkdirSync(dir, { recursive: true });
  const width = Math.max(1, Math.ceil(n / layers));
  const id = (i: number) => `t${String(i).padStart(3, "0")}`;
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / width);
    const deps = new Set<string>();
    if (layer > 0) {
      const fanIn = 1 + (i % 3);
      for (let k = 0; k < fanIn; k++) {
        const p = Math.min(width - 1, Math.max(0, (i % width) + k - 1));
        deps.add(id((layer - 1) * width + p));
      }
    }
    const dependsOn = deps.size ? `depends_on: [${[...deps].join(", ")}]\n` : "";
    writeFileSync(
      join(dir, `${id(i)}.md`),
      `---\ntitle: Ticket ${i}\n${dependsOn}---\nDo part ${i}.\n`,
    );
  }
  writeFileSync(join(dir, "frontier.yml"), "run: bench-github\n");
}

/** Stamp every request the fake records with the time it arrived. */
function stampRequests(runner: Runner): Map<RequestRecord, number> {
  const at = new Map<RequestRecord, number>();
  const requests = runner.fake.requests;
  const push = requests.push.bind(requests);
  requests.push = (...items: RequestRecord[]) => {
    const now = performance.now();
    for (const item of items) at.set(item, now);
    return push(...items);
  };
  return at;
}

function dispatchedTicket(r: RequestRecord): string | undefined {
  if (r.operation !== "actions/create-workflow-dispatch") return undefined;
  const inputs = (r.body as { inputs?: Record<string, string> } | undefined)?.inputs;
  return inputs?.ticket;
}

it(`a ${TICKETS}-ticket graph from a push to its end: API requests per ticket`, async () => {
  const dir = join(scratch, "graph");
  writeTickets(dir, TICKETS, Math.max(2, Math.round(TICKETS / 10)));
  const runner = new Runner();
  // GITHUB_TOKEN's own budget (1000 requests an hour) would stop a run this size part
  // way (see the notes); the count is what this measures, so the fake allows more.
  runner.fake.addToken("ghs_test_token", {
    login: "github-actions[bot]",
    kind: "installation",
    rateLimit: 100_000,
  });
  const started = performance.now();
  try {
    const sha = await runner.start(dir);
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
    const state = runner.state();
    const statuses = Object.values(state.tickets).map((t) => t.status);
    const requests = runner.fake.requests;
    const byOperation: Record<string, number> = {};
    for (const r of requests) {
      const key = r.operation ?? `${r.method} ${r.path}`;
      byOperation[key] = (byOperation[key] ?? 0) + 1;
    }
    const settles = runner.jobs.filter((j) => j.settle).length;
    const statusCounts: Record<string, number> = {};
    for (const st of statuses) statusCounts[st] = (statusCounts[st] ?? 0) + 1;
    const failedSteps = runner.steps.filter((st) => st.code !== 0);
    out.graph = {
      tickets: TICKETS,
      complete: statuses.filter((s) => s === "complete").length,
      requests: requests.length,
      perTicket: requests.length / TICKETS,
      byOperation,
      steps: runner.steps.length,
      settles,
      dispatches: requests.filter((r) => dispatchedTicket(r) !== undefined).length,
      wallMs: performance.now() - started,
      stepMs: runner.steps.map((s) => s.ms),
      statusCounts,
      failedSteps: failedSteps.length,
      firstFailure: failedSteps[0]
        ? `${failedSteps[0].stdout}\n${failedSteps[0].stderr}`.trim().slice(-600)
        : undefined,
      notComplete: Object.entries(state.tickets)
        .filter(([, t]) => t.status !== "complete")
        .slice(0, 5)
        .map(([id, t]) => `${id}: ${t.status} (attempt ${t.attempt})`),
    };
    expect(statuses.filter((s) => s === "complete")).toHaveLength(TICKETS);
  } finally {
    await runner.stop();
  }
}, 600_000);

it(`a chain of ${CHAIN}: from the start of a settle step to the next dispatch request`, async () => {
  const dir = join(scratch, "chain");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < CHAIN; i++) {
    const dep = i > 0 ? `depends_on: [c${i - 1}]\n` : "";
    writeFileSync(join(dir, `c${i}.md`), `---\ntitle: Chain ${i}\n${dep}---\nStep ${i}.\n`);
  }
  writeFileSync(join(dir, "frontier.yml"), "run: bench-chain\n");
  const runner = new Runner();
  const at = stampRequests(runner);
  const settleStart = new Map<string, number>();
  runner.beforeSettle = async (job) => {
    settleStart.set(job.ticket, performance.now());
  };
  try {
    const sha = await runner.start(dir);
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
    const dispatchAt = new Map<string, number>();
    const requests = runner.fake.requests;
    for (const r of requests) {
      const t = dispatchedTicket(r);
      if (t !== undefined && !dispatchAt.has(t)) dispatchAt.set(t, at.get(r) ?? Number.NaN);
    }
    const latency: number[] = [];
    const firstRequestToDispatch: number[] = [];
    const requestsBefore: number[] = [];
    for (let i = 0; i + 1 < CHAIN; i++) {
      const s = settleStart.get(`c${i}`);
      const d = dispatchAt.get(`c${i + 1}`);
      if (s === undefined || d === undefined) continue;
      latency.push(d - s);
      // one job at a time: every request between the settle's start and the dispatch is its own
      const own = requests.filter((r) => {
        const t = at.get(r) ?? Number.NaN;
        return t >= s && t <= d;
      });
      requestsBefore.push(own.length);
      const first = own[0] ? (at.get(own[0]) ?? d) : d;
      firstRequestToDispatch.push(d - first);
    }
    out.chain = {
      tickets: CHAIN,
      latencyMs: latency,
      firstRequestToDispatchMs: firstRequestToDispatch,
      requestsBefore,
    };
    expect(latency.length).toBe(CHAIN - 1);
  } finally {
    await runner.stop();
  }
}, 600_000);
