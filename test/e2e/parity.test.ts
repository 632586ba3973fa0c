/**
 * Both runners, the same agents: each history below runs as one ticket of a graph on the
 * local runner (`frontier run`, a worktree per attempt) and on GitHub (the built action in
 * every step of an orch-task job, its checkout a git work tree), and what each runner
 * records — the engine's fields in the ticket file; the attempt's outcome, reason, and its
 * changes' verdict and paths — and what it integrates on the run's branch are the same. The agents do what coding agents
 * do: commit, branch, reset, stash, amend, hide files from git's index, write odd names,
 * make nested repositories, remove or remake `.git`, replace their directory with a
 * symlink, set attributes git cannot store files by, ignore files they track, write into
 * the run's records, and write outside their scope.
 *
 * Where the runners differ by design, the record is compared without it: the path of the
 * workspace and the commit it started from, where files no patch holds stay (a local
 * worktree stays; a job's workspace goes with the job), and the content of a ticket file
 * (GitHub's carry the run's state).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { AttemptRecord } from "../../src/core/model.js";
import { git, IDENTITY, readJson, repoWith, runHere, ticket } from "../local/git-repo.js";
import { Runner } from "./runner.js";

const D = 'w/"$FRONTIER_TICKET"';
const HISTORIES: Record<string, string> = {
  commits: `echo v2 > ${D}/a.txt && git add -A && git commit -qm once && echo v3 >> ${D}/a.txt && git commit -qam twice`,
  branches: [
    `git checkout -qb agent && echo b > ${D}/b.txt && git add -A && git commit -qm b`,
    `git checkout -q --detach HEAD && echo u > ${D}/u.txt`,
  ].join(" && "),
  "soft-reset": `echo s > ${D}/s.txt && git add -A && git commit -qm s && git reset -q --soft HEAD~1 && git reset -q`,
  stash: `echo x >> ${D}/a.txt && git stash -q`,
  amend: `git commit -q --amend --allow-empty -m rewritten && echo am > ${D}/a.txt`,
  orphan: `git checkout -q --orphan fresh && git rm -rq --cached . && echo o > ${D}/o.txt`,
  moves: [
    `git rm -q ${D}/del.txt && git mv ${D}/old.txt ${D}/moved.txt && git commit -qm moves`,
    `chmod +x ${D}/run.sh && ln -s a.txt ${D}/link && ln -s /etc ${D}/etc`,
  ].join(" && "),
  "hidden-from-index": [
    `git update-index --assume-unchanged ${D}/a.txt && echo hidden > ${D}/a.txt`,
    `git update-index --skip-worktree ${D}/old.txt && echo skipped > ${D}/old.txt`,
    `git rm -q --cached ${D}/del.txt`,
  ].join(" && "),
  attributes: `printf '* text eol=crlf\\n*.txt filter=up\\n' > ${D}/.gitattributes && printf 'lf\\n' > ${D}/lf.txt && printf 'crlf\\r\\n' > ${D}/crlf.txt`,
  encoding: `printf '*.txt working-tree-encoding=bogus\\n*.u16 working-tree-encoding=UTF-16\\n' > ${D}/.gitattributes && echo e > ${D}/e.txt && printf 'abc' > ${D}/x.u16`,
  "ignores-tracked": `printf 'a.txt\\nold.txt\\n' > ${D}/.gitignore && echo changed > ${D}/a.txt && rm ${D}/old.txt`,
  records: `mkdir -p tickets/.frontier && echo '{}' > tickets/.frontier/base.json && echo x > tickets/.frontier/evil.json && echo ok > ${D}/ok.txt`,
  "ignores-all": `printf '*\\n' > ${D}/.gitignore && echo new > ${D}/new.txt && echo changed > ${D}/a.txt`,
  "git-file": `mkdir -p ${D}/sub && printf 'gitdir: /nowhere\\n' > ${D}/sub/.git && echo s > ${D}/sub/s.txt && echo y > ${D}/y.txt`,
  "dir-to-file": `rm -rf ${D} && echo flat > ${D}`,
  "stash-untracked": `echo n > ${D}/n.txt && echo m >> ${D}/a.txt && git stash -u -q && echo kept > ${D}/k.txt`,
  ignores: `printf 'secret.txt\\n' > ${D}/.gitignore && echo s > ${D}/secret.txt && echo v > ${D}/visible.txt`,
  "force-added": `printf 'gen/\\n' > ${D}/.gitignore && mkdir ${D}/gen && echo g > ${D}/gen/out.js && git add -A && git add -f ${D}/gen/out.js && git commit -qm gen`,
  "odd-names": [
    `echo 1 > ${D}/"sp ace.txt" && echo 2 > ${D}/ünï.txt && echo 3 > ${D}/-dash`,
    `echo 4 > ${D}/'"q".txt' && echo 5 > ${D}/"$(printf 'tab\\tx')" && echo 6 > ${D}/'back\\slash'`,
    `echo 7 > ${D}/'star*' && echo 8 > ${D}/"$(printf 'e\\314\\201')" && echo 9 > ${D}/"$(printf '\\303\\251')"`,
    `echo 10 > ${D}/"$(printf 'line\\nbreak')"`,
  ].join(" && "),
  "worktree-add": `git worktree add -q --detach ../sibling-"$FRONTIER_TICKET" && echo w > ../sibling-"$FRONTIER_TICKET"/w.txt && echo in > ${D}/in.txt`,
  "file-to-dir": `rm ${D}/a.txt && mkdir ${D}/a.txt && echo inner > ${D}/a.txt/inner`,
  fifo: `mkfifo ${D}/fifo && echo f > ${D}/f.txt`,
  "deletes-all": `git rm -rq ${D}`,
  "dir-to-symlink": `rm -rf ${D} && ln -s /tmp ${D}`,
  nested: `mkdir -p ${D}/sub && cd ${D}/sub && git init -q && echo n > n.txt && git add -A && git commit -qm n`,
  "dot-git": `mkdir -p ${D}/.GIT && echo x > ${D}/.GIT/config && echo y > ${D}/y.txt`,
  outside: `echo rewritten > README.md && echo in > ${D}/in.txt`,
  "own-ticket": `echo evil >> tickets/"$FRONTIER_TICKET".md`,
  "no-git": `rm -rf .git && echo z > ${D}/z.txt`,
  "remade-git": `rm -rf .git && git init -q && echo r > ${D}/r.txt`,
  // dependents: of a ticket that integrated (its checkout holds that commit), and of one that failed
  "after-commits": `test "$(cat w/commits/a.txt)" = "$(printf 'v2\\nv3')" && echo ok > ${D}/ok.txt`,
  "after-outside": `echo ok > ${D}/ok.txt`,
};
const DEPENDS: Record<string, string> = {
  "after-commits": "commits",
  "after-outside": "outside",
};
const IDS = Object.keys(HISTORIES);

/** What each ticket comes to (on both runners): its status, its attempt's verdict, changed paths. */
const EXPECTED: Record<string, string> = {
  commits: "complete integrated 1",
  branches: "complete integrated 2",
  "soft-reset": "complete integrated 1",
  stash: "complete - 0",
  amend: "complete integrated 1",
  orphan: "complete integrated 1",
  moves: "complete integrated 5",
  "hidden-from-index": "complete integrated 2",
  attributes: "complete integrated 3",
  encoding: "failed - 0",
  "ignores-tracked": "complete integrated 3",
  records: "complete integrated 1",
  "ignores-all": "complete integrated 1",
  "git-file": "failed kept 2",
  "dir-to-file": "complete integrated 5",
  "stash-untracked": "complete integrated 1",
  ignores: "complete integrated 2",
  "force-added": "complete integrated 2",
  "odd-names": "complete integrated 10",
  "worktree-add": "complete integrated 1",
  "file-to-dir": "complete integrated 2",
  fifo: "complete integrated 1",
  "deletes-all": "complete integrated 4",
  "dir-to-symlink": "complete integrated 5",
  nested: "failed kept 1",
  "dot-git": "failed kept 1",
  outside: "failed breach 2",
  "own-ticket": "failed breach 1",
  "no-git": "failed - 0",
  "remade-git": "failed - 0",
  "after-commits": "complete integrated 1",
  "after-outside": "blocked - 0",
};

