#!/usr/bin/env node
/**
 * The package as a user gets it: `npm pack` makes the tarball a release would publish,
 * `npm install -g` puts it into a prefix of its own (nothing of this clone on PATH), and
 * the installed `frontier` is run where no clone is: --version, init, validate, a run of
 * the starter tickets, `init --coding`, and `init --github`, which copies the bundled action out of the
 * installed package. Its dependencies come from the npm registry (or npm's cache); nothing
 * else is fetched.
 *
 *   node scripts/check-install.mjs            pack this checkout, then install and run it
 *   node scripts/check-install.mjs FILE.tgz   install and run a tarball made elsewhere
 *
 * .ci/run runs it after the tests. Exit 0 when every check held, 1 otherwise.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "frontier-install-"));
let passed = 0;
let failed = 0;

function check(what, ok, detail = "") {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${!ok && detail ? `\n${detail}` : ""}`);
}

/** Ends the checks early: what follows needs what just failed. */
class Stop extends Error {}

function sh(command, args, opts = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", ...opts });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

/** The files `frontier` needs from its own package once installed. */
const SHIPPED = [
  "package.json",
  "LICENSE",
  "README.md",
  ...new Set(Object.values(pkg.bin)),
  "action.yml",
  "dist/index.js",
  "dist/package.json",
  "examples/workflows/frontier.yml",
  "examples/workflows/orch-task.yml",
  "examples/coding-init/frontier.yml",
  "examples/coding-init/gitignore",
  "examples/coding-init/_bin/stand-in-agent.mjs",
  "examples/starter/frontier.yml",
  "examples/starter/_bin/starter-executor.mjs",
  "schema/receipt.schema.json",
  "schema/command.schema.json",
];

try {
  let tarball = process.argv[2] && resolve(process.argv[2]);
  if (!tarball) {
    // `npm pack` runs the build (prepare) first, as `npm publish` does
    const packed = sh("npm", ["pack", "--json", "--pack-destination", work], { cwd: ROOT });
    check("npm pack makes a tarball", packed.code === 0, packed.stderr);
    if (packed.code !== 0) throw new Stop();
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("[")));
    tarball = join(work, info.filename);
    const files = new Set(info.files.map((f) => f.path));
    const missing = SHIPPED.filter((f) => !files.has(f));
    check(
      `the tarball holds what the command needs (${files.size} files)`,
      missing.length === 0,
      `missing: ${missing.join(", ")}`,
    );
    const stray = [...files].filter(
      (f) => /^(?:test|bench|src|node_modules|\.frontier)\//.test(f) || f.includes("/.frontier/"),
    );
    check("the tarball holds no tests, sources or run state", stray.length === 0, stray.join("\n"));
  }

  const prefix = join(work, "prefix");
  const installed = sh(
    "npm",
    [
      "install",
      "--global",
      "--prefix",
      prefix,
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      tarball,
    ],
    { cwd: work },
  );
  check(
    `npm install -g ${tarball.split("/").pop()} into a clean prefix`,
    installed.code === 0,
    installed.stderr,
  );
  if (installed.code !== 0) throw new Stop();

  // only the prefix's bin and what runs node: nothing of the clone
  const bin = process.platform === "win32" ? prefix : join(prefix, "bin");
  const env = {
    ...process.env,
    PATH: [bin, resolve(process.execPath, "..")].join(delimiter),
    CI: "true",
    NO_COLOR: "1",
  };
  delete env.FORCE_COLOR;
  const run = (args, cwd) => sh("frontier", args, { cwd, env });

  for (const name of Object.keys(pkg.bin)) {
    const r = sh(name, ["--version"], { cwd: work, env });
    check(
      `\`${name} --version\` prints ${pkg.version}`,
      r.code === 0 && r.stdout.trim() === pkg.version,
      `${r.code}\n${r.stdout}${r.stderr}${r.error ?? ""}`,
    );
  }

  const local = join(work, "local");
  mkdirSync(local);
  const init = run(["init"], local);
  check(
    "`frontier init` writes a starter directory",
    init.code === 0 && existsSync(join(local, "tickets", "frontier.yml")),
    init.stderr,
  );
  const valid = run(["validate"], local);
  check("`frontier validate` passes it", valid.code === 0, valid.stdout + valid.stderr);
  const ran = run(["run"], local);
  check(
    "`frontier run` runs it to complete (exit 0)",
    ran.code === 0 && /complete/.test(ran.stderr),
    `${ran.code}\n${ran.stderr}`,
  );

  const repo = join(work, "repo");
  mkdirSync(repo);
  const git = sh("git", ["init", "-q"], { cwd: repo });
  if (git.code !== 0) mkdirSync(join(repo, ".git"));
  const github = run(["init", "--github"], repo);
  const action = join(repo, ".github", "actions", "ticket-frontier");
  check(
    "`frontier init --github` copies the action out of the installed package",
    github.code === 0 &&
      existsSync(join(action, "action.yml")) &&
      existsSync(join(action, "dist", "index.js")) &&
      existsSync(join(repo, ".github", "workflows", "orch-task.yml")),
    `${github.code}\n${github.stdout}${github.stderr}`,
  );
  const coding = run(["init", "coding", "--coding"], repo);
  check(
    "`frontier init --coding` writes the coding settings out of the installed package",
    coding.code === 0 &&
      existsSync(join(repo, "coding", ".gitignore")) &&
      existsSync(join(repo, "coding", "_bin", "stand-in-agent.mjs")),
    `${coding.code}\n${coding.stdout}${coding.stderr}`,
  );
} catch (error) {
  if (!(error instanceof Stop)) throw error;
} finally {
  rmSync(work, { recursive: true, force: true });
  console.log(`install check: ${passed} passed, ${failed} failed`);
}
process.exit(failed === 0 ? 0 : 1);
