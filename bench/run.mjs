/**
 * `npm run bench`: every measurement beside a baseline measured in the same run, on
 * this machine, interleaved, medians with their spread. Prints a markdown table and
 * writes it to bench/results.md — only a whole run does: a smoke run or a run of some
 * sections writes only to the file `--out` names, so it never replaces the measured table.
 *
 *   node bench/run.mjs [--smoke] [--only engine,loading,runner,github] [--out FILE]
 *                      [--before OLD/build/src/cli.js]
 *
 * --before: another build of the CLI (a copy of an earlier commit's build/, with its
 * node_modules) run as one more case in the local runner's interleaved rounds, so a
 * change to the runner is measured against what it replaced in the same rounds.
 *
 * --smoke: tiny sizes, one round, no goals judged — proves the bench code still works
 * (test/stress/bench-smoke.test.ts). Parts that have not landed yet are reported as pending.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { githubSection } from "./github.mjs";
import { fmtMs, interleave, median, spread, timeProcess } from "./lib/stats.mjs";
import {
  instantDir,
  loadingDir,
  simulateMakespan,
  sleepyDir,
  sleepyGraph,
  sleepyLowerBound,
} from "./lib/tickets.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const CLI = join(ROOT, "build/src/cli.js");

const args = process.argv.slice(2);
const smoke = args.includes("--smoke");
const onlyArg = args[args.indexOf("--only") + 1];
const only = args.includes("--only") ? new Set(onlyArg.split(",")) : undefined;
const whole = !smoke && only === undefined;
const out = args.includes("--out")
  ? args[args.indexOf("--out") + 1]
  : whole
    ? join(HERE, "results.md")
    : undefined;
const beforeCli = args.includes("--before") ? args[args.indexOf("--before") + 1] : undefined;

const node = (argv, opts = {}) => timeProcess(process.execPath, argv, { cwd: ROOT, ...opts });
const scratch = mkdtempSync(join(tmpdir(), "frontier-bench-"));
const log = (s) => process.stderr.write(`${s}\n`);

/** The line of a crashed process's stderr that says what went wrong. */
function firstError(stderr) {
  const lines = stderr.trim().split("\n");
  return (lines.find((l) => /(Error|error)\b/.test(l)) ?? lines.at(-1) ?? "").trim();
}

/** A one-line account of where a node command's time goes (bench/profile-split.mjs). */
async function profileSplit(argv) {
  const r = await node(["bench/profile-split.mjs", ...argv]);
  if (r.code !== 0) return `could not profile (${firstError(r.stderr)})`;
  const { split } = JSON.parse(r.stdout);
  const total = Object.values(split).reduce((a, b) => a + b, 0);
  return `${fmtMs(total)} sampled — ${Object.entries(split)
    .sort((a, b) => b[1] - a[1])
    .filter(([, ms]) => ms / total >= 0.02)
    .map(([k, ms]) => `${k} ${Math.round((100 * ms) / total)}%`)
    .join(", ")}`;
}

/** A row of the table. `ratio` is ours ÷ baseline; `verdict` is met / missed / info / pending. */
function row(area, measure, ours, baseline, ratio, goal, verdict) {
  return { area, measure, ours, baseline, ratio, goal, verdict };
}

/** Per-round ratios (paired: same round, same machine weather), as median (min–max). */
function pairedRatio(a, b) {
  const rs = a.map((x, k) => x / b[k]).filter((x) => Number.isFinite(x));
  return { median: median(rs), text: spread(rs, (x) => `${x.toFixed(2)}×`) };
}

/**
 * met / missed against a limit. `cpu` is the same ratio measured in CPU time: when the
 * wall-time figure misses only because the shared machine was busy, the CPU figure says so.
 */
