/**
 * `frontier init`: a starter ticket directory that runs as it is, and with --github the
 * two workflows that run it on GitHub — written once, never over anything.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { frontier, ROOT, STACK_TRACE, workspace } from "./harness.js";

/** Every `uses:` of a workflow, and the `with:` it passes. */
function steps(doc: unknown): Array<Record<string, unknown>> {
  const jobs = (doc as { jobs: Record<string, { steps: Array<Record<string, unknown>> }> }).jobs;
  return Object.values(jobs).flatMap((j) => j.steps);
}

/** `${{ env.FRONTIER_TICKETS }}`, as GitHub's expression syntax writes it. */
const FROM_ENV = ["$", "{{ env.FRONTIER_TICKETS }}"].join("");

const actionInputs = Object.keys(
  (parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as { inputs: Record<string, unknown> })
    .inputs,
);

describe("frontier init: a starter directory that runs as it is", () => {
  it("writes tickets/ that validates and runs to complete with the starter executor", () => {
    const { root } = workspace();
    const init = frontier(["init"], { cwd: root });
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/frontier run tickets/);
    const validate = frontier(["validate"], { cwd: root });
    expect(validate.stderr).toBe("");
    expect(validate.stdout).toMatch(/^tickets: 3 tickets, no problems\.$/m);
    expect(validate.code).toBe(0);
    const run = frontier(["run"], { cwd: root });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/3\/3 complete/);
    const summary = readFileSync(
      join(root, "tickets", ".frontier", "results", "write-summary@1.md"),
      "utf8",
    );
    expect(summary).toMatch(/list-questions, gather-facts/);
  });

  it("takes another directory name", () => {
    const { root } = workspace();
    expect(frontier(["init", "work/tasks"], { cwd: root }).code).toBe(0);
    expect(frontier(["validate", "work/tasks"], { cwd: root }).code).toBe(0);
    expect(existsSync(join(root, "tickets"))).toBe(false);
  });

  it("refuses a directory that already holds tickets, and writes nothing", () => {
    const { root, dir } = workspace({ "mine.md": "---\n---\n# Mine\n" });
    const r = frontier(["init"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tickets already holds 1 ticket; nothing was written/);
    expect(r.stderr).toMatch(/frontier new tickets ID/);
    expect(existsSync(join(dir, "frontier.yml"))).toBe(false);
  });

  it("refuses to overwrite any file it would write, and then writes none of them", () => {
    const { root, dir } = workspace({ "frontier.yml": "run: mine\n" });
    const r = frontier(["init"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tickets\/frontier\.yml already exists; nothing was written/);
    expect(readFileSync(join(dir, "frontier.yml"), "utf8")).toBe("run: mine\n");
    expect(existsSync(join(dir, "write-summary.md"))).toBe(false);
    expect(r.stderr).not.toMatch(STACK_TRACE);
  });
});

