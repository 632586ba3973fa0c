import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { getOctokit } from "@actions/github";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { quietLog } from "../fake-github/clients.js";
import { FakeGitHub, type FakeRepo } from "../fake-github/server.js";

let fake: FakeGitHub;
let repo: FakeRepo;
let octokit: Octokit;

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit("main", { "README.md": "hello\n", "tickets/a.md": "# A\n" }, { message: "init" });
  octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_test", log: quietLog });
});

afterEach(async () => {
  await fake.stop();
  fake.assertNoViolations();
});

const owner = "acme";
const name = "widgets";

/** Commit a change through the Git Data API the way the action does, without moving the ref. */
async function makeCommit(
  parent: string,
  files: Record<string, string | null>,
  message = "change",
) {
  const { data: parentCommit } = await octokit.git.getCommit({
    owner,
    repo: name,
    commit_sha: parent,
  });
  const { data: tree } = await octokit.git.createTree({
    owner,
    repo: name,
    base_tree: parentCommit.tree.sha,
    tree: Object.entries(files).map(([p, content]) =>
      content === null
        ? { path: p, mode: "100644" as const, type: "blob" as const, sha: null }
        : { path: p, mode: "100644" as const, type: "blob" as const, content },
    ),
  });
  const { data: commit } = await octokit.git.createCommit({
    owner,
    repo: name,
    message,
    tree: tree.sha,
    parents: [parent],
  });
  return commit.sha;
}

describe("object ids are git's own", () => {
  it("a blob's sha is sha1('blob <len>\\0<content>'), as `git hash-object` prints", async () => {
    const { data } = await octokit.git.createBlob({ owner, repo: name, content: "hello\n" });
    expect(data.sha).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
    const { data: b64 } = await octokit.git.createBlob({
      owner,
      repo: name,
      content: Buffer.from("hello\n").toString("base64"),
      encoding: "base64",
    });
    expect(b64.sha).toBe(data.sha);
    const { data: blob } = await octokit.git.getBlob({ owner, repo: name, file_sha: data.sha });
    expect(Buffer.from(blob.content, "base64").toString()).toBe("hello\n");
  });

  it("the empty tree has git's well-known id", async () => {
    const { data } = await octokit.git.createTree({ owner, repo: name, tree: [] });
    expect(data.sha).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
  });

  it("a tree's id follows git's serialization (mode, name, raw sha)", async () => {
    const blob = createHash("sha1").update("blob 6\0hello\n").digest("hex");
    const body = Buffer.concat([Buffer.from("100644 README.md\0"), Buffer.from(blob, "hex")]);
    const expected = createHash("sha1")
      .update(Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]))
      .digest("hex");
    const { data } = await octokit.git.createTree({
      owner,
      repo: name,
      tree: [{ path: "README.md", mode: "100644", type: "blob", content: "hello\n" }],
    });
    expect(data.sha).toBe(expected);
  });
});

describe("trees: base_tree, inline content, deletes, nested paths", () => {
  it("keeps the base, adds inline files in new subtrees and deletes with sha: null", async () => {
    const head = repo.head()!;
    const { data: base } = await octokit.git.getCommit({ owner, repo: name, commit_sha: head });
    const { data: tree } = await octokit.git.createTree({
      owner,
      repo: name,
      base_tree: base.tree.sha,
      tree: [
        {
          path: "tickets/.frontier/attempts/a@1.json",
          mode: "100644",
          type: "blob",
          content: '{"n":1}',
        },
        { path: "tickets/a.md", mode: "100644", type: "blob", sha: null },
      ],
    });
    const { data: listed } = await octokit.git.getTree({
      owner,
      repo: name,
      tree_sha: tree.sha,
      recursive: "1",
    });
    const paths = listed.tree.map((e) => `${e.type} ${e.path}`);
    expect(paths).toEqual([
      "blob README.md",
      "tree tickets",
      "tree tickets/.frontier",
      "tree tickets/.frontier/attempts",
      "blob tickets/.frontier/attempts/a@1.json",
    ]);
    const { data: flat } = await octokit.git.getTree({ owner, repo: name, tree_sha: tree.sha });
    expect(flat.tree.map((e) => e.path)).toEqual(["README.md", "tickets"]);
  });

  it("refuses a commit's sha as base_tree with 422, as GitHub does", async () => {
    await expect(
      octokit.git.createTree({
        owner,
        repo: name,
        base_tree: repo.head()!,
        tree: [{ path: "x.md", mode: "100644", type: "blob", content: "x" }],
      }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("base_tree is not a valid tree oid"),
    });
  });

  it("refuses a malformed path with 422", async () => {
    await expect(
      octokit.git.createTree({
        owner,
        repo: name,
        tree: [{ path: "/abs.md", mode: "100644", type: "blob", content: "x" }],
      }),
    ).rejects.toMatchObject({ status: 422 });
  });
});

