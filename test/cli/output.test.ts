/**
 * How `frontier` reads: colour only where it helps, an aligned status table, one path
 * style, the exact command to continue, help that lists exit codes and examples.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { statusCommand } from "../../src/cli/status.js";
import { colourEnabled } from "../../src/terminal/colour.js";
import { frontier, ROOT, workspace } from "./harness.js";

const ESC = "\u001b[";

describe("colour on a terminal, plain elsewhere; NO_COLOR and FORCE_COLOR are honoured", () => {
  const tty = Object.assign(new PassThrough(), { isTTY: true });
  const pipe = new PassThrough();

  it("a terminal gets colour and a pipe does not", () => {
    expect(colourEnabled(tty, {})).toBe(true);
    expect(colourEnabled(pipe, {})).toBe(false);
  });

  it("NO_COLOR (non-empty) and TERM=dumb turn it off on a terminal", () => {
    expect(colourEnabled(tty, { NO_COLOR: "1" })).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: "" })).toBe(true);
    expect(colourEnabled(tty, { TERM: "dumb" })).toBe(false);
  });

  it("FORCE_COLOR turns it on through a pipe, and FORCE_COLOR=0 off on a terminal, as Node does", () => {
    expect(colourEnabled(pipe, { FORCE_COLOR: "1" })).toBe(true);
    expect(colourEnabled(pipe, { FORCE_COLOR: "" })).toBe(true);
    expect(colourEnabled(tty, { FORCE_COLOR: "0" })).toBe(false);
    expect(colourEnabled(pipe, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(true);
  });

  it("status on a terminal is coloured, and reads the same once the colour is stripped", async () => {
    const out = (stream: PassThrough & { isTTY?: boolean }, env: NodeJS.ProcessEnv) => {
      let text = "";
      stream.on("data", (c) => {
        text += c;
      });
      return { stream, env, text: () => text };
    };
    const coloured = out(Object.assign(new PassThrough(), { isTTY: true }), {});
    const plain = out(new PassThrough(), {});
    for (const o of [coloured, plain]) {
      const code = await statusCommand(
        `${ROOT}/tickets-example`,
        { json: false },
        { stdout: o.stream, stderr: new PassThrough(), isTTY: false, env: o.env },
        0,
      );
      expect(code).toBe(0);
    }
    expect(coloured.text()).toContain(ESC);
    expect(plain.text()).not.toContain(ESC);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes
    expect(coloured.text().replace(/\u001b\[\d+m/g, "")).toBe(plain.text());
  });

  it("the spawned CLI: plain through a pipe, coloured with FORCE_COLOR, plain again with NO_COLOR", () => {
    const example = "tickets-example";
    expect(frontier(["validate", example]).stdout).not.toContain(ESC);
    expect(frontier(["validate", example], { env: { FORCE_COLOR: "1" } }).stdout).toContain(ESC);
    expect(frontier(["status", example], { env: { FORCE_COLOR: "1" } }).stdout).toContain(ESC);
    expect(frontier(["status", example], { env: { NO_COLOR: "1" } }).stdout).not.toContain(ESC);
  });
});

describe("--help lists the exit codes and two examples for every command", () => {
  it("the top-level help", () => {
    const r = frontier(["--help"]);
    expect(r.code).toBe(0);
    for (const code of ["0", "1", "2", "3", "4", "5"]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${code} +\\S`, "m"));
    }
    expect(r.stdout).toMatch(/suspended/);
  });

  const commands = [
    "init",
    "new",
    "validate",
    "plan",
    "status",
    "run",
    "context",
    "answer",
    "retry",
    "cancel",
    "report",
  ];
  it.each(commands)("frontier %s --help", (command) => {
    const r = frontier([command, "--help"]);
    expect(r.code).toBe(0);
    const examples = r.stdout.split("Examples:")[1] ?? "";
    const lines = [...examples.matchAll(/^ {2}\$ frontier (\S+)/gm)].map((m) => m[1]);
    expect(lines.length).toBe(2);
    expect(r.stdout).toMatch(/Exit codes:\n\s+0 /);
    expect(r.stdout).toMatch(/^ {2}2 +the tickets do not hold together/m);
  });
});

describe("status prints an aligned table of the open remainder", () => {
  it("columns line up, and a multi-line failure reason is one line", () => {
    const { root } = workspace({
      "flaky.md": "---\n---\n# Flaky\n",
      "a-much-longer-ticket-id.md": "---\ndepends_on: [flaky]\n---\n# Long\n",
      "x.md": "---\n---\n# X\n",
    });
    frontier(
      [
        "run",
        "--exec",
        'if [ "$FRONTIER_TICKET" = flaky ]; then printf "line one\\nline two\\n" >&2; exit 1; fi; echo ok',
      ],
      {
        cwd: root,
      },
    );
    const r = frontier(["status"], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^run \S+: failed — 3 tickets: /m);
    const table = r.stdout.slice(r.stdout.indexOf("  TICKET")).trimEnd().split("\n");
    expect(table.length).toBe(3);
    const stateAt = table[0]!.indexOf("STATE");
    const waitAt = table[0]!.indexOf("WAITING ON");
    for (const row of table.slice(1)) {
      expect(row.slice(stateAt)).toMatch(/^[^ ] (failed|blocked)/);
      expect(row.charAt(waitAt - 1)).toBe(" ");
      expect(row.charAt(waitAt)).not.toBe(" ");
    }
    expect(r.stdout).toMatch(/failed: line one ⏎ line two/);
  });

  it("a multi-line reason is one line in the run's summary too, and whole in the record", () => {
    const { root } = workspace({ "flaky.md": "---\n---\n# Flaky\n" });
    const run = frontier(["run", "--exec", 'printf "line one\\nline two\\n" >&2; exit 1'], {
      cwd: root,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ {2}flaky +failed +failed: line one ⏎ line two$/m);
    const receipt = JSON.parse(frontier(["status", "--json"], { cwd: root }).stdout) as {
      tickets: Array<{ attempts: Array<{ reason?: string }> }>;
    };
    expect(receipt.tickets[0]?.attempts[0]?.reason).toMatch(/line one\nline two/);
  });
});

describe("every message names paths relative to where the user stands", () => {
  it("an absolute DIR under the working directory is shown relative", () => {
    const { root, dir } = workspace({ "a.md": "---\ndepends_on: [b]\n---\n# A\n" });
    const r = frontier(["validate", dir], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tickets\/a\.md:2: /m);
    const ok = frontier(["new", dir, "b"], { cwd: root });
    expect(ok.stdout).toMatch(/^wrote tickets\/b\.md/);
    expect(frontier(["validate", dir], { cwd: root }).stdout).toMatch(/^tickets: 2 tickets/);
  });
});

describe("plurals and refused combinations", () => {
  it("one ticket is `1 ticket`", () => {
    const { root } = workspace({ "only.md": "---\n---\n# Only\n" });
    expect(frontier(["validate"], { cwd: root }).stdout).toMatch(/tickets: 1 ticket, no problems/);
    const plan = frontier(["plan"], { cwd: root });
    expect(plan.stdout).toMatch(/1 ticket in 1 wave$/m);
    expect(plan.stdout).toMatch(/critical path \(1 ticket\)/);
  });

  it("plan --json --mermaid is refused, not half-done", () => {
    const r = frontier(["plan", "tickets-example", "--json", "--mermaid"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/--json and --mermaid/);
  });
});

describe("validate on a tree with no ticket directory says how to make one", () => {
  it("names frontier init and frontier new", () => {
    const { root } = workspace();
    const r = frontier(["validate"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no ticket directory at tickets/);
    expect(r.stderr).toMatch(/frontier init tickets/);
    expect(r.stderr).toMatch(/frontier new tickets ID/);
  });
});

describe("a bound that reads like a duration but is not one is flagged", () => {
  it("validate warns with the file, the line and what to write; the graph is still valid", () => {
    const { root } = workspace({ "a.md": "---\nbound: about 10 minutes\n---\n# A\n" });
    const r = frontier(["validate"], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^tickets\/a\.md:2: warning: bound "about 10 minutes" .* no timeout .* 10m/m,
    );
  });

  it("frontier.yml's ticket_bound is flagged the same way", () => {
    const { root } = workspace({
      "frontier.yml": "run: r\nticket_bound: about 5 minutes\n",
      "a.md": "---\n---\n# A\n",
    });
    const r = frontier(["validate"], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^tickets\/frontier\.yml:2: warning: ticket_bound "about 5 minutes" .* 5m/m,
    );
  });

  it("10 minutes is a duration: no warning", () => {
    const { root } = workspace({ "a.md": "---\nbound: 10 minutes\n---\n# A\n" });
    const r = frontier(["validate"], { cwd: root });
    expect(r.stderr).toBe("");
  });
});

describe("answer, retry and a run that stopped on a question say exactly how to go on", () => {
  const exec =
    'if [ "$FRONTIER_TICKET" = ask ] && [ "$FRONTIER_ATTEMPT" = 1 ]; then echo "Which region?"; exit 75; fi; echo done';

  it("the suspended run and the answer print the command to continue, --exec included", () => {
    const { root } = workspace({
      "ask.md": "---\n---\n# Ask\n",
      "after.md": "---\ndepends_on: [ask]\n---\n# After\n",
    });
    const run = frontier(["run", "--exec", exec], { cwd: root });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('frontier answer tickets ask "YOUR ANSWER"');
    const quoted = `frontier run tickets --exec '${exec}'`;
    expect(run.stderr).toContain(quoted);

    const answered = frontier(["answer", "tickets", "ask", "eu-west-1"], { cwd: root });
    expect(answered.code).toBe(0);
    expect(answered.stdout).toContain(quoted);
    // the printed command is the one that continues: paste it and the run completes
    const again = frontier(["run", "--exec", exec], { cwd: root });
    expect(again.code).toBe(0);
  });

  it("with frontier.yml's executor, the command to continue has no --exec", () => {
    const { root } = workspace({
      "frontier.yml": `run: r\nexecutor: ${JSON.stringify(exec)}\n`,
      "ask.md": "---\n---\n# Ask\n",
    });
    const run = frontier(["run"], { cwd: root });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^ {2}frontier run tickets$/m);
    const answered = frontier(["answer", "tickets", "ask", "yes"], { cwd: root });
    expect(answered.stdout).toMatch(/^ {2}frontier run tickets$/m);
  });

  it("answer refuses an empty answer and changes nothing", () => {
    const { root } = workspace({ "ask.md": "---\n---\n# Ask\n" });
    frontier(["run", "--exec", exec], { cwd: root });
    const r = frontier(["answer", "tickets", "ask", "  "], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the answer is empty/);
    expect(frontier(["status"], { cwd: root }).stdout).toMatch(/question from ask/);
  });

  it("retry of an unknown id suggests the near ids", () => {
    const { root } = workspace({
      "review-plan.md": "---\n---\n# R\n",
      "retry-plan.md": "---\n---\n# R\n",
      "other.md": "---\n---\n# O\n",
    });
    frontier(["run", "--exec", "exit 1"], { cwd: root });
    const r = frontier(["retry", "tickets", "retyr-plan"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no ticket "retyr-plan" in tickets\. Did you mean retry-plan/);
    expect(r.stderr).not.toMatch(/other/);
  });
});