describe("frontier init --github: the two workflows, the ticket directory and the action filled in", () => {
  function initGithub(args: string[]) {
    const { root } = workspace();
    mkdirSync(join(root, ".git"));
    const sub = join(root, "svc");
    mkdirSync(sub);
    // run from a subfolder: the workflows go to the repository root, the directory is named from it
    const r = frontier(["init", ...args], { cwd: sub });
    const read = (name: string) =>
      parse(readFileSync(join(root, ".github", "workflows", name), "utf8")) as Record<
        string,
        unknown
      >;
    return { root, sub, r, read };
  }

  it("names the ticket directory once per workflow and in the push filter, and the action in every uses:", () => {
    const { sub, r, read } = initGithub(["work", "--github", "--action", "acme/tf@0123abc"]);
    // a short sha pins nothing for sure: the one thing said on stderr
    expect(r.stderr).toMatch(/^warning: acme\/tf@0123abc does not pin a commit[^\n]*\n$/);
    expect(r.code).toBe(0);
    expect(frontier(["validate", "work"], { cwd: sub }).code).toBe(0);

    const main = read("frontier.yml");
    const task = read("orch-task.yml");
    expect((main.env as Record<string, string>).FRONTIER_TICKETS).toBe("svc/work");
    expect((task.env as Record<string, string>).FRONTIER_TICKETS).toBe("svc/work");
    expect((main.on as { push: { paths: string[] } }).push.paths).toEqual(["svc/work/**"]);

    const ours = [...steps(main), ...steps(task)].filter(
      (s) => typeof s.uses === "string" && !s.uses.startsWith("actions/"),
    );
    expect(ours.map((s) => s.uses)).toEqual([
      "acme/tf@0123abc",
      "acme/tf@0123abc",
      "acme/tf@0123abc",
      "acme/tf@0123abc",
    ]);
    for (const step of ours) {
      const given = Object.keys((step.with as Record<string, string>) ?? {});
      // every input passed is one the action declares
      for (const input of given) expect(actionInputs).toContain(input);
      expect((step.with as Record<string, string>).tickets).toBe(FROM_ENV);
    }
    const records = steps(task).find(
      (s) => (s.with as { path?: string })?.path === ".frontier-records",
    );
    expect((records?.with as Record<string, string> | undefined)?.["sparse-checkout"]).toBe(
      `${FROM_ENV}/.frontier`,
    );
    // the agent step is the built-in agent, on GitHub Models with the job's token
    const agent = steps(task).find((s) => s.id === "agent");
    expect(agent).toMatchObject({ uses: "acme/tf@0123abc", with: { command: "agent" } });
    expect(task.permissions).toMatchObject({ models: "read" });
    expect(r.stdout).toMatch(
      /orch-task's agent: the built-in agent: GitHub Models with the job's token, no secret/,
    );
  });

  it("without --action, copies the action into the repository and uses it by path", () => {
    const { root, r, read } = initGithub(["--github"]);
    expect(r.code).toBe(0);
    const vendored = join(root, ".github", "actions", "ticket-frontier");
    expect(readFileSync(join(vendored, "action.yml"), "utf8")).toBe(
      readFileSync(join(ROOT, "action.yml"), "utf8"),
    );
    expect(existsSync(join(vendored, "dist", "index.js"))).toBe(true);
    const uses = [...steps(read("frontier.yml")), ...steps(read("orch-task.yml"))]
      .map((s) => s.uses)
      .filter((u) => typeof u === "string" && !u.startsWith("actions/"));
    expect(uses).toEqual([
      "./.github/actions/ticket-frontier",
      "./.github/actions/ticket-frontier",
      "./.github/actions/ticket-frontier",
      "./.github/actions/ticket-frontier",
    ]);
  });

  it("--agent stand-in: the stand-in executor as the agent step, and no models permission", () => {
    const { r, read } = initGithub(["--github", "--agent", "stand-in"]);
    expect(r.code, r.stderr).toBe(0);
    const task = read("orch-task.yml");
    const agent = steps(task).find((s) => s.id === "agent");
    expect(agent?.run).toMatch(
      /^node "\$FRONTIER_DIR\/_bin\/starter-executor\.mjs" < "\$FRONTIER_CONTEXT_FILE"\n$/,
    );
    expect(agent?.if).toBe("steps.context.outputs.live == 'true'");
    expect(task.permissions).not.toHaveProperty("models");
  });

  it.each([
    ["codex", "openai/codex-action", "OPENAI_API_KEY"],
    ["claude-code", "anthropics/claude-code-base-action", "ANTHROPIC_API_KEY"],
  ])(
    "--agent %s: the recipe's steps in place of the agent step, between context and settle",
    (name, action, secret) => {
      const { r, read } = initGithub(["--github", "--agent", name]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(secret);
      const task = read("orch-task.yml");
      const ids = steps(task).map((s) => s.id ?? s.uses);
      expect(ids.map((id) => String(id).replace(/@[0-9a-f]{40}$/, ""))).toEqual([
        "actions/checkout",
        "actions/checkout",
        "context",
        "agent-prompt",
        "agent",
        "agent-outcome",
        "settle",
        "actions/upload-artifact",
      ]);
      const recipe = parse(
        readFileSync(join(ROOT, "examples", "agents", `${name}.yml`), "utf8"),
      ) as {
        steps: unknown[];
      };
      expect(steps(task).slice(3, 6)).toEqual(recipe.steps);
      expect(steps(task).find((s) => s.id === "agent")?.uses).toMatch(new RegExp(`^${action}@`));
      expect(task.permissions).not.toHaveProperty("models");
    },
  );

  it("refuses an agent it does not know, naming the ones it does; and --agent without --github", () => {
    const { r } = initGithub(["--github", "--agent", "gpt"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--agent "gpt" is not an agent init knows: model .*; stand-in .*; codex .*; claude-code/,
    );
    const { root } = workspace();
    const local = frontier(["init", "--agent", "codex"], { cwd: root });
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/pass it with --github/);
    expect(existsSync(join(root, "tickets"))).toBe(false);
  });

  it("never overwrites a workflow that is there, and writes no tickets either", () => {
    const { root } = workspace();
    mkdirSync(join(root, ".git"));
    mkdirSync(join(root, ".github", "workflows"), { recursive: true });
    writeFileSync(join(root, ".github", "workflows", "orch-task.yml"), "name: mine\n");
    const r = frontier(["init", "--github"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\.github\/workflows\/orch-task\.yml already exists/);
    expect(readFileSync(join(root, ".github", "workflows", "orch-task.yml"), "utf8")).toBe(
      "name: mine\n",
    );
    expect(existsSync(join(root, "tickets"))).toBe(false);
  });

  it("refuses --action without --github", () => {
    const { root } = workspace();
    const r = frontier(["init", "--action", "acme/tf@0123abc"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pass it with --github/);
    expect(existsSync(join(root, "tickets"))).toBe(false);
  });

  it("marks the run's records as generated, so a pull request collapses them (.gitattributes)", () => {
    const { root } = workspace();
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".gitattributes"), "*.png binary");
    const r = frontier(["init", "svc/work", "--github"], { cwd: root });
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, ".gitattributes"), "utf8")).toBe(
      "*.png binary\nsvc/work/.frontier/** linguist-generated=true\n",
    );
    expect(r.stdout).toMatch(
      /\.gitattributes: svc\/work\/\.frontier\/\*\* is marked linguist-generated/,
    );
  });

  it("refuses an action reference that is not owner/repo@ref", () => {
    const { r } = initGithub(["--github", "--action", "ticket-frontier"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/owner\/repo@ref/);
  });
});

