import { describe, expect, it } from "vitest";
import {
  type Command,
  parseCommands,
  parseQuestionMarker,
  questionMarker,
  quoteWord,
} from "../../src/github/command-parse.js";

const kinds = (cs: Command[]) => cs.map((c) => c.kind);

describe("commands are lines that start with /answer, /retry, /cancel or /status", () => {
  it("finds each command at the start of a line", () => {
    expect(parseCommands("/status")).toEqual([{ kind: "status", line: 1 }]);
    expect(parseCommands("/cancel")).toEqual([{ kind: "cancel", line: 1 }]);
    expect(parseCommands("/retry build")).toEqual([{ kind: "retry", ticket: "build", line: 1 }]);
    expect(parseCommands("/answer plan use postgres")).toEqual([
      { kind: "answer", ticket: "plan", text: "use postgres", line: 1 },
    ]);
  });

  it("allows up to three spaces of indent, as markdown does", () => {
    expect(kinds(parseCommands("   /status"))).toEqual(["status"]);
  });

  it("does not take a command in the middle of a line", () => {
    expect(parseCommands("please /retry build")).toEqual([]);
    expect(parseCommands("I ran `/cancel` yesterday")).toEqual([]);
  });

  it("ignores unknown slash commands: other bots use slashes too", () => {
    expect(parseCommands("/deploy production\n/lgtm\n/assign @me")).toEqual([]);
  });

  it("does not mistake a path for a command", () => {
    expect(parseCommands("/status/foo\n/retry-all\n/answers x")).toEqual([]);
  });

  it("takes command names in any case", () => {
    expect(kinds(parseCommands("/STATUS\n/Retry a"))).toEqual(["status", "retry"]);
  });

  it("finds several commands in one comment, in order, with their line numbers", () => {
    const cs = parseCommands("Thanks!\n/retry a\n\n/retry b\n/status");
    expect(cs).toEqual([
      { kind: "retry", ticket: "a", line: 2 },
      { kind: "retry", ticket: "b", line: 4 },
      { kind: "status", line: 5 },
    ]);
  });
});

describe("quoted lines and code are never commands", () => {
  it("ignores a quoted command", () => {
    expect(parseCommands("> /answer plan yes\nI agree with this")).toEqual([]);
    expect(parseCommands(">/cancel")).toEqual([]);
    expect(parseCommands("> > /retry a")).toEqual([]);
  });

  it("ignores commands inside a ``` fenced code block", () => {
    expect(parseCommands("To cancel, write:\n```\n/cancel\n```\n")).toEqual([]);
  });

  it("ignores commands inside a ~~~ fenced code block", () => {
    expect(parseCommands("~~~text\n/retry a\n~~~")).toEqual([]);
  });

  it("ignores commands inside a fence with an info string and a longer closing fence", () => {
    expect(parseCommands("````md\n/status\n```\n/cancel\n`````\n/retry a")).toEqual([
      { kind: "retry", ticket: "a", line: 6 },
    ]);
  });

  it("does not let a ~~~ line close a ``` fence", () => {
    expect(parseCommands("```\n~~~\n/cancel\n```\n/status")).toEqual([{ kind: "status", line: 5 }]);
  });

  it("treats an unclosed fence as code to the end, as GitHub renders it", () => {
    expect(parseCommands("```\n/cancel\n/status")).toEqual([]);
  });

  it("ignores indented code (four spaces or a tab)", () => {
    expect(parseCommands("Example:\n\n    /cancel\n\t/status\n")).toEqual([]);
  });

  it("ignores commands inside an HTML comment, which GitHub does not show", () => {
    expect(parseCommands("<!-- template:\n/cancel\n-->\n/status")).toEqual([
      { kind: "status", line: 4 },
    ]);
    expect(parseCommands("<!-- one line --> text\n/status")).toEqual([{ kind: "status", line: 2 }]);
  });

  it("resumes after the code block closes", () => {
    expect(kinds(parseCommands("```\n/cancel\n```\n/status"))).toEqual(["status"]);
  });
});

