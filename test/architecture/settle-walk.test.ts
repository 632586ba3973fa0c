// The walk of one GitHub settle, from the action's entry to the commit that lands the
// ticket's changes with its outcome: the files a reader passes through, top-down.
//
// Measured, not declared: the built action (build/src, one file per module) is copied and
// instrumented, then run as the settle step of one orch-task job whose agent committed its
// change. At every git process, file write, GitHub request, engine transition and at the
// entry of the functions that make up the settle (SPINE), the call stack is recorded. The
// files on those stacks, up to the commit, are the walk. It must:
//   - stay within 20 files;
//   - go down the layers only (test/architecture/imports.ts): no callback from an inner
//     layer climbs back into an outer one (core calling the runner's event, say);
//   - never come back to a file it left on the way down.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, Runner } from "../e2e/runner.js";
import { writeTickets } from "../e2e/tickets.js";
import { gitIn } from "../support/git-checkout.js";
import { layerOf } from "./imports.js";

/** The functions of the settle, by module: each must be met on the way to the commit. */
const SPINE: Record<string, string[]> = {
  "github/changes.js": ["collectJobChanges", "integrationFiles"],
  "workspace/changes.js": ["attemptChanges"],
  "github/events.js": ["jobEvent", "readJobOutcome", "settleEvent"],
  "github/outbox.js": ["settleRefused"],
  "github/state.js": ["serializeState"],
  "core/scope.js": ["pathInScope"],
  "core/settle.js": ["interpretOutcome", "planSettle"],
  "github/decide.js": ["decide"],
  "tickets/outcome-file.js": ["settleChanges", "settleInputOf"],
  "core/changes.js": ["judgeChanges"],
  "core/event.js": ["step"],
  "tickets/writeback.js": ["planWrites"],
  "workspace/commit-message.js": ["integrationMessage"],
};

const ENTRY = `
import { appendFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
const require = createRequire(import.meta.url);
const settling = process.env.INPUT_COMMAND === "settle";
Error.stackTraceLimit = 200;
const log = (what, leaf) => {
  if (!settling) return;
  const stack = new Error().stack.split("\\n").slice(2).map((l) => l.trim());
  appendFileSync(process.env.WALK_OUT, JSON.stringify({ what, stack, leaf }) + "\\n");
};
const cp = require("node:child_process");
for (const name of ["spawn", "execFile", "spawnSync", "execFileSync"]) {
  const real = cp[name];
  cp[name] = function (...args) { log("process " + args[0]); return real.apply(this, args); };
}
const fsp = require("node:fs/promises");
for (const name of ["writeFile", "appendFile", "rename", "mkdir", "rm"]) {
  const real = fsp[name];
  fsp[name] = function (...args) { log("fs " + name); return real.apply(this, args); };
}
syncBuiltinESMExports();
const realFetch = globalThis.fetch;
globalThis.fetch = (url, init) => {
  log("fetch " + (typeof init?.body === "string" && init.body.includes('"mutation') ? "commit" : "read"));
  return realFetch(url, init);
};
globalThis.__walkGitHub = (gh) => { log("github"); return gh; };
globalThis.__walkMark = (name) => log("enter " + name);
const { Frontier } = await import("./src/core/engine.js");
for (const m of ["settle", "claimReady", "expire"]) {
  const real = Frontier.prototype[m];
  Frontier.prototype[m] = function (...args) { log("engine " + m, "core/engine.js"); return real.apply(this, args); };
}
await import("./src/action.js");
`;

const newest = (dir: string, ext: string) =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(ext))
    .map((f) => statSync(join(dir, f)).mtimeMs);

