/**
 * What an outside tester found wrong at the edges of the local runner: absurd bounds
 * and numbers refused where they are written, long bounds that work, and the machine's
 * own trouble (a file where the state directory goes, a read-only file system, a
 * working directory deleted under the shell) said plainly — never an internal error.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateCommand } from "../../src/cli/validate.js";
import { startAttempt } from "../../src/local/attempt.js";
import { captured, directory } from "../support/in-process.js";
import { CLI, frontier, makeGraph } from "./harness.js";

describe("bounds", () => {
  it("validate refuses a bound past the longest (365d) where it is written, naming the limit", async () => {
    const dir = directory({
      "frontier.yml": "run: t\nticket_bound: 400d\nbound:\n  duration: 100000000000h\n",
      "a.md": "---\nbound: 100000000000h\n---\nDo a.\n",
      "b.md": "---\nbound: 30d\n---\nDo b.\n",
    });
    const c = captured();
    expect(await validateCommand(dir, { json: false }, c.io)).toBe(2);
    const text = c.err();
    expect(text).toMatch(/a\.md:2: bound "100000000000h" is longer than the longest bound, 365d/);
    expect(text).toMatch(
      /frontier\.yml:2: ticket_bound "400d" is longer than the longest bound, 365d/,
    );
    expect(text).toMatch(
      /frontier\.yml:4: bound\.duration "100000000000h" is longer than the longest bound, 365d/,
    );
    expect(text).not.toContain("b.md");
    expect(text).toContain("3 problems");
  });

  it("a bound of 30 days is no instant timeout: the attempt runs to its end", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "frontier-scratch-"));
    const attempt = startAttempt({
      command: "sleep 0.2; echo done",
      cwd: tmpdir(),
      scratch,
      tag: "attempt",
      contextFile: join(scratch, "context.md"),
      context: "",
      baseEnv: process.env,
      timeoutMs: 30 * 86_400_000,
      maxResultBytes: 1024,
    });
    expect(await attempt.done).toMatchObject({ outcome: "complete", result: "done\n" });
  });
});

describe("numbers past 2⁵³", () => {
  it("are refused as written, never as the neighbouring number YAML reads", async () => {
    const dir = directory({
      "frontier.yml": "run: t\n",
      "a.md": "---\npriority: 9007199254740993\n---\nDo a.\n",
      "b.md": "---\ntitle: B\npriority:   -9007199254740993 # low\n---\nDo b.\n",
    });
    const c = captured();
    expect(await validateCommand(dir, { json: false }, c.io)).toBe(2);
    expect(c.err()).toMatch(/a\.md:2: priority must be a whole number, got 9007199254740993,/);
    expect(c.err()).toMatch(/b\.md:3: priority must be a whole number, got -9007199254740993,/);
    expect(c.err()).not.toContain("9007199254740992");
  });
});

describe("the machine's own trouble is said plainly, naming the path and what to do", () => {
  it("a file where .frontier/ goes: run and reset say so and exit 1, not 70", () => {
    const g = makeGraph({ a: {} }, { run: "t", executor: "echo ok" });
    writeFileSync(join(g.dir, ".frontier"), "not a directory\n");
    const sh = spawnSync(
      "sh",
      [
        "-c",
        `node ${CLI} run ${g.dir}; echo "exit $?"; node ${CLI} reset ${g.dir}; echo "exit $?"`,
      ],
      { encoding: "utf8" },
    );
    const said = `${g.dir}/.frontier: it is a file, not a directory`;
    expect(sh.stderr.split(said)).toHaveLength(3);
    expect(sh.stderr).toContain(`mv ${g.dir}/.frontier ${g.dir}/.frontier.bak`);
    expect(sh.stderr).not.toContain("internal error");
    expect(sh.stdout).toBe("exit 1\nexit 1\n");
  });

  it("a working directory deleted under the shell: with an absolute DIR the command works; without, it says what to do", () => {
    const g = makeGraph({ a: {} }, { run: "t", executor: "echo ok" });
    const gone = mkdtempSync(join(tmpdir(), "frontier-gone-"));
    const sh = spawnSync(
      "sh",
      [
        "-c",
        `cd ${gone} && rmdir ${gone} && node ${CLI} run ${g.dir}; echo "exit $?"; node ${CLI} status; echo "exit $?"`,
      ],
      { encoding: "utf8", env: { ...process.env, CI: "1", PWD: gone } },
    );
    expect(sh.stdout).toBe("exit 0\nexit 2\n");
    expect(sh.stderr).toContain(`receipt: ${g.dir}/.frontier/receipt.json`);
    expect(sh.stderr).toContain(`the working directory ${gone} no longer exists`);
    expect(sh.stderr).not.toContain("internal error");
    rmSync(g.root, { recursive: true, force: true });
  });

  // a read-only file system needs a mount: a user and mount namespace of our own
  const canMount = spawnSync("unshare", ["-rm", "true"]).status === 0;
  it.runIf(canMount)("a read-only ticket directory: run says the file system is read-only", () => {
    const g = makeGraph({ a: {} }, { run: "t", executor: "echo ok" });
    const sh = spawnSync(
      "unshare",
      [
        "-rm",
        "sh",
        "-c",
        `mount --bind ${g.dir} ${g.dir} && mount -o remount,bind,ro ${g.dir} && node ${CLI} run ${g.dir}; echo "exit $?"`,
      ],
      { encoding: "utf8", env: { ...process.env, CI: "1" } },
    );
    expect(sh.stderr).toContain(
      `could not write ${g.dir}/.frontier: the file system is read-only (EROFS)`,
    );
    expect(sh.stderr).not.toContain("internal error");
    expect(sh.stdout).toBe("exit 1\n");
  });

  it.runIf(process.platform === "linux")(
    "a directory where mkdir says ENOENT though its parent is there (/proc), and a FIFO or a device named like a ticket: each command ends saying what it could not write or read; validate writes nothing",
    () => {
      // Node's own recursive mkdir makes the parent and tries again there, for ever
      const cli = (...args: string[]) =>
        spawnSync("node", [CLI, ...args], {
          encoding: "utf8",
          timeout: 30_000,
          env: { ...process.env, CI: "1" },
        });
      for (const command of ["run", "report", "reset"]) {
        const ran = cli(command, "/proc");
        expect([command, ran.signal, ran.status]).toEqual([command, null, 1]);
        expect(ran.stderr).toMatch(/(could not write|cannot write .*) \/proc\/\.frontier/);
        expect(ran.stderr).toContain("ENOENT");
      }
      // a FIFO named like a ticket (a link to one) is never waited on, nor a device read as a size
      const odd = makeGraph({ a: {} }, { run: "t" });
      execFileSync("mkfifo", [join(odd.dir, "fifo")]);
      symlinkSync("fifo", join(odd.dir, "b.md"));
      symlinkSync("/dev/zero", join(odd.dir, "c.md"));
      const read = cli("validate", odd.dir);
      expect([read.signal, read.status]).toEqual([null, 2]);
      for (const [f, kind] of [
        ["b.md", "a FIFO"],
        ["c.md", "a device"],
      ])
        expect(read.stderr).toContain(
          `${f}: could not read the file: it is ${kind}, not a regular file`,
        );
      // nor a setting or a record of the run's
      const settings = join(odd.dir, "frontier.yml");
      const record = join(odd.dir, ".frontier", "run.json");
      for (const f of ["b.md", "c.md", "frontier.yml"]) rmSync(join(odd.dir, f));
      mkdirSync(dirname(record), { recursive: true });
      for (const fifo of [settings, record]) execFileSync("mkfifo", [fifo]);
      for (const fifo of [settings, record]) {
        const status = cli("status", odd.dir);
        expect([status.signal, status.status]).toEqual([null, 2]);
        expect(status.stderr).toContain(`${fifo} is a FIFO, not a regular file`);
        rmSync(fifo);
      }
      // each named for what it is: a directory where frontier.yml goes is no FIFO
      mkdirSync(settings);
      expect(cli("status", odd.dir).stderr).toContain(
        `${settings} is a directory, not a regular file`,
      );
      rmSync(settings, { recursive: true });
      const init = cli("init", "/proc/tickets");
      expect([init.signal, init.status]).toEqual([null, 2]);
      expect(init.stderr).toContain("could not write the starter files: ENOENT");
      const empty = mkdtempSync(join(tmpdir(), "frontier-empty-"));
      const validated = cli("validate", empty);
      expect([validated.status, validated.stdout]).toEqual([
        0,
        `${empty}: 0 tickets, no problems.\n`,
      ]);
      expect(readdirSync(empty)).toEqual([]);
      rmSync(empty, { recursive: true });
    },
  );
});

describe("a problem that stops only one runner", () => {
  it("a GitHub workflow file named as an executor: validate warns (naming the local run) and passes; --for github is clean; --for local and run refuse it", async () => {
    const dir = directory({
      "frontier.yml": "run: t\n",
      "a.md": "---\nexecutor: review.yml\n---\nDo a.\n",
    });
    const both = captured();
    expect(await validateCommand(dir, { json: false }, both.io)).toBe(0);
    expect(both.err()).toMatch(
      /a\.md:2: warning: for a local run: executor "review\.yml" is a GitHub workflow file, which a local run cannot start/,
    );
    // the warning just printed is not called "no problems" in the line under it
    expect(both.out()).toMatch(/: no errors \(1 warning\)\.\n$/);
    const github = captured();
    expect(await validateCommand(dir, { json: false, for: "github" }, github.io)).toBe(0);
    expect(github.err()).toBe("");
    expect(github.out()).toContain("no problems for a run on GitHub");
    const local = captured();
    expect(await validateCommand(dir, { json: false, for: "local" }, local.io)).toBe(2);
    expect(local.err()).toMatch(/a\.md:2: executor "review\.yml" is a GitHub workflow file/);
    // and a local run refuses it before it claims anything
    const ran = await frontier(["run", dir, "--exec", "echo hi"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/a\.md:2: executor "review\.yml" is a GitHub workflow file/);
    expect(readFileSync(join(dir, "a.md"), "utf8")).not.toContain("status:");
  });
});

/** `frontier ARGS…`, killed outright after 20 s (a hung runner ignores SIGINT and SIGTERM). */
function killedAfter20s(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    timeout: 20_000,
    killSignal: "SIGKILL",
    env: { ...process.env, CI: "1" },
  });
  return { signal: r.signal, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("a FIFO an executor leaves among the run's records is never waited on", () => {
  it.each([
    ["", "nothing reads it"],
    // a reader of its own, out of its process group: the run's lines would go to it
    ["; setsid sh -c 'exec cat LOG > LOG.read' & sleep 1", "the executor reads it"],
  ])(
    "an executor that swaps the worklog for a FIFO%s (%s): the run ends naming the file, it does not hang",
    (reader) => {
      const g = makeGraph({ a: {}, b: { depends_on: ["a"] } }, { run: "t" });
      const log = join(g.dir, ".frontier", "worklog.jsonl");
      const swap = `rm -f ${log} && mkfifo ${log}${reader.replaceAll("LOG", log)}`;
      const exec = `if [ "$FRONTIER_TICKET" = a ]; then ${swap}; fi; echo ok`;
      const ran = killedAfter20s("run", g.dir, "--exec", exec);
      expect(ran.signal).toBeNull(); // SIGKILL here: the run waited on the FIFO for good
      expect(ran.status).not.toBe(0);
      expect(ran.stderr).toContain("worklog.jsonl");
      // no line of the run's log went to the executor's reader, lost
      expect(existsSync(`${log}.read`) ? readFileSync(`${log}.read`, "utf8") : "").toBe("");
      rmSync(g.root, { recursive: true, force: true });
    },
  );

  it("an executor that leaves a FIFO where a later ticket's result goes: the run ends, and that ticket is not read back complete from the FIFO", () => {
    const g = makeGraph({ a: {}, b: { depends_on: ["a"] } }, { run: "t" });
    const planted = join(g.dir, ".frontier", "results", "b@1.md");
    const exec = `if [ "$FRONTIER_TICKET" = a ]; then mkdir -p ${join(g.dir, ".frontier", "results")} && mkfifo ${planted}; fi; echo "real $FRONTIER_TICKET"`;
    const ran = killedAfter20s("run", g.dir, "--exec", exec);
    expect(ran.signal).toBeNull(); // SIGKILL here: the run waited on the FIFO for good
    // b's real result ("real b") was never recorded: a FIFO is no result of b's
    const status = killedAfter20s("status", g.dir, "--json");
    expect(status.signal).toBeNull();
    const b = (
      JSON.parse(status.stdout) as { tickets: Array<{ id: string; status: string }> }
    ).tickets.find((t) => t.id === "b");
    expect(b?.status).not.toBe("complete");
    rmSync(g.root, { recursive: true, force: true });
  });

  it("a FIFO at .frontier/lock: run, retry, cancel and reset each end saying the lock cannot be read", () => {
    const g = makeGraph({ a: {} }, { run: "t" });
    mkdirSync(join(g.dir, ".frontier"));
    execFileSync("mkfifo", [join(g.dir, ".frontier", "lock")]);
    for (const args of [
      ["run", g.dir, "--exec", "echo ok"],
      ["retry", g.dir, "a"],
      ["cancel", g.dir],
      ["reset", g.dir],
    ]) {
      const ran = killedAfter20s(...args);
      expect([args[0], ran.signal]).toEqual([args[0], null]);
      expect(ran.stderr).toContain(".frontier/lock");
    }
    rmSync(g.root, { recursive: true, force: true });
  });

  it("a FIFO at .frontier/cache/tickets: status and validate end (the cache is only a cache)", () => {
    const g = makeGraph({ a: {} }, { run: "t" });
    mkdirSync(join(g.dir, ".frontier", "cache"), { recursive: true });
    execFileSync("mkfifo", [join(g.dir, ".frontier", "cache", "tickets")]);
    for (const command of ["status", "validate"]) {
      const ran = killedAfter20s(command, g.dir);
      expect([command, ran.signal, ran.status]).toEqual([command, null, 0]);
    }
    rmSync(g.root, { recursive: true, force: true });
  });
});

describe("an archive folder an executor leaves in .frontier/runs/", () => {
  it("numbered past what a number holds exactly (2^53): a second reset archives elsewhere and keeps the first as it was", () => {
    const g = makeGraph({ a: {} }, { run: "t" });
    mkdirSync(join(g.dir, ".frontier", "runs", "t-9007199254740993"), { recursive: true });
    const reset = () => {
      const ran = killedAfter20s("reset", g.dir, "--json");
      expect(ran.status, ran.stderr).toBe(0);
      return (JSON.parse(ran.stdout) as { archive: string }).archive;
    };
    expect(killedAfter20s("run", g.dir, "--exec", "exit 1").status).toBe(1);
    const first = reset();
    const archived = readFileSync(join(first, "tickets", "a.md"), "utf8");
    expect(archived).toContain("status: failed");
    expect(killedAfter20s("run", g.dir, "--exec", "echo ok").status).toBe(0);
    expect(reset()).not.toBe(first);
    expect(readFileSync(join(first, "tickets", "a.md"), "utf8")).toBe(archived);
    rmSync(g.root, { recursive: true, force: true });
  });
});
