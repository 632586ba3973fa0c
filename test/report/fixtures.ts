/**
 * Hand-built receipts for the renderer tests: a consistent run of N tickets with every
 * state present (for N >= 13), built without the engine so the renderers are tested
 * on their own input.
 */
import {
  type BlockedBy,
  type BlockerGroup,
  type Outcome,
  RECEIPT_SCHEMA,
  type Receipt,
  type ReceiptAttempt,
  type ReceiptTicket,
  type RemainderEntry,
  type Status,
} from "../../src/core/model.js";

export interface FixtureOptions {
  /** title of ticket i (default: a plain sentence) */
  title?: (i: number) => string;
  /** extra text put into tasks, results, questions, answers and reasons (for injection tests) */
  text?: string;
  /** include result text on attempts (as a local report does) */
  results?: boolean;
  run?: string;
  goal?: string;
  links?: Receipt["links"];
}

const T0 = Date.parse("2026-11-30T03:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** The state each of the first 10 (root) tickets ends in: every state is reached. */
const ROOT_PLAN: Array<Status> = [
  "complete",
  "empty",
  "failed",
  "limited",
  "cancelled",
  "suspended",
  "claimed",
  "ready",
  "complete",
  "complete",
];

/** Deterministic pseudo-random numbers (a small LCG): same fixture every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const DEFAULT_TITLES = [
  "Parse the ticket front matter",
  "Check the dependency graph",
  "Write state back to the files",
  "Render the PR comment",
  "Dispatch ready tickets",
  "Settle finished attempts",
  "Answer open questions",
  "Sweep stale claims",
  "Build the HTML report",
  "Ship the JSON receipt",
];

export function makeReceipt(n: number, opts: FixtureOptions = {}): Receipt {
  const rand = rng(42);
  const extra = opts.text ?? "";
  const title =
    opts.title ?? ((i: number) => `${DEFAULT_TITLES[i % DEFAULT_TITLES.length]} (${i})`);
  const tickets: ReceiptTicket[] = [];
  const status = new Map<string, Status>();
  const rootOf = new Map<string, string>();
  const depth = new Map<string, number>();

  for (let i = 0; i < n; i++) {
    const id = `t${i}`;
    let deps: string[] = [];
    if (i === 10)
      deps = ["t2"]; // blocked by a failure
    else if (i === 11)
      deps = ["t5"]; // pending behind a question
    else if (i === 12)
      deps = ["t10"]; // knock-on block
    else if (i >= 13) {
      const k = 1 + Math.floor(rand() * 2);
      const set = new Set<string>();
      for (let j = 0; j < k; j++) {
        // mostly recent tickets: deep graphs; sometimes early ones: wide fan-out
        const back =
          rand() < 0.8 ? 1 + Math.floor(rand() * Math.min(i, 30)) : i - Math.floor(rand() * 10);
        set.add(`t${Math.max(0, i - back)}`);
      }
      deps = [...set];
    }

    let st: Status;
    let blocked: BlockedBy | undefined;
    if (i < 10) st = ROOT_PLAN[i] ?? "complete";
    else {
      const closedDep = deps.find((d) =>
        ["failed", "limited", "cancelled", "blocked"].includes(status.get(d) ?? ""),
      );
      const openDep = deps.find((d) => !["complete", "empty"].includes(status.get(d) ?? ""));
      if (closedDep) {
        st = "blocked";
        const ds = status.get(closedDep);
        const kind =
          ds === "failed"
            ? "dep-failed"
            : ds === "limited"
              ? "dep-limited"
              : ds === "cancelled"
                ? "dep-cancelled"
                : "dep-blocked";
        const root = ds === "blocked" ? (rootOf.get(closedDep) ?? closedDep) : closedDep;
        blocked = { ticket: closedDep, kind, root };
        rootOf.set(id, root);
      } else if (openDep) st = "pending";
      else {
        const r = rand();
        st = r < 0.9 ? "complete" : r < 0.95 ? "empty" : r < 0.975 ? "failed" : "complete";
      }
    }
    status.set(id, st);
    depth.set(id, deps.length ? Math.max(...deps.map((d) => depth.get(d) ?? 0)) + 1 : 0);

    const attempts: ReceiptAttempt[] = [];
    const start = T0 + i * 7_000;
    const ran: Partial<Record<Status, Outcome | "cancelled">> = {
      complete: "complete",
      empty: "empty",
      failed: "failed",
      limited: "limited",
      suspended: "suspended",
      cancelled: "cancelled",
    };
    const outcome = ran[st];
    if (st === "failed") {
      attempts.push(attempt(1, start, 2_000, "failed", { reason: `exit 1: boom ${extra}` }));
      attempts.push(attempt(2, start + 3_000, 4_500, "failed", { reason: `timeout ${extra}` }));
    } else if (outcome) {
      const a = attempt(1, start, 1_000 + ((i * 7919) % 120_000), outcome, {});
      if (outcome === "complete" && opts.results !== false)
        a.result = `Result of ${id}.\n${extra}\nline two`;
      if (outcome === "suspended") a.question = `Which license should ${id} use? ${extra}`;
      if (outcome === "limited") a.reason = `bound 5 tool calls spent ${extra}`;
      attempts.push(a);
    } else if (st === "claimed") {
      attempts.push({
        n: 1,
        claim: `c-${id}-1`,
        claimed_by: "orch-task",
        started_at: iso(start),
        run_url: `https://github.com/o/r/actions/runs/${1000 + i}`,
      });
    }
    if (st === "complete" && i === 0) {
      // an answered question earlier in its history
      attempts.unshift(
        attempt(1, start - 60_000, 500, "suspended", { question: `Tabs or spaces? ${extra}` }),
      );
      attempts.forEach((a, k) => {
        a.n = k + 1;
      });
    }
    const t: ReceiptTicket = {
      id,
      title: title(i),
      file: `${id}.md`,
      status: st,
      depends_on: deps,
      inputs: deps,
      executor: i % 3 === 0 ? "agent.yml" : undefined,
      write_scope: i % 4 === 0 ? [`src/${id}/**`] : [],
      priority: 0,
      task: `# ${title(i)}\n\nDo step ${i} of the plan. ${extra}\n`,
      attempt: attempts.length,
      blocked_by: blocked,
      reason: st === "failed" ? `timeout ${extra}` : undefined,
      question: st === "suspended" ? `Which license should ${id} use? ${extra}` : undefined,
      attempts,
      answers:
        i === 0
          ? [
              {
                n: 1,
                attempt: 1,
                question: `Tabs or spaces? ${extra}`,
                text: `Spaces. ${extra}`,
                by: "maintainer",
                at: iso(start - 30_000),
              },
            ]
          : [],
    };
    if (st === "claimed") {
      t.claimed_by = "orch-task";
      t.claimed_at = iso(start);
    }
    tickets.push(t);
  }

  const counts: Partial<Record<Status, number>> = {};
  for (const t of tickets) counts[t.status] = (counts[t.status] ?? 0) + 1;

  const waveMap = new Map<number, string[]>();
  for (const t of tickets) {
    const d = depth.get(t.id) ?? 0;
    waveMap.set(d, [...(waveMap.get(d) ?? []), t.id]);
  }
  const waves = [...waveMap.keys()].sort((a, b) => a - b).map((d) => waveMap.get(d) ?? []);

  const groups = new Map<string, string[]>();
  for (const t of tickets) {
    if (t.blocked_by)
      groups.set(t.blocked_by.root, [...(groups.get(t.blocked_by.root) ?? []), t.id]);
  }
  const blockers: BlockerGroup[] = [...groups].map(([root, ids]) => {
    const r = tickets.find((t) => t.id === root);
    return { root, root_status: r?.status ?? "failed", reason: r?.reason, tickets: ids };
  });
  blockers.sort((a, b) => b.tickets.length - a.tickets.length);

  const remainder: RemainderEntry[] = tickets
    .filter((t) => t.status !== "complete" && t.status !== "empty")
    .map((t) => ({
      id: t.id,
      status: t.status,
      waiting_on:
        t.status === "blocked"
          ? `${t.blocked_by?.ticket} ${status.get(t.blocked_by?.ticket ?? "")}`
          : t.status === "suspended"
            ? `question: ${t.question}`
            : t.status === "pending"
              ? `${t.depends_on.filter((d) => !["complete", "empty"].includes(status.get(d) ?? "")).join(", ")} not complete`
              : t.status === "claimed"
                ? "running"
                : t.status,
    }));

  // critical path: the deepest chain
  let last = tickets[0]?.id;
  for (const t of tickets) if ((depth.get(t.id) ?? 0) > (depth.get(last ?? "") ?? 0)) last = t.id;
  const critical: string[] = [];
  while (last) {
    critical.unshift(last);
    const t = tickets.find((x) => x.id === last);
    last = t?.depends_on.reduce<string | undefined>(
      (best, d) => (best === undefined || (depth.get(d) ?? 0) > (depth.get(best) ?? 0) ? d : best),
      undefined,
    );
  }

  return {
    schema: RECEIPT_SCHEMA,
    run: opts.run ?? "example",
    goal: opts.goal,
    state: "running",
    base: "0123456789abcdef0123456789abcdef01234567",
    started_at: iso(T0),
    generated_at: iso(T0 + n * 7_000 + 60_000),
    counts,
    bound: { dispatched: tickets.filter((t) => t.attempts.length > 0).length },
    usage: { tokens: 1234 * n, cost_usd: 0.01 * n },
    waves,
    critical_path: critical,
    tickets,
    blockers,
    questions: tickets
      .filter((t) => t.status === "suspended")
      .map((t) => ({ ticket: t.id, attempt: t.attempt, question: t.question ?? "" })),
    remainder,
    links: opts.links,
  };
}

function attempt(
  n: number,
  start: number,
  duration: number,
  outcome: ReceiptAttempt["outcome"],
  extra: Partial<ReceiptAttempt>,
): ReceiptAttempt {
  return {
    n,
    claim: `c-${n}-${start}`,
    claimed_by: n % 2 ? "orch-task" : "local",
    started_at: iso(start),
    ended_at: iso(start + duration),
    duration_ms: duration,
    outcome,
    settled_by: "orch-task",
    run_url: `https://github.com/o/r/actions/runs/${start % 100000}`,
    usage: { tokens: 1000 },
    ...extra,
  };
}

/**
 * A local run of two coding tickets, each integrated as one commit on `frontier/greet-shout`
 * (`shout` after `greet`): what a newcomer's first coding graph leaves.
 */
export function codingReceipt(): Receipt {
  const attempt = (n: number, commit: string, path: string, at: number): ReceiptAttempt => ({
    n,
    claim: `claim-${commit}`,
    claimed_by: "frontier@laptop:4242",
    started_at: iso(T0 + at),
    ended_at: iso(T0 + at + 9_000),
    outcome: "complete",
    duration_ms: 9_000,
    changes: {
      start: "cf82b12297aa",
      verdict: "integrated",
      commit,
      paths: [
        { path, status: "added", mode: "100644", blob: "b".repeat(40), added: 3, removed: 0 },
      ],
    },
  });
  const ticket = (id: string, title: string, deps: string[], a: ReceiptAttempt): ReceiptTicket => ({
    id,
    title,
    file: `${id}.md`,
    status: "complete",
    depends_on: deps,
    inputs: deps,
    write_scope: ["src/**"],
    priority: 0,
    isolation: "worktree",
    attempt: 1,
    attempts: [a],
    answers: [],
  });
  return {
    schema: RECEIPT_SCHEMA,
    run: "greet-shout",
    state: "complete",
    where: "local",
    generated_at: iso(T0 + 60_000),
    started_at: iso(T0),
    counts: { complete: 2 },
    waves: [["greet"], ["shout"]],
    critical_path: ["greet", "shout"],
    tickets: [
      ticket("greet", "Greet the user", [], attempt(1, "a1".repeat(20), "src/greet.ts", 0)),
      ticket(
        "shout",
        "Shout the greeting",
        ["greet"],
        attempt(1, "b2".repeat(20), "src/shout.ts", 20_000),
      ),
    ],
    blockers: [],
    questions: [],
    remainder: [],
    branch: {
      name: "frontier/greet-shout",
      base: "cf82b12297aa",
      commits: [
        { commit: "a1".repeat(20), ticket: "greet", attempt: 1 },
        { commit: "b2".repeat(20), ticket: "shout", attempt: 1 },
      ],
      merge: "git merge frontier/greet-shout",
    },
  };
}
