/**
 * buildReceipt: the receipt of SPEC §7 from the engine's query API, driven through a
 * run where every state occurs, in a world where no time passes.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { Frontier } from "../../src/core/engine.js";
import { Receipt, type TicketSpec } from "../../src/core/model.js";
import { renderHtml } from "../../src/report/html.js";
import { renderMarkdown } from "../../src/report/markdown.js";
import { buildReceipt, receiptJson } from "../../src/report/receipt.js";
import { remainderOf } from "../../src/report/remainder.js";

function spec(id: string, order: number, deps: string[] = [], title = `Do ${id}`): TicketSpec {
  return {
    id,
    title,
    file: `${id}.md`,
    dependsOn: deps,
    inputs: deps,
    writeScope: [],
    priority: 0,
    body: `do ${id}`,
    order,
  };
}

const T = Date.parse("2026-11-30T03:00:00Z");
const token = (t: string, a: number) => `${t}#${a}`;

/** a complete, b empty, c failed (blocking d, and e behind d), q suspended, p waiting on q,
 * l limited, r claimed, y ready (its dependency completed after the last claim). */
function run(): Frontier {
  const specs = [
    spec("a", 0),
    spec("b", 1),
    spec("c", 2),
    spec("d", 3, ["c"]),
    spec("e", 4, ["d"]),
    spec("q", 5),
    spec("p", 6, ["q"]),
    spec("l", 7),
    spec("r", 8),
    spec("y", 9, ["a", "b"]),
  ];
  const f = Frontier.create(
    specs,
    { run: "demo", base: "abc1234", bound: { dispatches: 50 } },
    undefined,
    T,
  );
  f.claimReady(T, "runner", token);
  const settle = (
    ticket: string,
    outcome: Parameters<Frontier["settle"]>[0]["outcome"],
    at: number,
    extra = {},
  ) =>
    f.settle(
      { ticket, attempt: f.state(ticket)?.attempt ?? 0, outcome, by: "runner", ...extra },
      T + at,
    );
  settle("a", "complete", 1_500, {
    resultFile: ".frontier/a/result-1.md",
    resultBytes: 6,
    usage: { tokens: 10, cost: 0.5 },
  });
  settle("b", "empty", 2_000);
  settle("c", "failed", 3_000, { reason: "exit 1: boom" });
  settle("q", "suspended", 4_000, { question: "Tabs or spaces?", usage: { tokens: 5 } });
  settle("l", "limited", 5_000, { reason: "bound spent" });
  return f;
}