/** build/src copied to `dir`, with every GitHub call and the SPINE's entries recorded. */
function instrumented(dir: string): string {
  // npm test builds first; a file run on its own must not measure an older build
  const built = Math.min(...newest(join(ROOT, "build", "src"), ".js"));
  expect(
    Math.max(...newest(join(ROOT, "src"), ".ts")),
    "build/src is older than src/: npm run build",
  ).toBeLessThan(built);
  cpSync(join(ROOT, "build", "src"), join(dir, "src"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  const files = readdirSync(join(dir, "src"), { recursive: true, encoding: "utf8" });
  for (const file of files.filter((f) => f.endsWith(".js"))) {
    const path = join(dir, "src", file);
    let text = readFileSync(path, "utf8").replace(
      /\b((?:\w+\.)*gh)\.(rest|graphql|request|paginate)\b/g,
      "globalThis.__walkGitHub($1).$2",
    );
    for (const name of SPINE[file] ?? []) {
      const at = text.indexOf(`function ${name}(`);
      expect(at, `${file} has no function ${name}: update SPINE`).toBeGreaterThan(-1);
      const body = text.indexOf(") {\n", at) + 4;
      text = `${text.slice(0, body)}globalThis.__walkMark("${file}:${name}");\n${text.slice(body)}`;
    }
    writeFileSync(path, text);
  }
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(join(dir, "entry.mjs"), ENTRY);
  return join(dir, "entry.mjs");
}

interface Seen {
  what: string;
  /** the files on the stack, outermost first (one entry per call, repeats kept) */
  files: string[];
}

function readWalk(path: string, root: string): Seen[] {
  const lines = readFileSync(path, "utf8").trim().split("\n");
  return lines.map((line) => {
    const { what, stack, leaf } = JSON.parse(line) as {
      what: string;
      stack: string[];
      leaf?: string;
    };
    const files = stack
      .map((frame) => frame.split(`${root}/src/`)[1]?.split(":")[0])
      .filter((f): f is string => f?.endsWith(".js") === true)
      .reverse();
    return { what, files: leaf ? [...files, leaf] : files };
  });
}

describe("the walk of one GitHub settle", () => {
  const runner = new Runner();
  let dir = "";
  let walk: Seen[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "frontier-walk-"));
    runner.bundle = instrumented(dir);
    runner.env.WALK_OUT = join(dir, "walk.jsonl");
    await runner.start(writeTickets([{ id: "api", extra: "write_scope: [src/api/**]" }]));
    const sha = runner.repo.commit("main", { "README.md": "# widgets\n" }, { message: "start" });
    runner.script = (_t, _a, job) => {
      mkdirSync(join(job.workspace, "src/api"), { recursive: true });
      writeFileSync(join(job.workspace, "src/api/server.ts"), "export const port = 8080;\n");
      gitIn(job.workspace, ["add", "-A"]);
      gitIn(job.workspace, ["commit", "-qm", "api: server"]);
      return { status: "complete", result: "api done" };
    };
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
    expect(runner.state().tickets.api?.status).toBe("complete");
    expect(runner.repo.readFile("src/api/server.ts")).toBe("export const port = 8080;\n");
    const all = readWalk(runner.env.WALK_OUT, dir);
    const commit = all.findIndex((s) => s.what === "fetch commit");
    expect(commit, "the settle made no commit").toBeGreaterThan(-1);
    walk = all.slice(0, commit).filter((s) => s.files.length > 0);
  }, 120_000);

  afterAll(async () => {
    await runner.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("meets every function of the settle on its way to the commit", () => {
    const entered = new Set(walk.map((s) => s.what));
    const missing = Object.entries(SPINE).flatMap(([file, names]) =>
      names.map((n) => `enter ${file}:${n}`).filter((e) => !entered.has(e)),
    );
    expect(missing).toEqual([]);
    expect(walk.some((s) => s.what === "engine settle")).toBe(true);
  });

  it("is read in 20 files or fewer", () => {
    const files = [...new Set(walk.flatMap((s) => s.files))].sort();
    expect(files.length, files.join("\n")).toBeLessThanOrEqual(20);
  });

  it("goes down the layers only, and never comes back to a file it left", () => {
    const rank = (file: string) => layerOf(file.replace(/\.js$/, ".ts")).rank;
    const wrong = walk.flatMap(({ what, files }) => {
      const path = files.join(" > ");
      const climbs = files.some((f, i) => i > 0 && rank(f) > rank(files[i - 1]!));
      const returns = files.some((f, i) => i > 0 && f !== files[i - 1] && files.indexOf(f) < i - 1);
      return climbs || returns ? [`${what}: ${path}`] : [];
    });
    expect(wrong).toEqual([]);
  });
});
