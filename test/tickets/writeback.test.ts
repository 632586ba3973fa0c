import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Changes } from "../../src/core/engine.js";
import type {
  AnswerRecord,
  AttemptRecord,
  RunRecord,
  TicketSpec,
  TicketState,
} from "../../src/core/model.js";
import type { EngineFields } from "../../src/tickets/fields.js";
import { splitFrontMatter } from "../../src/tickets/frontmatter.js";
import { parseTicket } from "../../src/tickets/parse.js";
import { editFrontMatter, planWrites, yamlString } from "../../src/tickets/writeback.js";
import { runs } from "../support/runs.js";
import { ok } from "./helpers.js";

const AUTHOR_PART = [
  "# what this ticket is for",
  "id:    plan   # odd spacing stays",
  "title: 'Plan the ''retry'' redesign — café ☕'",
  'agent: "writer"',
  "",
  "# dependencies, in the order I want them",
  "depends_on:",
  "  - research   # first",
  "  - '010'",
  "priority: 010",
  "owner: ana # an unknown field, kept",
];
const BODY = [
  "# Plan",
  "",
  "Unicode: naïve résumé 日本語 🚀",
  "",
  "```yaml",
  "status: complete",
  "---",
  "attempt: 9",
  "```",
  "",
  "---",
  "trailing text with spaces   ",
  "",
].join("\n");

function ticket(eol: string, engine: string[] = []): string {
  return `---${eol}${[...AUTHOR_PART, ...engine].join(eol)}${eol}---${eol}${BODY.replaceAll("\n", eol)}`;
}

const STATE: EngineFields = {
  status: "failed",
  attempt: 2,
  claimed_by: "runner-1",
  claimed_at: "2026-01-02T10:00:00.000Z",
  claim: "c-2",
  blocked_by: { ticket: "010", kind: "dep-failed", root: "root.ticket" },
  reason: "exit 1: boom # not a comment\n---\nstill the reason: yes",
  updated_at: "2026-01-02T10:05:00.000Z",
};

describe("writing state back keeps the author's part and the body byte-for-byte", () => {
  for (const [name, eol] of [
    ["LF", "\n"],
    ["CRLF", "\r\n"],
  ] as const) {
    test(`${name}: comments, odd spacing, unicode and a fenced status: line all stay`, () => {
      const before = ticket(eol);
      const after = editFrontMatter(before, STATE);
      const authorPart = `---${eol}${AUTHOR_PART.join(eol)}${eol}`;
      expect(after.startsWith(authorPart)).toBe(true);
      expect(after.endsWith(`${eol}---${eol}${BODY.replaceAll("\n", eol)}`)).toBe(true);
      const read = ok(after, "plan.md");
      expect(read.spec.body).toBe(BODY.replaceAll("\n", eol));
      expect(read.fields).toEqual(STATE);
      expect(read.spec.dependsOn).toEqual(["research", "010"]);
      expect(read.spec.title).toBe("Plan the 'retry' redesign — café ☕");
      expect(read.spec.priority).toBe(10);
    });

    test(`${name}: rewriting existing engine fields edits them in place and removes cleared ones`, () => {
      const first = editFrontMatter(ticket(eol), STATE);
      const second = editFrontMatter(first, {
        status: "ready",
        attempt: 3,
        claimed_by: undefined,
        claimed_at: undefined,
        claim: undefined,
        blocked_by: undefined,
        reason: undefined,
        updated_at: "2026-01-03T00:00:00.000Z",
      });
      expect(second).toBe(
        ticket(eol, ["status: ready", "attempt: 3", 'updated_at: "2026-01-03T00:00:00.000Z"']),
      );
      expect(ok(second).fields).toEqual({
        status: "ready",
        attempt: 3,
        updated_at: "2026-01-03T00:00:00.000Z",
      });
    });
  }

  test("writing the same state twice changes nothing the second time", () => {
    const once = editFrontMatter(ticket("\n"), STATE);
    expect(editFrontMatter(once, STATE)).toBe(once);
  });

  test("fields not given are left alone", () => {
    const t = "---\nid: a\nstatus: ready\nreason: kept\n---\n";
    expect(editFrontMatter(t, { status: "claimed" })).toBe(
      "---\nid: a\nstatus: claimed\nreason: kept\n---\n",
    );
  });

  test("an engine field the author left in block form is replaced whole", () => {
    const t =
      "---\nblocked_by:\n  ticket: a\n  kind: dep-failed\n  root: a\n# about the title\ntitle: T\n---\nbody";
    expect(editFrontMatter(t, { blocked_by: undefined, status: "pending" })).toBe(
      "---\n# about the title\ntitle: T\nstatus: pending\n---\nbody",
    );
  });

  test("a multi-line reason written by hand is replaced without eating the next line", () => {
    const t = "---\nreason: |\n  line one\n  line two\ntitle: T\n---\n";
    expect(editFrontMatter(t, { reason: "short" })).toBe("---\nreason: short\ntitle: T\n---\n");
  });

  test("a file without front matter gets one, and its text stays as the body", () => {
    const body = "# Title\n\n----\nno front matter here\n";
    const after = editFrontMatter(body, { status: "complete", attempt: 1 });
    expect(after).toBe(`---\nstatus: complete\nattempt: 1\n---\n${body}`);
    expect(ok(after).spec.body).toBe(body);
    expect(editFrontMatter("", { status: "ready" })).toBe("---\nstatus: ready\n---\n");
  });

  test("a byte order mark stays first", () => {
    const after = editFrontMatter("\ufeff# T\n", { status: "ready" });
    expect(after).toBe("\ufeff---\nstatus: ready\n---\n# T\n");
    expect(ok(after).fields.status).toBe("ready");
  });

  test("an empty front matter gets the fields", () => {
    expect(editFrontMatter("---\n---\nbody", { status: "ready" })).toBe(
      "---\nstatus: ready\n---\nbody",
    );
  });

  test("a flow-mapping front matter is edited through the YAML document, still correct", () => {
    const after = editFrontMatter("---\n{id: a, status: ready}\n---\nbody", {
      status: "failed",
      reason: "x",
    });
    const read = ok(after, "a.md");
    expect(read.spec.id).toBe("a");
    expect(read.fields).toEqual({ status: "failed", reason: "x" });
    expect(read.spec.body).toBe("body");
  });

  test("indented front matter keeps its indentation", () => {
    const after = editFrontMatter("---\n  id: a\n  status: ready\n---\n", {
      status: "failed",
      attempt: 1,
    });
    expect(after).toBe("---\n  id: a\n  status: failed\n  attempt: 1\n---\n");
  });

  test("a ticket that is not valid YAML is never rewritten", () => {
    expect(() => editFrontMatter("---\nid: [a\n---\n", { status: "ready" })).toThrow(
      /not valid YAML/,
    );
    expect(() => editFrontMatter("---js\n{}\n---\n", { status: "ready" })).toThrow();
  });
});

