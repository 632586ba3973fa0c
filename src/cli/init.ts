/**
 * `frontier init [DIR] [--coding] [--github] [--action REF] [--agent NAME]`: a starter ticket
 * directory that runs as it is (`frontier run DIR`) — with `--coding`, the settings of coding
 * tickets (examples/coding-init/: isolation, `.frontier/` ignored, a stand-in coding agent)
 * and no tickets, for `frontier new --scope` to add — and with `--github` the two workflows, written
 * from examples/workflows/ with the ticket directory and the action's reference filled in
 * wherever GitHub needs them, and the orch-task job's agent step: the built-in agent (the
 * default: GitHub Models with the job's token, nothing to set up), or one of
 * examples/agents/. Nothing that exists is overwritten: if any file it would write is
 * there, it writes none.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parse } from "yaml";
import { errorText } from "../core/errors.js";
import { errorLine, painter } from "../terminal/colour.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { noun, plural, shellWord, shownPath } from "../terminal/text.js";
import { ticketFileNames } from "../tickets/load.js";
import { makeDirectory } from "../tickets/store.js";
import { DEFAULT_DIR } from "./argv.js";
import { CODING_FILES, STARTER_AGENT_STEP, STARTER_FILES } from "./starter.js";
import { findUp, PACKAGE_ROOT } from "./version.js";

/**
 * The agents `--agent` offers for the orch-task job: the built-in one (the example
 * workflow's own agent step), or the steps of one of examples/agents/.
 */
export const AGENTS = {
  model: "the built-in agent: GitHub Models with the job's token, no secret",
  "stand-in": "the stand-in: no model, no network (placeholder results)",
  codex: "Codex (openai/codex-action) editing the checkout; needs the secret OPENAI_API_KEY",
  "claude-code":
    "Claude Code (anthropics/claude-code-base-action) editing the checkout; needs the secret ANTHROPIC_API_KEY",
} as const;
export type AgentChoice = keyof typeof AGENTS;

/** Where `--github` copies the action when no published reference is given. */
const VENDORED_ACTION = ".github/actions/ticket-frontier";

/**
 * How often the frontier workflow sweeps for claims whose lease ran out, and what that costs:
 * one job per sweep, billed at least a minute on a private repository. A lease that ran out
 * is reclaimed by the run's next event anyway; the sweep is for a run with no next event.
 */
export const SWEEPS = {
  "15m": { cron: "*/15 * * * *", perDay: 96 },
  "30m": { cron: "*/30 * * * *", perDay: 48 },
  "1h": { cron: "17 * * * *", perDay: 24 },
  "6h": { cron: "17 */6 * * *", perDay: 4 },
  "1d": { cron: "17 4 * * *", perDay: 1 },
  off: { cron: undefined, perDay: 0 },
} as const satisfies Record<string, { cron: string | undefined; perDay: number }>;

export type Sweep = keyof typeof SWEEPS;
const DEFAULT_SWEEP: Sweep = "1h";

/** `value` names an entry of `table`: an agent of AGENTS, a sweep of SWEEPS. */
function isKey<T extends object>(table: T, value: string | undefined): value is keyof T & string {
  return value !== undefined && Object.hasOwn(table, value);
}

export interface InitOptions {
  github?: boolean;
  /** the settings of coding tickets instead of the three starter tickets */
  coding?: boolean;
  /** `owner/repo@sha-or-tag`; without it the action is copied into the repository */
  action?: string;
  /** the sweep's cadence (default hourly) */
  sweep?: string;
  /** the orch-task job's agent (default `model`) */
  agent?: string;
}

interface Planned {
  /** absolute path */
  path: string;
  write: () => void;
}