/** Wall and CPU ratios of two lists of process runs ({ms, cpuMs}), paired by round. */
function processRatio(a, b) {
  const wall = pairedRatio(
    a.map((x) => x.ms),
    b.map((x) => x.ms),
  );
  const hasCpu = a.every((x) => x.cpuMs > 0) && b.every((x) => x.cpuMs > 0);
  const cpu = hasCpu
    ? pairedRatio(
        a.map((x) => x.cpuMs),
        b.map((x) => x.cpuMs),
      )
    : undefined;
  return { wall, cpu, text: cpu ? `${wall.text} (CPU ${cpu.text})` : wall.text };
}

function judge(value, limit, cpu, unit = "×") {
  if (smoke) return "smoke";
  const fmt = (x) => `${x.toFixed(x < 10 ? 3 : 1)}${unit}`;
  if (value <= limit) return `met (${fmt(value)})`;
  const wall = `**missed**: ${fmt(value)}, goal ${limit}${unit}, gap ${((value / limit - 1) * 100).toFixed(0)}%`;
  if (cpu === undefined) return wall;
  return cpu <= limit ? `${wall}; met in CPU time (${fmt(cpu)})` : `${wall}; CPU time ${fmt(cpu)}`;
}

/* ----------------------------------------------------------------- engine */

