import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { isBot, steeringPermission } from "../../src/github/permissions.js";

/** Whether `login` may steer, by the permission endpoint (bots are turned away before it: bot-e2e). */
async function canSteer(octokit: Octokit, owner: string, repo: string, login: string) {
  return (await steeringPermission(octokit, owner, repo, login)).kind === "allowed";
}

/** An Octokit whose fetch answers the permission endpoint from a table, and counts calls. */
function client(table: Record<string, { status: number; body?: unknown }>) {
  const calls: string[] = [];
  const fetch = async (input: string | URL | Request): Promise<Response> => {
    const url = new URL(
      typeof input === "string" ? input : input instanceof URL ? input : input.url,
    );
    calls.push(url.pathname);
    const m = /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/.exec(url.pathname);
    const entry = m ? table[decodeURIComponent(m[3]!)] : undefined;
    if (!entry) {
      return new Response(JSON.stringify({ message: "Not Found", status: "404" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }
    return new Response(entry.body === undefined ? null : JSON.stringify(entry.body), {
      status: entry.status,
      headers: { "content-type": "application/json" },
    });
  };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  return { octokit: new Octokit({ request: { fetch }, log: quiet }), calls };
}

function perm(login: string, permission: string, role_name: string) {
  return {
    status: 200,
    body: { permission, role_name, user: { login, id: 1, type: "User" } },
  };
}

describe("only write, maintain or admin permission steers a run", () => {
  it.each([
    ["write", "write"],
    ["maintain", "write"],
    ["admin", "admin"],
  ])("obeys role %s", async (role, permission) => {
    const { octokit } = client({ ann: perm("ann", permission, role) });
    expect(await canSteer(octokit, "o", "r", "ann")).toBe(true);
  });

  it.each([
    ["read", "read"],
    ["triage", "read"],
    ["none", "none"],
  ])("refuses role %s", async (role, permission) => {
    const { octokit } = client({ bob: perm("bob", permission, role) });
    expect(await canSteer(octokit, "o", "r", "bob")).toBe(false);
  });

  it("obeys a custom role built on write (permission reports the base role)", async () => {
    const { octokit } = client({ cat: perm("cat", "write", "release-manager") });
    expect(await canSteer(octokit, "o", "r", "cat")).toBe(true);
    expect(await steeringPermission(octokit, "o", "r", "cat")).toEqual({
      kind: "allowed",
      role: "release-manager (based on write)",
    });
  });

  it("refuses a custom role built on read or triage", async () => {
    const { octokit } = client({ dan: perm("dan", "read", "security-reviewer") });
    expect(await canSteer(octokit, "o", "r", "dan")).toBe(false);
  });

  it("judges a built-in role_name by itself, not by the legacy permission", async () => {
    // maintain reports permission "write"; triage reports "read".
    const { octokit } = client({
      may: perm("may", "write", "maintain"),
      tom: perm("tom", "read", "triage"),
    });
    expect((await steeringPermission(octokit, "o", "r", "may")).kind).toBe("allowed");
    expect((await steeringPermission(octokit, "o", "r", "tom")).kind).toBe("refused");
  });

  it("refuses someone who is not a collaborator (404)", async () => {
    const { octokit } = client({});
    expect(await canSteer(octokit, "o", "r", "stranger")).toBe(false);
    expect(await steeringPermission(octokit, "o", "r", "stranger")).toEqual({
      kind: "refused",
      role: "none",
    });
  });

  it("refuses, and says it could not tell, when the API fails otherwise", async () => {
    const { octokit } = client({
      eve: { status: 403, body: { message: "Resource not accessible by integration" } },
    });
    expect(await canSteer(octokit, "o", "r", "eve")).toBe(false);
    const p = await steeringPermission(octokit, "o", "r", "eve");
    expect(p.kind).toBe("unknown");
  });
});

describe("bots are ignored before any API call", () => {
  it("a user of type Bot, or a login ending in [bot], is a bot", () => {
    expect(isBot({ login: "github-actions[bot]", type: "Bot" })).toBe(true);
    expect(isBot({ login: "renovate[bot]" })).toBe(true);
    expect(isBot({ login: "some-app", type: "Bot" })).toBe(true);
    expect(isBot({ login: "octocat", type: "User" })).toBe(false);
    expect(isBot(null)).toBe(true);
  });
});
