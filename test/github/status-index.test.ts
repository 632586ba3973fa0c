/**
 * The status index: on a large run an event reads state.json (every ticket's head) and
 * the shards of the tickets whose history it changes — and never loses a history it
 * did not read.
 */
import { afterEach, describe, expect, it } from "vitest";
import { advance } from "../../src/github/advance.js";
import { advanceOnly, settleEvent, sweepEvent } from "../../src/github/events.js";
import { type serializeState, shardDirPath, shardFileOf } from "../../src/github/state.js";

const shardPathOf = (ticket: string) => `${shardDirPath("tickets")}/${shardFileOf(ticket)}`;

import { FULL_READ_MAX } from "../../src/github/status-index.js";
import { makeWorld, runContext, stateOf, ticket, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  world?.fake.assertNoViolations();
  await world?.cleanup();
  world = undefined;
});

type State = {
  tickets: Record<
    string,
    { status: string; attempts: Array<{ n: number; outcome?: string; reason?: string }> }
  >;
};

const N = FULL_READ_MAX + 10;
const id = (i: number) => `t${String(i).padStart(3, "0")}`;

/**
 * A flat run just over the size that reads everything, two claims at a time, failures
 * retried (so a failure does not change the report's headline, which reads everything).
 */
async function bigRun(bound = "30m"): Promise<World> {
  const files: Record<string, string> = {
    "frontier.yml": "run: big\nmax_parallel: 2\nretries: 2\n",
  };
  for (let i = 0; i < N; i++) {
    const [name, text] = ticket(id(i), [], `bound: ${bound}\n`);
    files[name] = text;
  }
  return makeWorld(files);
}

/** The paths the event's GraphQL reads asked for (files and directories). */
function readPaths(w: World, from: number): string[] {
  return w.fake.requests
    .filter((r) => r.seq > from && r.graphql?.kind === "query")
    .flatMap((r) => Object.values(r.graphql?.variables ?? {}).map(String));
}

describe("an event reads the status index and what it touches", () => {
  it("a settle reads state.json and its ticket's shard, not every shard; histories it did not read are kept", async () => {
    world = await bigRun();
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    const [a, b] = start.dispatched;
    const settle = (d: typeof a, outcome: "complete" | "failed") =>
      advance(
        ctx,
        settleEvent({
          ticket: d!.ticket,
          attempt: d!.attempt,
          claim: d!.claim,
          outcome,
          ...(outcome === "complete" ? { result: "done" } : { reason: "boom" }),
          by: "job",
        }),
        `settle ${d!.ticket}`,
        { start: false, touches: [d!.ticket] },
      );
    await settle(a, "complete");
    const seq = world.fake.requests.at(-1)?.seq ?? 0;
    const out = await settle(b, "failed");
    const paths = readPaths(world, seq);
    expect(paths).toContain(shardPathOf(b!.ticket));
    expect(paths).not.toContain("tickets/.frontier/state");
    expect(out.complete).toBe(false);
    const state = stateOf(world) as State;
    // a's history lives in a shard this settle did not read: it is still there
    expect(state.tickets[a!.ticket]?.attempts.map((x) => x.outcome)).toEqual(["complete"]);
    // (the live attempt is the head's claim: the history holds the ended ones)
    expect(state.tickets[b!.ticket]?.attempts.map((x) => x.reason)).toEqual(["boom"]);
    expect(state.tickets[b!.ticket]?.status).toBe("claimed");
    expect(Object.values(state.tickets).filter((t) => t.status === "claimed")).toHaveLength(2);
  });

  it("a sweep that reclaims an expired claim reads that ticket's shard before it records the failed attempt", async () => {
    // 10s leases on a clock of its own: they run out before the report comment is due
    // (showing it reads every shard)
    world = await bigRun("10s");
    let now = Date.now();
    const ctx = runContext(world, { clock: () => now });
    const start = await advance(ctx, advanceOnly, "start");
    const [a] = start.dispatched;
    await advance(
      ctx,
      settleEvent({
        ticket: a!.ticket,
        attempt: 1,
        claim: a!.claim,
        outcome: "failed",
        reason: "first try",
        by: "job",
      }),
      "settle",
      { start: false, touches: [a!.ticket] },
    );
    // a ran once and failed; later: every live lease has run out
    now += 11_000;
    const seq = world.fake.requests.at(-1)?.seq ?? 0;
    await advance(ctx, sweepEvent, "sweep", { start: false });
    const state = stateOf(world) as State;
    // a's retry and the other claim both expired and were retried
    expect(state.tickets[a!.ticket]?.attempts.map((x) => x.reason)).toEqual([
      "first try",
      "lease-expired",
    ]);
    const other = start.dispatched[1]!.ticket;
    expect(state.tickets[other]?.attempts.map((x) => x.reason)).toEqual(["lease-expired"]);
    // the sweep read their shards when it found it needed them, not every shard
    const paths = readPaths(world, seq);
    expect(paths).toContain(shardPathOf(other));
    expect(paths).not.toContain("tickets/.frontier/state");
  });

  it("a state written before the index is read whole once and written indexed", async () => {
    world = await bigRun();
    const ctx = runContext(world);
    const start = await advance(ctx, advanceOnly, "start");
    // rewrite the state as the previous version laid it out: 27 shards, full ticket states
    const before = stateOf(world) as unknown as Parameters<typeof serializeState>[0];
    const count = 27;
    const lines: string[][] = Array.from({ length: count }, () => []);
    const fnv = (s: string) => {
      let h = 0x811c9dc5;
      for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
      return h % count;
    };
    for (const [t, s] of Object.entries(before.tickets))
      lines[fnv(t)]!.push(`${JSON.stringify(t)}:${JSON.stringify(s)}`);
    const { tickets: _t, ...rest } = before;
    const files: Record<string, string | null> = {
      "tickets/.frontier/state.json": `${JSON.stringify({ ...rest, schema: "ticket-frontier/github-state@2", shards: count })}\n`,
    };
    for (const p of world.repo.listFiles("main", "tickets/.frontier/state")) files[p] = null;
    lines.forEach((l, n) => {
      files[`tickets/.frontier/state/${String(n).padStart(3, "0")}.json`] =
        `{\n${l.join(",\n")}\n}\n`;
    });
    world.repo.commit("main", files);
    const [a] = start.dispatched;
    await advance(
      ctx,
      settleEvent({
        ticket: a!.ticket,
        attempt: 1,
        claim: a!.claim,
        outcome: "complete",
        result: "x",
        by: "job",
      }),
      "settle",
      { start: false, touches: [a!.ticket] },
    );
    const text = world.repo.readFile("tickets/.frontier/state.json") ?? "";
    expect(JSON.parse(text).schema).toBe("ticket-frontier/github-state@3");
    const state = stateOf(world) as State;
    expect(state.tickets[a!.ticket]?.status).toBe("complete");
    expect(Object.keys(state.tickets)).toHaveLength(N);
  });
});