describe("engine fields are always safe YAML scalars", () => {
  test("simple words are plain, everything else is quoted", () => {
    expect(yamlString("runner-1")).toBe("runner-1");
    expect(yamlString("010")).toBe('"010"');
    expect(yamlString("yes")).toBe('"yes"');
    expect(yamlString("a: b")).toBe('"a: b"');
    expect(yamlString("2026-01-02")).toBe('"2026-01-02"');
    expect(yamlString("x\u2028y")).toBe('"x\\u2028y"');
  });

  test("any reason, claim or id round-trips exactly (property)", () => {
    const text = fc.oneof(
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        "---",
        "a\n---\nb",
        ": ",
        "# x",
        "'",
        '"',
        "\\",
        "\r\n",
        " lead",
        "trail ",
        "~",
        "null",
        "010",
      ),
    );
    fc.assert(
      fc.property(
        text,
        text,
        fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/),
        fc.constantFrom("\n", "\r\n"),
        (reason, claim, id, eol) => {
          const fields: EngineFields = {
            status: "failed",
            reason,
            claim,
            blocked_by: { ticket: id, kind: "dep-blocked", root: id },
          };
          const before = `---${eol}id: t # keep${eol}---${eol}body ${reason}`;
          const after = editFrontMatter(before, fields);
          const r = parseTicket(after, "t.md", 0);
          expect(r.kind).toBe("ok");
          if (r.kind !== "ok") return false;
          expect(r.fields).toEqual(fields);
          expect(r.spec.body).toBe(`body ${reason}`);
          expect(after.startsWith(`---${eol}id: t # keep${eol}`)).toBe(true);
          return true;
        },
      ),
      { numRuns: runs(1500) },
    );
  });

  test("the body never moves, whatever the author's front matter (property)", () => {
    const line = fc.constantFrom(
      "id: a",
      "# comment",
      "",
      "status: ready",
      "reason: old # c",
      "depends_on:\n  - b",
      "blocked_by: {ticket: a, kind: dep-failed, root: a}",
      "title: 'x'",
      "attempt: 1",
    );
    fc.assert(
      fc.property(fc.uniqueArray(line, { maxLength: 6 }), fc.string(), (ls, body) => {
        const text = `---\n${ls.join("\n")}\n---\n${body}`;
        const split = splitFrontMatter(text);
        if (split.kind !== "front" || parseTicket(text, "a.md", 0).kind !== "ok") return true;
        const after = editFrontMatter(text, { status: "complete", attempt: 2, reason: undefined });
        const s2 = splitFrontMatter(after);
        expect(s2.kind).toBe("front");
        if (s2.kind !== "front") return false;
        expect(after.slice(s2.bodyStart)).toBe(text.slice(split.bodyStart));
        expect(ok(after, "a.md").fields).toMatchObject({ status: "complete", attempt: 2 });
        return true;
      }),
      { numRuns: runs(800) },
    );
  });
});

