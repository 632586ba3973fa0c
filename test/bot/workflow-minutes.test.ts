/**
 * Actions minutes a user can afford: a comment starts a runner only when it starts with one
 * of the bot's commands (decided at the job's `if:`, evaluated here with GitHub's own
 * expression evaluator), and the sweep's cadence is a choice, hourly unless told otherwise.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { data, Evaluator, Lexer, Parser } from "@actions/expressions";
import { truthy } from "@actions/expressions/result";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SWEEPS, workflowTexts } from "../../src/cli/init.js";
import { COMMAND_NAMES } from "../../src/github/command-parse.js";
import { frontier, ROOT, workspace } from "../cli/harness.js";

const example = readFileSync(join(ROOT, "examples", "workflows", "frontier.yml"), "utf8");
type Workflow = {
  on: Record<string, unknown>;
  jobs: Record<string, { if?: string }>;
};

/** Whether GitHub would start the frontier job for this event. */
function starts(workflow: string, github: Record<string, unknown>): boolean {
  const condition = (parse(workflow) as Workflow).jobs.frontier?.if ?? "true";
  const lexed = new Lexer(condition).lex();
  const expr = new Parser(lexed.tokens, ["github"], []).parse();
  const context = JSON.parse(JSON.stringify({ github }), data.reviver) as data.Dictionary;
  return truthy(new Evaluator(expr, context).evaluate());
}

const comment = (body: string, type = "User") => ({
  event_name: "issue_comment",
  event: { comment: { body, user: { type, login: "someone" } } },
});

describe("a comment starts a runner only when it starts with a command", () => {
  it.each([
    "/answer Use the staging database.",
    "/retry build",
    "/cancel",
    "/status",
    "/answer migrate-db yes\nand the rest of the answer",
  ])("%j starts the frontier job", (body) => {
    expect(starts(example, comment(body))).toBe(true);
  });

  it.each([
    "Looks good to me!",
    "please /retry build",
    "> /cancel",
    "```\n/cancel\n```",
    "/deploy staging",
    "",
  ])("%j starts nothing", (body) => {
    expect(starts(example, comment(body))).toBe(false);
  });

  it("a bot's comment starts nothing, even one that is a command", () => {
    expect(starts(example, comment("/status", "Bot"))).toBe(false);
  });

  it("lets through exactly the bot's commands", () => {
    const condition = (parse(example) as Workflow).jobs.frontier!.if!;
    const named = [...condition.matchAll(/startsWith\(github\.event\.comment\.body, '\/(\w+)'\)/g)];
    expect(named.map((m) => m[1]).sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it("every other event still starts it, but a job that settled itself does not", () => {
    expect(starts(example, { event_name: "push", event: {} })).toBe(true);
    expect(starts(example, { event_name: "schedule", event: {} })).toBe(true);
    expect(starts(example, { event_name: "workflow_dispatch", event: {} })).toBe(true);
    const ended = (conclusion: string) => ({
      event_name: "workflow_run",
      event: { workflow_run: { conclusion } },
    });
    expect(starts(example, ended("success"))).toBe(false);
    expect(starts(example, ended("failure"))).toBe(true);
    expect(starts(example, ended("cancelled"))).toBe(true);
  });

  it("what init --github writes filters the same way", () => {
    const written = workflowTexts("tickets", "./.github/actions/ticket-frontier")["frontier.yml"]!;
    expect(starts(written, comment("Thanks!"))).toBe(false);
    expect(starts(written, comment("/retry build"))).toBe(true);
  });
});

const schedule = (text: string) =>
  ((parse(text) as Workflow).on.schedule as Array<{ cron: string }> | undefined)?.map(
    (s) => s.cron,
  );

describe("the sweep's cadence is a choice, hourly by default", () => {
  it("the example sweeps once an hour", () => {
    expect(schedule(example)).toEqual(["17 * * * *"]);
    expect(SWEEPS["1h"].cron).toBe("17 * * * *");
  });

  it.each(Object.entries(SWEEPS))("--sweep %s writes its schedule", (choice, sweep) => {
    const text = workflowTexts("tickets", "./x", "model", { sweep: choice as keyof typeof SWEEPS })[
      "frontier.yml"
    ]!;
    if (sweep.cron === undefined) {
      expect(schedule(text)).toBeUndefined();
      expect(text).toMatch(/Run workflow/);
    } else expect(schedule(text)).toEqual([sweep.cron]);
    // everything else is the example's
    const rest = (t: string) => ({
      ...(parse(t) as Workflow),
      on: { ...(parse(t) as Workflow).on, schedule: 0 },
    });
    expect(rest(text)).toEqual(rest(workflowTexts("tickets", "./x")["frontier.yml"]!));
  });

  it("the docs' sweep cadence table prices every choice: runs and billed minutes a day", () => {
    const readme = readFileSync(join(ROOT, "docs", "github.md"), "utf8");
    for (const [choice, sweep] of Object.entries(SWEEPS)) {
      const row = new RegExp(`^\\| \`--sweep ${choice}\`[^|]*\\| ${sweep.perDay} \\|`, "m");
      expect(readme, choice).toMatch(row);
    }
  });

  it("init --github --sweep writes it, and refuses a cadence it does not offer, naming the choices", () => {
    const { root } = workspace();
    const r = frontier(["init", "--github", "--sweep", "6h"], { cwd: root });
    expect(r.stderr).toBe("");
    const text = readFileSync(join(root, ".github", "workflows", "frontier.yml"), "utf8");
    expect(schedule(text)).toEqual([SWEEPS["6h"].cron]);
    const bad = frontier(["init", "other", "--github", "--sweep", "5m"], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--sweep takes one of ${Object.keys(SWEEPS).join(", ")}`);
  });
});