async function engineSection() {
  const rows = [];
  const notes = [];
  const cap = 16;
  const sizes = smoke ? [300, 1000] : [1000, 10_000, 100_000];
  const naiveSizes = smoke ? [300] : [1000, 10_000];
  const rounds = smoke ? 1 : 5;
  const child = async (impl, size) => {
    const r = await node(["bench/engine-child.mjs", impl, String(size), String(cap)]);
    if (r.code !== 0) return { error: firstError(r.stderr) };
    return JSON.parse(r.stdout);
  };
  const probe = await child("frontier", 50);
  const hasEngine = !probe.error;
  if (!hasEngine) notes.push(`Engine: pending — ${probe.error}`);

  const cases = [];
  for (const size of sizes) {
    cases.push({ name: `input-${size}`, rounds: 1, run: () => child("input", size) });
    if (hasEngine) cases.push({ name: `frontier-${size}`, run: () => child("frontier", size) });
    if (naiveSizes.includes(size)) {
      // the naive baseline at 10k takes ~10 s a run: three rounds are enough for a median
      cases.push({
        name: `naive-${size}`,
        rounds: size >= 10_000 ? 3 : rounds,
        run: () => child("naive", size),
      });
    }
  }
  log(`engine: ${sizes.join(", ")} tickets, ${rounds} rounds, max_parallel ${cap}`);
  const res = await interleave(rounds, cases);
  for (const [name, list] of Object.entries(res)) {
    const bad = list.find((x) => x.error);
    if (bad) throw new Error(`engine ${name}: ${bad.error}`);
  }

  const perEvent = {};
  const perEventCpu = {};
  for (const size of sizes) {
    const fr = res[`frontier-${size}`];
    const nv = res[`naive-${size}`];
    const input = res[`input-${size}`][0];
    const label = `${size / 1000}k tickets (${input.edges} edges)`;
    // µs per event: the event loop only (create → done minus create), per settle
    const usOf = (x) => ((x.ms - x.createMs) * 1000) / x.events;
    if (fr) {
      perEvent[size] = fr.map(usOf);
      perEventCpu[size] = fr.map((x) => (x.cpuMs * 1000) / x.events);
      const total = fr.map((x) => x.ms);
      const cpu = fr.map((x) => x.cpuMs);
      const r = row(
        "Engine",
        `${label}: total, create → done (CPU)`,
        `${spread(total, fmtMs)} (CPU ${fmtMs(median(cpu))})`,
        nv
          ? `naive ${spread(
              nv.map((x) => x.ms),
              fmtMs,
            )}`
          : naiveExtrapolation(res, size),
        nv
          ? `naive ÷ ours ${
              pairedRatio(
                nv.map((x) => x.ms),
                total,
              ).text
            }`
          : "",
        size === 100_000 ? "< 1 s" : "",
        size === 100_000 ? judge(median(total) / 1000, 1, median(cpu) / 1000, " s") : "info",
      );
      rows.push(r);
      rows.push(
        row(
          "Engine",
          `${label}: µs per event (${fr[0].events} events; create ${fmtMs(median(fr.map((x) => x.createMs)))})`,
          spread(perEvent[size]),
          nv ? `naive ${spread(nv.map(usOf))}` : "",
          "",
          "",
          "info",
        ),
      );
      rows.push(
        row(
          "Engine",
          `${label}: peak RSS of the process`,
          `${median(fr.map((x) => x.maxRssMb)).toFixed(0)} MB`,
          `specs alone ${input.maxRssMb.toFixed(0)} MB${nv ? `; naive ${median(nv.map((x) => x.maxRssMb)).toFixed(0)} MB` : ""}`,
          "",
          "",
          "info",
        ),
      );
      const agree = !nv || JSON.stringify(nv[0].counts) === JSON.stringify(fr[0].counts);
      notes.push(
        `Engine ${size / 1000}k: ${fr[0].events} settles, end state \`${fr[0].state}\`, counts ${JSON.stringify(fr[0].counts)}${
          nv
            ? agree
              ? " — the naive baseline ends with the same counts"
              : ` — **naive differs**: ${JSON.stringify(nv[0].counts)}`
            : ""
        }.`,
      );
    } else if (nv) {
      rows.push(
        row(
          "Engine",
          `${label}: naive baseline total`,
          "pending",
          spread(
            nv.map((x) => x.ms),
            fmtMs,
          ),
          "",
          "",
          "pending",
        ),
      );
    }
  }
  const [mid, big] = smoke ? [300, 1000] : [10_000, 100_000];
  if (perEvent[mid] && perEvent[big]) {
    const r = pairedRatio(perEvent[big], perEvent[mid]);
    const c = pairedRatio(perEventCpu[big], perEventCpu[mid]);
    rows.push(
      row(
        "Engine",
        `µs per event, ${big / 1000}k ÷ ${mid / 1000}k (CPU per event: ${c.text})`,
        r.text,
        "",
        "",
        "≤ 1.5×",
        judge(r.median, 1.5, c.median),
      ),
    );
  }
  notes.push(
    `Engine graphs: ${25} layers, fan-in 1–3 from nearby tickets in earlier layers, ~0.2% of tickets fail (their dependents are blocked), ~5% return nothing; driven like the local runner with max_parallel ${cap}: every settle is followed by claimReady and drainChanges (an *event* is those three). Each measurement is a fresh process (peak RSS is \`process.resourceUsage().maxRSS\`, which includes building the synthetic specs: shown as "specs alone").`,
  );
  return { rows, notes };
}

function naiveExtrapolation(res, size) {
  const known = res["naive-10000"];
  if (!known || size !== 100_000) return "";
  // Every event rescans all N tickets and there are ~N events: time grows as N².
  const est = median(known.map((x) => x.ms)) * (size / 10_000) ** 2;
  return `naive ≈ ${fmtMs(est)} (extrapolated from 10k as N²; not run)`;
}

/* ---------------------------------------------------------------- loading */

