import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { quietLog } from "../fake-github/clients.js";
import { getOperation, matchRoute, validateResponse } from "../fake-github/openapi.js";
import { FakeGitHub, OPENAPI_SOURCE, schemaProblems } from "../fake-github/server.js";

let fake: FakeGitHub;
let octokit: Octokit;
const owner = "acme";
const repo = "widgets";

beforeEach(async () => {
  fake = new FakeGitHub();
  await fake.start();
  fake.createRepo("acme/widgets").commit("main", { "a.md": "a" });
  octokit = new Octokit({ baseUrl: fake.baseUrl, auth: "ghs_x", log: quietLog });
});

afterEach(async () => {
  await fake.stop();
});

describe("every request is checked against GitHub's OpenAPI description", () => {
  it("names the description it checks against", () => {
    expect(OPENAPI_SOURCE).toMatch(
      /^@octokit\/openapi@\d+\.\d+\.\d+ generated\/api\.github\.com\.deref\.json$/,
    );
  });

  it("a body that breaks the schema is answered 422 and recorded as a violation", async () => {
    const error = await octokit
      .request("POST /repos/{owner}/{repo}/git/refs", { owner, repo, ref: "refs/heads/x" } as never)
      .catch((e) => e);
    expect(error.status).toBe(422);
    expect(fake.violations).toEqual([
      expect.objectContaining({
        kind: "request",
        operation: "git/create-ref",
        problems: [expect.stringContaining("must have required property 'sha'")],
      }),
    ]);
    expect(() => fake.assertNoViolations()).toThrow(/git\/create-ref/);
  });

  it("a wrong type in a body is caught (force must be a boolean)", async () => {
    await octokit
      .request("PATCH /repos/{owner}/{repo}/git/refs/{ref}", {
        owner,
        repo,
        ref: "heads/main",
        sha: "0".repeat(40),
        force: "no",
      } as never)
      .catch(() => {});
    expect(fake.violations[0]?.problems.join()).toMatch(/\/force must be boolean/);
  });

  it("more than 25 dispatch inputs break the schema's maxProperties", async () => {
    const inputs = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, "v"]));
    const error = await octokit.actions
      .createWorkflowDispatch({ owner, repo, workflow_id: "x.yml", ref: "main", inputs })
      .catch((e) => e);
    expect(error.status).toBe(422);
    expect(fake.violations[0]?.problems.join()).toMatch(/must NOT have more than 25 properties/);
  });

  it("a route GitHub does not document is answered 404 and recorded", async () => {
    const error = await octokit
      .request("GET /repos/{owner}/{repo}/no-such-thing", { owner, repo })
      .catch((e) => e);
    expect(error.status).toBe(404);
    expect(fake.violations).toEqual([
      expect.objectContaining({
        kind: "unknown-route",
        method: "GET",
        path: "/repos/acme/widgets/no-such-thing",
      }),
    ]);
  });

  it("a documented operation the fake does not implement is recorded as such, not silently faked", async () => {
    await octokit.repos.listForks({ owner, repo }).catch(() => {});
    expect(fake.violations).toEqual([
      expect.objectContaining({ kind: "unimplemented", operation: "repos/list-forks" }),
    ]);
  });

  it("a query parameter of the wrong type is caught", async () => {
    await octokit
      .request("GET /repos/{owner}/{repo}/issues?per_page=many", { owner, repo })
      .catch(() => {});
    expect(fake.violations[0]?.problems.join()).toMatch(/per_page/);
  });

  it("requests without a token get 401", async () => {
    const anon = new Octokit({ baseUrl: fake.baseUrl, log: quietLog });
    await expect(anon.repos.get({ owner, repo })).rejects.toMatchObject({ status: 401 });
  });

  it("with acceptAnyToken: false, unknown tokens get 401 Bad credentials", async () => {
    const strict = new FakeGitHub({ acceptAnyToken: false });
    await strict.start();
    strict.createRepo("acme/widgets");
    strict.addToken("ghs_known", { login: "github-actions[bot]" });
    const bad = new Octokit({ baseUrl: strict.baseUrl, auth: "ghs_unknown", log: quietLog });
    await expect(bad.repos.get({ owner, repo })).rejects.toMatchObject({
      status: 401,
      message: /Bad credentials/,
    });
    const good = new Octokit({ baseUrl: strict.baseUrl, auth: "ghs_known", log: quietLog });
    await expect(good.repos.get({ owner, repo })).resolves.toMatchObject({ status: 200 });
    await strict.stop();
  });
});

describe("responses are checked too, so the fake cannot drift", () => {
  it("a response missing a required field or with a wrong type is a violation", () => {
    const match = matchRoute("GET", "/repos/acme/widgets/git/ref/heads%2Fmain")!;
    expect(match.entry.operationId).toBe("git/get-ref");
    const op = getOperation(match.entry);
    expect(validateResponse(op, 200, { ref: "refs/heads/main" }).join()).toMatch(
      /required property/,
    );
    expect(
      validateResponse(op, 200, {
        ref: "refs/heads/main",
        node_id: "x",
        url: "https://x.test/",
        object: { type: "commit", sha: 5, url: "https://x.test/" },
      }).join(),
    ).toMatch(/\/object\/sha must be string/);
    expect(validateResponse(op, 201, {})).toEqual(["status 201 is not documented for git/get-ref"]);
  });

  it("nullable fields accept null (OpenAPI 3.0 nullable), including nullable enums", () => {
    const match = matchRoute("GET", "/repos/acme/widgets/actions/runs/1")!;
    const op = getOperation(match.entry);
    const problems = validateResponse(op, 200, { conclusion: null });
    expect(problems.join()).not.toMatch(/conclusion/);
  });

  it("every schema the fake met compiled", async () => {
    await octokit.repos.get({ owner, repo });
    await octokit.git.getRef({ owner, repo, ref: "heads/main" });
    expect(schemaProblems).toEqual([]);
    expect(fake.violations).toEqual([]);
  });
});
