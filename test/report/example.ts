/**
 * A small realistic run for the README's screenshot and example comment: the
 * tickets-example graph (reviewing a payment service's retry design) caught mid-run,
 * with a failure blocking two tickets, an open question and a ticket running.
 */
import {
  type AttemptRecord,
  RECEIPT_SCHEMA,
  type Receipt,
  type ReceiptAttempt,
  type ReceiptTicket,
  type Status,
} from "../../src/core/model.js";

const T0 = Date.parse("2026-11-30T02:10:00Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const RUN = "https://github.com/acme/payments/actions/runs";

interface Row {
  id: string;
  title: string;
  deps?: string[];
  status: Status;
  executor?: string;
  agent?: string;
  bound?: string;
  /** [start minute, minutes, outcome, extra] per attempt */
  attempts?: Array<
    [number, number, ReceiptAttempt["outcome"], Partial<AttemptRecord> & { result?: string }]
  >;
  blocked_by?: ReceiptTicket["blocked_by"];
  reason?: string;
}

const ROWS: Row[] = [
  {
    id: "inventory-retry-paths",
    title: "Inventory every retry path in the payment service",
    status: "complete",
    agent: "code-reader",
    bound: "10m",
    attempts: [
      [
        0,
        6.2,
        "complete",
        {
          result:
            "11 retry paths found:\n- charge: 3 (client, gateway, provider SDK)\n- refund: 2\n- webhooks: 6",
        },
      ],
    ],
  },
  {
    id: "research-idempotency",
    title: "How idempotency keys are issued, stored and expired",
    status: "complete",
    agent: "code-reader",
    bound: "10m",
    attempts: [
      [
        0,
        4.8,
        "complete",
        { result: "Keys are UUIDv7 issued by the API gateway, stored 24h in Redis." },
      ],
    ],
  },
  {
    id: "research-provider-semantics",
    title: "What the card provider guarantees when we retry",
    status: "complete",
    bound: "10m",
    attempts: [
      [
        0,
        7.5,
        "complete",
        { result: "The provider deduplicates on Idempotency-Key for 24 hours." },
      ],
    ],
  },
  {
    id: "research-incidents",
    title: "Past incidents where a retry charged a customer twice",
    status: "empty",
    agent: "payments-sre",
    bound: "5m",
    attempts: [[0, 1.1, "empty", {}]],
  },
  {
    id: "retry-plan",
    title: "Review plan for the retry design",
    deps: [
      "inventory-retry-paths",
      "research-idempotency",
      "research-provider-semantics",
      "research-incidents",
    ],
    status: "complete",
    bound: "15m",
    attempts: [
      [
        8,
        5.4,
        "complete",
        { result: "Four reviews: idempotency, backoff, timeouts, observability." },
      ],
    ],
  },
  {
    id: "review-idempotency",
    title: "Review: can a retry ever charge twice?",
    deps: ["retry-plan", "research-idempotency", "research-provider-semantics"],
    status: "suspended",
    executor: "reviewer",
    bound: "20m",
    attempts: [
      [
        14,
        9.3,
        "suspended",
        {
          question:
            "Redis keeps keys 24h and the provider 24h too: may a refund retry run after 24h, or must it stop?",
        },
      ],
    ],
  },
  {
    id: "review-backoff",
    title: "Review: backoff, jitter and load on the provider",
    deps: ["retry-plan", "inventory-retry-paths", "research-provider-semantics"],
    status: "failed",
    executor: "reviewer",
    bound: "20 tool calls",
    reason: "timeout",
    attempts: [
      [14, 12.0, "failed", { reason: "exit 1: provider sandbox returned 503" }],
      [27, 20.0, "failed", { reason: "timeout" }],
    ],
  },
  {
    id: "review-timeouts",
    title: "Review: timeouts and the end-to-end retry budget",
    deps: ["retry-plan", "inventory-retry-paths"],
    status: "complete",
    executor: "reviewer",
    bound: "20m",
    attempts: [
      [
        14,
        11.6,
        "complete",
        { result: "Client timeout 30s exceeds the gateway's 25s: retries race." },
      ],
    ],
  },
  {
    id: "review-observability",
    title: "Review: can on-call see a retry storm?",
    deps: ["retry-plan"],
    status: "claimed",
    executor: "reviewer",
    agent: "payments-sre",
    bound: "15m",
  },
  {
    id: "load-test-retry-storm",
    title: "Load-test a retry storm against the sandbox",
    deps: ["inventory-retry-paths"],
    status: "limited",
    bound: "10m",
    attempts: [[8, 10.0, "limited", { reason: "bound 10m spent" }]],
  },
  {
    id: "patch-retry-config",
    title: "Draft the retry policy change",
    deps: ["review-backoff", "review-timeouts"],
    status: "blocked",
    bound: "15m",
    blocked_by: { ticket: "review-backoff", kind: "dep-failed", root: "review-backoff" },
  },
  {
    id: "rollout-checklist",
    title: "Rollout checklist and alerts",
    deps: ["review-observability"],
    status: "pending",
  },
  {
    id: "audit-log-sample",
    title: "Sample a day of payment audit logs",
    status: "ready",
  },
  {
    id: "summary",
    title: "Summary for the payments architecture review",
    deps: [
      "review-idempotency",
      "review-backoff",
      "review-timeouts",
      "review-observability",
      "patch-retry-config",
      "research-incidents",
    ],
    status: "blocked",
    bound: "15m",
    blocked_by: { ticket: "review-backoff", kind: "dep-failed", root: "review-backoff" },
  },
];

export function exampleReceipt(): Receipt {
  let runNo = 4_210_000;
  const tickets: ReceiptTicket[] = ROWS.map((r) => {
    const attempts: ReceiptAttempt[] = (r.attempts ?? []).map(
      ([start, minutes, outcome, extra], k) => ({
        n: k + 1,
        claim: `${r.id}-${k + 1}`,
        claimed_by: "orch-task",
        started_at: at(start),
        ended_at: at(start + minutes),
        duration_ms: Math.round(minutes * 60_000),
        outcome,
        settled_by: "orch-task",
        run_url: `${RUN}/${runNo++}`,
        usage: { tokens: Math.round(minutes * 4_100) },
        ...(extra.result
          ? {
              result_file: `.frontier/${r.id}/result-${k + 1}.md`,
              result_bytes: extra.result.length,
            }
          : {}),
        ...extra,
      }),
    );
    if (r.status === "claimed") {
      attempts.push({
        n: 1,
        claim: `${r.id}-1`,
        claimed_by: "orch-task",
        started_at: at(25),
        run_url: `${RUN}/${runNo++}`,
      });
    }
    const question = attempts.find((a) => a.outcome === "suspended")?.question;
    const deps = r.deps ?? [];
    return {
      id: r.id,
      title: r.title,
      file: `${r.id}.md`,
      status: r.status,
      depends_on: deps,
      inputs: deps,
      executor: r.executor,
      agent: r.agent,
      write_scope: [],
      priority: 0,
      bound: r.bound,
      attempt: attempts.length,
      claimed_by: r.status === "claimed" ? "orch-task" : undefined,
      claimed_at: r.status === "claimed" ? at(25) : undefined,
      blocked_by: r.blocked_by,
      reason: r.reason,
      question: r.status === "suspended" ? question : undefined,
      attempts,
      answers: [],
    };
  });
  const counts: Receipt["counts"] = {};
  for (const t of tickets) counts[t.status] = (counts[t.status] ?? 0) + 1;
  return {
    schema: RECEIPT_SCHEMA,
    run: "payments-retry-review",
    goal: "Decide whether the payment service's retries can ever charge a customer twice, and fix what can.",
    state: "running",
    base: "9f2c4e1a7b3d5c6e8f0a1b2c3d4e5f6a7b8c9d0e",
    started_at: at(0),
    generated_at: at(48),
    counts,
    bound: { dispatches: 40, dispatched: 12 },
    usage: { tokens: 318_000, cost_usd: 2.86 },
    waves: [
      [
        "inventory-retry-paths",
        "research-idempotency",
        "research-provider-semantics",
        "research-incidents",
        "audit-log-sample",
      ],
      ["retry-plan", "load-test-retry-storm"],
      ["review-idempotency", "review-backoff", "review-timeouts", "review-observability"],
      ["patch-retry-config", "rollout-checklist"],
      ["summary"],
    ],
    critical_path: [
      "inventory-retry-paths",
      "retry-plan",
      "review-backoff",
      "patch-retry-config",
      "summary",
    ],
    tickets,
    blockers: [
      {
        root: "review-backoff",
        root_status: "failed",
        reason: "timeout",
        tickets: ["patch-retry-config", "summary"],
      },
    ],
    questions: tickets
      .filter((t) => t.status === "suspended")
      .map((t) => ({ ticket: t.id, attempt: t.attempt, question: t.question ?? "" })),
    remainder: [
      {
        id: "review-idempotency",
        status: "suspended",
        waiting_on: `question: ${tickets[5]?.question}`,
      },
      { id: "review-backoff", status: "failed", waiting_on: "failed after 2 attempts: timeout" },
      {
        id: "review-observability",
        status: "claimed",
        waiting_on: "running since 02:35 (orch-task)",
      },
      { id: "load-test-retry-storm", status: "limited", waiting_on: "its bound (10m) ran out" },
      { id: "patch-retry-config", status: "blocked", waiting_on: "review-backoff failed" },
      { id: "rollout-checklist", status: "pending", waiting_on: "review-observability (claimed)" },
      { id: "audit-log-sample", status: "ready", waiting_on: "ready: waiting for a dispatch slot" },
      { id: "summary", status: "blocked", waiting_on: "review-backoff failed" },
    ],
    links: {
      workflow_run: `${RUN}/4209999`,
      repository: "https://github.com/acme/payments",
    },
  };
}
