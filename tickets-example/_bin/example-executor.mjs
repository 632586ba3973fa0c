#!/usr/bin/env node
// The example's executor: plays the part of an agent without any model or network.
//
// It follows the executor protocol (README, "Executors"): the ticket's context arrives
// on stdin (and in $FRONTIER_CONTEXT_FILE), the ticket id in $FRONTIER_TICKET, and the
// outcome goes to $FRONTIER_OUTCOME_FILE as JSON — here with a made-up `usage`, so the
// reports have something to total. Results are canned per ticket, deterministic, and
// mention which of the ticket's inputs it was actually given.
import { writeFileSync } from "node:fs";

const ticket = process.env.FRONTIER_TICKET ?? "";
const role = process.argv.includes("--role")
  ? process.argv[process.argv.indexOf("--role") + 1]
  : "agent";

let context = "";
for await (const chunk of process.stdin) context += chunk;

const RESULTS = {
  "inventory-retry-paths": `| path | file | policy | repeats a side effect? |
|---|---|---|---|
| provider client (authorise) | src/provider/client.ts \`authorise()\` | 3 attempts, 200 ms × 2ⁿ, no jitter, retries 5xx and timeouts | yes: money can move twice if the key changes |
| outbox relay | src/outbox/relay.ts \`flush()\` | unbounded, fixed 1 s | yes: re-sends charge.created events |
| webhook handler | src/webhooks/handler.ts \`onEvent()\` | provider redelivers for 72 h | no: handler is idempotent on event id |
| refund worker | src/refunds/worker.ts \`process()\` | 5 attempts via queue redelivery | yes: refund issued twice if ack is lost |
| receipt e-mails | src/notify/receipts.ts | 3 attempts | yes, harmless: duplicate e-mail |`,
  "research-idempotency": `- Clients may send \`Idempotency-Key\`; when absent the API generates a UUID per request,
  so a client-side retry without a key is a new charge.
- Keys live in \`idempotency_keys\` (Postgres), TTL 24 h, unique on (merchant_id, key).
- A second request while the first is in flight gets 409 \`request_in_progress\`.
- Gap: the provider client derives its own key as \`charge_id + attempt\`, so each
  retry of \`authorise()\` reaches the provider with a **different** key.`,
  "research-provider-semantics": `- Safe to retry: 429, 503, connection reset before the request was sent (reference §4.2).
- Unknown outcome: 500, 504 and client timeouts after the body was sent — retry only with
  the same idempotency key (§4.3).
- Keys are honoured for 24 h (§4.3.1).
- Rate limit: 100 requests/s per merchant account; 429 carries \`Retry-After\` in seconds (§7).
- A timed-out authorisation can still succeed and be captured for 7 days (§5.1).`,
  "research-incidents": "",
  "retry-plan": `Ranked by risk:
1. provider client \`authorise()\` — a new idempotency key per attempt can charge twice
   (idempotency research, provider §4.3). → review-idempotency
2. refund worker — a lost ack re-issues a refund. → review-idempotency
3. outbox relay — unbounded fixed-interval retries can hammer the provider during a
   brown-out. → review-backoff
4. end-to-end timeouts: three provider attempts may outlive the SDK's 30 s timeout.
   → review-timeouts
5. no per-path retry metric. → review-observability
The incident search returned nothing: no duplicate-charge incidents are on record for the
last 12 months. The plan does not read that as proof the paths are safe.`,
  "review-idempotency": `Verdict: **unsafe** on one path.
- provider client: each attempt sends \`charge_id + attempt\` as the key, so attempt 2 after
  a 504 can authorise again. Fix: send the charge's stored key on every attempt.
- refund worker: safe once the refund id is used as the provider key (it already is).
- outbox relay: safe — consumers dedupe on event id.`,
  "review-backoff": `Verdict: **needs change**.
- provider client: exponential but no jitter — synchronised retries after a brown-out.
- outbox relay: fixed 1 s, unbounded: at 40 charges/s a 5-minute brown-out queues 12,000
  events and replays them at up to 120 requests/s, over the 100/s limit.
- \`Retry-After\` is ignored everywhere.
Proposed policy: 4 attempts, base 250 ms, cap 8 s, full jitter, honour Retry-After.`,
  "review-timeouts": `| hop | timeout |
|---|---|
| load balancer | 60 s |
| API → worker | 25 s |
| provider client, per attempt | 10 s × 3 attempts + backoff ≈ 31.4 s |
| client SDK | 30 s |
The provider retries outlive the SDK by ~1.4 s: the customer can see a timeout for a charge
that succeeds. Fix: a 20 s per-request deadline shared by all attempts.`,
  "review-observability": `- One metric for all retries (\`payments_retry_total\`), no label per path.
- The attempt number is on log lines but not on trace spans.
- The 429 alert fires after 10 minutes — later than the brown-out it should warn about.
Fix: label the metric by path, add \`retry.attempt\` to spans, alert on 429 rate over 2 minutes.`,
  "patch-retry-config": `\`\`\`yaml
provider:
  attempts: 4
  base_delay: 250ms
  max_delay: 8s
  jitter: full
  honour_retry_after: true
  deadline: 20s        # shared by all attempts of one request
outbox:
  attempts: 10
  base_delay: 1s
  max_delay: 60s
  jitter: full
\`\`\`
Rationale: keeps a brown-out under the provider's 100 req/s limit, and every retry ends
before the client SDK's 30 s timeout.`,
  summary: `**Verdict: keep, with two fixes before the provider migration.**
1. (money) Send the charge's stored idempotency key on every provider attempt — owner:
   payments-core. Today attempt 2 after a 504 can charge twice.
2. (load) Adopt the proposed retry config: full jitter, a cap, Retry-After honoured and a
   20 s shared deadline — owner: payments-platform.
3. (visibility) Per-path retry metric, attempt on spans, faster 429 alert — owner: payments-sre.
Looked for and not found: no duplicate-charge incidents in the last 12 months (the incident
search returned nothing), so the risk above is latent, not observed.`,
};

if (!(ticket in RESULTS)) {
  process.stderr.write(`example-executor: no canned result for ticket "${ticket}"\n`);
  process.exit(1);
}

// Look busy for a moment, deterministically (0.2–0.8 s), so the progress is worth watching.
let hash = 0;
for (const ch of ticket) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
await new Promise((resolve) => setTimeout(resolve, 200 + (hash % 600)));

const result = RESULTS[ticket];
// Which inputs did the context actually carry? Each is a `### id: title (status)` heading
// under "## Inputs"; an input that ran and returned nothing is still listed, as a blank.
const inputs = [...context.matchAll(/^### ([A-Za-z0-9][A-Za-z0-9._-]*): .* \((\w+)\)$/gm)].map(
  ([, id, status]) => (status === "complete" ? id : `${id} (${status})`),
);
const body =
  result === ""
    ? ""
    : `${result}\n\n_${role} · built on: ${inputs.length ? inputs.join(", ") : "the ticket alone"}_\n`;

const tokens = 800 + (hash % 4000) + Math.round(context.length / 4);
const outcome =
  body === ""
    ? { status: "empty", usage: { tokens } }
    : {
        status: "complete",
        result: body,
        usage: { tokens, cost_usd: Math.round(tokens * 0.3) / 100000 },
      };
writeFileSync(process.env.FRONTIER_OUTCOME_FILE, JSON.stringify(outcome));