export async function initCommand(
  typedDir: string | undefined,
  opts: InitOptions,
  io: CliIo,
): Promise<number> {
  const fail = (message: string) => {
    errorLine(io, message);
    return EXIT.usage;
  };
  const wrong = optionProblem(opts);
  if (wrong !== undefined) return fail(wrong);
  const sweep = isKey(SWEEPS, opts.sweep) ? opts.sweep : DEFAULT_SWEEP;
  const agent = isKey(AGENTS, opts.agent) ? opts.agent : "model";
  const cwd = process.cwd();
  const dir = shownPath(typedDir ?? DEFAULT_DIR, cwd);
  const absDir = resolve(cwd, dir);
  if (existsSync(absDir)) {
    if (!statSync(absDir).isDirectory())
      return fail(`${dir} exists and is not a directory; pass another DIR`);
    const tickets = ticketFileNames(readdirSync(absDir));
    if (tickets.length > 0) {
      return fail(
        `${dir} already holds ${plural(tickets.length, "ticket")}; nothing was written — \`frontier init\` starts a new directory (pass another DIR), and \`frontier new ${shellWord(dir)} ID\` adds a ticket to this one`,
      );
    }
  }

  const [folder, files] = opts.coding ? ["coding-init", CODING_FILES] : ["starter", STARTER_FILES];
  const planned = files.map((f) => {
    // npm leaves every .gitignore out of a package: it ships as gitignore
    const text = readFileSync(join(PACKAGE_ROOT, "examples", folder, f.replace(/^\./, "")), "utf8");
    return newFile(join(absDir, f), text);
  });

  const github = opts.github ? planGithub(cwd, absDir, dir, opts.action, agent, sweep) : undefined;
  if (typeof github === "string") return fail(github);
  planned.push(...(github?.planned ?? []));
  const there = planned.filter((p) => existsSync(p.path));
  if (there.length > 0) {
    // another DIR moves the tickets, never the workflows or the action's copy
    const inDir = there.every((p) => !relative(absDir, p.path).startsWith(".."));
    const shown = there.map((p) => shownPath(p.path, cwd));
    return fail(
      `${shown.join(", ")} already ${noun(there.length, "exists", "exist")}; nothing was written — move ${noun(there.length, "it", "them")} aside${inDir ? ", or pass another DIR" : " (or delete them) and run it again"}`,
    );
  }
  let generated: string | undefined;
  try {
    for (const p of planned) p.write();
    if (github !== undefined) generated = markGenerated(github.repoRoot, github.ticketsInRepo);
  } catch (e) {
    return fail(`could not write the starter files: ${errorText(e)}`);
  }

  // a tag or a branch can be moved to other code after you reviewed it; a commit cannot
  const ref = opts.action?.slice(opts.action.lastIndexOf("@") + 1);
  const repo = opts.action?.slice(0, opts.action.lastIndexOf("@"));
  if (ref !== undefined && !/^[0-9a-f]{40}$/.test(ref)) {
    line(
      io.stderr,
      `${painter(io.stderr, io.env)("yellow", "warning:")} ${opts.action} does not pin a commit: a tag or a branch can be moved to other code after you chose it — pin the full 40-character commit sha (\`git ls-remote https://github.com/${repo} ${ref}\` prints it), e.g. --action ${repo}@<sha>`,
    );
  }
  line(io.stdout, summary(dir, cwd, opts, agent, github, generated).join("\n"));
  return EXIT.complete;
}

/** The options only `--github` takes, and what each says without it. */
const GITHUB_ONLY = {
  action: "--action names the action the GitHub workflows use: pass it with --github",
  sweep: "--sweep sets how often the GitHub workflow sweeps: pass it with --github",
  agent:
    "--agent picks the agent of the GitHub orch-task workflow: pass it with --github (locally, set executor: in frontier.yml)",
} as const;

/** What is wrong with init's options together, or undefined. */
function optionProblem(opts: InitOptions): string | undefined {
  const alone = (["action", "sweep", "agent"] as const).find((o) => opts[o] !== undefined);
  if (alone !== undefined && !opts.github) return GITHUB_ONLY[alone];
  if (opts.sweep !== undefined && !isKey(SWEEPS, opts.sweep)) {
    return `--sweep takes one of ${Object.keys(SWEEPS).join(", ")} (how often the workflow reclaims claims whose lease ran out; default ${DEFAULT_SWEEP}), got ${JSON.stringify(opts.sweep)}`;
  }
  if (opts.agent !== undefined && !isKey(AGENTS, opts.agent)) {
    const known = Object.entries(AGENTS).map(([name, what]) => `${name} (${what})`);
    return `--agent ${JSON.stringify(opts.agent)} is not an agent init knows: ${known.join("; ")}`;
  }
  return undefined;
}

