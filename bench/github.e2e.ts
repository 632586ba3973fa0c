/**
 * GitHub measurements, through the end-to-end harness of test/e2e/ (the built bundle
 * dist/index.js spawned as each step, against the fake GitHub on 127.0.0.1):
 *  - a layered graph of BENCH_GITHUB_TICKETS (1,000) tickets and one of 100, each from
 *    a push to its end: API requests per ticket (total, REST, GraphQL, writes), requests
 *    and bytes sent per event, the settle step's CPU time;
 *  - a chain of tickets, one job at a time, with GitHub's 1 s spacing of content-creating
 *    requests in force (the throttling plugin as on a runner): from the start of a settle
 *    step to the dispatch request it makes for the next ticket.
 * Every step gets a token of its own, so each request is counted to the event that made
 * it. Run by bench/run.mjs through vitest (the harness is TypeScript):
 *   BENCH_GITHUB_OUT=FILE BENCH_GITHUB_TICKETS=1000 npx vitest run --config bench/vitest.github.config.ts
 * Writes one JSON object to BENCH_GITHUB_OUT. Asserts only that the runs complete.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { Runner, type StepResult } from "../test/e2e/runner.js";
import type { RequestRecord } from "../test/fake-github/server.js";

const TICKETS = Number(process.env.BENCH_GITHUB_TICKETS ?? 1000);
const SMALL = Math.min(100, TICKETS);
const CHAIN = Number(process.env.BENCH_GITHUB_CHAIN ?? 6);
const out: Record<string, unknown> = {};
const scratch = mkdtempSync(join(tmpdir(), "bench-github-"));
const cpuDir = join(scratch, "cpu");
mkdirSync(cpuDir, { recursive: true });
/** Loaded into every step's Node process: its CPU time, written when it exits. */
const probe = join(scratch, "cpu-probe.mjs");
writeFileSync(
  probe,
  `import { writeFileSync } from "node:fs";
process.on("exit", () => {
  const u = process.cpuUsage();
  writeFileSync(${JSON.stringify(cpuDir)} + "/" + process.env.BENCH_STEP + ".json", JSON.stringify({ cpuMs: (u.user + u.system) / 1000 }));
});
`,
);

afterAll(() => {
  if (process.env.BENCH_GITHUB_OUT)
    writeFileSync(process.env.BENCH_GITHUB_OUT, JSON.stringify(out));
  rmSync(scratch, { recursive: true, force: true });
});

/** A layered graph: 1–3 dependencies each in the layer before; `changes`: each ticket may write its own file. */
function writeTickets(dir: string, n: number, layers: number, changes = false): void {
  mkdirSync(dir, { recursive: true });
  const width = Math.max(1, Math.ceil(n / layers));
  const id = (i: number) => `t${String(i).padStart(4, "0")}`;
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
    const scope = changes ? `write_scope: [src/${id(i)}.txt]\n` : "";
    writeFileSync(
      join(dir, `${id(i)}.md`),
      `---\ntitle: Ticket ${i}\n${dependsOn}${scope}---\nDo part ${i} of the work, then report what changed.\n`,
    );
  }
  writeFileSync(join(dir, "frontier.yml"), "run: bench-github\n");
}

const isGraphQL = (r: RequestRecord) => (r.operation ?? "").startsWith("graphql/");
const isWrite = (r: RequestRecord) =>
  (r.operation ?? "").startsWith("graphql/mutation") || (!isGraphQL(r) && r.method !== "GET");
const bytesOf = (r: RequestRecord) => (r as RequestRecord & { bytes?: number }).bytes ?? 0;
/** what the action received: the response body */
const receivedOf = (r: RequestRecord) => (r as RequestRecord & { bytesOut?: number }).bytesOut ?? 0;
/** Another build's bundle (BENCH_GITHUB_BEFORE), measured beside ours in the same run. */
const BEFORE = process.env.BENCH_GITHUB_BEFORE;
const tokenOf = (r: RequestRecord) => (r as RequestRecord & { token?: string }).token ?? "";

/** Every try of every step: how long its read, its decision and its commit took. */
let windows: Array<{ read: number; decide: number; commit: number }> = [];