async function loadingSection() {
  const rows = [];
  const notes = [];
  const n = smoke ? 200 : 10_000;
  const rounds = smoke ? 1 : 5;
  const dir = join(scratch, "loading");
  const made = loadingDir(dir, n);
  notes.push(
    `Loading: ${n} generated tickets, ${(made.bytes / 1e6).toFixed(1)} MB (front matter with flow and block lists, single-string depends_on, quoted titles with escapes, comments, bound/priority/agent/write_scope on some; a 1–4 paragraph body). Every command is a whole \`node\` process, start to exit.`,
  );
  const hasCli = existsSync(CLI);
  const hasLoader = existsSync(join(ROOT, "build/src/tickets/load.js"));
  const cacheFile = join(dir, ".frontier/cache/tickets");
  // a first run: no ticket cache (it is removed before, untimed); a second run finds the
  // one the first runs wrote, every file unchanged since
  const noCache = () => rmSync(join(dir, ".frontier"), { recursive: true, force: true });
  const cases = [
    { name: "floor", run: () => node(["bench/floor-read.mjs", dir]) },
    { name: "yaml", run: () => node(["bench/parse-yaml.mjs", "yaml", dir]) },
    { name: "js-yaml", run: () => node(["bench/parse-yaml.mjs", "js-yaml-failsafe", dir]) },
  ];
  if (hasLoader) cases.push({ name: "load", run: () => node(["bench/load-only.mjs", dir]) });
  if (hasCli) {
    for (const cmd of ["validate", "status"]) {
      cases.push({
        name: cmd,
        run: () => {
          noCache();
          return node([CLI, cmd, dir]);
        },
      });
    }
    // `ready` is the command people run most: no slower than `status`, warm, same rounds
    for (const cmd of ["validate", "status", "ready"]) {
      cases.push({ name: `${cmd}-warm`, run: () => node([CLI, cmd, dir]) });
    }
  }
  // files changed within two seconds of a load are re-read by the next (racily clean):
  // the directory is older than that before anything is measured
  if (!smoke) await new Promise((r) => setTimeout(r, 2500));
  log(`loading: ${n} tickets, ${rounds} rounds`);
  const res = await interleave(rounds, cases);
  const floor = res.floor.map((x) => x.ms);
  // peak RSS, in runs of their own (the preload that reports it is not timed)
  const rss = {};
  const rssOf = async (name, argv, before = () => {}) => {
    const file = join(scratch, `rss-${name}`);
    before();
    const r = await node(["--import", "./bench/lib/maxrss.mjs", ...argv], {
      env: { ...process.env, BENCH_MAXRSS_FILE: file },
    });
    if (r.code === 0 && existsSync(file)) rss[name] = Number(readFileSync(file, "utf8")) / 1024;
  };
  await rssOf("floor", ["bench/floor-read.mjs", dir]);
  let cacheKept;
  if (hasCli) {
    await rssOf("status", [CLI, "status", dir], noCache);
    const before = existsSync(cacheFile) ? statSync(cacheFile).mtimeMs : undefined;
    await rssOf("status-warm", [CLI, "status", dir]);
    cacheKept = before !== undefined && statSync(cacheFile).mtimeMs === before;
  }
  const mb = (name) => (rss[name] === undefined ? "" : `; peak RSS ${rss[name].toFixed(0)} MB`);
  rows.push(
    row(
      "Loading",
      `${n / 1000}k files: read only (the floor)`,
      `${spread(floor, fmtMs)}${mb("floor")}`,
      "",
      "1.00×",
      "",
      "baseline",
    ),
  );
  for (const [name, what, goal] of [
    ["load", "`loadDirectory` alone (no CLI, no cache)", undefined],
    ["validate", "`frontier validate`, first run (no cache)", 1.5],
    ["status", "`frontier status`, first run (no cache)", 1.5],
    ["validate-warm", "`frontier validate`, second run (cache warm)", 1.0],
    ["status-warm", "`frontier status`, second run (cache warm)", 1.0],
  ]) {
    const goalText = goal === undefined ? "" : `≤ ${goal.toFixed(1)}× floor`;
    if (!res[name]) {
      rows.push(
        row("Loading", `${n / 1000}k files: ${what}`, "pending", "", "", goalText, "pending"),
      );
      continue;
    }
    const runs = res[name];
    const failed = runs.find((x) => x.code !== 0);
    if (failed) {
      notes.push(
        `Loading: ${what} exited ${failed.code}: ${firstError(failed.stderr || failed.stdout)}`,
      );
    }
    const r = processRatio(runs, res.floor);
    rows.push(
      row(
        "Loading",
        `${n / 1000}k files: ${what}${failed ? ` (exit ${failed.code})` : ""}`,
        `${spread(
          runs.map((x) => x.ms),
          fmtMs,
        )}${mb(name)}`,
        `floor ${fmtMs(median(floor))}`,
        r.text,
        goalText,
        failed
          ? "**failed to run**"
          : goal === undefined
            ? "context"
            : judge(r.wall.median, goal, r.cpu?.median),
      ),
    );
  }
  if (res["ready-warm"] && res["status-warm"]) {
    const r = processRatio(res["ready-warm"], res["status-warm"]);
    rows.push(
      row(
        "Loading",
        `${n / 1000}k files: \`frontier ready\` ÷ \`frontier status\`, both warm`,
        spread(
          res["ready-warm"].map((x) => x.ms),
          fmtMs,
        ),
        `status ${fmtMs(median(res["status-warm"].map((x) => x.ms)))}`,
        r.text,
        "≤ 1.0× status",
        judge(r.wall.median, 1.0, r.cpu?.median),
      ),
    );
  }
  if (hasCli) {
    notes.push(
      cacheKept
        ? "Second runs: the ticket cache (`.frontier/cache/tickets`) was not rewritten by a second run — every ticket came from it, none was read."
        : "Second runs: **the ticket cache was rewritten by a second run** — some ticket was read again.",
    );
    noCache();
    const prof = await profileSplit([CLI, "validate", dir]);
    notes.push(
      `Where a first \`frontier validate\` spends its time (one run under V8's CPU profiler, by what was on top of the stack): ${prof}.`,
    );
    const warmProf = await profileSplit([CLI, "status", dir]);
    notes.push(`Where a second \`frontier status\` spends its time (the same way): ${warmProf}.`);
  }
  for (const [name, what] of [
    ["yaml", "parse front matter only: `yaml`"],
    ["js-yaml", "parse front matter only: js-yaml failsafe"],
  ]) {
    const r = processRatio(res[name], res.floor);
    rows.push(
      row(
        "Loading",
        `${n / 1000}k files: ${what}`,
        spread(
          res[name].map((x) => x.ms),
          fmtMs,
        ),
        `floor ${fmtMs(median(floor))}`,
        r.text,
        "",
        "context",
      ),
    );
  }
  return { rows, notes };
}