describe("refs compare-and-swap", () => {
  it("a fast-forward moves the branch", async () => {
    const head = repo.head()!;
    const next = await makeCommit(head, { "tickets/b.md": "# B\n" });
    const { data } = await octokit.git.updateRef({
      owner,
      repo: name,
      ref: "heads/main",
      sha: next,
      force: false,
    });
    expect(data.object.sha).toBe(next);
    expect(repo.readFile("tickets/b.md")).toBe("# B\n");
    expect(repo.log("main").map((c) => c.message)).toEqual(["change", "init"]);
  });

  it("refuses a non-fast-forward with 422 'Update is not a fast forward' and leaves the branch", async () => {
    const head = repo.head()!;
    const ours = await makeCommit(head, { "tickets/b.md": "ours" });
    const theirs = await makeCommit(head, { "tickets/c.md": "theirs" });
    await octokit.git.updateRef({
      owner,
      repo: name,
      ref: "heads/main",
      sha: theirs,
      force: false,
    });
    const refused = octokit.git.updateRef({
      owner,
      repo: name,
      ref: "heads/main",
      sha: ours,
      force: false,
    });
    await expect(refused).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Update is not a fast forward"),
    });
    expect(repo.head()).toBe(theirs);
    // force: true is last-writer-wins, as on GitHub
    await octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: ours, force: true });
    expect(repo.head()).toBe(ours);
  });

  it("creates refs, refuses duplicates, lists matching refs and reads single refs", async () => {
    const head = repo.head()!;
    await octokit.git.createRef({ owner, repo: name, ref: "refs/heads/frontier/run-1", sha: head });
    await expect(
      octokit.git.createRef({ owner, repo: name, ref: "refs/heads/frontier/run-1", sha: head }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Reference already exists"),
    });
    const { data: matching } = await octokit.git.listMatchingRefs({
      owner,
      repo: name,
      ref: "heads/frontier/",
    });
    expect(matching.map((r) => r.ref)).toEqual(["refs/heads/frontier/run-1"]);
    const { data: one } = await octokit.git.getRef({
      owner,
      repo: name,
      ref: "heads/frontier/run-1",
    });
    expect(one.object.sha).toBe(head);
    await expect(
      octokit.git.getRef({ owner, repo: name, ref: "heads/nope" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe("commits and contents", () => {
  it("GET commits/{ref} gives the sha, tree and parents", async () => {
    const first = repo.head()!;
    const second = repo.commit("main", { "x.txt": "x" }, { message: "second" });
    const { data } = await octokit.repos.getCommit({ owner, repo: name, ref: "main" });
    expect(data.sha).toBe(second);
    expect(data.parents.map((p) => p.sha)).toEqual([first]);
    expect(data.commit.tree.sha).toBe(repo.log()[0]!.tree);
    expect(data.files?.map((f) => `${f.status} ${f.filename}`)).toEqual(["added x.txt"]);
  });

  it("GET contents gives files base64 with their blob sha, dirs as lists, and raw on request", async () => {
    const { data: file } = await octokit.repos.getContent({
      owner,
      repo: name,
      path: "tickets/a.md",
      ref: "main",
    });
    if (Array.isArray(file) || file.type !== "file") throw new Error("expected a file");
    expect(Buffer.from(file.content, "base64").toString()).toBe("# A\n");
    expect(file.sha).toBe(createHash("sha1").update("blob 4\0# A\n").digest("hex"));
    const { data: dir } = await octokit.repos.getContent({ owner, repo: name, path: "tickets" });
    expect(Array.isArray(dir) && dir.map((e) => `${e.type} ${e.path}`)).toEqual([
      "file tickets/a.md",
    ]);
    const raw = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
      owner,
      repo: name,
      path: "tickets/a.md",
      headers: { accept: "application/vnd.github.raw+json" },
    });
    expect(raw.data).toBe("# A\n");
    await expect(
      octokit.repos.getContent({ owner, repo: name, path: "nope.md" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("GET repos/{o}/{r} reports the default branch", async () => {
    const { data } = await octokit.repos.get({ owner, repo: name });
    expect(data.default_branch).toBe("main");
    expect(data.full_name).toBe("acme/widgets");
  });
});

describe("seeding and reading back", () => {
  it("seeds a directory onto a branch and reads any file at any ref", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fake-gh-seed-"));
    fs.mkdirSync(path.join(dir, "sub"));
    fs.writeFileSync(path.join(dir, "one.md"), "one");
    fs.writeFileSync(path.join(dir, "sub", "two.md"), "two");
    const sha = repo.seed(dir, { branch: "seeded", into: "tickets-example" });
    expect(repo.listFiles("seeded", "tickets-example")).toEqual([
      "tickets-example/one.md",
      "tickets-example/sub/two.md",
    ]);
    expect(repo.readFile("tickets-example/sub/two.md", sha)).toBe("two");
    expect(repo.readFile("tickets-example/one.md", "main")).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("the real clients", () => {
  it("@actions/github getOctokit with baseUrl works against the fake", async () => {
    const gh = getOctokit("ghs_actions", { baseUrl: fake.baseUrl });
    const { data } = await gh.rest.git.getRef({ owner, repo: name, ref: "heads/main" });
    expect(data.object.sha).toBe(repo.head());
    expect(fake.requests.at(-1)).toMatchObject({
      method: "GET",
      operation: "git/get-ref",
      status: 200,
    });
  });
});

describe("contents API writes", () => {
  it("PUT creates and updates a file; a stale blob sha answers 409", async () => {
    const created = await octokit.repos.createOrUpdateFileContents({
      owner,
      repo: name,
      path: "notes/x.md",
      message: "add x",
      content: Buffer.from("one").toString("base64"),
    });
    expect(created.status).toBe(201);
    const sha = created.data.content?.sha as string;
    await octokit.repos.createOrUpdateFileContents({
      owner,
      repo: name,
      path: "notes/x.md",
      message: "edit x",
      content: Buffer.from("two").toString("base64"),
      sha,
    });
    expect(repo.readFile("notes/x.md")).toBe("two");
    await expect(
      octokit.repos.createOrUpdateFileContents({
        owner,
        repo: name,
        path: "notes/x.md",
        message: "stale",
        content: Buffer.from("three").toString("base64"),
        sha,
      }),
    ).rejects.toMatchObject({ status: 409 });
    expect(repo.readFile("notes/x.md")).toBe("two");
    expect(repo.log()[0]?.author.name).toBe("github-actions[bot]");
  });
});

describe("many writers at once", () => {
  it("20 concurrent compare-and-swap writers that re-read and re-apply lose nothing", async () => {
    // In lockstep, 20 writers need ~1,000 requests: more than GITHUB_TOKEN's hourly budget.
    fake.addToken("ghs_test", { login: "github-actions[bot]", rateLimit: 100_000 });
    const writer = async (i: number) => {
      for (let attempt = 0; ; attempt++) {
        const { data: ref } = await octokit.git.getRef({ owner, repo: name, ref: "heads/main" });
        const next = await makeCommit(
          ref.object.sha,
          { [`results/${i}.json`]: `{"i":${i}}` },
          `result ${i}`,
        );
        try {
          await octokit.git.updateRef({
            owner,
            repo: name,
            ref: "heads/main",
            sha: next,
            force: false,
          });
          return attempt;
        } catch (error) {
          if ((error as { status?: number }).status !== 422) throw error;
        }
      }
    };
    const retries = await Promise.all(Array.from({ length: 20 }, (_, i) => writer(i)));
    expect(repo.listFiles("main", "results")).toHaveLength(20);
    expect(repo.log().filter((c) => c.message.startsWith("result "))).toHaveLength(20);
    // the conflicts were real: not every writer got through on its first try
    expect(retries.some((n) => n > 0)).toBe(true);
    expect(fake.countRequests({ operation: "git/update-ref", status: 422 })).toBe(
      retries.reduce((a, b) => a + b, 0),
    );
  });
});

describe("a workflow file and the token's workflows permission, as GitHub has them", () => {
  const REFUSAL =
    /refusing to allow a GitHub App to create or update workflow `\.github\/workflows\/ci\.yml` without `workflows` permission/;
  const commitOnBranch = (client: Octokit, head: string, path: string) =>
    client.graphql(
      `mutation($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }`,
      {
        input: {
          branch: { repositoryNameWithOwner: "acme/widgets", branchName: "main" },
          expectedHeadOid: head,
          message: { headline: "edit" },
          fileChanges: {
            additions: [{ path, contents: Buffer.from("on: push\n").toString("base64") }],
          },
        },
      },
    );

  it("an installation token (GITHUB_TOKEN) is refused a workflow change on both routes; the branch stays", async () => {
    const head = repo.head("main")!;
    await expect(commitOnBranch(octokit, head, ".github/workflows/ci.yml")).rejects.toThrow(
      REFUSAL,
    );
    const commit = await makeCommit(head, { ".github/workflows/ci.yml": "on: push\n" });
    await expect(
      octokit.git.updateRef({ owner, repo: name, ref: "heads/main", sha: commit, force: false }),
    ).rejects.toThrow(REFUSAL);
    expect(repo.head("main")).toBe(head);
    // anything else it may write
    await commitOnBranch(octokit, head, "src/ci.yml");
    expect(repo.readFile("src/ci.yml")).toBe("on: push\n");
  });

  it("a token with the workflows permission (a user's, or one registered with it) may write one", async () => {
    fake.addToken("ghp_user", { login: "alice", kind: "user" });
    const user = new Octokit({ baseUrl: fake.baseUrl, auth: "ghp_user", log: quietLog });
    await commitOnBranch(user, repo.head("main")!, ".github/workflows/ci.yml");
    expect(repo.readFile(".github/workflows/ci.yml")).toBe("on: push\n");
    fake.addToken("ghs_app", { login: "app[bot]", kind: "installation", workflows: true });
    const app = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_app", log: quietLog });
    const commit = await makeCommit(repo.head("main")!, { ".github/workflows/ci.yml": null });
    await app.git.updateRef({ owner, repo: name, ref: "heads/main", sha: commit, force: false });
    expect(repo.readFile(".github/workflows/ci.yml")).toBeUndefined();
  });
});
