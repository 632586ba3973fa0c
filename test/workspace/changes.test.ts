/** SPEC §4b: a ticket's changes are read from its git workspace, the same way for both runners. */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  attemptChanges,
  changedSince,
  collectChanges,
  commitOnto,
  patchOf,
  readBlobs,
} from "../../src/workspace/changes.js";
import { noCodeRun } from "../../src/workspace/git.js";

const IDENTITY = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

function sh(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...IDENTITY } })
    .toString()
    .trim();
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

let root: string;
let start: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "frontier-ws-"));
  sh(root, "init", "-q", "-b", "main");
  write(root, "src/api/a.ts", "export const a = 1;\n");
  write(root, "src/api/old.ts", "old\nfile\nwith\nlines\n");
  write(root, "docs/gone.md", "bye\n");
  write(root, "tickets/one.md", "---\nid: one\n---\n# One\n");
  write(root, "tickets/.frontier/state.json", "{}\n");
  write(root, ".gitignore", "build/\n");
  sh(root, "add", "-A");
  sh(root, "commit", "-q", "-m", "start");
  start = sh(root, "rev-parse", "HEAD");
});

describe("the changes of a workspace against the commit it started from", () => {
  it("added, modified, deleted and renamed files, with their line counts", async () => {
    write(root, "src/api/a.ts", "export const a = 2;\nexport const b = 3;\n");
    write(root, "src/api/new.ts", "new\n");
    rmSync(join(root, "docs/gone.md"));
    renameSync(join(root, "src/api/old.ts"), join(root, "src/api/renamed.ts"));
    const got = await collectChanges(root, start);
    expect(got.start).toBe(start);
    expect(got.paths.map((c) => [c.status, c.path, c.from ?? ""])).toEqual([
      ["deleted", "docs/gone.md", ""],
      ["modified", "src/api/a.ts", ""],
      ["added", "src/api/new.ts", ""],
      ["renamed", "src/api/renamed.ts", "src/api/old.ts"],
    ]);
    const a = got.paths.find((c) => c.path === "src/api/a.ts")!;
    expect(a).toMatchObject({ added: 2, removed: 1, mode: "100644", oldMode: "100644" });
    expect(a.blob).toMatch(/^[0-9a-f]{40}$/);
    const gone = got.paths.find((c) => c.path === "docs/gone.md")!;
    expect(gone.blob).toBeUndefined();
    expect(gone.oldBlob).toMatch(/^[0-9a-f]{40}$/);
  });

  it("the executable bit, a symlink and a binary file are changes with their modes", async () => {
    write(root, "bin/run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(join(root, "bin/run.sh"), 0o755);
    chmodSync(join(root, "src/api/a.ts"), 0o755);
    symlinkSync("a.ts", join(root, "src/api/link.ts"));
    write(root, "img/logo.bin", Buffer.from([0, 1, 2, 255, 0, 13, 10]));
    const got = await collectChanges(root, start);
    const by = new Map(got.paths.map((c) => [c.path, c]));
    expect(by.get("bin/run.sh")).toMatchObject({ status: "added", mode: "100755" });
    expect(by.get("src/api/a.ts")).toMatchObject({
      status: "modified",
      mode: "100755",
      oldMode: "100644",
      added: 0,
      removed: 0,
    });
    expect(by.get("src/api/link.ts")).toMatchObject({ status: "added", mode: "120000" });
    const bin = by.get("img/logo.bin")!;
    expect(bin.added).toBeUndefined();
    const blobs = await readBlobs(root, [bin.blob!, by.get("src/api/link.ts")!.blob!]);
    expect(blobs.get(bin.blob!)).toEqual(Buffer.from([0, 1, 2, 255, 0, 13, 10]));
    expect(blobs.get(by.get("src/api/link.ts")!.blob!)?.toString()).toBe("a.ts");
  });

  it("ignored paths and the excluded records are not changes; the index is left alone", async () => {
    write(root, "build/out.js", "x\n");
    write(root, "tickets/.frontier/state.json", '{"changed": true}\n');
    write(root, "tickets/.frontier/results/one@1.md", "r\n");
    write(root, "src/api/staged.ts", "s\n");
    sh(root, "add", "src/api/staged.ts");
    const statusBefore = sh(root, "status", "--porcelain");
    const got = await collectChanges(root, start, { exclude: ["tickets/.frontier"] });
    expect(got.paths.map((c) => c.path)).toEqual(["src/api/staged.ts"]);
    expect(sh(root, "status", "--porcelain")).toBe(statusBefore);
  });

  it("nothing changed is no change, from a subdirectory too", async () => {
    const got = await collectChanges(join(root, "src"), start);
    expect(got.paths).toEqual([]);
  });

  it("keeps a change as a patch that git can apply", async () => {
    write(root, "src/api/a.ts", "export const a = 42;\n");
    const got = await collectChanges(root, start);
    const patch = String(await patchOf(root, got.start, got.tree));
    expect(patch).toContain("-export const a = 1;");
    expect(patch).toContain("+export const a = 42;");
    sh(root, "checkout", "-q", "--", ".");
    execFileSync("git", ["apply"], { cwd: root, input: patch });
    expect(readFileSync(join(root, "src/api/a.ts"), "utf8")).toBe("export const a = 42;\n");
  });

  it("a patch over the caller's cap is not made: git is stopped there, and one within it is whole", async () => {
    write(root, "src/api/big.bin", Buffer.alloc(4 << 20, "agent output\n"));
    write(root, "src/api/a.ts", "export const a = 42;\n");
    const got = await collectChanges(root, start);
    expect(await patchOf(root, got.start, got.tree, { cap: 64 * 1024 })).toBeUndefined();
    const whole = (await patchOf(root, got.start, got.tree)) as Buffer;
    expect(String(await patchOf(root, got.start, got.tree, { cap: whole.byteLength }))).toBe(
      String(whole),
    );
    expect(String(whole)).toContain("+export const a = 42;");
  });

  it("keeps a text file in another encoding than UTF-8 byte for byte in its patch", async () => {
    const latin1 = Buffer.from("caf\xe9 cr\xe8me\n", "latin1");
    writeFileSync(join(root, "src/api/menu.txt"), latin1);
    const got = await collectChanges(root, start);
    const patch = (await patchOf(root, got.start, got.tree)) as Buffer;
    expect(patch.includes(latin1)).toBe(true);
    rmSync(join(root, "src/api/menu.txt"));
    execFileSync("git", ["apply"], { cwd: root, input: patch });
    expect(readFileSync(join(root, "src/api/menu.txt")).equals(latin1)).toBe(true);
  });
});

describe("integrating changes on a branch, and what moved there", () => {
  it("one commit on the branch's head, by compare-and-swap; the work tree untouched", async () => {
    sh(root, "branch", "frontier/run", start);
    write(root, "src/api/a.ts", "changed\n");
    write(root, "src/api/new.ts", "new\n");
    renameSync(join(root, "src/api/old.ts"), join(root, "src/api/renamed.ts"));
    rmSync(join(root, "docs/gone.md"));
    const got = await collectChanges(root, start);
    const answer = await commitOnto(root, {
      head: start,
      ref: "refs/heads/frontier/run",
      changes: got.paths,
      message: "one#1\n\nFrontier-Ticket: one\nFrontier-Attempt: 1\n",
    });
    expect(answer.kind).toBe("ok");
    const commit = (answer as { commit: string }).commit;
    expect(sh(root, "rev-parse", "frontier/run")).toBe(commit);
    expect(sh(root, "show", `${commit}:src/api/a.ts`)).toBe("changed");
    expect(sh(root, "ls-tree", "-r", "--name-only", commit)).not.toContain("src/api/old.ts");
    expect(sh(root, "ls-tree", "-r", "--name-only", commit)).not.toContain("docs/gone.md");
    expect(
      sh(root, "log", "-1", "--format=%(trailers:key=Frontier-Ticket,valueonly)", commit),
    ).toBe("one");
    // a second commit on the old head loses the race and changes nothing
    const again = await commitOnto(root, {
      head: start,
      ref: "refs/heads/frontier/run",
      changes: got.paths,
      message: "again",
    });
    expect(again).toEqual({ kind: "moved", now: commit });
    expect(sh(root, "rev-parse", "frontier/run")).toBe(commit);
  });

  it("names a shell or a line-based tool would trip on land as they are, renamed and deleted too", async () => {
    const odd = [
      "\tfirst",
      "-rf",
      "a b.txt",
      // a carriage return before git's line end: never read as the name without it
      "a b.txt\r",
      "ends in\r",
      "new\nline.txt",
      "tab\there",
      'quo"te',
      "back\\slash",
      "*?[x]",
      "ünï.md",
    ];
    for (const name of odd) write(root, `${name}`, `${name}\n`);
    sh(root, "add", "-A");
    sh(root, "commit", "-qm", "odd");
    const before = sh(root, "rev-parse", "HEAD");
    sh(root, "branch", "frontier/run", before);
    for (const name of odd) write(root, `${name}`, `${name} changed\n`);
    renameSync(join(root, "new\nline.txt"), join(root, "moved\n.txt"));
    rmSync(join(root, "tab\there"));
    const got = await collectChanges(root, before);
    const want = odd.filter((n) => !n.startsWith("new") && !n.startsWith("tab"));
    expect(got.refused).toBeUndefined();
    expect(got.paths.filter((c) => c.status === "modified").map((c) => c.added)).toEqual(
      want.map(() => 1),
    );
    expect(got.paths.map((c) => [c.path, c.status])).toEqual(
      [
        ...want.map((n) => [`${n}`, "modified"]),
        ["moved\n.txt", "added"],
        ["new\nline.txt", "deleted"],
        ["tab\there", "deleted"],
      ].sort(([x], [y]) => ((x as string) < (y as string) ? -1 : 1)), // git's order: by bytes
    );
    const answer = await commitOnto(root, {
      head: before,
      ref: "refs/heads/frontier/run",
      changes: got.paths,
      message: "odd#1",
    });
    const commit = (answer as { commit: string }).commit;
    const files = execFileSync("git", ["ls-tree", "-r", "-z", "--name-only", commit], { cwd: root })
      .toString()
      .split("\0");
    for (const n of want) expect(sh(root, "show", `${commit}:${n}`)).toBe(`${n} changed`.trim());
    expect(files).toContain("moved\n.txt");
    expect(files).not.toContain("tab\there");
  });

  it("a ref that stays where it was but cannot be moved (a lock left behind) is a failure in git's words, not a lost race", async () => {
    sh(root, "branch", "frontier/run", start);
    writeFileSync(join(root, ".git", "refs", "heads", "frontier", "run.lock"), "");
    write(root, "src/api/a.ts", "changed\n");
    const got = await collectChanges(root, start);
    const answer = await commitOnto(root, {
      head: start,
      ref: "refs/heads/frontier/run",
      changes: got.paths,
      message: "locked",
    });
    expect(answer.kind).toBe("failed");
    // git's own line, not the advice after it
    expect(answer.kind === "failed" && answer.message).toMatch(
      /^git update-ref -m frontier: integrate failed \(exit 128\): fatal: .*cannot lock ref 'refs\/heads\/frontier\/run': .*run\.lock': File exists\.$/,
    );
    expect(sh(root, "rev-parse", "frontier/run")).toBe(start);
  });

  it("names the newest commit that changed each path since the start", async () => {
    write(root, "src/api/a.ts", "someone\n");
    sh(root, "commit", "-qam", "a person's push");
    const first = sh(root, "rev-parse", "HEAD");
    write(root, "src/api/a.ts", "someone again\n");
    sh(root, "commit", "-qam", "another");
    const head = sh(root, "rev-parse", "HEAD");
    const moved = await changedSince(root, start, head, ["src/api/a.ts", "src/api/old.ts"]);
    expect([...moved]).toEqual([["src/api/a.ts", head]]);
    expect(first).not.toBe(head);
  });

  it("tens of thousands of changed paths (an npm install) are looked up past the kernel's limit on a command line", async () => {
    write(root, "src/api/a.ts", "someone\n");
    sh(root, "commit", "-qam", "a person's push");
    const head = sh(root, "rev-parse", "HEAD");
    const vendor = "vendor/some-package-name/lib/deeply/nested/file-number";
    const many = Array.from({ length: 40_000 }, (_, i) => `${vendor}-${i}.js`);
    const moved = await changedSince(root, start, head, [...many, "src/api/a.ts"]);
    expect([...moved]).toEqual([["src/api/a.ts", head]]);
  });

  it("a directory made a file on either side is a conflict of the path it holds, never a file deleted in silence", async () => {
    // someone adds to src/api, which the attempt makes a file; and makes docs a file, where the attempt adds
    write(root, "src/api/theirs.ts", "theirs\n");
    rmSync(join(root, "docs"), { recursive: true });
    write(root, "docs", "a file now\n");
    sh(root, "add", "-A");
    sh(root, "commit", "-qm", "a person's push");
    const head = sh(root, "rev-parse", "HEAD");
    const touched = ["src/api", "src/api/a.ts", "src/api/old.ts", "docs/new.md", "src/ui/u.ts"];
    const moved = await changedSince(root, start, head, touched);
    expect([...moved].sort()).toEqual([
      ["docs/new.md", head],
      ["src/api", head],
    ]);
  });
});

describe("whatever the agent did with git, the changes are its files against the start", () => {
  const histories: Record<string, (root: string) => void> = {
    "commits once": (r) => {
      write(r, "src/api/a.ts", "committed\n");
      sh(r, "commit", "-qam", "agent");
    },
    "commits twice, then checks out a new branch": (r) => {
      write(r, "src/api/one.ts", "1\n");
      sh(r, "add", "-A");
      sh(r, "commit", "-qm", "one");
      write(r, "src/api/two.ts", "2\n");
      sh(r, "add", "-A");
      sh(r, "commit", "-qm", "two");
      sh(r, "checkout", "-qb", "agent-branch");
      write(r, "src/api/three.ts", "3\n");
    },
    "resets a commit away and stashes an edit": (r) => {
      write(r, "src/api/kept.ts", "kept\n");
      write(r, "src/api/dropped.ts", "dropped\n");
      sh(r, "add", "src/api/dropped.ts");
      sh(r, "commit", "-qm", "dropped");
      sh(r, "reset", "-q", "--hard", "HEAD~1");
      write(r, "src/api/a.ts", "stashed\n");
      sh(r, "stash", "-q");
      write(r, "src/api/kept.ts", "kept\n");
    },
    "commits a file the .gitignore ignores (git add -f), and leaves another there": (r) => {
      write(r, "build/dist.js", "shipped\n");
      write(r, "build/cache.tmp", "scratch\n");
      sh(r, "add", "-f", "build/dist.js");
      sh(r, "commit", "-qm", "dist");
    },
    "narrows its checkout (git sparse-checkout), then commits a file in it": (r) => {
      sh(r, "sparse-checkout", "set", "src/api");
      write(r, "src/api/b.ts", "b\n");
      sh(r, "add", "src/api");
      sh(r, "commit", "-qm", "b");
    },
  };
  const expected: Record<string, string[]> = {
    "commits once": ["src/api/a.ts"],
    "commits twice, then checks out a new branch": [
      "src/api/one.ts",
      "src/api/three.ts",
      "src/api/two.ts",
    ],
    "resets a commit away and stashes an edit": ["src/api/kept.ts"],
    "commits a file the .gitignore ignores (git add -f), and leaves another there": [
      "build/dist.js",
    ],
    // what it left out of its checkout is neither there nor deleted (git's view too)
    "narrows its checkout (git sparse-checkout), then commits a file in it": ["src/api/b.ts"],
  };
  for (const [name, history] of Object.entries(histories)) {
    it(name, async () => {
      history(root);
      const got = await collectChanges(root, start);
      expect(got.start).toBe(start);
      expect(got.paths.map((c) => c.path)).toEqual(expected[name]);
    });
  }
});

describe("what cannot be carried as made is named, and kept", () => {
  it("a nested repository, with a commit or without one, is named and its files are collected", async () => {
    write(root, "src/lib/c.js", "c\n");
    sh(join(root, "src/lib"), "init", "-q");
    sh(join(root, "src/lib"), "add", "-A");
    sh(join(root, "src/lib"), "commit", "-qm", "nested");
    write(root, "src/api/fresh/x.js", "x\n");
    sh(join(root, "src/api/fresh"), "init", "-q");
    write(root, "src/api/a.ts", "also changed\n");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => [c.path, c.mode])).toEqual([
      ["src/api/a.ts", "100644"],
      ["src/api/fresh/x.js", "100644"],
      ["src/lib/c.js", "100644"],
    ]);
    expect(got.refused).toMatch(
      /^integration refused: nested git repositories: src\/api\/fresh, src\/lib \(delete .* cannot carry them as made/,
    );
    const patch = String(await patchOf(root, got.start, got.tree));
    expect(patch).toContain("+c");
  });

  it("a submodule it added and emptied again (git submodule deinit) is named, never dropped from beside its .gitmodules", async () => {
    sh(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", libRepo(), "src/lib");
    sh(root, "commit", "-qm", "lib");
    sh(root, "submodule", "deinit", "-q", "-f", "src/lib");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => c.path)).toEqual([".gitmodules"]);
    expect(got.refused).toMatch(/^integration refused: nested git repositories: src\/lib \(/);
  });

  it("a nested repository made inside a tracked directory is named", async () => {
    sh(join(root, "src/api"), "init", "-q");
    write(root, "src/api/a.ts", "changed\n");
    const got = await collectChanges(root, start);
    expect(got.refused).toMatch(/nested git repositories: src\/api \(/);
  });

  it("a .git that is no repository (a file pointing nowhere, an empty directory) is named too, never dropped", async () => {
    write(root, "src/f/.git", "gitdir: /nonexistent\n");
    write(root, "src/f/a.txt", "a\n");
    mkdirSync(join(root, "src/e/.git"), { recursive: true });
    write(root, "src/e/b.txt", "b\n");
    const got = await collectChanges(root, start);
    expect(got.refused).toMatch(/nested git repositories: src\/e, src\/f \(/);
  });

  it("a name git will not store (.git in another spelling) is named, never dropped in silence", async () => {
    // git's update-index says "Ignoring path" and leaves each out of the tree, exit code 0
    write(root, ".GIT/config", "[core]\n\tfsmonitor = ./own\n");
    write(root, "src/.Git/hooks/post-checkout", "#!/bin/sh\n");
    write(root, "git~1/x", "x\n");
    write(root, "src/.g\u200cit/y", "y\n"); // macOS would take it for .git
    write(root, "src/api/a.ts", "also changed\n");
    // a .gitmodules the start holds, made a symlink (git takes none, GitHub neither)
    write(root, "src/.gitmodules", "");
    sh(root, "add", "-A", "src/.gitmodules");
    sh(root, "commit", "-qm", "modules");
    const before = sh(root, "rev-parse", "HEAD");
    rmSync(join(root, "src/.gitmodules"));
    symlinkSync("/etc/passwd", join(root, "src/.gitmodules"));
    const got = await collectChanges(root, before);
    expect(got.paths.map((c) => c.path)).toEqual(["src/api/a.ts"]);
    expect(got.refused).toBe(
      "integration refused: names git refuses: .GIT/config, git~1/x, src/.Git/hooks/post-checkout, src/.g\u200cit/y, src/.gitmodules (rename them, or make them plain files) — a ticket's commit cannot carry them as made; nothing was integrated, the change is kept as evidence",
    );
  });

  it("a refusal names 20 paths, then how many more (an agent's 10,000 files make no 10,000-name reason)", async () => {
    for (let i = 0; i < 30; i++) write(root, `.GIT/objects/f${String(i).padStart(2, "0")}`, "x\n");
    const got = await collectChanges(root, start);
    expect(got.refused).toContain(".GIT/objects/f19 and 10 more (rename them");
    expect(got.refused).not.toContain("f20");
  });

  it("names that are not UTF-8 stay two files, named by their escaped bytes", async () => {
    writeFileSync(Buffer.from(`${root}/caf\xe9`, "latin1"), "first\n");
    writeFileSync(Buffer.from(`${root}/caf\xe8`, "latin1"), "second\n");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => c.path)).toEqual(["caf\\xE8", "caf\\xE9"]);
    const blobs = await readBlobs(
      root,
      got.paths.map((c) => c.blob!),
    );
    expect(got.paths.map((c) => blobs.get(c.blob!)?.toString())).toEqual(["second\n", "first\n"]);
    expect(got.refused).toMatch(/names not in UTF-8: caf\\xE8, caf\\xE9 \(rename them\)/);
  });

  it("a file under a directory the agent replaced with a symlink is gone, never read through it", async () => {
    const outside = mkdtempSync(join(tmpdir(), "frontier-outside-"));
    writeFileSync(join(outside, "a.ts"), "a secret of the host\n");
    rmSync(join(root, "src/api"), { recursive: true });
    symlinkSync(outside, join(root, "src/api"));
    const got = await collectChanges(root, start);
    const blobs = await readBlobs(
      root,
      got.paths.flatMap((c) => (c.blob ? [c.blob] : [])),
    );
    expect([...blobs.values()].map(String)).not.toContain("a secret of the host\n");
    expect(got.paths.find((c) => c.path === "src/api/a.ts")?.status).toBe("deleted");
    rmSync(outside, { recursive: true, force: true });
  });
});

