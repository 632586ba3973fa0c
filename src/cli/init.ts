/**
 * `frontier init [DIR] [--github] [--action REF]`: a starter ticket directory that runs
 * as it is (`frontier run DIR`), and with `--github` the two workflows, written from
 * examples/workflows/ with the ticket directory and the action's reference filled in
 * wherever GitHub needs them. Nothing that exists is overwritten: if any file it would
 * write is there, it writes none.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { errorLine } from "../terminal/colour.js";
import { type CliIo, EXIT, line } from "../terminal/io.js";
import { plural, shellWord, shownPath } from "../terminal/text.js";
import { DEFAULT_DIR } from "./argv.js";
import { STARTER_AGENT_STEP, STARTER_FILES } from "./starter.js";

/** This package's root: build/src/cli/init.js is three levels down. */
const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Where `--github` copies the action when no published reference is given. */
export const VENDORED_ACTION = ".github/actions/ticket-frontier";

export interface InitOptions {
  github: boolean;
  /** `owner/repo@sha-or-tag`; without it the action is copied into the repository */
  action?: string;
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
  if (opts.action !== undefined && !opts.github) {
    return fail("--action names the action the GitHub workflows use: pass it with --github");
  }
  const cwd = process.cwd();
  const dir = shownPath(typedDir ?? DEFAULT_DIR, cwd);
  const absDir = resolve(cwd, dir);
  if (existsSync(absDir) && !statSync(absDir).isDirectory()) {
    return fail(`${dir} exists and is not a directory; pass another DIR`);
  }
  if (existsSync(absDir)) {
    const tickets = readdirSync(absDir).filter((n) => n.endsWith(".md") && !/^[._]/.test(n));
    if (tickets.length > 0) {
      return fail(
        `${dir} already holds ${plural(tickets.length, "ticket")}; nothing was written — \`frontier init\` starts a new directory (pass another DIR), and \`frontier new ${shellWord(dir)} ID\` adds a ticket to this one`,
      );
    }
  }

  const planned: Planned[] = Object.entries(STARTER_FILES).map(([file, text]) => ({
    path: join(absDir, file),
    write: () => writeNew(join(absDir, file), text),
  }));

  let repoRoot: string | undefined;
  let ticketsInRepo: string | undefined;
  let uses: string | undefined;
  if (opts.github) {
    if (opts.action !== undefined && !/^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@\S+$/.test(opts.action)) {
      return fail(
        `--action ${JSON.stringify(opts.action)} is not an action reference: write owner/repo@ref (a commit sha, a tag or a branch), e.g. --action my-org/ticket-frontier@3f2c1e0`,
      );
    }
    repoRoot = findRepoRoot(cwd);
    const rel = relative(repoRoot, absDir);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
      return fail(
        `--github needs the ticket directory inside the repository at ${shownPath(repoRoot, cwd)}, below its root (e.g. tickets); got ${dir}`,
      );
    }
    ticketsInRepo = rel.split(sep).join("/");
    uses = opts.action ?? `./${VENDORED_ACTION}`;
    const workflows = join(repoRoot, ".github", "workflows");
    const made = workflowTexts(ticketsInRepo, uses);
    for (const [name, text] of Object.entries(made)) {
      planned.push({
        path: join(workflows, name),
        write: () => writeNew(join(workflows, name), text),
      });
    }
    if (opts.action === undefined) {
      if (!existsSync(join(PACKAGE_ROOT, "dist", "index.js"))) {
        return fail(
          `this copy of ticket-frontier has no bundled action (${join(PACKAGE_ROOT, "dist")} is missing) to copy into the repository: pass --action OWNER/ticket-frontier@SHA to reference it instead`,
        );
      }
      const target = join(repoRoot, VENDORED_ACTION);
      planned.push({
        path: join(target, "action.yml"),
        write: () =>
          writeNew(
            join(target, "action.yml"),
            readFileSync(join(PACKAGE_ROOT, "action.yml"), "utf8"),
          ),
      });
      planned.push({
        path: join(target, "dist"),
        write: () =>
          cpSync(join(PACKAGE_ROOT, "dist"), join(target, "dist"), {
            recursive: true,
            errorOnExist: true,
            force: false,
          }),
      });
    }
  }

  const there = planned.filter((p) => existsSync(p.path)).map((p) => shownPath(p.path, cwd));
  if (there.length > 0) {
    return fail(
      `${there.join(", ")} already ${there.length === 1 ? "exists" : "exist"}; nothing was written — move ${there.length === 1 ? "it" : "them"} aside, or pass another DIR`,
    );
  }
  try {
    for (const p of planned) p.write();
  } catch (e) {
    return fail(`could not write the starter files: ${(e as Error).message}`);
  }

  const out: string[] = [
    `wrote ${dir}/: ${plural(Object.keys(STARTER_FILES).filter((f) => f.endsWith(".md")).length, "ticket")}, frontier.yml and a stand-in executor (_bin/).`,
  ];
  if (opts.github && repoRoot !== undefined) {
    const wf = (name: string) => shownPath(join(repoRoot!, ".github", "workflows", name), cwd);
    out.push(
      `wrote ${wf("frontier.yml")} and ${wf("orch-task.yml")} (tickets: ${ticketsInRepo}, uses: ${uses}).`,
    );
    if (opts.action === undefined) {
      out.push(
        `copied the action to ${shownPath(join(repoRoot, VENDORED_ACTION), cwd)} (no published release needed).`,
      );
    }
  }
  if (opts.github) {
    // a local run writes its state into the tickets: committed, GitHub would continue it
    out.push("Check them:");
    out.push(`  frontier validate ${shellWord(dir)}`);
    out.push(`  frontier plan ${shellWord(dir)}`);
    out.push(
      "Then commit the workflows to the default branch and the tickets to a branch of their own (the README's GitHub setup, steps 3 and 4). Try local runs on a copy: a run's state in the tickets would be committed with them.",
    );
  } else {
    out.push("Try it:");
    out.push(`  frontier validate ${shellWord(dir)}`);
    out.push(`  frontier run ${shellWord(dir)}`);
  }
  line(io.stdout, out.join("\n"));
  return EXIT.complete;
}

