/**
 * Ticket directories for the benchmarks, written to disk.
 *  - loadingDir: 10k realistic tickets (the layered DAG of lib/dag.mjs), front matter in
 *    the styles people write: flow and block lists, a single-string depends_on, quoted
 *    titles with escapes, comments, optional bound/priority/agent/write_scope, a body.
 *  - instantDir: N independent tickets for the runner's overhead.
 *  - sleepyDir: the uneven sleeping graph for makespan.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { layeredDag, rng } from "./dag.mjs";

const WORDS =
  "retry payment service queue consumer outbox relay webhook handler idempotency key backoff jitter timeout schema migration index cache invalidation report table review plan inventory".split(
    " ",
  );

function sentence(rand, n) {
  const w = [];
  for (let k = 0; k < n; k++) w.push(WORDS[Math.floor(rand() * WORDS.length)]);
  const s = w.join(" ");
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}

function body(rand, title) {
  const paras = [];
  const count = 1 + Math.floor(rand() * 4);
  for (let p = 0; p < count; p++) {
    const lines = [];
    const sentences = 2 + Math.floor(rand() * 5);
    for (let s = 0; s < sentences; s++) lines.push(sentence(rand, 6 + Math.floor(rand() * 10)));
    paras.push(
      lines
        .join(" ")
        .replace(/(.{1,78})(?: |$)/g, "$1\n")
        .trimEnd(),
    );
  }
  if (rand() < 0.3)
    paras.push("- read `services/payments/retry.ts`\n- list every call site\n- write a table");
  return `# ${title}\n\n${paras.join("\n\n")}\n`;
}

/** Front matter for one ticket, varied the way hand-written tickets vary. */
export function ticketText(spec, rand) {
  const fm = [];
  const plainTitle = sentence(rand, 3 + Math.floor(rand() * 6)).slice(0, -1);
  let title = plainTitle;
  const style = rand();
  if (style < 0.1) title = `"${plainTitle}: the \\"hard\\" part"`;
  else if (style < 0.2) title = `'${plainTitle} — it''s tricky'`;
  else if (style < 0.25) title = `${plainTitle} (phase 2)`;
  if (rand() < 0.15) fm.push("# authored by the planning session; edit freely");
  if (rand() < 0.9) fm.push(`id: ${spec.id}`);
  fm.push(`title: ${title}`);
  const deps = spec.dependsOn;
  if (deps.length === 1 && rand() < 0.4) fm.push(`depends_on: ${deps[0]}`);
  else if (deps.length > 0 && rand() < 0.5) fm.push(`depends_on: [${deps.join(", ")}]`);
  else if (deps.length > 0) {
    fm.push("depends_on:");
    for (const d of deps) fm.push(rand() < 0.1 ? `  - ${d}  # needs its table` : `  - ${d}`);
  } else if (rand() < 0.5) fm.push("depends_on: []");
  if (rand() < 0.3) fm.push(`bound: ${[5, 10, 30, 45][Math.floor(rand() * 4)]}m`);
  if (rand() < 0.1) fm.push(`priority: ${1 + Math.floor(rand() * 3)}`);
  if (rand() < 0.2)
    fm.push(`agent: ${["code-reader", "writer", "reviewer"][Math.floor(rand() * 3)]}`);
  if (rand() < 0.15) fm.push(`write_scope:\n  - "services/payments/${spec.id}/**"`);
  // a named executor must be defined in frontier.yml (validate refuses it otherwise), and
  // an executors: mapping takes the settings off their quick path: the draw is kept (so
  // the rest of the directory is what it was) and the field left out
  rand();
  return `---\n${fm.join("\n")}\n---\n${body(rand, plainTitle)}`;
}

export function loadingDir(dir, n, seed = 11) {
  mkdirSync(dir, { recursive: true });
  const rand = rng(seed);
  const specs = layeredDag(n, seed);
  let bytes = 0;
  for (const spec of specs) {
    const text = ticketText(spec, rand);
    bytes += Buffer.byteLength(text);
    writeFileSync(join(dir, spec.file), text);
  }
  writeFileSync(join(dir, "frontier.yml"), "run: bench-loading\nmax_tickets: 20000\n");
  return { tickets: n, bytes };
}

export function instantDir(dir, n) {
  mkdirSync(dir, { recursive: true });
  const width = String(n - 1).length;
  for (let i = 0; i < n; i++) {
    const id = `i${String(i).padStart(width, "0")}`;
    writeFileSync(join(dir, `${id}.md`), `---\ntitle: Instant ticket ${i}\n---\nSay ok.\n`);
  }
  writeFileSync(join(dir, "frontier.yml"), "run: bench-instant\n");
}