describe("planWrites: every file the engine's changes need", () => {
  const specs: Record<string, TicketSpec> = {
    a: {
      id: "a",
      title: "A",
      file: "a.md",
      dependsOn: [],
      inputs: [],
      writeScope: [],
      priority: 0,
      body: "",
      order: 0,
    },
    b: {
      id: "b",
      title: "B",
      file: "b.md",
      dependsOn: ["a"],
      inputs: ["a"],
      writeScope: [],
      priority: 0,
      body: "",
      order: 1,
    },
  };
  const states: Record<string, TicketState> = {
    a: { status: "complete", attempt: 1, attempts: [], answers: [], updated_at: "t1" },
    b: {
      status: "claimed",
      attempt: 1,
      claim: "k",
      claimed_by: "me",
      claimed_at: "t1",
      attempts: [],
      answers: [],
    },
  };
  const run: RunRecord = { schema: "ticket-frontier/run@1", run: "r", dispatched: 2 };
  const engine = {
    spec: (id: string) => specs[id],
    state: (id: string) => states[id],
    runRecord: () => run,
  };
  const files: Record<string, string> = { "a.md": "---\nid: a\n---\n# A\n", "b.md": "# B\n" };
  const attempt: AttemptRecord = {
    n: 1,
    claim: "j",
    claimed_by: "me",
    started_at: "t0",
    ended_at: "t1",
    outcome: "complete",
    result_file: ".frontier/results/a@1.md",
  };
  const answer: AnswerRecord = {
    n: 1,
    attempt: 1,
    question: "q?",
    text: "yes",
    by: "ana",
    at: "t2",
  };

  test("records are created, tickets and run.json replaced, the worklog appended — in that order", () => {
    const changes: Changes = {
      tickets: ["a", "b"],
      attempts: [{ ticket: "a", record: attempt }],
      answers: [{ ticket: "b", record: answer }],
      log: [
        { at: "t1", event: "settle", ticket: "a", attempt: 1, outcome: "complete" },
        { at: "t1", event: "claim", ticket: "b", attempt: 1 },
      ],
      run: true,
    };
    const edits = planWrites(changes, engine, (f) => files[f]!);
    expect(edits.map((e) => [e.kind, e.path])).toEqual([
      ["create", ".frontier/attempts/a@1.json"],
      ["create", ".frontier/answers/b@1.json"],
      ["replace", "a.md"],
      ["replace", "b.md"],
      ["replace", ".frontier/run.json"],
      ["append", ".frontier/worklog.jsonl"],
    ]);
    expect(JSON.parse(edits[0]!.content)).toEqual(attempt);
    expect(JSON.parse(edits[1]!.content)).toEqual(answer);
    expect(edits[2]!.content).toBe(
      "---\nid: a\nstatus: complete\nattempt: 1\nupdated_at: t1\n---\n# A\n",
    );
    expect(ok(edits[3]!.content, "b.md").fields).toEqual({
      status: "claimed",
      attempt: 1,
      claim: "k",
      claimed_by: "me",
      claimed_at: "t1",
    });
    expect(JSON.parse(edits[4]!.content)).toEqual(run);
    const log = edits[5]!.content.split("\n");
    expect(log).toHaveLength(3);
    expect(log[2]).toBe("");
    expect(JSON.parse(log[0]!)).toMatchObject({ event: "settle", ticket: "a" });
  });

  test("nothing changed, nothing written", () => {
    expect(
      planWrites({ tickets: [], attempts: [], answers: [], log: [], run: false }, engine, () => ""),
    ).toEqual([]);
  });

  test("a ticket whose file already holds its state is not rewritten", () => {
    const text = editFrontMatter(files["a.md"]!, {
      status: "complete",
      attempt: 1,
      updated_at: "t1",
    });
    const edits = planWrites(
      { tickets: ["a"], attempts: [], answers: [], log: [], run: false },
      engine,
      () => text,
    );
    expect(edits).toEqual([]);
  });

  test("a ticket file broken while the run went on is named in the error", () => {
    expect(() =>
      planWrites(
        { tickets: ["a"], attempts: [], answers: [], log: [], run: false },
        engine,
        () => "---\nid: [a\n---\n",
      ),
    ).toThrow(/^a\.md: the ticket's front matter is not valid YAML — fix the file/);
  });
});
