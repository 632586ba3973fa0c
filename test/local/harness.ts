/**
 * Integration harness: ticket directories in tmp dirs, and the real CLI
 * (`node build/src/cli.js run …`, built by `npm run build`) driven as a child process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";

export const ROOT = resolve(import.meta.dirname, "..", "..");
export const CLI = join(ROOT, "build", "src", "cli.js");

export interface TicketDef {
  /** front matter fields */
  [field: string]: unknown;
  body?: string;
}

export interface Graph {
  /** the repository-like root: `tickets/` lives in it, executors run in it */
  root: string;
  dir: string;
  /** a scratch folder for markers the executors write */
  marks: string;
}

export function makeGraph(
  tickets: Record<string, TicketDef>,
  settings: Record<string, unknown> = { run: "test" },
): Graph {
  const root = mkdtempSync(join(tmpdir(), "frontier-run-"));
  const dir = join(root, "tickets");
  const marks = join(root, "marks");
  mkdirSync(dir);
  mkdirSync(marks);
  writeFileSync(join(dir, "frontier.yml"), stringify(settings));
  for (const [id, def] of Object.entries(tickets)) {
    const { body, ...front } = def;
    const yaml = Object.keys(front).length ? stringify(front) : "";
    writeFileSync(join(dir, `${id}.md`), `---\n${yaml}---\n# ${id}\n\n${body ?? `Do ${id}.`}\n`);
  }
  return { root, dir, marks };
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  done: Promise<Ran>;
}

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("FRONTIER_")) delete env[key];
  return { ...env, ...extra };
}

/** Start `frontier ARGS…` in `cwd`. */
export function startFrontier(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; ownGroup?: boolean } = {},
): Started {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    // its own process group, like a job in a terminal: Ctrl-C reaches the whole group
    detached: opts.ownGroup ?? false,
    env: childEnv(opts.env ?? {}),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<Ran>((res) => {
    child.on("close", (code, signal) => res({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function frontier(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  return startFrontier(args, opts).done;
}

/** `frontier run DIR --exec CMD …` */
export function run(g: Graph, exec: string | undefined, ...flags: string[]): Promise<Ran> {
  return frontier(["run", g.dir, ...(exec === undefined ? [] : ["--exec", exec]), ...flags]);
}

export function receipt(g: Graph): Receipt {
  return JSON.parse(readFileSync(join(g.dir, ".frontier", "receipt.json"), "utf8")) as Receipt;
}

export interface Receipt {
  state: string;
  counts: Record<string, number>;
  tickets: Array<{
    id: string;
    status: string;
    reason?: string;
    question?: string;
    blocked_by?: { ticket: string; kind: string; root: string };
    attempts: Array<{
      n: number;
      outcome?: string;
      reason?: string;
      result?: string;
      result_file?: string;
      usage?: Record<string, number>;
    }>;
  }>;
  remainder: Array<{ id: string; status: string; waiting_on: string }>;
  usage?: Record<string, number>;
  bound?: { dispatches?: number; dispatched: number; usage?: Record<string, number> };
}

export function ticketOf(r: Receipt, id: string) {
  const t = r.tickets.find((x) => x.id === id);
  if (!t) throw new Error(`no ticket ${id} in the receipt`);
  return t;
}

/** The status written into a ticket file's front matter. */
export function fileStatus(g: Graph, id: string): string | undefined {
  const text = readFileSync(join(g.dir, `${id}.md`), "utf8");
  return /^status:\s*(\S+)/m.exec(text)?.[1];
}

/** Lines of a marker log the executors append to (`>> file`, atomic for short lines). */
export function lines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

/** How many times each ticket's executor ran, from `$MARKS/runs` lines `ticket attempt`. */
export function executions(g: Graph): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const l of lines(join(g.marks, "runs"))) {
    const id = l.split(" ")[0] as string;
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

/**
 * Max concurrency from `start ID` / `end ID` lines appended in order by the executors;
 * also returns, for each pair of tickets, whether they were ever running together.
 */
export function concurrency(path: string): {
  max: number;
  together: (a: string, b: string) => boolean;
} {
  const running = new Set<string>();
  const pairs = new Set<string>();
  let max = 0;
  for (const l of lines(path)) {
    const [what, id] = l.split(" ") as [string, string];
    if (what === "start") {
      for (const other of running) pairs.add([id, other].sort().join("|"));
      running.add(id);
      max = Math.max(max, running.size);
    } else running.delete(id);
  }
  return { max, together: (a, b) => pairs.has([a, b].sort().join("|")) };
}

export async function until(check: () => boolean, what: string, withinMs = 20_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function attemptFiles(g: Graph, id: string): string[] {
  const d = join(g.dir, ".frontier", id);
  return existsSync(d) ? readdirSync(d) : [];
}

/** The shell prelude every test executor starts with: count the execution. */
export function counted(marks: string, rest: string): string {
  return `echo "$FRONTIER_TICKET $FRONTIER_ATTEMPT" >> ${marks}/runs; ${rest}`;
}
