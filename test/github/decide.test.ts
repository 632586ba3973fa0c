/**
 * One try of an event on GitHub, decided without a request: given the same read, the
 * same time and the same tokens it decides the same commit, and the outbox's resend
 * rule is a decision on what the runs listing showed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { BranchRead } from "../../src/github/branch.js";
import { type Decision, decide, type TryInput } from "../../src/github/decide.js";
import { advanceOnly, settleEvent } from "../../src/github/events.js";
import type { RunContext } from "../../src/github/run-context.js";
import { loadTickets, type RunSource } from "../../src/github/source.js";
import { shardDirPath, statePath } from "../../src/github/state.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const T0 = Date.parse("2026-12-01T10:00:00Z");

async function sourceOf(tickets: Record<string, string>): Promise<RunSource> {
  const root = mkdtempSync(join(tmpdir(), "frontier-decide-"));
  roots.push(root);
  const dir = join(root, "tickets");
  mkdirSync(dir);
  const files = new Map<string, string>();
  for (const [name, text] of Object.entries(tickets)) {
    writeFileSync(join(dir, name), text);
    files.set(name, text);
  }
  const loaded = await loadTickets(dir, "tickets");
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  return { ...loaded, read, files, digest: "sha256:x" };
}

function context(log: string[] = []): RunContext {
  // decide makes no request: a context without a client proves it
  return {
    branch: "main",
    dir: "tickets",
    workflow: "orch-task.yml",
    flags: {},
    sha: "a".repeat(40),
    claimedBy: "github:orch-task.yml@main",
    claimToken: (ticket: string, attempt: number) => `c-${ticket}-${attempt}`,
    links: {},
    log: (line: string) => log.push(line),
  } as unknown as RunContext;
}

const empty: BranchRead = { head: "h0", tree: "t0", files: new Map(), dirs: new Map() };

/** The branch as it is after a commit of `decision`, for the next event's read. */
function readAfterCommit(before: BranchRead, decision: Decision, head: string): BranchRead {
  if (decision.kind !== "commit") throw new Error(`expected a commit, got ${decision.kind}`);
  const files = new Map(before.files);
  const dirs = new Map([...before.dirs].map(([k, v]) => [k, new Map(v)]));
  const shardDir = shardDirPath("tickets");
  for (const [path, text] of decision.additions) {
    const blob = typeof text === "string" ? text : Buffer.from(text).toString("utf8");
    if (path.startsWith(`${shardDir}/`)) {
      const shards = dirs.get(shardDir) ?? new Map<string, string>();
      shards.set(path.slice(shardDir.length + 1), blob);
      dirs.set(shardDir, shards);
    } else files.set(path, blob);
  }
  for (const path of decision.deletions) files.delete(path);
  return { head, tree: `${head}^{tree}`, files, dirs };
}

function input(over: Partial<TryInput> & Pick<TryInput, "source">): TryInput {
  return {
    ctx: context(),
    event: advanceOnly,
    label: "push",
    eventId: "e1",
    now: T0,
    read: empty,
    state: undefined,
    foreign: undefined,
    mayStart: true,
    drainOutbox: true,
    seen: undefined,
    ...over,
  };
}

/** The decision as a commit: a test that expects one fails on any other kind, never passes by returning early. */
function commitOf(d: Decision): Extract<Decision, { kind: "commit" }> {
  if (d.kind !== "commit") throw new Error(`expected a commit, the decision was ${d.kind}`);
  return d;
}

const a = "---\ntitle: A\n---\nDo A.\n";
const b = "---\ntitle: B\ndepends_on: [a]\n---\nDo B.\n";

