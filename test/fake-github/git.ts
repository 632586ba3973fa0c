/**
 * An in-memory git object store with real object ids: a blob's sha is
 * sha1("blob <len>\0<content>"), trees and commits are serialized the way git
 * serializes them, so ids are stable, unique and immutable — and equal to what
 * `git hash-object` would print for the same content.
 */
import { createHash } from "node:crypto";

export interface Signature {
  name: string;
  email: string;
  /** ISO 8601 */
  date: string;
}

export type TreeMode = "100644" | "100755" | "040000" | "160000" | "120000";

export interface TreeEntry {
  name: string;
  mode: TreeMode;
  type: "blob" | "tree" | "commit";
  sha: string;
}

export type GitObject =
  | { type: "blob"; sha: string; content: Buffer }
  | { type: "tree"; sha: string; entries: TreeEntry[] }
  | {
      type: "commit";
      sha: string;
      tree: string;
      parents: string[];
      message: string;
      author: Signature;
      committer: Signature;
    };

/** A file in a flattened tree: path -> blob (or submodule commit). */
export interface FlatEntry {
  mode: TreeMode;
  type: "blob" | "commit";
  sha: string;
}

export class GitError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function hash(type: string, body: Buffer): string {
  const header = Buffer.from(`${type} ${body.length}\0`);
  return createHash("sha1").update(header).update(body).digest("hex");
}

function gitTime(iso: string): string {
  const seconds = Math.floor(new Date(iso).getTime() / 1000);
  return `${seconds} +0000`;
}

/** git sorts tree entries by name, comparing directories as if their name ended in "/". */
function treeSortKey(e: TreeEntry): string {
  return e.type === "tree" ? `${e.name}/` : e.name;
}

export class GitStore {
  readonly objects = new Map<string, GitObject>();

  writeBlob(content: Buffer | string): string {
    const buf = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    const sha = hash("blob", buf);
    if (!this.objects.has(sha)) this.objects.set(sha, { type: "blob", sha, content: buf });
    return sha;
  }

  writeTree(entries: TreeEntry[]): string {
    const sorted = [...entries].sort((a, b) =>
      Buffer.compare(Buffer.from(treeSortKey(a)), Buffer.from(treeSortKey(b))),
    );
    const parts: Buffer[] = [];
    for (const e of sorted) {
      // git writes directory modes without the leading zero.
      const mode = e.mode === "040000" ? "40000" : e.mode;
      parts.push(Buffer.from(`${mode} ${e.name}\0`), Buffer.from(e.sha, "hex"));
    }
    const sha = hash("tree", Buffer.concat(parts));
    if (!this.objects.has(sha)) this.objects.set(sha, { type: "tree", sha, entries: sorted });
    return sha;
  }

  writeCommit(c: {
    tree: string;
    parents: string[];
    message: string;
    author: Signature;
    committer: Signature;
  }): string {
    this.expect(c.tree, "tree");
    for (const p of c.parents) this.expect(p, "commit");
    const lines = [`tree ${c.tree}`];
    for (const p of c.parents) lines.push(`parent ${p}`);
    lines.push(`author ${c.author.name} <${c.author.email}> ${gitTime(c.author.date)}`);
    lines.push(`committer ${c.committer.name} <${c.committer.email}> ${gitTime(c.committer.date)}`);
    const body = Buffer.from(`${lines.join("\n")}\n\n${c.message}`);
    const sha = hash("commit", body);
    if (!this.objects.has(sha)) this.objects.set(sha, { type: "commit", sha, ...c });
    return sha;
  }

  get(sha: string): GitObject | undefined {
    return this.objects.get(sha.toLowerCase());
  }

  expect<T extends GitObject["type"]>(sha: string, type: T): Extract<GitObject, { type: T }> {
    const o = this.get(sha);
    if (!o || o.type !== type) {
      throw new GitError(
        422,
        `${type === "tree" ? "Tree" : type === "commit" ? "Commit" : "Blob"} ${sha} not found`,
      );
    }
    return o as Extract<GitObject, { type: T }>;
  }

  /** Every file below a tree, by full path. */
  flatten(
    treeSha: string,
    prefix = "",
    out = new Map<string, FlatEntry>(),
  ): Map<string, FlatEntry> {
    const tree = this.expect(treeSha, "tree");
    for (const e of tree.entries) {
      const p = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.type === "tree") this.flatten(e.sha, p, out);
      else out.set(p, { mode: e.mode, type: e.type, sha: e.sha });
    }
    return out;
  }

  /** Build nested trees from a flat map and return the root tree's sha. */
  buildTree(files: Map<string, FlatEntry>): string {
    interface Dir {
      files: TreeEntry[];
      dirs: Map<string, Dir>;
    }
    const root: Dir = { files: [], dirs: new Map() };
    for (const [p, f] of files) {
      const parts = p.split("/");
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        let next = dir.dirs.get(part);
        if (!next) {
          next = { files: [], dirs: new Map() };
          dir.dirs.set(part, next);
        }
        dir = next;
      }
      dir.files.push({ name: parts[parts.length - 1]!, mode: f.mode, type: f.type, sha: f.sha });
    }
    const write = (dir: Dir): string => {
      const entries = [...dir.files];
      for (const [name, sub] of dir.dirs) {
        entries.push({ name, mode: "040000", type: "tree", sha: write(sub) });
      }
      return this.writeTree(entries);
    };
    return write(root);
  }

  /** The entry at a path inside a tree: a file, a directory, or undefined. */
  lookup(treeSha: string, filePath: string): TreeEntry | undefined {
    const parts = filePath.split("/").filter((p) => p !== "");
    if (parts.length === 0) return { name: "", mode: "040000", type: "tree", sha: treeSha };
    let tree = this.expect(treeSha, "tree");
    for (let i = 0; i < parts.length; i++) {
      const e = tree.entries.find((x) => x.name === parts[i]);
      if (!e) return undefined;
      if (i === parts.length - 1) return e;
      if (e.type !== "tree") return undefined;
      tree = this.expect(e.sha, "tree");
    }
    return undefined;
  }

  /** Is `ancestor` reachable from `commit` through parents (a commit is its own ancestor)? */
  isAncestor(ancestor: string, commit: string): boolean {
    const seen = new Set<string>();
    const stack = [commit];
    while (stack.length > 0) {
      const sha = stack.pop()!;
      if (sha === ancestor) return true;
      if (seen.has(sha)) continue;
      seen.add(sha);
      const c = this.get(sha);
      if (c?.type === "commit") stack.push(...c.parents);
    }
    return false;
  }

  /** Commits reachable from `head`, newest first (first-parent order, then the rest). */
  log(head: string): Extract<GitObject, { type: "commit" }>[] {
    const out: Extract<GitObject, { type: "commit" }>[] = [];
    const seen = new Set<string>();
    const queue = [head];
    while (queue.length > 0) {
      const sha = queue.shift()!;
      if (seen.has(sha)) continue;
      seen.add(sha);
      const c = this.expect(sha, "commit");
      out.push(c);
      queue.push(...c.parents);
    }
    return out;
  }
}
