import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fastClientOptions, quietLog } from "../fake-github/clients.js";
import { FakeGitHub, type FakeRepo } from "../fake-github/server.js";

let fake: FakeGitHub;
let repo: FakeRepo;
let octokit: Octokit;

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  repo = fake.createRepo("acme/widgets");
  repo.commit(
    "main",
    {
      "README.md": "hello\n",
      "tickets/a.md": "---\nid: a\n---\nA\n",
      "tickets/.frontier/worklog.jsonl": '{"n":1}\n',
    },
    { message: "init" },
  );
  octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_test", log: quietLog });
});

afterEach(async () => {
  await fake.stop();
  fake.assertNoViolations();
});

const b64 = (s: string) => Buffer.from(s).toString("base64");

const CREATE_COMMIT = `
  mutation ($input: CreateCommitOnBranchInput!) {
    createCommitOnBranch(input: $input) {
      commit { oid url }
      ref { name target { oid } }
    }
  }`;

function commitInput(
  expectedHeadOid: string,
  changes: Record<string, string | null>,
  branch = "main",
) {
  return {
    input: {
      branch: { repositoryNameWithOwner: "acme/widgets", branchName: branch },
      expectedHeadOid,
      message: { headline: "frontier: claim a", body: "by the orchestrator" },
      fileChanges: {
        additions: Object.entries(changes)
          .filter(([, v]) => v !== null)
          .map(([path, v]) => ({ path, contents: b64(v!) })),
        deletions: Object.entries(changes)
          .filter(([, v]) => v === null)
          .map(([path]) => ({ path })),
      },
    },
  };
}

/** The error Octokit's graphql client throws, with GitHub's answer on it. */
async function graphqlError(p: Promise<unknown>) {
  try {
    await p;
  } catch (error) {
    return error as {
      errors: { type?: string; message: string; path?: string[] }[];
      data?: Record<string, unknown>;
      headers: Record<string, string>;
    };
  }
  throw new Error("expected the GraphQL request to fail");
}