describe("one try of an event, decided without a request", () => {
  it("the same read, time and tokens decide the same commit, claiming the ready frontier", async () => {
    const source = await sourceOf({ "a.md": a, "b.md": b });
    const first = commitOf(decide(input({ source })));
    const again = commitOf(decide(input({ source })));
    expect(again.additions).toEqual(first.additions);
    expect(again.deletions).toEqual(first.deletions);
    expect(again.message).toBe(first.message);
    expect(again.decided.sends).toEqual(first.decided.sends);
    expect(first.decided.sends).toEqual([
      { ticket: "a", attempt: 1, claim: "c-a-1", workflow: "orch-task.yml" },
    ]);
    expect(first.additions.has(statePath("tickets"))).toBe(true);
    expect(first.message).toMatch(/claim a#1/);
  });

  it("an event's own claims are sent once, never taken for overdue, whatever the lag", async () => {
    const source = await sourceOf({ "a.md": a, "b.md": b });
    const ctx = { ...context(), outboxLagMs: 0 } as RunContext;
    const first = commitOf(decide(input({ source, ctx })));
    expect(first.decided.sends.map((s) => s.ticket)).toEqual(["a"]);
  });

  it("a branch without a run is left alone by an event that may not start one", async () => {
    const source = await sourceOf({ "a.md": a });
    const decision = decide(input({ source, mayStart: false, label: "sweep" }));
    expect(decision.kind).toBe("no-run");
    if (decision.kind === "no-run") {
      expect(decision.decided.result).toMatchObject({ kind: "rejected" });
      expect(decision.decided.sends).toEqual([]);
    }
  });

  it("a claim no run carries two minutes after its commit is looked for once, then sent again only when absent", async () => {
    const source = await sourceOf({ "a.md": a, "b.md": b });
    const start = decide(input({ source }));
    const read = readAfterCommit(empty, start, "h1");
    const state = start.kind === "commit" ? start.decided.state : undefined;
    const later = T0 + 3 * 60_000;
    const base = { source, read, state, now: later, eventId: "e2", label: "sweep" };

    const ask = decide(input(base));
    expect(ask).toEqual({
      kind: "search-runs",
      entries: [expect.objectContaining({ claim: "c-a-1", workflow: "orch-task.yml" })],
    });

    const found = decide(
      input({
        ...base,
        seen: { runs: new Map([["c-a-1", { id: 7, url: "u" }]]), searched: new Set(["c-a-1"]) },
      }),
    );
    expect(found.kind).toBe("commit");
    if (found.kind === "commit") {
      expect(found.decided.sends).toEqual([]);
      expect(found.decided.state.outbox?.a).toMatchObject({ status: "sent", run_id: 7 });
    }

    const log: string[] = [];
    const absent = decide(
      input({
        ...base,
        ctx: context(log),
        seen: { runs: new Map(), searched: new Set(["c-a-1"]) },
      }),
    );
    expect(absent.kind).toBe("commit");
    if (absent.kind === "commit") {
      expect(absent.decided.sends).toEqual([
        { ticket: "a", attempt: 1, claim: "c-a-1", workflow: "orch-task.yml" },
      ]);
      expect(absent.decided.state.outbox?.a).toMatchObject({ status: "resent", sends: 2 });
    }
    expect(log.join("\n")).toMatch(/no workflow run carries claim c-a-1 180s after/);

    // a listing that could not be read sends nothing again
    const unread = decide(
      input({ ...base, seen: { runs: undefined, searched: new Set(["c-a-1"]) } }),
    );
    expect(unread.kind === "commit" ? unread.decided.sends : []).toEqual([]);
  });

  it("a settle records the outcome and claims what became ready in the same commit", async () => {
    const source = await sourceOf({ "a.md": a, "b.md": b });
    const start = decide(input({ source }));
    const read = readAfterCommit(empty, start, "h1");
    const state = start.kind === "commit" ? start.decided.state : undefined;
    const settle = decide(
      input({
        source,
        read,
        state,
        now: T0 + 10_000,
        eventId: "e2",
        label: "settle a#1",
        event: settleEvent({
          ticket: "a",
          attempt: 1,
          claim: "c-a-1",
          outcome: "complete",
          result: "A done",
          by: "job",
        }),
      }),
    );
    expect(settle.kind).toBe("commit");
    if (settle.kind !== "commit") return;
    expect(settle.decided.state.tickets.a?.status).toBe("complete");
    expect(settle.decided.sends.map((s) => s.ticket)).toEqual(["b"]);
    expect([...settle.additions.keys()].some((p) => p.endsWith("results/a@1.md"))).toBe(true);
    expect(settle.decided.state.events).toEqual(["e1", "e2"]);
  });
});