/* ----------------------------------------------------------------- runner */

function receiptMakespan(stdout) {
  const receipt = JSON.parse(stdout);
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const t of receipt.tickets) {
    for (const a of t.attempts ?? []) {
      first = Math.min(first, Date.parse(a.started_at));
      if (a.ended_at) last = Math.max(last, Date.parse(a.ended_at));
    }
  }
  return { ms: last - first, state: receipt.state };
}

async function runnerSection() {
  const rows = [];
  const notes = [];
  if (!existsSync(CLI)) {
    rows.push(row("Local runner", "`frontier run`", "pending", "", "", "", "pending"));
    return { rows, notes };
  }
  const n = smoke ? 20 : 400;
  const p = 8;
  const rounds = smoke ? 1 : 5;
  const cmd = "echo ok";
  let k = 0;
  const fresh = () => {
    const d = join(scratch, `instant-${k++}`);
    instantDir(d, n);
    return d;
  };
  log(`runner: ${n} instant tickets at max-parallel ${p}, ${rounds} rounds`);
  const runWith = (cli) => async () => {
    const d = fresh();
    return node([cli, "run", d, "--exec", cmd, "--max-parallel", String(p)], {
      env: { ...process.env, CI: "1" },
    });
  };
  const res = await interleave(rounds, [
    { name: "floor", run: () => node(["bench/floor-spawn.mjs", String(n), String(p), cmd]) },
    { name: "run", run: runWith(CLI) },
    ...(beforeCli ? [{ name: "before", run: runWith(beforeCli) }] : []),
  ]);
  if (beforeCli) {
    const b = processRatio(res.before, res.floor);
    const bad = res.before.find((x) => x.code !== 0);
    notes.push(
      `Runner, the build given as --before (${beforeCli}) in the same rounds: ${spread(
        res.before.map((x) => x.ms),
        fmtMs,
      )}, ${b.text} the floor${bad ? ` (exit ${bad.code}: ${firstError(bad.stderr)})` : ""}.`,
    );
  }
  const failed = res.run.find((x) => x.code !== 0);
  if (failed)
    notes.push(`Runner: \`frontier run\` exited ${failed.code}: ${firstError(failed.stderr)}`);
  const r = processRatio(res.run, res.floor);
  rows.push(
    row(
      "Local runner",
      `${n} instant tickets (\`${cmd}\`), --max-parallel ${p}${failed ? ` (exit ${failed.code})` : ""}`,
      spread(
        res.run.map((x) => x.ms),
        fmtMs,
      ),
      `spawn only ${spread(
        res.floor.map((x) => x.ms),
        fmtMs,
      )}`,
      r.text,
      "≤ 1.5×",
      failed ? "**failed to run**" : judge(r.wall.median, 1.5, r.cpu?.median),
    ),
  );

  {
    const d = fresh();
    const prof = await profileSplit([CLI, "run", d, "--exec", cmd, "--max-parallel", String(p)]);
    notes.push(
      `Where \`frontier run\` (${n} instant tickets) spends its main thread (one run under V8's CPU profiler): ${prof}. \`spawn\` is synchronous in Node (fork+exec on the main thread), and fork's cost grows with the parent's memory.`,
    );
  }

  // makespan on the sleeping graph: critical-path-first vs file order
  const scale = smoke ? 0.05 : 1;
  const graph = sleepyGraph(scale);
  const P = 3;
  const lb = sleepyLowerBound(graph, P);
  // the id ends in -s<seconds>: sleep that long (shell parameter expansion, not a JS template)
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell command
  const sleepCmd = 'sleep "${FRONTIER_TICKET##*-s}"; echo slept';
  const sleepRounds = smoke ? 1 : 3;
  const sleepy = (fileOrder) => async () => {
    const d = join(scratch, `sleepy-${k++}`);
    sleepyDir(d, graph, { fileOrder, boundFactor: smoke ? 100 : 10 });
    const proc = await node(
      [CLI, "run", d, "--exec", sleepCmd, "--max-parallel", String(P), "--json"],
      {
        env: { ...process.env, CI: "1" },
      },
    );
    if (proc.code !== 0)
      return {
        error: `exit ${proc.code}: ${firstError(proc.stderr)}`,
      };
    return { wall: proc.ms, ...receiptMakespan(proc.stdout) };
  };
  log(
    `runner: makespan, ${graph.length} sleeping tickets at max-parallel ${P}, ${sleepRounds} rounds`,
  );
  const ms = await interleave(sleepRounds, [
    { name: "cp", run: sleepy(false) },
    { name: "file", run: sleepy(true) },
  ]);
  const err = [...ms.cp, ...ms.file].find((x) => x.error);
  if (err) {
    notes.push(`Runner makespan: \`frontier run\` failed: ${err.error}`);
    rows.push(
      row(
        "Local runner",
        "makespan, sleeping graph",
        "**failed to run**",
        "",
        "",
        "≤ 1.10× bound",
        "**failed**",
      ),
    );
    return { rows, notes };
  }
  const lbMs = lb.bound * 1000;
  const cp = ms.cp.map((x) => x.ms);
  const file = ms.file.map((x) => x.ms);
  rows.push(
    row(
      "Local runner",
      `makespan, ${graph.length} sleeping tickets (${lb.work.toFixed(1)} s of work), --max-parallel ${P}, critical path first`,
      spread(cp, fmtMs),
      `lower bound ${fmtMs(lbMs)}`,
      spread(
        cp.map((x) => x / lbMs),
        (x) => `${x.toFixed(2)}×`,
      ),
      "≤ 1.10× bound",
      judge(median(cp) / lbMs, 1.1),
    ),
  );
  rows.push(
    row(
      "Local runner",
      "same graph dispatched in file order",
      spread(file, fmtMs),
      `lower bound ${fmtMs(lbMs)}`,
      spread(
        file.map((x) => x / lbMs),
        (x) => `${x.toFixed(2)}×`,
      ),
      "",
      `info: critical-path order ${(median(file) / median(cp)).toFixed(2)}× faster`,
    ),
  );
  notes.push(
    `Makespan with no process costs at all (list scheduling simulated with the exact sleeps): critical path first ${simulateMakespan(graph, P).toFixed(2)} s, file order ${simulateMakespan(graph, P, "file").toFixed(2)} s — so what the measured critical-path run spends above the bound is per-attempt cost (spawning \`sh\`, writing state), not the order.`,
  );
  notes.push(
    `Makespan: first attempt start → last attempt end, from the receipt of \`frontier run --json\` (whole process: ${spread(
      ms.cp.map((x) => x.wall),
      fmtMs,
    )} critical path first, ${spread(
      ms.file.map((x) => x.wall),
      fmtMs,
    )} file order). Lower bound = max(critical path ${lb.cp.toFixed(1)} s, work ${lb.work.toFixed(1)} s ÷ ${P}). Every ticket's bound is 10× its sleep (whole seconds), so the engine's remaining-critical-path order sees weights in proportion to durations. *File order* is the same graph with \`priority: N − position\` added to every ticket: priority outranks the critical path, so ready tickets go out exactly in file order (the short independent tickets come first in the files, the ${lb.cp.toFixed(1)} s chain last).`,
  );
  return { rows, notes };
}