/** What `--github` writes — the two workflows and, without --action, the action's copy — or why not. */
function planGithub(
  cwd: string,
  absDir: string,
  dir: string,
  action: string | undefined,
  agent: AgentChoice,
  sweep: Sweep,
): string | { planned: Planned[]; repoRoot: string; ticketsInRepo: string; uses: string } {
  if (action !== undefined && !/^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@\S+$/.test(action)) {
    return `--action ${JSON.stringify(action)} is not an action reference: write owner/repo@ref (a commit sha, a tag or a branch), e.g. --action my-org/ticket-frontier@3f2c1e0`;
  }
  const repoRoot = findUp(cwd, ".git");
  const rel = relative(repoRoot, absDir);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    return `--github needs the ticket directory inside the repository at ${shownPath(repoRoot, cwd)}, below its root (e.g. tickets); got ${dir}`;
  }
  const ticketsInRepo = rel.split(sep).join("/");
  const uses = action ?? `./${VENDORED_ACTION}`;
  const workflows = join(repoRoot, ".github", "workflows");
  const made = workflowTexts(ticketsInRepo, uses, agent, { sweep });
  const planned = Object.entries(made).map(([name, text]) => newFile(join(workflows, name), text));
  if (action === undefined) {
    if (!existsSync(join(PACKAGE_ROOT, "dist", "index.js"))) {
      return `this copy of ticket-frontier has no bundled action (${join(PACKAGE_ROOT, "dist")} is missing) to copy into the repository: pass --action OWNER/ticket-frontier@SHA to reference it instead`;
    }
    const target = join(repoRoot, VENDORED_ACTION);
    const actionYml = readFileSync(join(PACKAGE_ROOT, "action.yml"), "utf8");
    planned.push(newFile(join(target, "action.yml"), actionYml), {
      path: join(target, "dist"),
      write: () =>
        cpSync(join(PACKAGE_ROOT, "dist"), join(target, "dist"), {
          recursive: true,
          errorOnExist: true,
          force: false,
        }),
    });
  }
  return { planned, repoRoot, ticketsInRepo, uses };
}

/** What init says it wrote, and the commands that come next. */
function summary(
  dir: string,
  cwd: string,
  opts: InitOptions,
  agent: AgentChoice,
  github: { repoRoot: string; ticketsInRepo: string; uses: string } | undefined,
  generated: string | undefined,
): string[] {
  const d = shellWord(dir);
  const out: string[] = [
    opts.coding
      ? `wrote ${dir}/: frontier.yml (isolation: worktree), .gitignore (leaves .frontier/ out of commits) and a stand-in coding agent (_bin/).`
      : `wrote ${dir}/: ${plural(STARTER_FILES.filter((f) => f.endsWith(".md")).length, "ticket")}, frontier.yml and a stand-in executor (_bin/).`,
  ];
  if (github !== undefined) {
    const shown = (...path: string[]) => shownPath(join(github.repoRoot, ...path), cwd);
    const wf = (name: string) => shown(".github", "workflows", name);
    out.push(
      `wrote ${wf("frontier.yml")} and ${wf("orch-task.yml")} (tickets: ${github.ticketsInRepo}, uses: ${github.uses}).`,
      `orch-task's agent: ${AGENTS[agent]}.`,
    );
    if (opts.action === undefined) {
      out.push(`copied the action to ${shown(VENDORED_ACTION)} (no published release needed).`);
    }
    if (generated !== undefined) {
      out.push(
        `${shown(".gitattributes")}: ${generated} is marked linguist-generated, so pull requests show the run's records collapsed.`,
      );
    }
    // a local run writes its state into the tickets: committed, GitHub would continue it
    return [
      ...out,
      "Check them:",
      `  frontier validate ${d}`,
      `  frontier plan ${d}`,
      "Then commit the workflows to the default branch and the tickets to a branch of their own (the README's GitHub setup, steps 3 and 4). Try local runs on a copy: a run's state in the tickets would be committed with them.",
    ];
  }
  if (!opts.coding) return [...out, "Try it:", `  frontier validate ${d}`, `  frontier run ${d}`];
  return [
    ...out,
    "Add tickets, each with the paths it may change; commit them (a ticket's worktree holds only what is committed); run:",
    `  frontier new ${d} api --scope 'src/api/**'`,
    `  frontier new ${d} ui --after api --scope 'src/ui/**'`,
    `  git add ${d} && git commit -m "coding tickets"`,
    `  frontier run ${d}`,
  ];
}

