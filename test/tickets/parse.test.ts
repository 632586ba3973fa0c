import { describe, expect, test } from "vitest";
import { parseTicket } from "../../src/tickets/parse.js";
import { formatProblem } from "../../src/tickets/problems.js";
import { lines, ok, problems, spec } from "./helpers.js";

describe("a ticket's fields and their defaults", () => {
  test("a file without front matter is a ticket with every default", () => {
    const s = spec("Look into the retry storm.\n", "research.md");
    expect(s).toMatchObject({
      id: "research",
      title: "research",
      file: "research.md",
      dependsOn: [],
      inputs: [],
      writeScope: [],
      priority: 0,
      body: "Look into the retry storm.\n",
    });
    expect(s.executor).toBeUndefined();
    expect(s.bound).toBeUndefined();
    expect(s.retries).toBeUndefined();
  });

  test("id defaults to the file name without .md", () => {
    expect(spec("---\ntitle: x\n---\n", "plan-2.md").id).toBe("plan-2");
  });

  test("title defaults to the first # heading of the body, else the id", () => {
    expect(spec("---\n---\nintro\n## Sub\n# The Plan #\n# Later\n", "p.md").title).toBe("The Plan");
    expect(spec("```\n# not a heading\n```\n", "p.md").title).toBe("p");
    expect(spec("---\ntitle: Given\n---\n# Heading\n").title).toBe("Given");
  });

  test("depends_on is a list or one string; inputs default to all of it, in order", () => {
    const s = spec("---\ndepends_on: [b, a]\n---\n");
    expect(s.dependsOn).toEqual(["b", "a"]);
    expect(s.inputs).toEqual(["b", "a"]);
    expect(spec("---\ndepends_on: research\n---\n").dependsOn).toEqual(["research"]);
    expect(spec("---\ndepends_on:\n  - a\n  - b\ninputs: [b]\n---\n").inputs).toEqual(["b"]);
    expect(spec("---\ndepends_on: [a]\ninputs: []\n---\n").inputs).toEqual([]);
  });

  test("executor, agent, write_scope (list or one string), retries and priority are read", () => {
    const s = spec(
      "---\nexecutor: review\nagent: writer\nwrite_scope: src/**\nretries: 2\npriority: -3\n---\n",
    );
    expect(s).toMatchObject({
      executor: "review",
      agent: "writer",
      writeScope: ["src/**"],
      retries: 2,
      priority: -3,
    });
  });

  test("a duration bound is the timeout and the lease; other text is passed on with a 60m lease", () => {
    expect(spec("---\nbound: 45s\n---\n").bound).toEqual({
      raw: "45s",
      timeoutMs: 45_000,
      leaseMs: 45_000,
    });
    expect(spec("---\nbound: 1h30m\n---\n").bound?.timeoutMs).toBe(90 * 60_000);
    expect(spec("---\nbound: 2h\n---\n").bound?.leaseMs).toBe(2 * 3_600_000);
    expect(spec("---\nbound: 1200ms\n---\n").bound?.timeoutMs).toBe(1200);
    expect(spec("---\nbound: 1h 30 min\n---\n").bound?.timeoutMs).toBe(90 * 60_000);
    expect(spec("---\nbound: 5 tool calls\n---\n").bound).toEqual({
      raw: "5 tool calls",
      leaseMs: 3_600_000,
    });
  });

  test("an empty value, ~ or null means the field is not set", () => {
    const s = spec("---\nid:\nexecutor: ~\ndepends_on: null\n---\n", "x.md");
    expect(s.id).toBe("x");
    expect(s.executor).toBeUndefined();
    expect(s.dependsOn).toEqual([]);
  });

  test("the body is everything after the closing ---, byte for byte", () => {
    const body = "\n# T\r\n\n```\nstatus: complete\n---\n```\n  trailing  \n";
    expect(spec(`---\nid: a\n---\n${body}`).body).toBe(body);
  });

  test("CRLF files read the same as LF files", () => {
    const s = spec("---\r\nid: a\r\ndepends_on: [b]\r\nstatus: ready\r\n---\r\n# T\r\n");
    expect(s.id).toBe("a");
    expect(s.title).toBe("T");
    expect(ok("---\r\nstatus: ready\r\n---\r\n").fields.status).toBe("ready");
  });

  test("engine-written fields are read back", () => {
    const r = ok(
      '---\nstatus: blocked\nattempt: 2\nclaimed_by: runner-1\nclaimed_at: "2026-01-02T10:00:00Z"\nclaim: tok\nblocked_by: {ticket: a, kind: dep-failed, root: a}\nreason: "x: y"\nupdated_at: 2026-01-02T10:00:00Z\n---\n',
    );
    expect(r.fields).toEqual({
      status: "blocked",
      attempt: 2,
      claimed_by: "runner-1",
      claimed_at: "2026-01-02T10:00:00Z",
      claim: "tok",
      blocked_by: { ticket: "a", kind: "dep-failed", root: "a" },
      reason: "x: y",
      updated_at: "2026-01-02T10:00:00Z",
    });
  });

  test("unknown fields are allowed and kept out of the way", () => {
    const r = ok("---\nowner: ana\nlabels: [x]\n---\n");
    expect(r.warnings).toEqual([]);
  });
});

