/**
 * Ticket files during a run: one that cannot be written is that ticket's problem alone,
 * a result on disk is never discarded, and the author's bytes are kept exactly.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CLI,
  counted,
  executions,
  fileStatus,
  frontier,
  makeGraph,
  receipt,
  run,
  ticketOf,
} from "./harness.js";

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});

describe("a ticket file that cannot be written is that ticket's problem alone", () => {
  it("an executor breaking its own ticket's YAML neither stops the others nor loses its result", async () => {
    const g = makeGraph({ a: { title: "A" }, b: { title: "B" }, c: { depends_on: ["a"] } });
    const exec = counted(
      g.marks,
      `case $FRONTIER_TICKET in
         a) sed -i 's/^title: A/title: [oops/' "$FRONTIER_TICKET_FILE"; echo result-of-a ;;
         b) sleep 1; echo result-of-b ;;
         *) echo "result-of-$FRONTIER_TICKET" ;;
       esac`,
    );
    const first = await run(g, exec);
    expect(first.stderr).toMatch(/a\.md: .*not valid YAML.*fix the file/);
    expect(first.code).toBe(1);
    // b ran to its end beside it, and c (a's dependent) ran too: a is complete
    expect(fileStatus(g, "b")).toBe("complete");
    expect(fileStatus(g, "c")).toBe("complete");
    const record = JSON.parse(
      readFileSync(join(g.dir, ".frontier", "attempts", "a@1.json"), "utf8"),
    ) as { outcome: string };
    expect(record.outcome).toBe("complete");
    expect(readFileSync(join(g.dir, ".frontier", "results", "a@1.md"), "utf8")).toBe(
      "result-of-a\n",
    );

    // the author fixes the file: nothing runs again, a is complete with its result
    const file = join(g.dir, "a.md");
    writeFileSync(file, readFileSync(file, "utf8").replace("title: [oops", "title: A"));
    const second = await run(g, exec);
    expect(second.code).toBe(0);
    expect(executions(g)).toEqual({ a: 1, b: 1, c: 1 });
    expect(ticketOf(receipt(g), "a").status).toBe("complete");
    expect(fileStatus(g, "a")).toBe("complete");
  });
});

describe("a result on disk is never discarded", () => {
  it("a run killed between writing a result and its attempt record: the attempt is complete, not run again", async () => {
    const g = makeGraph({ b: { depends_on: ["a"] } });
    // what the killed run left: a claimed, its result written, no attempt record
    writeFileSync(
      join(g.dir, "a.md"),
      `---\ntitle: A\nstatus: claimed\nattempt: 1\nclaimed_by: "local:${hostname()}:4194000"\nclaimed_at: "2026-01-01T00:00:00.000Z"\nclaim: "a#1-0badf00d"\nupdated_at: "2026-01-01T00:00:00.000Z"\n---\n# A\n`,
    );
    mkdirSync(join(g.dir, ".frontier", "results"), { recursive: true });
    writeFileSync(join(g.dir, ".frontier", "results", "a@1.md"), "what a found\n");
    const r = await run(g, counted(g.marks, "cat > /dev/null; echo done"));
    expect(r.code).toBe(0);
    expect(executions(g)).toEqual({ b: 1 });
    const a = ticketOf(receipt(g), "a");
    expect(a.status).toBe("complete");
    expect(a.attempts).toHaveLength(1);
    expect(a.attempts[0]).toMatchObject({ n: 1, outcome: "complete" });
    // b was given a's result
    const context = await frontier(["context", g.dir, "b"]);
    expect(context.stdout).toContain("what a found");
  });
});

describe("a run killed between an attempt's record and its ticket file", () => {
  it("status shows the recorded outcome before the run resumes; the resumed run keeps it and its result", async () => {
    const g = makeGraph({ b: { depends_on: ["a"] } });
    // what the killed run left: a's file holds the claim, its result and record are written
    const claim = "a#1-0badf00d";
    const by = `local:${hostname()}:4194000`;
    writeFileSync(
      join(g.dir, "a.md"),
      `---\ntitle: A\nstatus: claimed\nattempt: 1\nclaimed_by: "${by}"\nclaimed_at: "2026-01-01T00:00:00.000Z"\nclaim: "${claim}"\nupdated_at: "2026-01-01T00:00:00.000Z"\n---\n# A\n`,
    );
    mkdirSync(join(g.dir, ".frontier", "results"), { recursive: true });
    mkdirSync(join(g.dir, ".frontier", "attempts"), { recursive: true });
    writeFileSync(join(g.dir, ".frontier", "results", "a@1.md"), "what a found\n");
    const ended = "2026-01-01T00:00:01.000Z";
    writeFileSync(
      join(g.dir, ".frontier", "attempts", "a@1.json"),
      JSON.stringify({
        n: 1,
        claim,
        claimed_by: by,
        started_at: "2026-01-01T00:00:00.000Z",
        result_file: ".frontier/results/a@1.md",
        result_bytes: 13,
        settled_by: by,
        outcome: "complete",
        ended_at: ended,
      }),
    );

    const status = await frontier(["status", g.dir, "--json"]);
    expect(status.code).toBe(0);
    const before = JSON.parse(status.stdout) as {
      tickets: Array<{ id: string; status: string; updated_at?: string }>;
    };
    const shownA = before.tickets.find((t) => t.id === "a");
    expect(shownA).toMatchObject({ status: "complete", updated_at: ended });
    expect(before.tickets.find((t) => t.id === "b")?.status).toBe("ready");

    const r = await run(g, counted(g.marks, "cat > /dev/null; echo done"));
    expect(r.code).toBe(0);
    expect(executions(g)).toEqual({ b: 1 });
    const a = ticketOf(receipt(g), "a");
    expect(a.attempts.map((x) => [x.outcome, x.result])).toEqual([["complete", "what a found\n"]]);
    expect(fileStatus(g, "a")).toBe("complete");
    const context = await frontier(["context", g.dir, "b"]);
    expect(context.stdout).toContain("what a found");
  });
});

describe("the author's bytes are kept exactly", () => {
  it("a body holding bytes that are not UTF-8 is written back byte for byte", async () => {
    const g = makeGraph({ a: {} });
    const file = join(g.dir, "a.md");
    const body = Buffer.from([0x23, 0x20, 0x41, 0x0a, 0xff, 0xfe, 0x80, 0x20, 0xc3, 0x0a]);
    writeFileSync(file, Buffer.concat([Buffer.from("---\ntitle: A\n---\n"), body]));
    const r = await run(g, "echo done");
    expect(r.code).toBe(0);
    const after = readFileSync(file);
    expect(fileStatus(g, "a")).toBe("complete");
    expect(after.subarray(after.length - body.length).equals(body)).toBe(true);
  });
});
