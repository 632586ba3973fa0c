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
import { isMap, isSeq, parseDocument } from "yaml";
import { DEFAULT_DIR } from "./argv.js";
import { type CliIo, EXIT, line } from "./io.js";
import { STARTER_AGENT_STEP, STARTER_FILES } from "./starter.js";
import { plural, shellWord, shownPath } from "./text.js";

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
    line(io.stderr, `error: ${message}`);
    return EXIT.usage;
  };
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
  out.push("Try it:");
  out.push(`  frontier validate ${shellWord(dir)}`);
  out.push(`  frontier run ${shellWord(dir)}`);
  if (opts.github) {
    out.push(
      "Then commit and push to your default branch; the README's GitHub setup lists the settings the first run needs.",
    );
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
 */
export function workflowTexts(tickets: string, uses: string): Record<string, string> {
  const examples = join(PACKAGE_ROOT, "examples", "workflows");
  const out: Record<string, string> = {};
  for (const name of ["frontier.yml", "orch-task.yml"]) {
    const doc = parseDocument(readFileSync(join(examples, name), "utf8"));
    doc.setIn(["env", "FRONTIER_TICKETS"], tickets);
    if (doc.hasIn(["on", "push", "paths"])) {
      const paths = doc.createNode([`${tickets}/**`], { flow: true });
      doc.setIn(["on", "push", "paths"], paths);
    }
    const jobs = doc.get("jobs");
    if (!isMap(jobs)) throw new Error(`examples/workflows/${name} has no jobs`);
    for (const job of jobs.items) {
      const steps = isMap(job.value) ? job.value.get("steps") : undefined;
      if (!isSeq(steps)) continue;
      for (const step of steps.items) {
        if (!isMap(step)) continue;
        const used = step.get("uses");
        if (typeof used === "string" && /ticket-frontier/.test(used)) step.set("uses", uses);
        if (step.get("id") === "agent") step.set("run", `${STARTER_AGENT_STEP}\n`);
      }
    }
    out[name] = doc.toString({ lineWidth: 0 });
  }
  return out;
}
