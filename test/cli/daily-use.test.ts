/**
 * What a user meets on the second day: the hints that say how to go on keep `--exec`, a run
 * that fails and asks says how to do both, `run` reads like `status` (colour, an aligned
 * table, paths as you typed them), and the small refusals say what to do instead. Each case
 * was seen from outside before it was fixed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { afterRun } from "../../src/cli/after-run.js";
import { mutateCommand } from "../../src/cli/commands.js";
import { initCommand } from "../../src/cli/init.js";
import { resetCommand } from "../../src/cli/reset.js";
import { statusCommand } from "../../src/cli/status.js";
import { runCommand } from "../../src/local/run.js";
import { CLI, frontier, workspace } from "./harness.js";
import { captured } from "./inproc.js";

const ESC = "\u001b[";
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes
const plain = (text: string) => text.replace(/\u001b\[[\d;]*[A-Za-z]/g, "");

/** a fails, b asks, c waits on a: a run that both fails and asks. */
const FAILS_AND_ASKS = {
  "a.md": "---\n---\n# A\n",
  "b.md": "---\n---\n# B\n",
  "c.md": "---\ndepends_on: [a]\n---\n# C\n",
};
const EXEC = `sh -c 'case $FRONTIER_TICKET in a) echo boom >&2; exit 1;; b) echo "which env?"; exit 75;; *) echo ok;; esac'`;

const cwd = process.cwd();
afterEach(() => process.chdir(cwd));

/** `frontier run DIR [--exec]` in process, with what the command line does after it. */
async function run(
  dir: string,
  opts: { exec?: string; bound?: number } = {},
  env: NodeJS.ProcessEnv = {},
  tty = false,
) {
  const c = captured({ ...env }, { tty });
  const code = await runCommand(
    dir,
    {
      json: false,
      ...(opts.exec !== undefined && { exec: opts.exec }),
      ...(opts.bound !== undefined && { bound: opts.bound }),
    },
    c.io,
  );
  await afterRun(dir, opts.exec, code, c.io);
  return { code, out: c.stdout(), err: c.stderr() };
}

