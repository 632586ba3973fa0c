/** Small builders for engine tests: tickets as one-liners, a world where no time passes. */
import {
  type Claim,
  type EngineConfig,
  type EventResult,
  Frontier,
  type SettleInput,
} from "../../src/core/engine.js";
import { buildGraph } from "../../src/core/graph.js";
import type { Bound, Outcome, TicketSpec } from "../../src/core/model.js";
import { refusalWords } from "../../src/report/refusals.js";

export type TicketDraft = Partial<Omit<TicketSpec, "id">>;

export function ticket(id: string, deps: string[] = [], extra: TicketDraft = {}): TicketSpec {
  return {
    id,
    title: id,
    file: `${id}.md`,
    dependsOn: deps,
    inputs: deps,
    writeScope: [],
    priority: 0,
    body: `do ${id}`,
    order: 0,
    ...extra,
  };
}

/** Give tickets their file order as listed. */
export function inOrder(...specs: TicketSpec[]): TicketSpec[] {
  return specs.map((s, order) => ({ ...s, order }));
}

export function engine(specs: TicketSpec[], config: Partial<EngineConfig> = {}, now = 0): Frontier {
  return Frontier.create(specs, { run: "test", ...config }, undefined, now);
}

export const token = (t: string, a: number): string => `${t}#${a}`;

export function claimAll(f: Frontier, now = 0, by = "runner"): Claim[] {
  return f.claimReady(now, by, token);
}

export function claimedIds(claims: Claim[]): string[] {
  return claims.map((c) => c.ticket);
}

/** Settle the live attempt of `id` with `outcome`. */
export function settle(
  f: Frontier,
  id: string,
  outcome: Outcome,
  now = 0,
  extra: Partial<SettleInput> = {},
): ReturnType<Frontier["settle"]> {
  const attempt = f.state(id)?.attempt ?? 0;
  return f.settle({ ticket: id, attempt, outcome, ...extra }, now);
}

/** Claim everything ready, then settle each claimed ticket with `outcome(id)` until nothing runs. */
export function runToEnd(
  f: Frontier,
  outcome: (id: string) => Outcome = () => "complete",
  now = 0,
): void {
  for (let guard = 0; guard < 10_000; guard++) {
    const claims = claimAll(f, now);
    const live = f.claimedIds();
    if (claims.length === 0 && live.length === 0) return;
    for (const id of live) settle(f, id, outcome(id), now);
  }
  throw new Error("runToEnd did not finish");
}

export function duration(ms: number): Bound {
  return { raw: `${ms}ms`, timeoutMs: ms, leaseMs: ms };
}

export const MIN = 60_000;

/**
 * Each ticket's remaining critical path (its own weight included), in ms: on the graph the
 * engine builds, weighted as the engine weighs it (each ticket's lease).
 */
export function remainingPaths(f: Frontier): (id: string) => number | undefined {
  const specs = f.specs();
  const graph = buildGraph(specs, (i) => f.leaseMsOf(specs[i]!.id)!);
  return (id) => {
    const i = graph.index.get(id);
    return i === undefined ? undefined : graph.remaining[i];
  };
}

/** An event's result with its refusal in words, as the CLI and the bot show it. */
export const said = (r: EventResult) =>
  r.kind === "ok" ? r : { kind: r.kind, message: refusalWords(r.why) };