/** What every ticket's directory holds at the start. */
function startFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "README.md": "# widgets\n",
    // as Gradle writes them: every checkout has this file with CRLF
    ".gitattributes": "*.bat text eol=crlf\n",
    "tools/gradlew.bat": "@echo off\nrem build\n",
  };
  for (const id of IDS) {
    files[`w/${id}/a.txt`] = "v1\n";
    files[`w/${id}/del.txt`] = "bye\n";
    files[`w/${id}/old.txt`] = "moves\nwith\nits\nlines\n";
    files[`w/${id}/run.sh`] = "#!/bin/sh\necho run\n";
  }
  return files;
}

const SETTINGS = "run: parity\nisolation: worktree\n";
const ticketFile = (id: string) =>
  ticket(
    { ...(DEPENDS[id] && { depends_on: [DEPENDS[id]] }), write_scope: [`w/${id}/**`] },
    `Do ${id}.`,
  );

/** One runner's ticket, as compared: its fields and attempt, without what differs by design. */
interface Seen {
  /** the engine's fields in the ticket file (but `updated_at`) */
  fields: Record<string, unknown>;
  outcome?: string;
  reason?: string;
  verdict?: string;
  paths: Array<[string, string, string | undefined, string | undefined]>;
}

function seen(file: string, a: Partial<AttemptRecord> | undefined, workspace: RegExp): Seen {
  const said = (reason: string | undefined) =>
    reason
      ?.replace(workspace, "<workspace>")
      .replace(/\([0-9a-f]{12}\)/, "(<start>)")
      .replace(/, its files are kept in <workspace>/, "")
      .replace(/, but for what no patch holds: .*$/, "");
  const front = parse(file.split("---\n")[1] ?? "") as Record<string, unknown>;
  const { status, attempt, reason, blocked_by } = front as { reason?: string } & typeof front;
  return {
    fields: { status, attempt, reason: said(reason), blocked_by },
    outcome: a?.outcome,
    reason: said(a?.reason),
    verdict: a?.changes?.verdict,
    paths: (a?.changes?.paths ?? []).map((p) => {
      const blob = p.path.startsWith("tickets/") ? "(a ticket file)" : p.blob;
      return [p.path, p.status, p.mode, blob];
    }),
  };
}

