/**
 * A rehearsal of one event on a two-ticket run, in memory, before the branch is read.
 *
 * A step is a fresh process: the first call of each function the decision uses (the
 * engine, the state's parse and serialisation, the front-matter editor) is compiled
 * when it is first called. Paid inside the read → commit window, that time widens the
 * chance that another event commits first and this one must read and commit again;
 * paid here, before the read, it costs nothing but itself. Nothing here reads or writes
 * anything outside memory, and a rehearsal that fails changes nothing.
 */
import type { TicketSpec } from "../core/model.js";
import type { BlobText, BranchRead } from "./branch.js";
import { type Decision, decide, type TryInput } from "./decide.js";
import { settleEvent } from "./events.js";
import type { RunContext } from "./run-context.js";
import type { RunSource } from "./source.js";
import { shardDirPath, stateOfRead } from "./state.js";

let rehearsed = false;

/**
 * Rehearse a start and a settle once per process (later calls do nothing); whether it
 * ran through.
 */
export function rehearse(ctx: RunContext): boolean {
  if (rehearsed) return false;
  rehearsed = true;
  try {
    const texts: Record<string, string> = {
      "a.md": "---\ntitle: A\n---\nDo A.\n",
      "b.md": "---\ntitle: B\ndepends_on: [a]\n---\nDo B.\n",
    };
    const spec = (id: string, order: number, dependsOn: string[]): TicketSpec => ({
      id,
      title: id.toUpperCase(),
      file: `${id}.md`,
      dependsOn,
      inputs: [],
      writeScope: [],
      priority: 0,
      body: `Do ${id.toUpperCase()}.\n`,
      order,
    });
    const source: RunSource = {
      settings: { run: "rehearsal" },
      specs: [spec("a", 0, []), spec("b", 1, ["a"])],
      warnings: [],
      read: (file) => texts[file] ?? "",
      files: new Map(Object.entries(texts)),
    };
    const quiet: RunContext = {
      ...ctx,
      log: () => {},
      claimToken: (ticket, attempt) => `r-${ticket}-${attempt}`,
    };
    delete quiet.debug;
    const now = ctx.clock();
    const empty: BranchRead = { head: "r0", files: new Map(), dirs: new Map() };
    const base: TryInput = {
      ctx: quiet,
      event: () => ({ kind: "ok", changed: [] }),
      label: "rehearsal",
      eventId: "r0",
      now,
      read: empty,
      state: undefined,
      foreign: undefined,
      source,
      digest: "sha256:rehearsal",
      mayStart: true,
      drainOutbox: true,
      seen: undefined,
    };
    const start = decide(base);
    const read = readAfter(ctx.dir, empty, start, "r1");
    if (!read) return false;
    const state = stateOfRead(ctx.dir, read);
    const claim = state?.tickets.a?.claim;
    if (!state || claim === undefined) return false;
    const settled = decide({
      ...base,
      event: settleEvent({
        ticket: "a",
        attempt: 1,
        claim,
        outcome: "complete",
        result: "A done.",
        by: "rehearsal",
      }),
      eventId: "r1",
      now: now + 1000,
      read,
      state,
    });
    return settled.kind === "commit" && settled.decided.sends.some((s) => s.ticket === "b");
  } catch {
    // a rehearsal is no more than a warm-up
    return false;
  }
}

/** The branch as a commit of `decision` leaves it (what the next read would find). */
export function readAfter(
  dir: string,
  before: BranchRead,
  decision: Decision,
  head: string,
): BranchRead | undefined {
  if (decision.kind !== "commit") return undefined;
  const files = new Map(before.files);
  const dirs = new Map([...before.dirs].map(([k, v]) => [k, new Map(v)]));
  const shardDir = shardDirPath(dir);
  for (const [path, text] of decision.additions) {
    const blob = {
      oid: path,
      text: typeof text === "string" ? text : Buffer.from(text).toString("utf8"),
    };
    if (path.startsWith(`${shardDir}/`)) {
      const shards = dirs.get(shardDir) ?? new Map<string, BlobText>();
      shards.set(path.slice(shardDir.length + 1), blob);
      dirs.set(shardDir, shards);
    } else files.set(path, blob);
  }
  for (const path of decision.deletions) files.delete(path);
  return { head, files, dirs };
}
