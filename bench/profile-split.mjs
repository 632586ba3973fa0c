/**
 * Where a Node command's time goes, from V8's CPU profile: every sample is charged to
 * what was on top of the stack — a package, a file of ours, the file system, spawning,
 * module loading, GC — so the notes under the table can say why a ratio is what it is.
 * It reads no internals of the code it measures, so it survives their refactors.
 *   node bench/profile-split.mjs SCRIPT ARGS…   → one JSON line: {category: ms}
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FS_NATIVE = new Set([
  "open",
  "read",
  "close",
  "stat",
  "lstat",
  "fstat",
  "readdir",
  "writeBuffer",
  "writeString",
  "writeFileUtf8",
  "readFileUtf8",
  "rename",
  "unlink",
  "mkdir",
  "mkdtemp",
  "rmdir",
  "rmSync",
  "link",
  "openFileHandle",
  "fsync",
  "fdatasync",
  "realpath",
  "access",
  "existsSync",
]);

export function categorize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = {};
  const add = (k, ms) => {
    out[k] = (out[k] ?? 0) + ms;
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[i]).callFrame;
    const name = leaf.functionName;
    if (name === "(garbage collector)") add("GC", ms);
    else if (name === "(idle)") add("idle (waiting for I/O or children)", ms);
    else if (name === "(program)" || name === "(root)") add("V8 / native other", ms);
    else {
      let loading = false;
      for (let cur = profile.samples[i]; cur !== undefined; cur = parent.get(cur)) {
        if (/node:internal\/modules\//.test(byId.get(cur).callFrame.url)) {
          loading = true;
          break;
        }
      }
      const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(leaf.url)?.[1];
      const ours = /\/build\/src\/(.+)\.js$/.exec(leaf.url)?.[1];
      if (loading && !ours && !pkg) add("module loading", ms);
      else if (/node:internal\/child_process|node:child_process/.test(leaf.url))
        add("spawn (fork+exec)", ms);
      else if (FS_NATIVE.has(name) || /^node:(fs|internal\/fs)/.test(leaf.url))
        add("file system", ms);
      else if (pkg) add(`${pkg}${loading ? " (loading)" : ""}`, ms);
      else if (ours) add(`${ours}.js${loading ? " (loading)" : ""}`, ms);
      else add("node other", ms);
    }
  }
  for (const k of Object.keys(out)) out[k] = Math.round(out[k]);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), "bench-prof-"));
  try {
    const r = spawnSync(
      process.execPath,
      ["--cpu-prof", `--cpu-prof-dir=${dir}`, ...process.argv.slice(2)],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, CI: "1" },
      },
    );
    const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error(`no profile written (exit ${r.status}): ${r.stderr}`);
    const split = categorize(JSON.parse(readFileSync(join(dir, file), "utf8")));
    process.stdout.write(`${JSON.stringify({ exit: r.status, split })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