/** Every step a token of its own (and a name for its CPU probe). */
function tagSteps(runner: Runner): Map<string, { kind: string; tries?: number }> {
  const steps = new Map<string, { kind: string; tries?: number }>();
  let n = 0;
  const step = runner.step.bind(runner);
  runner.step = (options) => {
    const name = `s${++n}`;
    const kind = options.inputs?.command ?? options.event;
    const tag: { kind: string; tries?: number } = { kind };
    steps.set(`ghs_${name}`, tag);
    return step({
      ...options,
      inputs: { ...(options.inputs ?? {}), token: `ghs_${name}` },
      env: { ...(options.env ?? {}), BENCH_STEP: name, NODE_OPTIONS: `--import=${probe}` },
    }).then((result) => {
      // "recorded after N tries": the event lost N-1 races, each one read and one commit more
      tag.tries = Number(/recorded after (\d+) tries/.exec(result.stdout)?.[1] ?? 1);
      // where each try's read → commit window went (the action's debug lines)
      for (const m of result.stdout.matchAll(
        /try \d+: read (\d+) ms, decided (\d+) ms, commit (\d+) ms/g,
      )) {
        windows.push({ read: +m[1]!, decide: +m[2]!, commit: +m[3]! });
      }
      return result;
    });
  };
  return steps;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};

async function graphRun(
  tickets: number,
  key: string,
  gate = 4,
  bundle?: string,
  changes = false,
): Promise<void> {
  const dir = join(scratch, key);
  writeTickets(dir, tickets, Math.max(2, Math.round(tickets / 10)), changes);
  const runner = new Runner();
  if (bundle) runner.bundle = bundle;
  runner.withContext = false; // the context step reads a git checkout: no API request
  runner.lightCheckouts = true; // of the records, a job reads only base.json from its checkout
  runner.gate.limit = gate;
  if (changes) {
    // every agent writes one 2 KB file in its scope: the ticket's commit carries it
    const line = `${"x".repeat(63)}\n`;
    runner.script = (t, a, job) => {
      mkdirSync(join(job.workspace, "src"), { recursive: true });
      writeFileSync(
        join(job.workspace, "src", `${t}.txt`),
        `${t}\n${line.repeat(32)}`.slice(0, 2048),
      );
      return { status: "complete", result: `result of ${t} attempt ${a}` };
    };
  }
  const steps = tagSteps(runner);
  windows = [];
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
      const k = r.operation ?? `${r.method} ${r.path}`;
      byOperation[k] = (byOperation[k] ?? 0) + 1;
    }
    // per event (one action step): its requests, writes, bytes sent, CPU
    const perStep = new Map<string, RequestRecord[]>();
    for (const r of requests) perStep.set(tokenOf(r), [...(perStep.get(tokenOf(r)) ?? []), r]);
    const cpu = new Map<string, number>();
    for (const f of readdirSync(cpuDir)) {
      cpu.set(
        `ghs_${f.replace(/\.json$/, "")}`,
        JSON.parse(readFileSync(join(cpuDir, f), "utf8")).cpuMs,
      );
      rmSync(join(cpuDir, f));
    }
    const events = [...steps.keys()].map((token, i) => {
      const made = perStep.get(token) ?? [];
      const dispatches = made.filter(
        (r) => r.operation === "actions/create-workflow-dispatch",
      ).length;
      const lost = (steps.get(token)?.tries ?? 1) - 1;
      return {
        i,
        kind: steps.get(token)?.kind ?? "",
        requests: made.length,
        withoutDispatches: made.length - dispatches,
        firstTry: made.length - dispatches - 2 * lost,
        bytes: made.reduce((n, r) => n + bytesOf(r), 0),
        received: made.reduce((n, r) => n + receivedOf(r), 0),
        cpuMs: cpu.get(token),
      };
    });
    const settles = events.filter((e) => e.kind === "settle");
    const rest = requests.filter((r) => !isGraphQL(r)).length;
    const graphql = requests.filter(isGraphQL).length;
    const failedSteps = runner.steps.filter((st: StepResult) => st.code !== 0);
    out[key] = {
      tickets,
      complete: statuses.filter((s) => s === "complete").length,
      requests: requests.length,
      rest,
      graphql,
      writes: requests.filter(isWrite).length,
      byOperation,
      lostRaces:
        (byOperation["graphql/mutation:createCommitOnBranch"] ?? 0) -
        runner.repo
          .log("main")
          .filter((c) => c.message.startsWith("frontier ") || /^Frontier-Ticket: /m.test(c.message))
          .length,
      events: events.length,
      requestsPerSettle: settles.map((e) => e.withoutDispatches),
      firstTryPerSettle: settles.map((e) => e.firstTry),
      bytesPerEvent: events.map((e) => e.bytes),
      receivedPerEvent: events.map((e) => e.received),
      window: {
        tries: windows.length,
        read: pct(
          windows.map((w) => w.read),
          0.5,
        ),
        decide: pct(
          windows.map((w) => w.decide),
          0.5,
        ),
        commit: pct(
          windows.map((w) => w.commit),
          0.5,
        ),
      },
      settleCpuMs: settles.map((e) => e.cpuMs).filter((x): x is number => x !== undefined),
      wallMs: performance.now() - started,
      failedSteps: failedSteps.length,
      firstFailure: failedSteps[0]
        ? `${failedSteps[0].stdout}\n${failedSteps[0].stderr}`.trim().slice(-600)
        : undefined,
    };
    if (changes) {
      const missing = Array.from(
        { length: tickets },
        (_, i) => `src/t${String(i).padStart(4, "0")}.txt`,
      ).filter((p) => runner.repo.readFile(p, "main") === undefined);
      (out[key] as Record<string, unknown>).missingChanges = missing.length;
      (out[key] as Record<string, unknown>).bytesSent = requests.reduce(
        (n, r) => n + bytesOf(r),
        0,
      );
    }
    // written now too: removing a large run's job checkouts takes minutes
    if (process.env.BENCH_GITHUB_OUT)
      writeFileSync(process.env.BENCH_GITHUB_OUT, JSON.stringify(out));
    expect(statuses.filter((s) => s === "complete")).toHaveLength(tickets);
  } finally {
    await runner.stop();
  }
}