function writeNew(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { flag: "wx" });
}

/** The nearest directory at or above `from` that holds `.git`; `from` itself if none does. */
function findRepoRoot(from: string): string {
  for (let d = from; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (dirname(d) === d) return from;
  }
}

/**
 * The two example workflows with this repository's values: the ticket directory (the
 * workflow-level FRONTIER_TICKETS every step reads, and the push filter, which GitHub
 * reads before any variable exists), the action's reference in every `uses:` of it
 * (GitHub allows no expression there), and the starter executor as the agent step.
 *
 * The example text is edited line by line, so its comments and layout survive as
 * written; the result is then parsed and checked, so an example that changes shape
 * fails here (and in the tests) instead of producing a workflow that misses a value.
 */
export function workflowTexts(tickets: string, uses: string): Record<string, string> {
  const examples = join(PACKAGE_ROOT, "examples", "workflows");
  const out: Record<string, string> = {};
  const quotedTickets = /^[A-Za-z0-9._/-]+$/.test(tickets) ? tickets : JSON.stringify(tickets);
  for (const name of ["frontier.yml", "orch-task.yml"]) {
    const text = readFileSync(join(examples, name), "utf8")
      .replace(/^( {2}FRONTIER_TICKETS: ).*$/m, `$1${quotedTickets}`)
      .replace(/^( {4}paths: \[)"[^"]*"\]/m, `$1${JSON.stringify(`${tickets}/**`)}]`)
      .replace(/^( +uses: )\S*ticket-frontier\S*$/gm, `$1${uses}`)
      .replace(
        /^( {6}- id: agent\n(?: {8}.*\n)*? {8}run: \|\n)(?: {10}.*\n)+/m,
        `$1          ${STARTER_AGENT_STEP}\n`,
      );
    checkWorkflow(name, text, tickets, uses);
    out[name] = text;
  }
  return out;
}

function checkWorkflow(name: string, text: string, tickets: string, uses: string): void {
  const doc = parse(text) as {
    env?: Record<string, unknown>;
    on?: { push?: { paths?: unknown[] } };
    jobs?: Record<string, { steps?: Array<Record<string, unknown>> }>;
  };
  const steps = Object.values(doc.jobs ?? {}).flatMap((j) => j.steps ?? []);
  const ours = steps.filter((s) => typeof s.uses === "string" && !s.uses.startsWith("actions/"));
  const wrong: string[] = [];
  if (doc.env?.FRONTIER_TICKETS !== tickets) wrong.push("env.FRONTIER_TICKETS");
  if (name === "frontier.yml" && doc.on?.push?.paths?.[0] !== `${tickets}/**`)
    wrong.push("on.push.paths");
  if (ours.length === 0 || ours.some((s) => s.uses !== uses)) wrong.push("uses");
  if (
    name === "orch-task.yml" &&
    steps.find((s) => s.id === "agent")?.run !== `${STARTER_AGENT_STEP}\n`
  )
    wrong.push("the agent step");
  if (wrong.length > 0) {
    throw new Error(
      `examples/workflows/${name} is not shaped as init expects: ${wrong.join(", ")}`,
    );
  }
}