describe("the example workflows name the ticket directory once, the push filter aside", () => {
  it.each(["frontier.yml", "orch-task.yml"])("%s", (name) => {
    const text = readFileSync(join(ROOT, "examples", "workflows", name), "utf8");
    const code = text.replace(/#.*$/gm, "");
    const literal = [...code.matchAll(/\btickets\b(?!:)/g)].length;
    // the env value, plus the push paths filter in frontier.yml (GitHub reads `on:` before any variable)
    expect(literal).toBe(name === "frontier.yml" ? 2 : 1);
    expect(code).toMatch(/FRONTIER_TICKETS: tickets/);
  });
});

/** `owner/repo@<40 hex> # vX.Y.Z`: a third-party action pinned to a commit, its version said. */
const PINNED = /^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@[0-9a-f]{40} # v\d+(?:\.\d+){0,2}$/;

describe("every action a workflow uses is pinned to a commit, never a tag that can move", () => {
  it.each(["frontier.yml", "orch-task.yml"])("examples/workflows/%s", (name) => {
    const text = readFileSync(join(ROOT, "examples", "workflows", name), "utf8");
    const uses = [...text.matchAll(/^\s*(?:- )?uses: (.*)$/gm)].map((m) => m[1]!.trim());
    expect(uses.length).toBeGreaterThan(2);
    // the action itself is the one placeholder: init writes a copy's path or --action's ref
    const others = uses.filter((u) => u !== "your-org/ticket-frontier@COMMIT_SHA");
    for (const u of others) expect(u).toMatch(PINNED);
  });

  it.each([[[]], [["--agent", "stand-in"]]])("what init --github %j writes", (args) => {
    const { root } = workspace();
    mkdirSync(join(root, ".git"));
    expect(frontier(["init", "--github", ...args], { cwd: root }).code).toBe(0);
    for (const name of ["frontier.yml", "orch-task.yml"]) {
      const text = readFileSync(join(root, ".github", "workflows", name), "utf8");
      const uses = [...text.matchAll(/^\s*(?:- )?uses: (.*)$/gm)].map((m) => m[1]!.trim());
      for (const u of uses) {
        if (u !== "./.github/actions/ticket-frontier") expect(u, name).toMatch(PINNED);
      }
    }
  });
});

describe("frontier init --coding: the settings of coding tickets, and no tickets", () => {
  it("writes isolation, an ignore rule for the run's records and a stand-in coding agent", () => {
    const { root } = workspace();
    const r = frontier(["init", "--coding"], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    const settings = parse(readFileSync(join(root, "tickets", "frontier.yml"), "utf8")) as {
      isolation: string;
      executor: string;
    };
    expect(settings.isolation).toBe("worktree");
    expect(settings.executor).toBe('node "$FRONTIER_DIR/_bin/stand-in-agent.mjs"');
    expect(existsSync(join(root, "tickets", "_bin", "stand-in-agent.mjs"))).toBe(true);
    expect(readFileSync(join(root, "tickets", ".gitignore"), "utf8")).toMatch(/^\.frontier\/$/m);
    // the next commands: scoped tickets, a commit, the run
    expect(r.stdout).toMatch(/frontier new tickets api --scope 'src\/api\/\*\*'/);
    expect(r.stdout).toMatch(/git add tickets && git commit/);
  });

  it("git leaves the run's records out: .frontier/ is ignored where init wrote the rule", () => {
    const { root } = workspace();
    spawnSync("git", ["init", "-q"], { cwd: root });
    frontier(["init", "--coding"], { cwd: root });
    mkdirSync(join(root, "tickets", ".frontier"));
    writeFileSync(join(root, "tickets", ".frontier", "run.json"), "{}");
    const ignored = spawnSync("git", ["check-ignore", "tickets/.frontier/run.json"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(ignored.status).toBe(0);
  });
});