describe("queries", () => {
  it("reads a branch head, its tree and a file in one round trip", async () => {
    const head = repo.head()!;
    const data = await octokit.graphql<{
      repository: {
        id: string;
        nameWithOwner: string;
        ref: {
          name: string;
          target: {
            oid: string;
            tree: { oid: string };
            file: { object: { text: string; byteSize: number; isTruncated: boolean; oid: string } };
          };
        };
      };
    }>(
      `query ($owner: String!, $name: String!, $ref: String!, $path: String!) {
        repository(owner: $owner, name: $name) {
          id
          nameWithOwner
          ref(qualifiedName: $ref) {
            name
            target {
              oid
              ... on Commit {
                oid
                tree { oid }
                file(path: $path) { object { ... on Blob { text byteSize isTruncated oid } } }
              }
            }
          }
        }
      }`,
      { owner: "acme", name: "widgets", ref: "refs/heads/main", path: "tickets/a.md" },
    );
    expect(data.repository.nameWithOwner).toBe("acme/widgets");
    expect(data.repository.ref.name).toBe("main");
    expect(data.repository.ref.target.oid).toBe(head);
    expect(data.repository.ref.target.tree.oid).toBe(repo.git.expect(head, "commit").tree);
    const blob = data.repository.ref.target.file.object;
    expect(blob.text).toBe("---\nid: a\n---\nA\n");
    expect(blob.byteSize).toBe(blob.text.length);
    expect(blob.isTruncated).toBe(false);
    // git's own blob id: the same object the REST API serves
    const { data: rest } = await octokit.git.getBlob({
      owner: "acme",
      repo: "widgets",
      file_sha: blob.oid,
    });
    expect(Buffer.from(rest.content, "base64").toString()).toBe(blob.text);
    expect(fake.countRequests({ operation: "graphql/query" })).toBe(1);
  });

  it("object(expression:) reads a file at a branch or a sha; a missing path is null", async () => {
    const head = repo.head()!;
    const data = await octokit.graphql<{
      repository: {
        a: { oid: string; text: string; isBinary: boolean } | null;
        b: { text: string } | null;
        c: unknown;
        d: { oid: string };
      };
    }>(
      `{ repository(owner: "acme", name: "widgets") {
          a: object(expression: "main:README.md") { ... on Blob { oid text byteSize isBinary isTruncated } }
          b: object(expression: "${head}:tickets/.frontier/worklog.jsonl") { ... on Blob { text } }
          c: object(expression: "main:nope.md") { ... on Blob { text } }
          d: object(expression: "main") { ... on Commit { oid } }
      } }`,
    );
    expect(data.repository.a?.text).toBe("hello\n");
    expect(data.repository.a?.isBinary).toBe(false);
    expect(data.repository.b?.text).toBe('{"n":1}\n');
    expect(data.repository.c).toBeNull();
    expect(data.repository.d.oid).toBe(head);
  });

  it("refs(refPrefix:) pages through branches with cursors; each node reads a file", async () => {
    for (let i = 0; i < 5; i++)
      repo.commit(
        `claim/t${i}`,
        { "tickets/.frontier/claim.json": `{"i":${i}}` },
        { from: "main" },
      );
    const query = `query ($after: String) {
      repository(owner: "acme", name: "widgets") {
        refs(refPrefix: "refs/heads/claim/", first: 2, after: $after) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { name target { oid ... on Commit { file(path: "tickets/.frontier/claim.json") { oid object { ... on Blob { text byteSize } } } } } }
        }
      }
    }`;
    type Page = {
      repository: {
        refs: {
          totalCount: number;
          pageInfo: { hasNextPage: boolean; endCursor: string | null };
          nodes: { name: string; target: { oid: string; file: { object: { text: string } } } }[];
        };
      };
    };
    const names: string[] = [];
    const texts: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Page = await octokit.graphql<Page>(query, { after });
      expect(page.repository.refs.totalCount).toBe(5);
      for (const n of page.repository.refs.nodes) {
        names.push(n.name);
        texts.push(n.target.file.object.text);
        expect(n.target.oid).toBe(repo.head(`claim/${n.name}`));
      }
      if (!page.repository.refs.pageInfo.hasNextPage) break;
      after = page.repository.refs.pageInfo.endCursor;
    }
    expect(names).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(texts).toEqual([0, 1, 2, 3, 4].map((i) => `{"i":${i}}`));
    expect(fake.countRequests({ operation: "graphql/query" })).toBe(3);
  });

  it("rateLimit reports the GraphQL budget, apart from REST's", async () => {
    await octokit.repos.get({ owner: "acme", repo: "widgets" });
    const data = await octokit.graphql<{
      rateLimit: { cost: number; limit: number; remaining: number; used: number; resetAt: string };
    }>("{ rateLimit { cost limit remaining resetAt used } }");
    expect(data.rateLimit).toMatchObject({ cost: 1, limit: 1000, remaining: 999, used: 1 });
    expect(Date.parse(data.rateLimit.resetAt)).toBeGreaterThan(Date.now());
  });

  it("a misspelled field is refused as GitHub refuses it, and recorded as a violation", async () => {
    const error = await graphqlError(
      octokit.graphql(`{ repository(owner: "acme", name: "widgets") { nameWithOwnr } }`),
    );
    expect(error.errors[0]).toMatchObject({
      message: "Field 'nameWithOwnr' doesn't exist on type 'Repository'",
      locations: [{ line: 1, column: 48 }],
      extensions: { code: "undefinedField", typeName: "Repository", fieldName: "nameWithOwnr" },
    });
    expect(error.data).toBeUndefined();
    expect(fake.violations).toHaveLength(1);
    expect(fake.violations[0]).toMatchObject({ kind: "request", path: "/graphql" });
    expect(fake.violations[0]!.problems[0]).toContain("nameWithOwnr");
    expect(() => fake.assertNoViolations()).toThrow(/nameWithOwnr/);
    fake.violations.length = 0;
  });

  it("a missing `first` on a connection is refused and recorded", async () => {
    const error = await graphqlError(
      octokit.graphql(
        `{ repository(owner: "acme", name: "widgets") { refs(refPrefix: "refs/heads/") { totalCount } } }`,
      ),
    );
    expect(error.errors[0]?.type).toBe("MISSING_PAGINATION_BOUNDARIES");
    expect(fake.violations).toHaveLength(1);
    fake.violations.length = 0;
  });

  it("an unknown repository is GitHub's NOT_FOUND", async () => {
    const error = await graphqlError(
      octokit.graphql(`{ repository(owner: "acme", name: "nope") { id } }`),
    );
    expect(error.errors[0]).toMatchObject({
      type: "NOT_FOUND",
      path: ["repository"],
      message: "Could not resolve to a Repository with the name 'acme/nope'.",
    });
    expect(error.data).toEqual({ repository: null });
  });
});