/** A repository of one commit (`l.txt`), to add as a submodule. */
function libRepo(): string {
  const lib = mkdtempSync(join(tmpdir(), "frontier-lib-"));
  sh(lib, "init", "-q", "-b", "main");
  write(lib, "l.txt", "lib\n");
  sh(lib, "add", "-A");
  sh(lib, "commit", "-qm", "lib");
  return lib;
}

describe("a submodule the start holds", () => {
  /** `vendor/lib` a submodule of the start, checked out in `root`; its clone without it checked out */
  function withSubmodule(): { start: string; clone: string } {
    sh(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", libRepo(), "vendor/lib");
    sh(root, "commit", "-qm", "submodule");
    const clone = mkdtempSync(join(tmpdir(), "frontier-clone-"));
    sh(clone, "clone", "-q", root, ".");
    return { start: sh(root, "rev-parse", "HEAD"), clone };
  }

  it("left as it was checked out, or never checked out, is no change", async () => {
    const { start, clone } = withSubmodule();
    write(root, "src/api/a.ts", "changed\n");
    expect((await collectChanges(root, start)).paths.map((c) => c.path)).toEqual(["src/api/a.ts"]);
    const got = await collectChanges(clone, start);
    expect([got.paths, got.refused]).toEqual([[], undefined]);
  });

  const agents: Record<string, (at: { root: string; clone: string }) => string> = {
    "writes into its directory, never checked out": ({ clone }) => {
      write(clone, "vendor/lib/new.txt", "agent\n");
      return clone;
    },
    "edits a file of it": ({ root }) => {
      write(root, "vendor/lib/l.txt", "agent\n");
      return root;
    },
    "commits in it": ({ root }) => {
      write(root, "vendor/lib/l.txt", "agent\n");
      sh(join(root, "vendor/lib"), "commit", "-qam", "agent");
      return root;
    },
    "puts a plain directory in its place": ({ root }) => {
      rmSync(join(root, "vendor/lib"), { recursive: true, force: true });
      write(root, "vendor/lib/new.txt", "agent\n");
      return root;
    },
  };
  for (const [what, agent] of Object.entries(agents)) {
    it(`an agent that ${what} is refused by name, its files kept in the patch, never dropped`, async () => {
      const { start, clone } = withSubmodule();
      const workspace = agent({ root, clone });
      const got = await collectChanges(workspace, start);
      expect(got.refused).toMatch(
        /^integration refused: changes inside submodules: vendor\/lib \(make them in the submodule's own repository/,
      );
      expect(String(await patchOf(workspace, got.start, got.tree))).toContain("+agent");
    });
  }

  it("a file in its place is a change like any other", async () => {
    const { start } = withSubmodule();
    rmSync(join(root, "vendor/lib"), { recursive: true, force: true });
    write(root, "vendor/lib", "a file now\n");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => [c.path, c.oldMode, c.mode])).toEqual([
      ["vendor/lib", "160000", "100644"],
    ]);
    expect(got.refused).toBeUndefined();
  });
});