/**
 * Mark the run's records (`DIR/.frontier/**`) as generated in the repository's
 * .gitattributes, so GitHub collapses them in a pull request's diff and leaves them out of
 * the language statistics. A line is added to a .gitattributes that exists (the author's
 * lines stay as they are), never twice. Returns the pattern.
 */
function markGenerated(repoRoot: string, ticketsInRepo: string): string {
  const plain = `${ticketsInRepo}/.frontier/**`;
  // git reads a pattern with spaces or quotes only in C-style quotes
  const pattern = /^[^\s"\\]+$/.test(plain) ? plain : JSON.stringify(plain);
  const entry = `${pattern} linguist-generated=true`;
  const file = join(repoRoot, ".gitattributes");
  const before = existsSync(file) ? readFileSync(file, "utf8") : "";
  if (!before.split(/\r?\n/).some((l) => l.trim() === entry)) {
    const gap = before === "" || before.endsWith("\n") ? "" : "\n";
    writeFileSync(file, `${before}${gap}${entry}\n`);
  }
  return pattern;
}

/** A file to write where none is yet. */
function newFile(path: string, text: string): Planned {
  return {
    path,
    write: () => {
      makeDirectory(dirname(path));
      writeFileSync(path, text, { flag: "wx" });
    },
  };
}

/**
 * The two example workflows with this repository's values: the ticket directory (the
 * workflow-level FRONTIER_TICKETS every step reads, and the push filter, which GitHub
 * reads before any variable exists), the action's reference in every `uses:` of it
 * (GitHub allows no expression there), and the agent: the example's own agent step (the
 * built-in agent), or the steps of examples/agents/<agent>.yml in its place — then the
 * job needs no `models: read`.
 *
 * The example text is edited line by line, so its comments and layout survive as
 * written; the result is then parsed and checked, so an example that changes shape
 * fails here (and in the tests) instead of producing a workflow that misses a value.
 */
export function workflowTexts(
  tickets: string,
  uses: string,
  agent: AgentChoice = "model",
  opts: { sweep?: Sweep } = {},
): Record<string, string> {
  const sweep = SWEEPS[opts.sweep ?? DEFAULT_SWEEP];
  const examples = join(PACKAGE_ROOT, "examples", "workflows");
  const out: Record<string, string> = {};
  const quotedTickets = /^[A-Za-z0-9._/-]+$/.test(tickets) ? tickets : JSON.stringify(tickets);
  const fragment = agent === "model" ? undefined : agentFragment(agent);
  for (const name of ["frontier.yml", "orch-task.yml"]) {
    let text = readFileSync(join(examples, name), "utf8")
      .replace(/^( {2}FRONTIER_TICKETS: ).*$/m, `$1${quotedTickets}`)
      .replace(/^( {4}paths: \[)"[^"]*"\]/m, `$1${JSON.stringify(`${tickets}/**`)}]`)
      .replace(/^( +uses: )\S*ticket-frontier\S*$/gm, `$1${uses}`)
      .replace(/^((?: {2}#.*\n)*) {2}schedule:\n {4}- cron: "[^"]*"\n/m, (_all, comments) =>
        sweep.cron === undefined
          ? "  # No sweep (frontier init --github --sweep off): a claim whose lease ran out waits\n  # for its run's next event; Actions → frontier → Run workflow sweeps by hand.\n"
          : `${comments}  schedule:\n    - cron: "${sweep.cron}"\n`,
      );
    if (name === "orch-task.yml" && fragment !== undefined) {
      text = withAgentSteps(text, fragment).replace(/^ {2}models: read\b.*\n/m, "");
    }
    checkWorkflow(name, text, tickets, uses, agent, sweep.cron);
    out[name] = text;
  }
  return out;
}

/** examples/agents/<agent>.yml: what its agent is (its first paragraph) and its steps. */
function agentFragment(agent: AgentChoice): { about: string[]; steps: string[] } {
  const file = join(PACKAGE_ROOT, "examples", "agents", `${agent}.yml`);
  const lines = readFileSync(file, "utf8").replace(/\n+$/, "").split("\n");
  const at = lines.indexOf("steps:");
  const blank = lines.findIndex((l) => l.trim() === "#");
  if (at < 0 || blank < 0 || blank > at) {
    throw new Error(
      `examples/agents/${agent}.yml is not shaped as init expects: a comment, then steps:`,
    );
  }
  return { about: lines.slice(0, blank), steps: lines.slice(at + 1) };
}

/**
 * The workflow with the agent step — and the comment above it — replaced by the
 * fragment's steps, indented to the job's steps.
 */
function withAgentSteps(text: string, fragment: { about: string[]; steps: string[] }): string {
  const lines = text.split("\n");
  const start = lines.indexOf("      - id: agent");
  let first = start;
  while (first > 0 && lines[first - 1]!.startsWith("      #")) first--;
  let end = start + 1;
  while (end < lines.length && (lines[end]!.trim() === "" || /^ {8}/.test(lines[end]!))) end++;
  // the blank lines before the next step stay where they were
  while (end > start + 1 && lines[end - 1]!.trim() === "") end--;
  if (start < 0) throw new Error("examples/workflows/orch-task.yml has no `- id: agent` step");
  const indent = (l: string) => (l.trim() === "" ? "" : `    ${l}`);
  return [
    ...lines.slice(0, first),
    ...fragment.about.map((l) => `      ${l}`),
    "      #",
    ...fragment.steps.map(indent),
    ...lines.slice(end),
  ].join("\n");
}

function checkWorkflow(
  name: string,
  text: string,
  tickets: string,
  uses: string,
  agent: AgentChoice,
  cron: string | undefined,
): void {
  const doc = parse(text) as {
    env?: Record<string, unknown>;
    on?: { push?: { paths?: unknown[] }; schedule?: Array<{ cron?: unknown }> };
    permissions?: Record<string, unknown>;
    jobs?: Record<string, { steps?: Array<Record<string, unknown>> }>;
  };
  const steps = Object.values(doc.jobs ?? {}).flatMap((j) => j.steps ?? []);
  // this action's steps: each names the ticket directory (an agent's steps do not)
  const ours = steps.filter(
    (s) => typeof s.uses === "string" && (s.with as { tickets?: unknown })?.tickets !== undefined,
  );
  const wrong: string[] = [];
  if (doc.env?.FRONTIER_TICKETS !== tickets) wrong.push("env.FRONTIER_TICKETS");
  if (name === "frontier.yml" && doc.on?.push?.paths?.[0] !== `${tickets}/**`)
    wrong.push("on.push.paths");
  if (name === "frontier.yml" && doc.on?.schedule?.[0]?.cron !== cron) wrong.push("on.schedule");
  if (ours.length === 0 || ours.some((s) => s.uses !== uses)) wrong.push("uses");
  if (name === "orch-task.yml") {
    const step = steps.find((s) => s.id === "agent");
    const builtIn = agent === "model";
    if (
      step === undefined ||
      (builtIn &&
        (step.uses !== uses || (step.with as { command?: unknown })?.command !== "agent")) ||
      (agent === "stand-in" && step.run !== `${STARTER_AGENT_STEP}\n`)
    )
      wrong.push("the agent step");
    if (builtIn !== (doc.permissions?.models === "read")) wrong.push("permissions.models");
    if (!steps.some((s) => s.id === "context") || !steps.some((s) => s.id === "settle"))
      wrong.push("the context and settle steps");
  }
  if (wrong.length > 0) {
    throw new Error(
      `examples/workflows/${name} is not shaped as init expects: ${wrong.join(", ")}`,
    );
  }
}