it(`a ${TICKETS}-ticket graph from a push to its end`, async () => {
  await graphRun(TICKETS, "graph");
  // at a smoke run's size the two graphs are one: measured once, reported as both
  if (SMALL === TICKETS) out.small = out.graph;
}, 3_600_000);

it.runIf(SMALL < TICKETS)(
  `a ${SMALL}-ticket graph from a push to its end`,
  async () => {
    await graphRun(SMALL, "small");
  },
  3_600_000,
);

it.runIf(BEFORE)(
  `the build before: a ${TICKETS}-ticket graph from a push to its end`,
  async () => {
    await graphRun(TICKETS, "graphBefore", 4, BEFORE);
  },
  3_600_000,
);

it.runIf(BEFORE)(
  `the build before: a ${SMALL}-ticket graph from a push to its end`,
  async () => {
    await graphRun(SMALL, "smallBefore", 4, BEFORE);
  },
  3_600_000,
);

const CHANGES = (process.env.BENCH_GITHUB_CHANGES ?? `${SMALL},${TICKETS}`)
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
for (const n of [...new Set(CHANGES)]) {
  it(`a ${n}-ticket graph whose every ticket changes one 2 KB file`, async () => {
    await graphRun(n, `changes${n}`, 4, undefined, true);
  }, 3_600_000);
  it.runIf(BEFORE)(
    `the build before: a ${n}-ticket graph whose every ticket changes`,
    async () => {
      await graphRun(n, `changes${n}Before`, 4, BEFORE, true);
    },
    3_600_000,
  );
}

it(`a ${SMALL}-ticket graph, one action step at a time (no settle ever races another)`, async () => {
  await graphRun(SMALL, "serial", 1);
}, 3_600_000);

it(`a chain of ${CHAIN} with GitHub's 1 s spacing of writes: settle → next dispatch`, async () => {
  const dir = join(scratch, "chain");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < CHAIN; i++) {
    const dep = i > 0 ? `depends_on: [c${i - 1}]\n` : "";
    writeFileSync(join(dir, `c${i}.md`), `---\ntitle: Chain ${i}\n${dep}---\nStep ${i}.\n`);
  }
  writeFileSync(join(dir, "frontier.yml"), "run: bench-chain\n");
  const runner = new Runner();
  runner.withContext = false;
  // the throttling plugin as on a runner: at least 1 s between content-creating requests
  runner.env = { FRONTIER_TEST_FAST_API: "0" };
  const at = new Map<RequestRecord, number>();
  const requests = runner.fake.requests;
  const push = requests.push.bind(requests);
  requests.push = (...items: RequestRecord[]) => {
    const now = performance.now();
    for (const item of items) at.set(item, now);
    return push(...items);
  };
  const settleStart = new Map<string, number>();
  runner.beforeSettle = async (job) => {
    settleStart.set(job.ticket, performance.now());
  };
  try {
    const sha = await runner.start(dir);
    const pushStep = await runner.push(sha);
    expect(pushStep.code, pushStep.stdout + pushStep.stderr).toBe(0);
    await runner.fake.idle();
    const dispatchAt = new Map<string, number>();
    for (const r of requests) {
      if (r.operation !== "actions/create-workflow-dispatch") continue;
      const t = (r.body as { inputs?: Record<string, string> } | undefined)?.inputs?.ticket;
      if (t !== undefined && !dispatchAt.has(t)) dispatchAt.set(t, at.get(r) ?? Number.NaN);
    }
    const latency: number[] = [];
    for (let i = 0; i + 1 < CHAIN; i++) {
      const s = settleStart.get(`c${i}`);
      const d = dispatchAt.get(`c${i + 1}`);
      if (s !== undefined && d !== undefined) latency.push(d - s);
    }
    out.chain = { tickets: CHAIN, latencyMs: latency, p50: pct(latency, 0.5) };
    expect(latency.length).toBe(CHAIN - 1);
  } finally {
    await runner.stop();
  }
}, 600_000);