describe("a workspace whose repository is gone or new", () => {
  it("removed .git: the changes could not be collected, and it says why", async () => {
    rmSync(join(root, ".git"), { recursive: true, force: true });
    await expect(collectChanges(root, start)).rejects.toThrow(
      /is no longer a git work tree \(its \.git was removed\)/,
    );
  });

  it("a core.worktree pointing elsewhere (the whole disk, say) is not followed", async () => {
    sh(root, "config", "core.worktree", "/");
    await expect(collectChanges(root, start)).rejects.toThrow(
      `${root} is not the work tree its .git names (/: core.worktree)`,
    );
  });

  it("the start commit pruned away (an orphan branch, the reflog expired, a gc): the words say so", async () => {
    sh(root, "checkout", "-q", "--orphan", "fresh");
    sh(root, "commit", "-q", "-m", "fresh");
    sh(root, "branch", "-D", "main");
    sh(root, "reflog", "expire", "--expire=now", "--all");
    sh(root, "gc", "-q", "--prune=now");
    await expect(collectChanges(root, start)).rejects.toThrow(
      /does not hold the commit the attempt started from .*: its \.git was made anew, or the commit pruned from it/,
    );
  });

  it("a .git made anew: the start commit is not there", async () => {
    rmSync(join(root, ".git"), { recursive: true, force: true });
    sh(root, "init", "-q");
    await expect(collectChanges(root, start)).rejects.toThrow(
      /does not hold the commit the attempt started from .*made anew/,
    );
  });
});