describe("YAML's dates and octals do not silently change a value", () => {
  test("id: 2026-01-02 is the string 2026-01-02", () => {
    expect(spec("---\nid: 2026-01-02\n---\n").id).toBe("2026-01-02");
  });
  test("depends_on: [010] is the ticket 010, not 8 or 10", () => {
    const s = spec("---\ndepends_on: [010, 0x1F, 1e3, true]\n---\n");
    expect(s.dependsOn).toEqual(["010", "0x1F", "1e3", "true"]);
  });
  test("depends_on: 010 alone is the ticket 010", () => {
    expect(spec("---\ndepends_on: 010\n---\n").dependsOn).toEqual(["010"]);
  });
  test("title: 1.50 keeps its trailing zero, and a block list keeps 007", () => {
    expect(spec("---\ntitle: 1.50\n---\n").title).toBe("1.50");
    expect(spec("---\ndepends_on:\n  - 007\n---\n").dependsOn).toEqual(["007"]);
  });
  test("priority: 010 is ten (numbers are decimal where numbers are meant)", () => {
    expect(spec("---\npriority: 010\n---\n").priority).toBe(10);
  });
  test("timestamps stay text", () => {
    expect(ok("---\nclaimed_at: 2026-01-02 10:00:00\n---\n").fields.claimed_at).toBe(
      "2026-01-02 10:00:00",
    );
  });
});

describe("front matter is data: only YAML, never evaluated", () => {
  for (const lang of [
    "js",
    "javascript",
    "coffee",
    "coffeescript",
    "toml",
    "json",
    "JS",
    "python",
  ]) {
    test(`---${lang} front matter is a front-matter-language error on line 1`, () => {
      const ps = problems(`---${lang}\n{ "id": "a" }\n---\nbody\n`, "evil.md");
      expect(ps).toHaveLength(1);
      expect(ps[0]).toMatchObject({ kind: "front-matter-language", file: "evil.md", line: 1 });
      expect(formatProblem(ps[0]!)).toMatch(/^evil\.md:1: .*only YAML/);
    });
  }

  test("a ---js payload that would set a global never runs", () => {
    const g = globalThis as Record<string, unknown>;
    delete g.__frontierPwned;
    const payloads = [
      "---js\n{ id: (globalThis.__frontierPwned = 1, 'a') }\n---\n",
      "---javascript\nglobalThis.__frontierPwned = 1; ({ id: 'a' })\n---\n",
      "---js\n(function(){ globalThis.__frontierPwned = 1; return {} })()\n---\n",
      "---coffee\nglobalThis.__frontierPwned = 1\n---\n",
    ];
    for (const p of payloads) {
      expect(parseTicket(p, "evil.md", 0).kind).toBe("invalid");
    }
    expect(g.__frontierPwned).toBeUndefined();
  });

  test("---yaml is plain YAML", () => {
    expect(spec("---yaml\nid: a\n---\n").id).toBe("a");
  });

  test("YAML tags do not construct anything", () => {
    const r = parseTicket(
      "---\nid: !!js/function 'function(){}'\ntitle: !!binary aGk=\n---\n",
      "t.md",
      0,
    );
    if (r.kind === "ok") expect(typeof r.spec.id).toBe("string");
  });
});

