/** SPEC §4b: a ticket's changes are read from its git workspace, the same way for both runners. */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  changedSince,
  collectChanges,
  commitOnto,
  patchOf,
  readBlobs,
} from "../../src/workspace/changes.js";

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
    expect(a.bytes).toBe(Buffer.byteLength("export const a = 2;\nexport const b = 3;\n"));
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
    const patch = (await patchOf(root, got.start, got.tree)).toString("utf8");
    expect(patch).toContain("-export const a = 1;");
    expect(patch).toContain("+export const a = 42;");
    sh(root, "checkout", "-q", "--", ".");
    execFileSync("git", ["apply"], { cwd: root, input: patch });
    expect(readFileSync(join(root, "src/api/a.ts"), "utf8")).toBe("export const a = 42;\n");
  });

  it("keeps a text file in another encoding than UTF-8 byte for byte in its patch", async () => {
    const latin1 = Buffer.from("caf\xe9 cr\xe8me\n", "latin1");
    writeFileSync(join(root, "src/api/menu.txt"), latin1);
    const got = await collectChanges(root, start);
    const patch = await patchOf(root, got.start, got.tree);
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
      identity: IDENTITY,
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
      identity: IDENTITY,
    });
    expect(again).toEqual({ kind: "moved", now: commit });
    expect(sh(root, "rev-parse", "frontier/run")).toBe(commit);
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
      identity: IDENTITY,
    });
    expect(answer.kind).toBe("failed");
    // git's own line, not the advice after it
    expect(answer.kind === "failed" && answer.message).toMatch(
      /^git (-c core\.hooksPath=\/dev\/null )?update-ref( \S+)? failed \(exit 128\): fatal: .*cannot lock ref 'refs\/heads\/frontier\/run': .*run\.lock': File exists\.$/,
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
});