/**
 * The sleeping graph: 30 tickets, 0.1–1.0 s each (times `scale`), with a long chain
 * (c1…c5, 4.4 s), a shorter one (b1…b3), a few tickets hanging off them, and short
 * independent tickets that come FIRST in file order, so file-order dispatch starts the
 * long chain late. Every id ends in `-s<seconds>`: the executor sleeps that long.
 */
export function sleepyGraph(scale = 1) {
  const t = [];
  const indep = [
    0.3, 0.5, 0.2, 0.6, 0.1, 0.4, 0.3, 0.2, 0.5, 0.1, 0.4, 0.3, 0.2, 0.6, 0.1, 0.3, 0.2, 0.4, 0.1,
  ];
  for (const [k, s] of indep.entries())
    t.push({ name: `i${String(k + 1).padStart(2, "0")}`, s, deps: [] });
  const chain = (prefix, sleeps) => {
    for (const [k, s] of sleeps.entries())
      t.push({ name: `${prefix}${k + 1}`, s, deps: k ? [`${prefix}${k}`] : [] });
  };
  chain("b", [0.6, 0.8, 0.5]);
  chain("c", [0.8, 1.0, 0.9, 1.0, 0.7]);
  t.push({ name: "d1", s: 0.3, deps: ["c2", "b1"] });
  t.push({ name: "d2", s: 0.2, deps: ["c4"] });
  t.push({ name: "d3", s: 0.4, deps: ["b3", "i03"] });
  const byName = new Map();
  t.forEach((x, k) => {
    x.s = Math.round(x.s * scale * 1000) / 1000;
    x.id = `${String(k + 1).padStart(2, "0")}-${x.name}-s${x.s}`;
    byName.set(x.name, x);
  });
  for (const x of t) x.depIds = x.deps.map((d) => byName.get(d).id);
  return t;
}

/** Lower bound of any schedule on P slots: max(critical path, total work / P), seconds. */
export function sleepyLowerBound(graph, p) {
  const finish = new Map();
  for (const x of graph) finish.set(x.id, x.s + Math.max(0, ...x.depIds.map((d) => finish.get(d))));
  const cp = Math.max(...finish.values());
  const work = graph.reduce((a, x) => a + x.s, 0);
  return { cp, work, bound: Math.max(cp, work / p) };
}

/**
 * Write the sleeping graph. Every ticket's bound is 10× its sleep in whole seconds
 * (`boundFactor`), so it never times out and the critical-path order sees weights in
 * proportion to durations (the engine weighs a ticket by its bound: the only duration a
 * ticket states; whole seconds because a decimal such as `1.5s` is not read as a
 * duration). `fileOrder`
 * adds priority = N − file position to every ticket: priority outranks the critical
 * path, so dispatch becomes exactly file order — the baseline of what CP-first buys.
 */
export function sleepyDir(dir, graph, { fileOrder = false, boundFactor = 10 } = {}) {
  mkdirSync(dir, { recursive: true });
  graph.forEach((x, k) => {
    const fm = [
      `title: Sleep ${x.s}s (${x.name})`,
      `bound: ${Math.max(1, Math.round(x.s * boundFactor))}s`,
    ];
    if (x.depIds.length) fm.push(`depends_on: [${x.depIds.join(", ")}]`);
    if (fileOrder) fm.push(`priority: ${graph.length - k}`);
    writeFileSync(join(dir, `${x.id}.md`), `---\n${fm.join("\n")}\n---\nSleep.\n`);
  });
  writeFileSync(join(dir, "frontier.yml"), "run: bench-sleepy\n");
}

/**
 * The makespan of list scheduling on P slots with no overhead at all: whenever a slot is
 * free, start the first ready ticket by `before` (critical path first, or file order).
 * What the order alone achieves, apart from process costs.
 */
export function simulateMakespan(graph, p, order = "critical-path") {
  const remaining = new Map();
  for (const x of [...graph].reverse()) {
    const after = graph.filter((y) => y.depIds.includes(x.id)).map((y) => remaining.get(y.id));
    remaining.set(x.id, x.s + Math.max(0, ...after));
  }
  const index = new Map(graph.map((x, k) => [x.id, k]));
  const before = (a, b) =>
    order === "critical-path" && remaining.get(a.id) !== remaining.get(b.id)
      ? remaining.get(b.id) - remaining.get(a.id)
      : index.get(a.id) - index.get(b.id);
  const done = new Map();
  const running = [];
  let now = 0;
  while (done.size < graph.length) {
    const ready = graph
      .filter(
        (x) =>
          !done.has(x.id) &&
          !running.some((r) => r.x === x) &&
          x.depIds.every((d) => done.has(d) && done.get(d) <= now),
      )
      .sort(before);
    while (running.length < p && ready.length > 0) {
      const x = ready.shift();
      running.push({ x, end: now + x.s });
    }
    running.sort((a, b) => a.end - b.end);
    const next = running.shift();
    now = next.end;
    done.set(next.x.id, now);
  }
  return now;
}