describe("SPEC §2 checks of one file, each with its file and line", () => {
  test("malformed front matter names the line", () => {
    const ps = problems("---\nid: a\ndepends_on: [b\ntitle: x: y\n---\n", "plan.md");
    expect(ps[0]).toMatchObject({ kind: "malformed-front-matter", file: "plan.md" });
    expect(ps[0]!.line).toBeGreaterThanOrEqual(3);
    expect(lines(ps)[0]).toMatch(/^plan\.md:\d+: front matter is not valid YAML/);
  });

  test("an unclosed [ is reported on the line that opened it, quotes and comments aside", () => {
    const ps = problems('---\ntitle: "a [b" # [c\ndepends_on: [x, y\npriority: 1\n---\n', "p.md");
    expect(ps[0]).toMatchObject({ kind: "malformed-front-matter", line: 3 });
    expect(ps[0]!.message).toBe(
      "front matter is not valid YAML: the [ opened here is never closed",
    );
  });

  test("front matter that is never closed is malformed", () => {
    expect(problems("---\nid: a\n", "p.md")[0]).toMatchObject({
      kind: "malformed-front-matter",
      line: 1,
    });
  });

  test("front matter that is a list, not fields, is malformed", () => {
    expect(problems("---\n- a\n- b\n---\n")[0]).toMatchObject({
      kind: "malformed-front-matter",
      line: 2,
    });
  });

  test("a duplicate field is malformed, with its line", () => {
    expect(problems("---\nid: a\nid: b\n---\n")[0]).toMatchObject({
      kind: "malformed-front-matter",
      line: 3,
    });
  });

  test("a field of the wrong type names the field, what it got, and what to write", () => {
    const ps = problems("---\nid: a\ndepends_on: {x: 1}\n---\n", "plan.md");
    expect(lines(ps)).toEqual([
      "plan.md:3: depends_on must be a list of ticket ids, got a mapping — write depends_on: [research]",
    ]);
  });

  test("every wrong type in a file is reported, each on its line", () => {
    const ps = problems(
      "---\ntitle: [a]\nretries: -1\npriority: high\nstatus: done\nattempt: 1.5\nwrite_scope: {a: b}\nblocked_by: {ticket: a, kind: oops, root: a}\n---\n",
      "p.md",
    );
    expect(ps.map((p) => [p.kind, p.line])).toEqual([
      ["wrong-type", 2],
      ["wrong-type", 3],
      ["wrong-type", 4],
      ["wrong-type", 5],
      ["wrong-type", 6],
      ["wrong-type", 7],
      ["wrong-type", 8],
    ]);
    expect(lines(ps)[2]).toBe(
      'p.md:4: priority must be a whole number, got "high" — write priority: 10',
    );
    expect(lines(ps)[3]).toMatch(/status must be one of pending, ready, .* got "done"/);
  });

  test("a list item of the wrong type names its own line", () => {
    const ps = problems("---\ndepends_on:\n  - a\n  - [b]\n---\n");
    expect(ps[0]).toMatchObject({ kind: "wrong-type", line: 4 });
    expect(ps[0]!.message).toMatch(/item 2/);
  });

  test("an invalid id names the line and suggests a valid one", () => {
    const ps = problems("---\ntitle: t\nid: my plan!\n---\n", "plan.md");
    expect(lines(ps)).toEqual([
      'plan.md:3: id "my plan!" is not a valid ticket id (letters, digits, . _ -, starting with a letter or digit, at most 128) — write id: my-plan-',
    ]);
  });

  test("an id from a file name that is not a valid id says to rename the file", () => {
    const ps = problems("body", "my plan.md");
    expect(ps[0]).toMatchObject({ kind: "invalid-id", file: "my plan.md" });
    expect(ps[0]!.fix).toMatch(/rename the file/);
  });

  test("ids longer than 128 characters are invalid", () => {
    expect(problems(`---\nid: ${"a".repeat(129)}\n---\n`)[0]!.kind).toBe("invalid-id");
    expect(spec(`---\nid: ${"a".repeat(128)}\n---\n`).id).toHaveLength(128);
  });

  test("an invalid id in depends_on is reported on its line", () => {
    expect(problems("---\ndepends_on:\n  - ok\n  - not ok\n---\n")[0]).toMatchObject({
      kind: "invalid-id",
      line: 4,
    });
  });

  test("inputs must be among depends_on", () => {
    const ps = problems("---\ndepends_on: [a]\ninputs: [a, b]\n---\n", "p.md");
    expect(lines(ps)).toEqual([
      'p.md:3: inputs names "b", which is not in depends_on — add "b" to depends_on, or remove it from inputs',
    ]);
  });

  test("a title of several lines is refused", () => {
    expect(problems("---\ntitle: |\n  one\n  two\n---\n")[0]).toMatchObject({
      kind: "wrong-type",
      line: 2,
    });
  });

  test("a zero duration bound is refused", () => {
    expect(problems("---\nbound: 0s\n---\n")[0]).toMatchObject({ kind: "wrong-type", line: 2 });
  });
});

describe("near-misses of known fields are warnings with the fix", () => {
  for (const [key, field] of [
    ["depend_on", "depends_on"],
    ["dependsOn", "depends_on"],
    ["depends-on", "depends_on"],
    ["dependencies", "depends_on"],
    ["titel", "title"],
    ["priorty", "priority"],
    ["writeScope", "write_scope"],
  ] as const) {
    test(`${key} → did you mean ${field}?`, () => {
      const r = ok(`---\nid: a\n${key}: [b]\n---\n`, "p.md");
      expect(r.warnings).toHaveLength(1);
      expect(r.warnings[0]).toMatchObject({ kind: "unknown-field", severity: "warning", line: 3 });
      expect(formatProblem(r.warnings[0]!)).toBe(
        `p.md:3: warning: unknown field "${key}" (did you mean ${field}?) — rename it to ${field} (as written it is ignored)`,
      );
    });
  }

  test("a repeated dependency is a warning and counted once", () => {
    const r = ok("---\ndepends_on: [a, a]\n---\n");
    expect(r.spec.dependsOn).toEqual(["a"]);
    expect(r.warnings[0]!.kind).toBe("duplicate-dependency");
  });
});
