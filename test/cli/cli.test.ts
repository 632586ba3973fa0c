/**
 * The `frontier` command as a user meets it: the real CLI, spawned, on ticket
 * directories in tmp folders. SPEC §6.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Receipt } from "../../src/core/model.js";

const ROOT = resolve(import.meta.dirname, "..", "..");
const CLI = join(ROOT, "build", "src", "cli.js");

function frontier(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmpTickets(files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), "frontier-cli-")), "tickets");
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function exampleCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "frontier-cli-")), "tickets");
  cpSync(join(ROOT, "tickets-example"), dir, { recursive: true });
  return dir;
}

const STACK_TRACE = /\n\s+at .+\(.*:\d+:\d+\)|node:internal/;

describe("frontier validate: a graph that does not hold together starts nothing", () => {
  it("lists a duplicate id, an unknown dependency, an invalid id and broken YAML at once, with files, and exits 2", () => {
    const dir = tmpTickets({
      "a.md": "---\nid: same\n---\n# A\n",
      "b.md": "---\nid: same\n---\n# B\n",
      "c.md": "---\ndepends_on: [nowhere]\n---\n# C\n",
      "d.md": "---\nid: 'bad id!'\n---\n# D\n",
      "e.md": "---\ntitle: [unclosed\n---\n# E\n",
    });
    const r = frontier(["validate", dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a\.md/);
    expect(r.stderr).toMatch(/b\.md/);
    expect(r.stderr).toMatch(/c\.md:\d+:.*nowhere/);
    expect(r.stderr).toMatch(/d\.md:\d+:.*id/);
    expect(r.stderr).toMatch(/e\.md:\d+:/);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.stdout).toBe("");
  });

  it("--json prints the problems as JSON on stdout and still exits 2", () => {
    const dir = tmpTickets({ "c.md": "---\ndepends_on: c\n---\n# C\n" });
    const r = frontier(["validate", dir, "--json"]);
    expect(r.code).toBe(2);
    const parsed = JSON.parse(r.stdout) as { valid: boolean; problems: Array<{ file: string }> };
    expect(parsed.valid).toBe(false);
    expect(parsed.problems.map((p) => p.file)).toContain("c.md");
  });

  it("a sound directory exits 0 and says how many tickets it checked", () => {
    const r = frontier(["validate", join(ROOT, "tickets-example")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/11 tickets, no problems/);
  });

  it("a missing directory is one clear problem, not a stack trace", () => {
    const r = frontier(["validate", "/nonexistent/tickets"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\/nonexistent\/tickets/);
    expect(r.stderr).not.toMatch(STACK_TRACE);
  });
});

describe("frontier plan: waves and the critical path", () => {
  it("prints every wave and the critical path of the example", () => {
    const r = frontier(["plan", join(ROOT, "tickets-example")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wave 1: .*research-idempotency/);
    expect(r.stdout).toMatch(/wave 5: summary/);
    expect(r.stdout).toMatch(/critical path \(\d+ tickets\): .* → summary/);
  });

  it("--mermaid prints a flowchart, --json a valid receipt", () => {
    const mermaid = frontier(["plan", join(ROOT, "tickets-example"), "--mermaid"]);
    expect(mermaid.stdout).toMatch(/^flowchart/m);
    const json = frontier(["plan", join(ROOT, "tickets-example"), "--json"]);
    const receipt = Receipt.parse(JSON.parse(json.stdout));
    expect(receipt.waves.length).toBe(5);
    expect(receipt.state).toBe("not started");
  });
});

describe("frontier status, answer, retry, cancel, context, report", () => {
  it("status --json prints one receipt and nothing else on stdout", () => {
    const r = frontier(["status", join(ROOT, "tickets-example"), "--json"]);
    expect(r.code).toBe(0);
    expect(() => Receipt.parse(JSON.parse(r.stdout))).not.toThrow();
  });

  it("a question answered with `frontier answer` reaches the next attempt's context", () => {
    const dir = tmpTickets({
      "ask.md": "---\n---\n# Ask\n\nAsk which region to use.\n",
      "after.md": "---\ndepends_on: [ask]\n---\n# After\n",
    });
    // The first attempt asks (exit 75, stdout is the question); later ones echo their context.
    const exec =
      'if [ "$FRONTIER_TICKET" = ask ] && [ "$FRONTIER_ATTEMPT" = 1 ]; then echo "Which region?"; exit 75; fi; cat';
    const first = frontier(["run", dir, "--exec", exec]);
    expect(first.code).toBe(3);
    const status = frontier(["status", dir]);
    expect(status.stdout).toMatch(/question from ask: Which region\?/);
    expect(status.stdout).toMatch(/frontier answer .* ask "YOUR ANSWER"/);

    const answered = frontier(["answer", dir, "ask", "eu-west-1, the", "cheapest"]);
    expect(answered.code).toBe(0);
    const context = frontier(["context", dir, "ask"]);
    expect(context.stdout).toMatch(/Which region\?/);
    expect(context.stdout).toMatch(/eu-west-1, the cheapest/);

    const again = frontier(["answer", dir, "ask", "twice"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/ask/);

    const second = frontier(["run", dir, "--exec", exec]);
    expect(second.code).toBe(0);
  });

  it("retry brings a failed ticket back and returns the tickets it blocked to pending", () => {
    const dir = tmpTickets({
      "flaky.md": "---\n---\n# Flaky\n",
      "next.md": "---\ndepends_on: flaky\n---\n# Next\n",
    });
    const failing = frontier(["run", dir, "--exec", "echo broke >&2; exit 1"]);
    expect(failing.code).toBe(1);
    expect(frontier(["status", dir]).stdout).toMatch(/blocked: flaky failed.*blocks 1 — next/);
    const retry = frontier(["retry", dir, "flaky"]);
    expect(retry.code).toBe(0);
    const receipt = Receipt.parse(JSON.parse(frontier(["status", dir, "--json"]).stdout));
    expect(receipt.tickets.find((t) => t.id === "next")?.status).toBe("pending");
    expect(receipt.tickets.find((t) => t.id === "flaky")?.status).toBe("ready");
    const ok = frontier(["run", dir, "--exec", "echo fine"]);
    expect(ok.code).toBe(0);
    const after = Receipt.parse(JSON.parse(frontier(["status", dir, "--json"]).stdout));
    const flaky = after.tickets.find((t) => t.id === "flaky");
    expect(flaky?.attempts.map((a) => a.outcome)).toEqual(["failed", "complete"]);
  });

  it("retry --note: a reviewer's feedback on a complete ticket reaches its next attempt; what ran on it is listed", () => {
    const dir = tmpTickets({
      "api.md": "---\n---\n# API\n",
      "ui.md": "---\ndepends_on: api\n---\n# UI\n",
    });
    const exec = 'grep -q "reviewer asked" "$FRONTIER_CONTEXT_FILE" && echo revised || echo first';
    expect(frontier(["run", dir, "--exec", exec]).code).toBe(0);
    expect(frontier(["retry", dir, "api"]).stderr).toMatch(/retry it with feedback/);
    const retry = frontier(["retry", dir, "api", "--note", "use the v2 endpoint"]);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/1 dependent of api already ran on its earlier result .*: ui/);
    expect(frontier(["context", dir, "api"]).stdout).toMatch(
      /## Review feedback[\s\S]*the reviewer asked .*\n\nuse the v2 endpoint/,
    );
    expect(frontier(["run", dir, "--exec", exec]).code).toBe(0);
    const after = Receipt.parse(JSON.parse(frontier(["status", dir, "--json"]).stdout));
    const api = after.tickets.find((t) => t.id === "api");
    expect(api?.attempts.map((a) => [a.n, a.outcome])).toEqual([
      [1, "complete"],
      [2, "complete"],
    ]);
    expect(readFileSync(join(dir, ".frontier/results/api@2.md"), "utf8")).toBe("revised\n");
    expect(after.tickets.find((t) => t.id === "ui")?.attempts).toHaveLength(1);
  });

  it("retry of a blocked ticket names the root to retry instead", () => {
    const dir = tmpTickets({
      "root.md": "---\n---\n# Root\n",
      "leaf.md": "---\ndepends_on: root\n---\n# Leaf\n",
    });
    frontier(["run", dir, "--exec", "exit 1"]);
    const r = frontier(["retry", dir, "leaf"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/root/);
  });

  it("cancel closes every open ticket, and run then exits 5 without starting anything", () => {
    const dir = exampleCopy();
    const r = frontier(["cancel", dir]);
    expect(r.code).toBe(0);
    const run = frontier(["run", dir, "--exec", "echo should-not-run"]);
    expect(run.code).toBe(5);
    expect(existsSync(join(dir, ".frontier", "results"))).toBe(false);
  });

  it("context of an unknown ticket is a usage error that says how to list them", () => {
    const r = frontier(["context", join(ROOT, "tickets-example"), "nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/frontier status/);
  });

  it("the directory given without the ticket (or nothing at all) says what is missing", () => {
    const root = dirname(exampleCopy());
    // the directory alone: the ticket is what is missing, not a ticket called "tickets"
    for (const args of [
      ["retry", "tickets"],
      ["context", "tickets"],
      ["answer", "tickets", "gather-facts"],
    ]) {
      const r = frontier(args, root);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(
        '"tickets" is a directory: the ticket goes after it (`frontier status tickets` lists them)',
      );
    }
    // no words: the usage, not commander's name for the argument
    for (const command of ["retry", "answer", "context"]) {
      const r = frontier([command], root);
      expect(r.code, command).toBe(2);
      expect(r.stderr).not.toContain("argument 'words'");
      expect(r.stderr).toMatch(/error: expected \[dir\] <ticket>/);
    }
  });

  it("report writes HTML, JSON and markdown where asked", () => {
    const dir = exampleCopy();
    const out = mkdtempSync(join(tmpdir(), "frontier-report-"));
    const r = frontier([
      "report",
      dir,
      "--html",
      join(out, "a.html"),
      "--json",
      join(out, "a.json"),
      "--markdown",
      join(out, "a.md"),
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(out, "a.html"), "utf8")).toMatch(/<html/i);
    expect(() =>
      Receipt.parse(JSON.parse(readFileSync(join(out, "a.json"), "utf8"))),
    ).not.toThrow();
    expect(readFileSync(join(out, "a.md"), "utf8")).toMatch(/retry-plan/);
  });

  it("a report path that cannot be written is the user's error, named, not an internal one", () => {
    const out = mkdtempSync(join(tmpdir(), "frontier-report-"));
    writeFileSync(join(out, "file"), "not a directory");
    const target = join(out, "file", "a.html");
    const r = frontier(["report", exampleCopy(), "--html", target]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.stderr).toContain(`error: cannot write the HTML report to ${target}`);
    expect(r.stderr).toMatch(/Choose a path in a directory you can write to/);
    expect(r.code).toBe(1);
  });

  it("a bad flag is a usage error with exit 2", () => {
    const r = frontier(["run", "tickets-example", "--max-parallel", "zero"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-parallel/);
  });
});