describe("a FIFO where git reads a file never hangs the runner", () => {
  it.each([
    ["a .gitignore in a directory it made", "deep/.gitignore"],
    ["the .gitattributes", ".gitattributes"],
  ])(
    "%s: the changes could not be collected, saying which kind of file to fix",
    async (_, fifo) => {
      write(root, "deep/b.txt", "b\n");
      execFileSync("mkfifo", [join(root, fifo)]);
      const started = Date.now();
      await expect(collectChanges(root, start, { boundMs: 1000 })).rejects.toThrow(
        /git cannot read or store its files as they are \(git \S+ \S+ \S+ failed: it was stopped after 1 s: a FIFO or a device where it reads a file \(a \.gitignore, a \.gitattributes, a file in \.git\) never ends, make it a plain file — or it had too much to read in that time\)/,
      );
      expect(Date.now() - started).toBeLessThan(20_000);
    },
  );
});

describe("a FIFO in a git directory is found before git runs", () => {
  it("a linked worktree's own HEAD, behind its .git file: named at once", async () => {
    const wt = join(mkdtempSync(join(tmpdir(), "frontier-wt-")), "wt");
    sh(root, "worktree", "add", "-q", "--detach", wt, start);
    const own = sh(wt, "rev-parse", "--absolute-git-dir");
    rmSync(join(own, "HEAD"));
    execFileSync("mkfifo", [join(own, "HEAD")]);
    const started = Date.now();
    await expect(collectChanges(wt, start)).rejects.toThrow(
      `${own}/HEAD is a FIFO or a device, where git would wait for good: remove it, or make it a plain file`,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a .git file far too long to be one git reads (3 GiB, sparse) is never read: git's words say why", async () => {
    rmSync(join(root, ".git"), { recursive: true, force: true });
    write(root, ".git", "gitdir: elsewhere\n");
    truncateSync(join(root, ".git"), 3 * 2 ** 30);
    await expect(collectChanges(root, start)).rejects.toThrow(
      `${root} is no work tree to git: git rev-parse --show-toplevel --git-common-dir failed (exit 128): fatal: too large to be a .git file`,
    );
  });

  it("a .git file read as git reads it (its line ends dropped, however many): the FIFO in the directory it names is found", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "frontier-gitdir-"));
    renameSync(join(root, ".git"), join(elsewhere, "git"));
    write(root, ".git", `gitdir: ${elsewhere}/git${"\n".repeat(70_000)}`);
    rmSync(join(elsewhere, "git", "config"));
    execFileSync("mkfifo", [join(elsewhere, "git", "config")]);
    await expect(collectChanges(root, start, { boundMs: 60_000 })).rejects.toThrow(
      `${elsewhere}/git/config is a FIFO or a device, where git would wait for good`,
    );
  });

  it("one no look finds (a ref named as the start commit) costs the bound, and says so", async () => {
    execFileSync("mkfifo", [join(root, ".git", "refs", "heads", start)]);
    const started = Date.now();
    await expect(collectChanges(root, start, { boundMs: 1000 })).rejects.toThrow(
      /^git rev-parse --verify --quiet failed: it was stopped after 1 s: a FIFO or a device where it reads a file/,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("a loose object an agent made a FIFO (the blob of a file it wrote) costs the bound: the attempt's changes are refused saying so", async () => {
    write(root, "docs/new.md", "new\n");
    const blob = sh(root, "hash-object", "docs/new.md");
    mkdirSync(join(root, ".git", "objects", blob.slice(0, 2)), { recursive: true });
    execFileSync("mkfifo", [join(root, ".git", "objects", blob.slice(0, 2), blob.slice(2))]);
    const started = Date.now();
    const got = await attemptChanges(root, start, { boundMs: 1000 });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(got.paths).toEqual([]);
    expect(got.refused).toMatch(
      /^its changes could not be collected: git \S+ \S+ \S+ failed: it was stopped after 1 s: a FIFO or a device where it reads a file/,
    );
  });

  it("/dev/null where git reads a file (its info/exclude) is no FIFO: the changes are collected", async () => {
    rmSync(join(root, ".git", "info", "exclude"), { force: true });
    symlinkSync("/dev/null", join(root, ".git", "info", "exclude"));
    write(root, "src/api/new.ts", "new\n");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => c.path)).toEqual(["src/api/new.ts"]);
  });

  it("a .git git will not take, inside another repository: named so, not blamed on core.worktree", async () => {
    const outer = mkdtempSync(join(tmpdir(), "frontier-outer-"));
    sh(outer, "init", "-q");
    const sub = join(outer, "sub");
    renameSync(root, sub);
    root = sub;
    rmSync(join(sub, ".git"), { recursive: true, force: true });
    mkdirSync(join(sub, ".git"));
    await expect(collectChanges(sub, start)).rejects.toThrow(
      `${sub} is no git work tree: its .git is none git takes, and it found ${realpathSync(outer)} above it`,
    );
  });
});