describe("the receipt is built from the engine's query API", () => {
  const f = run();
  const receipt = buildReceipt(f, {
    now: T + 10_000,
    goal: "Show every state",
    links: { html_report: "https://example.com/r.html", workflow_run: "" },
    resultText: (file) => (file === ".frontier/a/result-1.md" ? "hello!" : undefined),
  });

  it("is a valid ticket-frontier/receipt@1 for zod and for the shipped JSON Schema", () => {
    expect(Receipt.safeParse(receipt).success).toBe(true);
    const ajv = new Ajv2020({ allErrors: true });
    addFormats.default(ajv);
    const schema = JSON.parse(
      readFileSync(new URL("../../schema/receipt.schema.json", import.meta.url), "utf8"),
    );
    const validate = ajv.compile(schema);
    expect(validate(JSON.parse(receiptJson(receipt))), JSON.stringify(validate.errors)).toBe(true);
  });

  it("carries the run: name, state, base, bound with dispatches, goal, time and links", () => {
    expect(receipt.schema).toBe("ticket-frontier/receipt@1");
    expect(receipt.run).toBe("demo");
    expect(receipt.state).toBe(f.runState(T + 10_000));
    expect(receipt.base).toBe("abc1234");
    expect(receipt.bound).toMatchObject({ dispatches: 50, dispatched: f.runRecord().dispatched });
    expect(receipt.goal).toBe("Show every state");
    expect(receipt.generated_at).toBe("2026-11-30T03:00:10.000Z");
    // empty links are left out
    expect(receipt.links).toEqual({ html_report: "https://example.com/r.html" });
  });

  it("counts only the states that occur", () => {
    const all = f.counts();
    for (const [s, n] of Object.entries(all)) {
      if (n > 0) expect(receipt.counts[s as keyof typeof receipt.counts]).toBe(n);
      else expect(s in receipt.counts).toBe(false);
    }
    expect(receipt.counts).toMatchObject({
      complete: 1,
      empty: 1,
      failed: 1,
      blocked: 2,
      suspended: 1,
    });
    expect(receipt.counts.cancelled).toBeUndefined();
  });

  it("lists every ticket in file order with its spec and its state", () => {
    expect(receipt.tickets.map((t) => t.id)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
      "q",
      "p",
      "l",
      "r",
      "y",
    ]);
    const d = receipt.tickets.find((t) => t.id === "d");
    expect(d).toMatchObject({ status: "blocked", depends_on: ["c"], file: "d.md", title: "Do d" });
    expect(d?.blocked_by).toEqual({ ticket: "c", kind: "dep-failed", root: "c" });
    expect(receipt.tickets.find((t) => t.id === "e")?.blocked_by).toEqual({
      ticket: "d",
      kind: "dep-blocked",
      root: "c",
    });
    expect(receipt.tickets.find((t) => t.id === "y")?.status).toBe("ready");
    expect(receipt.tickets.find((t) => t.id === "p")?.status).toBe("pending");
  });

  it("gives each ended attempt its duration, and the result text when the caller has it", () => {
    const a = receipt.tickets.find((t) => t.id === "a");
    expect(a?.attempts).toHaveLength(1);
    expect(a?.attempts[0]).toMatchObject({
      n: 1,
      outcome: "complete",
      duration_ms: 1_500,
      result: "hello!",
    });
    const c = receipt.tickets.find((t) => t.id === "c");
    expect(c?.attempts[0]).toMatchObject({
      outcome: "failed",
      reason: "exit 1: boom",
      duration_ms: 3_000,
    });
    expect(c?.attempts[0]?.result).toBeUndefined();
  });

  it("shows the live attempt of a claimed ticket, without a duration", () => {
    const r = receipt.tickets.find((t) => t.id === "r");
    expect(r?.status).toBe("claimed");
    expect(r?.attempts.at(-1)).toMatchObject({ n: 1, claimed_by: "runner" });
    expect(r?.attempts.at(-1)?.duration_ms).toBeUndefined();
    expect(r?.attempts.at(-1)?.outcome).toBeUndefined();
  });

  it("totals usage across attempts", () => {
    expect(receipt.usage).toEqual({ tokens: 15, cost: 0.5 });
  });

  it("lists open questions with the attempt that asked", () => {
    expect(receipt.questions).toEqual([{ ticket: "q", attempt: 1, question: "Tabs or spaces?" }]);
    expect(receipt.tickets.find((t) => t.id === "q")?.question).toBe("Tabs or spaces?");
  });

  it("groups blockers by root cause and carries the open remainder, waves and critical path", () => {
    expect(receipt.blockers).toEqual(f.blockerGroups());
    expect(receipt.blockers[0]).toMatchObject({
      root: "c",
      root_status: "failed",
      tickets: ["d", "e"],
    });
    expect(receipt.remainder).toEqual(remainderOf(f, T + 10_000));
    expect(receipt.remainder.map((r) => r.id).sort()).toEqual([
      "c",
      "d",
      "e",
      "l",
      "p",
      "q",
      "r",
      "y",
    ]);
    expect(receipt.waves).toEqual(f.waves());
    expect(receipt.critical_path).toEqual(f.criticalPath());
  });

  it("is what every renderer takes", () => {
    const md = renderMarkdown(receipt, { marker: "ticket-frontier:demo" });
    expect(md).toContain("`c` **failed**");
    expect(md).toContain("`/answer q YOUR ANSWER`");
    const html = renderHtml(receipt);
    expect(html.match(/<details class="ticket /g)).toHaveLength(10);
  });

  it("carries each ticket's task, its markdown body as written", () => {
    expect(receipt.tickets.find((t) => t.id === "c")?.task).toBe("do c");
  });

  it("says where the run ran when the caller says so, and the reports follow it", () => {
    expect(receipt.where).toBeUndefined();
    const local = buildReceipt(run(), { now: T + 10_000, where: "local" });
    expect(local.where).toBe("local");
    expect(Receipt.safeParse(local).success).toBe(true);
    const md = renderMarkdown(local, { marker: "ticket-frontier:demo" });
    expect(md).toContain('`frontier answer DIR q "YOUR ANSWER"`');
    expect(md).not.toContain("/answer");
    expect(renderHtml(local)).toContain('frontier answer DIR q "YOUR ANSWER"');
  });

  it("builds without optional inputs: no goal, no links, no result texts", () => {
    const bare = buildReceipt(run(), { now: T });
    expect(bare.goal).toBeUndefined();
    expect(bare.links).toBeUndefined();
    expect(bare.tickets[0]?.attempts[0]?.result).toBeUndefined();
    expect(Receipt.safeParse(bare).success).toBe(true);
  });
});