/* ------------------------------------------------------------------ main */

function machine() {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  let nproc = String(cpus().length);
  try {
    nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  } catch {}
  return `${nproc} cores (\`nproc\`), ${cpu}, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; load average ${startLoad.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (the machine is shared)`;
}

function table(rows) {
  const head =
    "| Area | Measure | Ticket Frontier | Baseline (same run) | Ratio (wall; CPU) | Goal | Verdict |";
  const sep = "|---|---|---|---|---|---|---|";
  const esc = (s) => String(s ?? "").replace(/\|/g, "\\|");
  return [
    head,
    sep,
    ...rows.map(
      (r) =>
        `| ${[r.area, r.measure, r.ours, r.baseline, r.ratio, r.goal, r.verdict].map(esc).join(" | ")} |`,
    ),
  ].join("\n");
}

const sections = [
  ["engine", engineSection],
  ["loading", loadingSection],
  ["runner", runnerSection],
  ["github", () => githubSection({ root: ROOT, smoke, row, judge })],
];

const started = performance.now();
const startLoad = loadavg()[0];
const rows = [];
const notes = [];
try {
  for (const [name, fn] of sections) {
    if (only && !only.has(name)) continue;
    try {
      const s = await fn();
      rows.push(...s.rows);
      notes.push(...s.notes);
    } catch (error) {
      rows.push(row(name, "section crashed", "", "", "", "", "**error**"));
      notes.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      log(`${name}: ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const md = [
  `# Benchmarks${smoke ? " (smoke run: tiny sizes, nothing judged)" : ""}`,
  "",
  `Machine: ${machine()}. Bench wall time ${fmtMs(performance.now() - started)}.`,
  "Medians of interleaved rounds, (min–max) beside them; ratios are per round (same round, same machine weather), then the median.",
  "",
  table(rows),
  "",
  ...notes.map((n) => `- ${n}`),
  "",
].join("\n");
process.stdout.write(md);
if (out !== undefined) writeFileSync(out, md);