describe("the commands that continue a run keep its --exec", () => {
  it("a refused run (no executor) does not overwrite the remembered --exec, and answer and retry still print it", async () => {
    const { root } = workspace(FAILS_AND_ASKS);
    process.chdir(root);
    expect((await run("tickets", { exec: EXEC })).code).toBe(1);
    const refused = await run("tickets");
    expect(refused.code).toBe(2);
    expect(JSON.parse(readFileSync("tickets/.frontier/last-exec.json", "utf8"))).toEqual({
      exec: EXEC,
    });
    for (const [kind, args] of [
      ["answer", { ticket: "b", text: "staging" }],
      ["retry", { ticket: "a" }],
    ] as const) {
      const c = captured();
      expect(await mutateCommand(kind, "tickets", args, c.io, Date.now())).toBe(0);
      expect(c.stdout()).toContain(`frontier run tickets --exec '`);
    }
  });

  it("the --bound hint keeps --exec", async () => {
    const { root } = workspace({ "a.md": "---\n---\n# A\n", "b.md": "---\n---\n# B\n" });
    process.chdir(root);
    const r = await run("tickets", { exec: "echo ok", bound: 1 });
    expect(r.code).toBe(4);
    expect(r.err).toContain("`frontier run tickets --exec 'echo ok' --bound 2`");
  });

  it("the Ctrl-C hint keeps --exec", async () => {
    const { root } = workspace({ "a.md": "---\n---\n# A\n" });
    const child = spawn(process.execPath, [CLI, "run", "tickets", "--exec", "sleep 30"], {
      cwd: root,
      env: { ...process.env, CI: "true", NO_COLOR: "1" },
    });
    let err = "";
    let sent = false;
    child.stderr.on("data", (chunk) => {
      err += String(chunk);
      // once: a second Ctrl-C skips the grace
      if (!sent && err.includes("start a")) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(130);
    expect(err).toContain("`frontier run tickets --exec 'sleep 30'` resumes it");
  });
});

describe("a run that fails and asks says how to do both", () => {
  it("run prints frontier retry and frontier answer, then the command that continues", async () => {
    const { root } = workspace(FAILS_AND_ASKS);
    process.chdir(root);
    const r = await run("tickets", { exec: EXEC });
    expect(r.code).toBe(1);
    expect(r.err).toContain('frontier answer tickets b "YOUR ANSWER"');
    expect(r.err).toContain("frontier retry tickets a");
    expect(r.err).toMatch(/frontier run tickets --exec '.*'\n/);
  });

  it("status shows the retry command beside the answer command", async () => {
    const { root } = workspace(FAILS_AND_ASKS);
    process.chdir(root);
    await run("tickets", { exec: EXEC });
    const c = captured();
    await statusCommand("tickets", { json: false }, c.io, Date.now());
    expect(c.stdout()).toContain("retry with: frontier retry tickets a");
    expect(c.stdout()).toContain('answer with: frontier answer tickets b "YOUR ANSWER"');
  });

  it("the HTML report names the ticket directory, not a literal DIR", async () => {
    const { root } = workspace(FAILS_AND_ASKS);
    process.chdir(root);
    await run("tickets", { exec: EXEC });
    const html = readFileSync("tickets/.frontier/report.html", "utf8");
    expect(html).toContain("frontier answer tickets b");
    expect(html).not.toMatch(/frontier \w+ DIR\b/);
    expect(readFileSync("tickets/.frontier/report.md", "utf8")).not.toMatch(/frontier \w+ DIR\b/);
  });
});

describe("frontier run reads like frontier status", () => {
  it("coloured with FORCE_COLOR=1 and on a terminal, plain in a pipe; its end table aligned", async () => {
    const { root } = workspace(FAILS_AND_ASKS);
    process.chdir(root);
    const forced = await run("tickets", { exec: EXEC }, { FORCE_COLOR: "1", CI: "true" });
    expect(forced.err).toContain(ESC);
    await resetCommand("tickets", captured().io, Date.now());
    const piped = await run("tickets", { exec: EXEC }, { CI: "true" });
    expect(piped.err).not.toContain(ESC);
    // the open tickets as status shows them: a header, the columns lined up
    const table = piped.err.split("\n").filter((l) => /^ {2}(TICKET|[abc] )/.test(l));
    expect(table[0]).toMatch(/^ {2}TICKET +STATE +WAITING ON$/);
    const at = table[0]!.indexOf("WAITING ON");
    for (const row of table.slice(1)) expect(row.slice(at - 2, at)).toBe("  ");
    expect(table.length).toBe(4);
    await resetCommand("tickets", captured().io, Date.now());
    const tty = await run("tickets", { exec: EXEC }, {}, true);
    expect(tty.err).toContain(ESC);
  });

  it("a terminal with no size (0×0) gets plain lines, not cursor escapes alone", async () => {
    const { root } = workspace({ "a.md": "---\n---\n# A\n" });
    process.chdir(root);
    const c = captured({}, { tty: true });
    Object.assign(c.io.stderr, { columns: 0, rows: 0 });
    expect(await runCommand("tickets", { json: false, exec: "echo ok" }, c.io)).toBe(0);
    expect(plain(c.stderr())).toMatch(/start a \(attempt 1\)/);
  });

  it("paths as typed: from a subfolder, run names ../tickets as status does", async () => {
    const { root } = workspace({ "a.md": "---\ndepends_on: [nowhere]\n---\n# A\n" });
    mkdirSync(join(root, "sub"));
    process.chdir(join(root, "sub"));
    const r = await run("../tickets", { exec: "echo ok" });
    expect(r.err).toContain("../tickets/a.md:2");
    const missing = await run("../elsewhere", { exec: "echo ok" });
    expect(missing.err).toContain("no ticket directory at ../elsewhere");
    expect(r.err + missing.err).not.toContain(root);
  });
});

describe("where you stand", () => {
  it("inside the ticket directory, the message says so and how to go on", async () => {
    const { root, dir } = workspace({ "a.md": "---\n---\n# A\n", "frontier.yml": "run: x\n" });
    process.chdir(dir);
    for (const r of [await run("tickets", { exec: "echo ok" })]) {
      expect(r.code).toBe(2);
      expect(r.err).toContain("no ticket directory at tickets");
      expect(r.err).not.toContain(`${dir}/tickets`);
      expect(r.err).toContain("this directory holds tickets itself: pass . as DIR");
    }
    const c = captured();
    expect(await statusCommand("tickets", { json: false }, c.io, 0)).toBe(2);
    expect(c.stderr()).toContain("pass . as DIR");
    expect(root).not.toBe(dir);
  });

  it("run --fresh right after reset archives nothing more and says nothing twice", async () => {
    const { root } = workspace({ "a.md": "---\n---\n# A\n" });
    process.chdir(root);
    await run("tickets", { exec: "echo ok" });
    expect(await resetCommand("tickets", captured().io, Date.now())).toBe(0);
    const again = captured();
    expect(await resetCommand("tickets", again.io, Date.now(), { fresh: true })).toBe(0);
    expect(readdirSync("tickets/.frontier/runs")).toEqual(["tickets-1"]);
    expect(again.stdout()).toBe("");
  });
});

describe("status after a runner was killed", () => {
  it("a claim of a process that is gone is not shown as running", async () => {
    const dead = `local:${hostname()}:999999`;
    const { root } = workspace({
      "a.md": `---\nstatus: claimed\nattempt: 1\nclaimed_by: ${dead}\nclaimed_at: 2026-01-01T00:00:00.000Z\nclaim: a#1-x\n---\n# A\n`,
    });
    process.chdir(root);
    const c = captured();
    await statusCommand("tickets", { json: false }, c.io, Date.now());
    expect(c.stdout()).not.toMatch(/^running: a /m);
    expect(c.stdout()).toContain(
      `claimed by ${dead}, a process that is gone: \`frontier run tickets\` reclaims it`,
    );
  });
});

describe("YAML with a tab", () => {
  it("says to replace the tab with spaces", () => {
    const { root } = workspace({ "a.md": "---\ndepends_on:\n\t- b\n---\n# A\n" });
    const r = frontier(["validate"], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a\.md:3: .*tab.*— replace the tab with spaces/);
  });
});

describe("frontier init --github", () => {
  it("warns that a moving tag is not a pinned action, and says what to write", async () => {
    const { root } = workspace();
    mkdirSync(join(root, ".git"));
    process.chdir(root);
    const c = captured();
    const code = await initCommand(
      "tickets",
      { github: true, action: "acme/ticket-frontier@v1" },
      c.io,
    );
    expect(code).toBe(0);
    expect(c.stderr()).toMatch(
      /warning: acme\/ticket-frontier@v1 does not pin a commit: a tag or a branch can be moved to other code after you chose it — pin the full 40-character commit sha/,
    );
    const pinned = captured();
    await initCommand(
      "other",
      { github: true, action: `acme/ticket-frontier@${"a".repeat(40)}` },
      pinned.io,
    );
    expect(pinned.stderr()).not.toMatch(/warning/);
  });

  it("refusing to overwrite a workflow, it does not suggest another DIR (that would not help)", async () => {
    const { root } = workspace();
    mkdirSync(join(root, ".github", "workflows"), { recursive: true });
    writeFileSync(join(root, ".github", "workflows", "frontier.yml"), "name: mine\n");
    mkdirSync(join(root, ".git"));
    process.chdir(root);
    const c = captured();
    expect(await initCommand("tickets", { github: true }, c.io)).toBe(2);
    expect(c.stderr()).toMatch(
      /\.github\/workflows\/frontier\.yml already exists; nothing was written/,
    );
    expect(c.stderr()).not.toMatch(/another DIR/);
    expect(c.stderr()).toMatch(/move it aside/);
    expect(existsSync(join(root, "tickets"))).toBe(false);
  });
});

describe("suggestions only offer what means the same", () => {
  it("a short word two edits from another is not a typo of it", async () => {
    const { nearMatches } = await import("../../src/core/near.js");
    expect(nearMatches("ready", ["retry", "reset"])).toEqual([]);
    expect(nearMatches("parent", ["agent"])).toEqual([]);
    expect(nearMatches("stauts", ["status"])).toEqual(["status"]);
    expect(nearMatches("reserch", ["research"])).toEqual(["research"]);
  });

  it("a field named parent is not taken for agent", async () => {
    const { loadDirectory } = await import("../../src/tickets/load.js");
    const { dir } = workspace({ "a.md": "---\nparent: epic-1\n---\n# A\n" });
    const loaded = await loadDirectory(dir);
    expect(loaded.kind).toBe("ok");
    const warnings = loaded.kind === "ok" ? loaded.warnings.map((w) => w.message) : [];
    expect(warnings.join("\n")).not.toMatch(/agent/);
  });

  it("an unknown command gets the commands one slip away, and nothing else", () => {
    const typo = frontier(["reday"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Did you mean ready?");
    const other = frontier(["deploy"]);
    expect(other.stderr).not.toMatch(/Did you mean/);
  });
});

describe("frontier new", () => {
  it("--after takes its ids and leaves DIR and ID to follow", () => {
    const { root, dir } = workspace({ "announce.md": "---\n---\n# Announce\n" });
    const r = frontier(["new", "--after", "announce", "tickets", "publish"], { cwd: root });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "publish.md"), "utf8")).toMatch(/^depends_on: \[announce\]$/m);
  });
});