/** `mode blob` by path of every file a branch holds but the run's own (tickets/, workflows). */
type Tree = Map<string, string>;
const compared = (path: string) => !/^(tickets|\.github)\//.test(path);

describe("the same agents on both runners: the same records, the same branch", () => {
  const runner = new Runner();
  const scripts = mkdtempSync(join(tmpdir(), "frontier-parity-scripts-"));
  const local: Record<string, Seen> = {};
  const github: Record<string, Seen> = {};
  let localTree: Tree = new Map();
  let githubTree: Tree = new Map();
  let localOut = "";

  beforeAll(async () => {
    for (const [id, history] of Object.entries(HISTORIES))
      writeFileSync(join(scripts, `${id}.sh`), `set -e\n${history}\n`);

    // locally: one run of the graph, every ticket in a worktree of its own
    const files: Record<string, string> = { ...startFiles(), "tickets/frontier.yml": SETTINGS };
    for (const id of IDS) files[`tickets/${id}.md`] = ticketFile(id);
    const repo = repoWith(files);
    const ran = await runHere(
      repo.dir,
      `sh ${scripts}/"$FRONTIER_TICKET".sh && printf '%s' '{"status":"complete","result":"'"$FRONTIER_TICKET"' done"}' > "$FRONTIER_OUTCOME_FILE"`,
    );
    localOut = ran.stdout + ran.stderr;
    const worktrees = new RegExp(
      `${repo.root}[^ ,;:)]*|/[^ ]*frontier[^ ]*worktrees[^ ,;:)]*`,
      "g",
    );
    for (const id of IDS) {
      const record = join(repo.dir, ".frontier", "attempts", `${id}@1.json`);
      const attempt = existsSync(record) ? readJson<AttemptRecord>(record) : undefined;
      local[id] = seen(readFileSync(join(repo.dir, `${id}.md`), "utf8"), attempt, worktrees);
    }
    localTree = treeOf(git(repo.root, "ls-tree", "-r", "-z", "frontier/parity").split("\0"));

    // on GitHub: the same graph, each job's agent the same history in its checkout
    const dir = mkdtempSync(join(tmpdir(), "frontier-e2e-tickets-"));
    writeFileSync(join(dir, "frontier.yml"), SETTINGS);
    for (const id of IDS) writeFileSync(join(dir, `${id}.md`), ticketFile(id));
    await runner.start(dir);
    const sha = runner.repo.commit("main", startFiles(), { message: "start files" });
    // (the context step is left out: the agent needs only its ticket's id)
    runner.withContext = false;
    runner.script = (t, _a, job) => {
      try {
        execFileSync("sh", [join(scripts, `${t}.sh`)], {
          cwd: job.workspace,
          env: { ...process.env, ...IDENTITY, FRONTIER_TICKET: t },
          stdio: "pipe",
        });
      } catch (error) {
        return { status: "failed", reason: `the script failed: ${String(error)}` };
      }
      return { status: "complete", result: `${t} done` };
    };
    const push = await runner.push(sha);
    expect(push.code, push.stdout + push.stderr).toBe(0);
    await runner.fake.idle();
    const state = runner.state();
    const jobs = new RegExp(`${runner.scratch}/job-[^ ,;:)]*`, "g");
    for (const id of IDS) {
      const file = runner.repo.readFile(`tickets/${id}.md`) ?? "";
      github[id] = seen(file, state.tickets[id]?.attempts[0], jobs);
    }
    const head = runner.repo.head("main") as string;
    const tree = runner.repo.git.expect(head, "commit").tree;
    githubTree = new Map();
    for (const [path, e] of runner.repo.git.flatten(tree))
      if (compared(path)) githubTree.set(path, `${e.mode} ${e.sha}`);
    rmSync(repo.root, { recursive: true, force: true });
  }, 600_000);

  afterAll(async () => {
    await runner.stop();
    rmSync(scripts, { recursive: true, force: true });
  });

  for (const id of IDS) {
    it(`${id}: the ticket and its attempt are recorded the same`, () => {
      expect(runner.fake.hookErrors.map((e) => String(e.error))).toEqual([]);
      expect(local[id]?.fields.status, localOut).toBeDefined();
      expect(github[id]).toEqual(local[id]);
      const { fields, verdict = "-", paths } = local[id] as Seen;
      expect(`${fields.status} ${verdict} ${paths.length}`, local[id]?.reason).toBe(EXPECTED[id]);
    });
  }

  it("what each integrated is the same tree, the files no ticket may change as they were", () => {
    expect([...githubTree].sort()).toEqual([...localTree].sort());
    // README.md (a breach) and gradlew.bat (CRLF in every checkout) as the start had them
    expect(localTree.get("README.md")).toBe(`100644 ${blobOf("# widgets\n")}`);
    expect(localTree.get("tools/gradlew.bat")).toBe(`100644 ${blobOf("@echo off\nrem build\n")}`);
  });
});

/** git's id of a blob holding `text`. */
const blobOf = (text: string) =>
  createHash("sha1")
    .update(`blob ${Buffer.byteLength(text)}\0${text}`)
    .digest("hex");

function treeOf(entries: string[]): Tree {
  const tree: Tree = new Map();
  for (const e of entries) {
    const [head, path] = [e.slice(0, e.indexOf("\t")), e.slice(e.indexOf("\t") + 1)];
    if (e === "" || !compared(path)) continue;
    const [mode, , sha] = head.split(" ");
    tree.set(path, `${mode} ${sha}`);
  }
  return tree;
}