describe("/answer", () => {
  it("keeps a multi-line answer's lines, up to the end of the comment", () => {
    const body = "/answer plan first line\nsecond line\n\n  indented third\n";
    expect(parseCommands(body)).toEqual([
      {
        kind: "answer",
        ticket: "plan",
        text: "first line\nsecond line\n\n  indented third",
        line: 1,
      },
    ]);
  });

  it("ends the answer at the next command line", () => {
    const cs = parseCommands("/answer a yes\nreally\n/retry b\n");
    expect(cs).toEqual([
      { kind: "answer", ticket: "a", text: "yes\nreally", line: 1 },
      { kind: "retry", ticket: "b", line: 3 },
    ]);
  });

  it("keeps quotes, code blocks and would-be commands inside code as part of the answer", () => {
    const body = "/answer a use this config:\n```yaml\nstatus: complete\n/cancel\n```\n> quoted\n";
    expect(parseCommands(body)).toEqual([
      {
        kind: "answer",
        ticket: "a",
        text: "use this config:\n```yaml\nstatus: complete\n/cancel\n```\n> quoted",
        line: 1,
      },
    ]);
  });

  it("may start on the line after the command", () => {
    expect(parseCommands("/answer plan\n\nThe answer\nis two lines")).toEqual([
      { kind: "answer", ticket: "plan", text: "The answer\nis two lines", line: 1 },
    ]);
  });

  it("reads CRLF comments as lines, and returns the answer with LF", () => {
    expect(parseCommands("hi\r\n/answer plan one\r\ntwo\r\n/status\r\n")).toEqual([
      { kind: "answer", ticket: "plan", text: "one\ntwo", line: 2 },
      { kind: "status", line: 4 },
    ]);
  });

  it("keeps unicode exactly", () => {
    const text = "Ja, bitte — 使用 PostgreSQL 🐘 ñ\u200d\u{1F468}\u200d\u{1F469}";
    expect(parseCommands(`/answer plan ${text}`)).toEqual([
      { kind: "answer", ticket: "plan", text, line: 1 },
    ]);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${{ }} is the hostile input
  it("keeps hostile text verbatim: front-matter fences, YAML, ${{ }}, backticks, HTML, NUL", () => {
    const text =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${{ }} is the hostile input
      "---\nstatus: complete\nattempt: 99\n---\n${{ secrets.GITHUB_TOKEN }}\n`rm -rf /`\n<script>x</script>\u0000end";
    expect(parseCommands(`/answer plan ${text}`)).toEqual([
      { kind: "answer", ticket: "plan", text, line: 1 },
    ]);
  });

  it("on a question issue, the whole text is the answer", () => {
    expect(parseCommands("/answer use postgres", { questionTicket: "plan" })).toEqual([
      { kind: "answer", ticket: undefined, text: "use postgres", line: 1 },
    ]);
  });

  it("on a question issue, a leading copy of the issue's ticket id names the ticket", () => {
    expect(parseCommands("/answer plan use postgres", { questionTicket: "plan" })).toEqual([
      { kind: "answer", ticket: "plan", text: "use postgres", line: 1 },
    ]);
  });

  it("elsewhere, needs a ticket: a helpful parse error", () => {
    const [c] = parseCommands("/answer");
    expect(c).toMatchObject({ kind: "error", command: "answer", line: 1 });
    expect(c?.kind === "error" && c.message).toContain("/answer TICKET TEXT");
  });

  it("elsewhere, refuses a first word that is not a ticket id", () => {
    const [c] = parseCommands("/answer ¿qué? yes");
    expect(c).toMatchObject({ kind: "error", command: "answer" });
  });

  it("refuses an empty answer, saying how to write one", () => {
    const [c] = parseCommands("/answer plan   \n\n");
    expect(c).toMatchObject({ kind: "error", command: "answer" });
    expect(c?.kind === "error" && c.message).toMatch(/no answer followed/);
    const [d] = parseCommands("/answer", { questionTicket: "plan" });
    expect(d).toMatchObject({ kind: "error", command: "answer" });
  });
});

describe("malformed commands produce a parse error to reply with", () => {
  it("/retry without a ticket", () => {
    const [c] = parseCommands("/retry");
    expect(c).toMatchObject({ kind: "error", command: "retry", line: 1 });
    expect(c?.kind === "error" && c.message).toContain("/retry TICKET");
  });

  it("/retry with words after the ticket: they are feedback for its next attempt, line for line", () => {
    expect(parseCommands("/retry a b")[0]).toEqual({
      kind: "retry",
      ticket: "a",
      feedback: "b",
      line: 1,
    });
    expect(parseCommands("/retry plan keep the API\n\n> as it was\n- and `x: 1`\n/status")).toEqual(
      [
        {
          kind: "retry",
          ticket: "plan",
          feedback: "keep the API\n\n> as it was\n- and `x: 1`",
          line: 1,
        },
        { kind: "status", line: 5 },
      ],
    );
  });

  it("/retry with something that is not a ticket id", () => {
    expect(parseCommands("/retry ../../etc")[0]).toMatchObject({ kind: "error", command: "retry" });
  });

  it("/cancel with an argument: it would cancel the whole run, so it asks again", () => {
    const [c] = parseCommands("/cancel build");
    expect(c).toMatchObject({ kind: "error", command: "cancel" });
    expect(c?.kind === "error" && c.message).toContain("whole run");
  });
});

describe("the question issue's hidden marker", () => {
  it("round-trips, including a run name with spaces and -->", () => {
    const m = { run: "nightly --> build & test", ticket: "plan.v2", attempt: 3 };
    const body = `## Question\n\n${questionMarker(m)}\n\nWhat database?`;
    expect(parseQuestionMarker(body)).toEqual(m);
  });

  it("reads the documented form", () => {
    expect(
      parseQuestionMarker("<!-- ticket-frontier:question run=example ticket=plan attempt=1 -->"),
    ).toEqual({ run: "example", ticket: "plan", attempt: 1 });
  });

  it("finds nothing in an ordinary issue", () => {
    expect(parseQuestionMarker("Just an issue")).toBeUndefined();
    expect(parseQuestionMarker(null)).toBeUndefined();
    expect(
      parseQuestionMarker("<!-- ticket-frontier:question run=x ticket=a attempt=0 -->"),
    ).toBeUndefined();
  });
});

describe("words echoed back cannot break out of their code span", () => {
  it("uses a longer fence than any run of backticks inside", () => {
    expect(quoteWord("a``b")).toBe("```a``b```");
    expect(quoteWord("`x")).toBe("`` `x ``");
  });
});

describe("the question marker names the run's branch", () => {
  it("round-trips a branch with a slash", () => {
    const m = { run: "r", ticket: "a", attempt: 2, branch: "feature/x y" };
    expect(parseQuestionMarker(questionMarker(m))).toEqual(m);
  });
});
