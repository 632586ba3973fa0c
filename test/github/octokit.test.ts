import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restStore } from "../../src/github/branch.js";
import { commitFiles, readHead } from "../../src/github/git.js";
import { createGitHub, describeApiError, isConflict } from "../../src/github/octokit.js";
import { FakeGitHub } from "../fake-github/server.js";

const fake = new FakeGitHub();
const repo = { owner: "acme", repo: "widgets" };
beforeAll(async () => {
  await fake.start();
  fake.createRepo("acme/widgets").commit("main", { "a.txt": "one\n" });
});
afterAll(async () => {
  fake.assertNoViolations();
  await fake.stop();
});

describe("the one client factory", () => {
  it("retries 5xx answers", async () => {
    const gh = createGitHub({ token: "t", baseUrl: fake.baseUrl, fast: true });
    fake.inject({ status: 502, operation: "repos/get-branch", times: 2 });
    const head = await readHead(gh, repo, "main");
    expect(head?.sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it("waits out secondary rate limits, honouring retry-after", async () => {
    const waits: string[] = [];
    const gh = createGitHub({
      token: "t",
      baseUrl: fake.baseUrl,
      fast: true,
      log: (m) => waits.push(m),
    });
    fake.injectSecondaryRateLimit({ status: 429, retryAfter: 2, operation: "git/get-tree" });
    const read = await restStore(gh, repo, "main").read(["a.txt"]);
    expect(read?.files.get("a.txt")).toBe("one\n");
    expect(waits.join("\n")).toMatch(/secondary rate limit.*waiting 2s/);
  });

  it("reports other errors with GitHub's own message", async () => {
    const gh = createGitHub({ token: "t", baseUrl: fake.baseUrl, fast: true });
    const error = await gh.rest.repos.get({ owner: "acme", repo: "nope" }).catch((e: unknown) => e);
    expect(describeApiError(error)).toBe("GitHub answered 404: Not Found");
  });
});

describe("the branch is a compare-and-swap register", () => {
  it("a commit on a head that moved is refused (not a fast forward) and changes nothing", async () => {
    const gh = createGitHub({ token: "t", baseUrl: fake.baseUrl, fast: true });
    const head = await readHead(gh, repo, "main");
    if (!head) throw new Error("no head");
    fake.repo("acme/widgets").commit("main", { "b.txt": "someone else\n" });
    const moved = fake.repo("acme/widgets").head("main");
    const mine = { additions: new Map([["c.txt", "mine\n"]]), deletions: [] };
    const res = await commitFiles(gh, repo, "main", head, mine, "mine");
    expect(res).toEqual({ kind: "moved" });
    expect(fake.repo("acme/widgets").head("main")).toBe(moved);
    const again = await readHead(gh, repo, "main");
    if (!again) throw new Error("no head");
    const ok = await commitFiles(gh, repo, "main", again, mine, "mine");
    expect(ok.kind).toBe("ok");
    expect(fake.repo("acme/widgets").readFile("b.txt")).toBe("someone else\n");
    expect(fake.repo("acme/widgets").readFile("c.txt")).toBe("mine\n");
    const body = fake.findRequests({ operation: "git/update-ref" }).at(-1)?.body as {
      force?: boolean;
    };
    expect(body.force).toBe(false);
  });

  it("recognises GitHub's non-fast-forward answer", () => {
    expect(
      isConflict({
        status: 422,
        response: { data: { message: "Update is not a fast forward" } },
      }),
    ).toBe(true);
    expect(
      isConflict({
        status: 422,
        response: { data: { message: "Reference does not exist" } },
      }),
    ).toBe(false);
  });
});