describe("when git takes the workspace for no work tree, the words say why", () => {
  /** A linked worktree where the local runner keeps its own: inside the repository's .git. */
  function runnersWorktree(): string {
    const wt = join(root, ".git", "frontier", "worktrees", "api@1");
    sh(root, "worktree", "add", "-q", "--detach", wt, start);
    return wt;
  }

  it("a runner's worktree whose .git points nowhere: git's words, not that it was removed", async () => {
    const wt = runnersWorktree();
    writeFileSync(join(wt, ".git"), "gitdir: /nonexistent\n");
    await expect(collectChanges(wt, start)).rejects.toThrow(
      `${wt} is no work tree to git: git rev-parse --show-toplevel --git-common-dir failed (exit 128): fatal: not a git repository: /nonexistent`,
    );
  });

  it("a runner's worktree whose .git was removed, or made an empty directory: removed", async () => {
    const wt = runnersWorktree();
    rmSync(join(wt, ".git"));
    const removed = `${wt} is no longer a git work tree (its .git was removed)`;
    await expect(collectChanges(wt, start)).rejects.toThrow(removed);
    mkdirSync(join(wt, ".git"));
    await expect(collectChanges(wt, start)).rejects.toThrow(removed);
  });

  it("core.worktree naming a directory above is core.worktree, not a repository found above", async () => {
    sh(root, "config", "core.worktree", dirname(root));
    await expect(collectChanges(root, start)).rejects.toThrow(
      `${root} is not the work tree its .git names (${dirname(root)}: core.worktree)`,
    );
  });

  it("a .git git will not take inside another repository, reached through a symbolic link: found above", async () => {
    const outer = realpathSync(mkdtempSync(join(tmpdir(), "frontier-outer-")));
    sh(outer, "init", "-q");
    renameSync(root, join(outer, "sub"));
    root = join(outer, "sub");
    rmSync(join(root, ".git"), { recursive: true, force: true });
    mkdirSync(join(root, ".git"));
    const link = `${outer}-link`;
    symlinkSync(outer, link);
    await expect(collectChanges(join(link, "sub"), start)).rejects.toThrow(
      `is no git work tree: its .git is none git takes, and it found ${outer} above it`,
    );
  });
});