describe("createCommitOnBranch", () => {
  it("commits additions and deletions as the token's login, through the same git store", async () => {
    const head = repo.head()!;
    const data = await octokit.graphql<{
      createCommitOnBranch: {
        commit: { oid: string; url: string };
        ref: { name: string; target: { oid: string } };
      };
    }>(
      CREATE_COMMIT,
      commitInput(head, { "tickets/.frontier/claims/a.json": '{"run":1}\n', "tickets/a.md": null }),
    );
    const { commit, ref } = data.createCommitOnBranch;
    expect(ref).toEqual({ name: "main", target: { oid: commit.oid } });
    expect(commit.url).toBe(`https://github.com/acme/widgets/commit/${commit.oid}`);
    expect(repo.head()).toBe(commit.oid);
    expect(repo.readFile("tickets/.frontier/claims/a.json")).toBe('{"run":1}\n');
    expect(repo.readFile("tickets/a.md")).toBeUndefined();
    expect(repo.readFile("README.md")).toBe("hello\n");
    const [log] = repo.log();
    expect(log).toMatchObject({
      sha: commit.oid,
      parents: [head],
      message: "frontier: claim a\n\nby the orchestrator",
    });
    expect(log!.author.name).toBe("github-actions[bot]");
    expect(log!.committer.name).toBe("github-actions[bot]");
    // the REST API sees the same commit
    const { data: rest } = await octokit.git.getCommit({
      owner: "acme",
      repo: "widgets",
      commit_sha: commit.oid,
    });
    expect(rest.parents.map((p) => p.sha)).toEqual([head]);
    expect(fake.countRequests({ operation: "graphql/mutation:createCommitOnBranch" })).toBe(1);
    expect(fake.countRequests({ operation: "graphql/mutation" })).toBe(1);
  });

  it("is a compare-and-swap: a stale expectedHeadOid changes nothing and answers STALE_DATA", async () => {
    const stale = repo.head()!;
    const moved = repo.commit("main", { "other.txt": "a concurrent job\n" });
    const error = await graphqlError(
      octokit.graphql(CREATE_COMMIT, commitInput(stale, { "x.txt": "x\n" })),
    );
    expect(error.data).toEqual({ createCommitOnBranch: null });
    expect(error.errors).toEqual([
      expect.objectContaining({
        type: "STALE_DATA",
        path: ["createCommitOnBranch"],
        message: `Expected branch to point to "${stale}" but it did not.  Pull and try again.`,
      }),
    ]);
    expect(repo.head()).toBe(moved);
    expect(repo.readFile("x.txt")).toBeUndefined();
    // retry on the fresh head lands
    await octokit.graphql(CREATE_COMMIT, commitInput(moved, { "x.txt": "x\n" }));
    expect(repo.readFile("x.txt")).toBe("x\n");
    expect(repo.readFile("other.txt")).toBe("a concurrent job\n");
  });

  it("a missing branch is NOT_FOUND; deleting a missing path aborts the commit", async () => {
    const head = repo.head()!;
    const noBranch = await graphqlError(
      octokit.graphql(CREATE_COMMIT, commitInput(head, { "x.txt": "x" }, "nope")),
    );
    expect(noBranch.errors[0]?.type).toBe("NOT_FOUND");
    expect(noBranch.data).toEqual({ createCommitOnBranch: null });
    const noPath = await graphqlError(
      octokit.graphql(CREATE_COMMIT, commitInput(head, { "x.txt": "x", "ghost.md": null })),
    );
    expect(noPath.errors[0]?.message).toContain("does not exist");
    expect(repo.head()).toBe(head);
  });

  it("a deleted directory and a file where a directory was behave as in git", async () => {
    const head = repo.head()!;
    await octokit.graphql(
      CREATE_COMMIT,
      commitInput(head, {
        "tickets/.frontier": null,
        "tickets/.frontier/fresh.json": "{}",
        "README.md/inner.txt": "dir now",
      }),
    );
    expect(repo.listFiles()).toEqual([
      "README.md/inner.txt",
      "tickets/.frontier/fresh.json",
      "tickets/a.md",
    ]);
  });

  it("a lost answer after the write landed (inject applied): the commit is there, the client sees 502", async () => {
    const fault = fake.inject({
      operation: "graphql/mutation:createCommitOnBranch",
      status: 502,
      applied: true,
    });
    const head = repo.head()!;
    await expect(
      octokit.graphql(CREATE_COMMIT, commitInput(head, { "x.txt": "x\n" })),
    ).rejects.toMatchObject({
      status: 502,
    });
    expect(fault.fired).toBe(1);
    expect(repo.head()).not.toBe(head);
    expect(repo.readFile("x.txt")).toBe("x\n");
    // the blind retry meets the compare-and-swap
    const again = await graphqlError(
      octokit.graphql(CREATE_COMMIT, commitInput(head, { "x.txt": "x\n" })),
    );
    expect(again.errors[0]?.type).toBe("STALE_DATA");
    expect(fake.findRequests({ operation: "graphql/mutation" }).map((r) => r.fault)).toEqual([
      "error",
      undefined,
    ]);
  });

  it("the retry plugin retries a 502 that was not applied, once, and the commit lands once", async () => {
    const client = new (Octokit.plugin(retry, throttling))({
      baseUrl: fake.baseUrl,
      auth: "ghs_test",
      log: quietLog,
      ...fastClientOptions(),
    });
    fake.inject({ operation: "graphql/mutation:createCommitOnBranch", status: 502 });
    const head = repo.head()!;
    await client.graphql(CREATE_COMMIT, commitInput(head, { "x.txt": "x\n" }));
    expect(repo.log()).toHaveLength(2);
    expect(fake.countRequests({ operation: "graphql/mutation" })).toBe(2);
  });
});

describe("comments", () => {
  it("addComment and updateIssueComment work on REST's node ids", async () => {
    const issue = repo.createIssue({ title: "t" });
    const { data: i } = await octokit.issues.get({
      owner: "acme",
      repo: "widgets",
      issue_number: issue.number,
    });
    const added = await octokit.graphql<{
      addComment: { commentEdge: { node: { id: string; body: string } } };
    }>(
      `mutation ($id: ID!, $body: String!) { addComment(input: { subjectId: $id, body: $body }) { commentEdge { node { id body } } } }`,
      { id: i.node_id, body: "hello" },
    );
    const id = added.addComment.commentEdge.node.id;
    const { data: comments } = await octokit.issues.listComments({
      owner: "acme",
      repo: "widgets",
      issue_number: issue.number,
    });
    expect(comments.map((c) => [c.node_id, c.body])).toEqual([[id, "hello"]]);
    await octokit.graphql(
      `mutation ($id: ID!) { updateIssueComment(input: { id: $id, body: "edited" }) { issueComment { body } } }`,
      { id },
    );
    expect(repo.commentsOn(issue.number)[0]?.body).toBe("edited");
  });
});