describe("git runs on the workspace with none of the agent's code", () => {
  it("a clean filter, fsmonitor, an external diff, a textconv and hooks run nowhere, and the bytes are the file's own", async () => {
    const marks = mkdtempSync(join(tmpdir(), "frontier-marks-"));
    const spy = (name: string) => {
      const file = join(marks, `${name}.sh`);
      writeFileSync(file, `#!/bin/sh\nenv > "${marks}/${name}.ran"\ncat\n`);
      chmodSync(file, 0o755);
      return file;
    };
    write(root, ".gitattributes", "*.ts filter=evil diff=evil\n");
    write(root, ".git/info/attributes", "* filter=evil\n");
    sh(root, "branch", "frontier/run", start);
    const config = (k: string, v: string) => sh(root, "config", k, v);
    config("filter.evil.clean", spy("clean"));
    config("filter.evil.smudge", spy("smudge"));
    config("filter.evil.process", spy("process"));
    config("diff.evil.textconv", spy("textconv"));
    config("diff.evil.command", spy("diffcommand"));
    config("diff.external", spy("external"));
    config("core.fsmonitor", spy("fsmonitor"));
    config("core.hooksPath", join(marks, "hooks"));
    mkdirSync(join(marks, "hooks"));
    for (const hook of ["reference-transaction", "post-index-change", "pre-commit"]) {
      writeFileSync(join(marks, "hooks", hook), `#!/bin/sh\nenv > "${marks}/${hook}.ran"\n`);
      chmodSync(join(marks, "hooks", hook), 0o755);
      // and as git 2.54 configures one, out of core.hooksPath's reach (made `true` here)
      sh(root, "config", "--add", "hook.Spy.event", hook);
    }
    config("hook.Spy.command", spy("configured-hook"));
    expect(await noCodeRun(root)).toEqual(expect.arrayContaining(["hook.Spy.command=true"]));
    write(root, "src/api/a.ts", "the agent's own bytes\r\n");
    const before = process.env.INPUT_TOKEN;
    process.env.INPUT_TOKEN = "ghs_secret";
    try {
      // info/attributes the caller trusts (locally the user's, which the run guards): its filter runs no more
      const got = await collectChanges(root, start, { gitDir: join(root, ".git") });
      await patchOf(root, got.start, got.tree);
      await commitOnto(root, {
        head: start,
        ref: "refs/heads/frontier/run",
        changes: got.paths,
        message: "m",
      });
      const a = got.paths.find((c) => c.path === "src/api/a.ts")!;
      expect((await readBlobs(root, [a.blob!])).get(a.blob!)?.toString()).toBe(
        "the agent's own bytes\r\n",
      );
    } finally {
      if (before === undefined) delete process.env.INPUT_TOKEN;
      else process.env.INPUT_TOKEN = before;
    }
    expect(readdirSync(marks).filter((f) => f.endsWith(".ran"))).toEqual([]);
    rmSync(marks, { recursive: true, force: true });
  });

  it("what the checkout converted as the repository's attributes say (eol=crlf, ident) is no change; a change is stored as git add stores it", async () => {
    write(root, ".gitattributes", "*.bat text eol=crlf\n*.c ident\n");
    write(root, "tools/gradlew.bat", "@echo off\nrem build\n");
    write(root, "src/x.c", "/* $Id$ */\n");
    sh(root, "-c", "core.safecrlf=false", "add", "-A");
    sh(root, "commit", "-q", "-m", "windows scripts");
    const at = sh(root, "rev-parse", "HEAD");
    // as actions/checkout and git worktree add write them: CRLF, the id expanded
    rmSync(join(root, "tools/gradlew.bat"));
    rmSync(join(root, "src/x.c"));
    sh(root, "checkout", "--", "tools/gradlew.bat", "src/x.c");
    expect(readFileSync(join(root, "tools/gradlew.bat"), "utf8")).toBe(
      "@echo off\r\nrem build\r\n",
    );
    expect(readFileSync(join(root, "src/x.c"), "utf8")).toMatch(/\$Id: [0-9a-f]{40} \$/);
    // the agent's settings do not change it: line endings and a check that refuses mixed ones
    sh(root, "config", "core.autocrlf", "true");
    sh(root, "config", "core.safecrlf", "true");
    expect((await collectChanges(root, at)).paths).toEqual([]);
    write(root, "tools/gradlew.bat", "@echo off\r\nrem build, then test\r\n");
    write(root, "src/api/a.ts", "crlf where no attribute says text\r\n");
    const got = await collectChanges(root, at);
    expect(got.paths.map((c) => c.path)).toEqual(["src/api/a.ts", "tools/gradlew.bat"]);
    const blobs = await readBlobs(
      root,
      got.paths.map((c) => c.blob as string),
    );
    expect(got.paths.map((c) => blobs.get(c.blob as string)?.toString())).toEqual([
      "crlf where no attribute says text\r\n",
      "@echo off\nrem build, then test\n",
    ]);
  });

  it("files the runner may not look at (an agent took away its directory's permissions) are neither deletions nor left out: the changes are refused saying so", () => {
    write(root, "src/api/a.ts", "changed\n");
    write(root, "src/api/new.ts", "new\n");
    write(root, "fresh/n.ts", "new\n");
    // tracked though ignored: git does not look in it for new files
    write(root, "build/kept.ts", "kept\n");
    sh(root, "add", "-f", "build/kept.ts");
    sh(root, "commit", "-qm", "kept");
    const start = sh(root, "rev-parse", "HEAD");
    // the compiled collection in a process that permissions bind (root's are dropped)
    const script = `const m = await import(${JSON.stringify(join(import.meta.dirname, "../../build/src/workspace/changes.js"))});
      process.stdout.write(JSON.stringify(await m.attemptChanges(${JSON.stringify(root)}, ${JSON.stringify(start)}, { kept: "it" })));`;
    const bound = process.getuid?.() === 0 ? ["--bounding-set=-dac_override,-dac_read_search"] : [];
    const collect = (dir: string, mode: number) => {
      chmodSync(join(root, dir), mode);
      const node = [process.execPath, "--input-type=module", "-e", script];
      const out = execFileSync(bound.length > 0 ? "setpriv" : node.shift()!, [...bound, ...node]);
      chmodSync(join(root, dir), 0o755);
      return JSON.parse(out.toString()) as { paths: unknown[]; refused?: string };
    };
    // searchable no more: its tracked files were read as deleted
    const unsearchable = collect("src/api", 0o644);
    expect(unsearchable.paths).toEqual([]);
    expect(unsearchable.refused).toMatch(
      /^its changes could not be collected: [^;]*src\/api\/[^;]*(Permission denied|EACCES)[^;]*; nothing was integrated, its files are kept in it — .* its files where git can read and store them/,
    );
    // where git does not look: its tracked file was read as deleted
    expect(collect("build", 0o644).refused).toMatch(
      /^its changes could not be collected: \/.*\/build\/kept\.ts cannot be looked at \(EACCES\);/,
    );
    // unreadable: git left its new files out with a warning
    const unreadable = collect("fresh", 0o000);
    expect(unreadable.paths).toEqual([]);
    expect(unreadable.refused).toContain(
      "its changes could not be collected: git cannot read or store its files as they are (warning: could not open directory 'fresh/': Permission denied);",
    );
    // inside a nested repository, where the runner looks itself: never an error with no words
    write(root, "nest/sub/x.ts", "x\n");
    sh(join(root, "nest"), "init", "-q");
    expect(collect("nest/sub", 0o000).refused).toMatch(
      /^its changes could not be collected: \/.*\/nest\/sub cannot be read \(EACCES\);/,
    );
  });

  it("files git cannot store as an agent's .gitattributes say (an encoding it does not know, UTF-16 without a BOM) are refused by git's words, none stored altered", async () => {
    const start = sh(root, "rev-parse", "HEAD");
    for (const [attributes, file] of [
      ["*.ts working-tree-encoding=bogus\n", "fatal: failed to encode 'src/api/"],
      ["*.u16 working-tree-encoding=UTF-16\n", "BOM is required in 'src/api/x.u16'"],
    ] as const) {
      write(root, "src/api/.gitattributes", attributes);
      write(root, "src/api/x.u16", "abc");
      const got = await attemptChanges(root, start, { kept: root });
      expect(got.paths).toEqual([]);
      expect(got.refused).toContain(
        `its changes could not be collected: git cannot read or store its files as they are (`,
      );
      expect(got.refused).toContain(file);
      expect(got.refused).toMatch(
        /its files are kept in .* and its files where git can read and store them \(their permissions, its \.gitattributes\), then retry the ticket$/,
      );
      // the workspace is the only copy: the local runner keeps it
      expect(got.unstored).toBeDefined();
    }
  });

  it("the agent's git settings change nothing collected: ignoreCase where the disk keeps case, and a patch asked in colour, without prefixes or context", async () => {
    const config = (k: string, v: string) => sh(root, "config", k, v);
    config("core.ignoreCase", "true");
    config("color.diff", "always");
    config("diff.noprefix", "true");
    config("diff.context", "0");
    config("core.abbrev", "7");
    renameSync(join(root, "src/api/old.ts"), join(root, "src/api/OLD.ts"));
    write(root, "docs/gone.md", "bye\nand more\n");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => [c.status, c.path, c.from])).toEqual([
      ["modified", "docs/gone.md", undefined],
      ["renamed", "src/api/OLD.ts", "src/api/old.ts"],
    ]);
    for (const c of got.paths) expect(c.blob).toMatch(/^[0-9a-f]{40}$/);
    const patch = await patchOf(root, got.start, got.tree);
    const clone = mkdtempSync(join(tmpdir(), "frontier-clone-"));
    sh(clone, "clone", "-q", root, ".");
    sh(clone, "checkout", "-q", start);
    execFileSync("git", ["apply", "--index"], { cwd: clone, input: patch });
    expect(sh(clone, "write-tree")).toBe(got.tree);
  });

  it("what the agent's git excludes (info/exclude, core.excludesFile) is still a change: the repository's .gitignore decides, and the info/exclude of the git directory the caller trusts", async () => {
    const excludes = join(mkdtempSync(join(tmpdir(), "frontier-excludes-")), "excludes");
    writeFileSync(excludes, "*.md\n");
    sh(root, "config", "core.excludesFile", excludes);
    write(root, ".git/info/exclude", "*.ts\n");
    write(root, "src/api/new.ts", "hidden?\n");
    write(root, "docs/new.md", "hidden?\n");
    write(root, "build/out.js", "ignored by .gitignore\n");
    const got = await collectChanges(root, start);
    expect(got.paths.map((c) => c.path)).toEqual(["docs/new.md", "src/api/new.ts"]);
    const local = await collectChanges(root, start, { gitDir: join(root, ".git") });
    expect(local.paths.map((c) => c.path)).toEqual(["docs/new.md"]);
  });
});
