/**
 * The release workflow (.github/workflows/release.yml): it starts only on a pushed
 * version tag, refuses any other tag and anyone but a maintainer, tests and rebuilds
 * dist/ before anything is published, publishes with provenance from a protected
 * environment, and moves the major tag only after the publish. Its lint is in
 * test/bot/workflows.test.ts with the other workflows.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./harness.js";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  environment?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}
const text = readFileSync(join(ROOT, ".github", "workflows", "release.yml"), "utf8");
const wf = parse(text) as {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};
const runs = (job: string) => wf.jobs[job]!.steps.map((s) => s.run ?? "").join("\n");

describe("the release workflow runs only on a version tag, by a maintainer", () => {
  it("starts on a pushed v*.*.* tag and on nothing else (no branch push, pull request, dispatch or comment)", () => {
    expect(Object.keys(wf.on)).toEqual(["push"]);
    expect(wf.on.push).toEqual({ tags: ["v*.*.*"] });
  });

  it("refuses a tag that is not vX.Y.Z, with the shell test it runs", () => {
    const pattern = /grep -Eq '([^']+)'/.exec(runs("check"))?.[1];
    expect(pattern).toBeDefined();
    const accepted = (tag: string) => {
      try {
        execFileSync("grep", ["-Eq", pattern!], { input: tag });
        return true;
      } catch {
        return false;
      }
    };
    expect(["v1.0.0", "v12.3.45"].filter(accepted)).toEqual(["v1.0.0", "v12.3.45"]);
    expect(
      ["v1", "v1.2", "v1.2.3-rc.1", "1.2.3", "v1.2.3;rm -rf /", "vX.Y.Z"].filter(accepted),
    ).toEqual([]);
  });

  it("checks the tag against package.json's version and the default branch, and the pusher's role", () => {
    const check = runs("check");
    expect(check).toMatch(/require\("\.\/package\.json"\)\.version/);
    expect(check).toMatch(/git merge-base --is-ancestor "\$GITHUB_SHA" "origin\/\$DEFAULT_BRANCH"/);
    expect(check).toMatch(/collaborators\/\$ACTOR\/permission/);
    expect(check).toMatch(/admin\|maintain\)/);
  });

  it("reads the token read-only everywhere but the publish job, which waits in the release environment", () => {
    expect(wf.permissions).toEqual({ contents: "read" });
    for (const [name, job] of Object.entries(wf.jobs)) {
      if (name !== "publish") expect(job.permissions, name).toBeUndefined();
    }
    const publish = wf.jobs.publish!;
    expect(publish.environment).toBe("release");
    expect(publish.permissions).toEqual({ contents: "write", "id-token": "write" });
    expect([publish.needs].flat().sort()).toEqual(["check", "test"]);
    expect([wf.jobs.test!.needs].flat()).toEqual(["check"]);
  });

  it("tests, rebuilds dist/ and installs the tarball before anything is published", () => {
    const test = runs("test");
    expect(test).toMatch(/^npm test$/m);
    expect(test).toMatch(/npm run package\n\s*git diff --exit-code -- dist\//);
    expect(test).toMatch(/node scripts\/check-install\.mjs/);
  });

  it("publishes with provenance, then moves the major tag, then makes the GitHub release", () => {
    const steps = wf.jobs.publish!.steps.map((s) => s.run ?? "");
    const at = (re: RegExp) => steps.findIndex((s) => re.test(s));
    const publish = at(/npm publish --provenance --access public/);
    const major = at(/git push --force origin "refs\/tags\/\$MAJOR"/);
    const release = at(/gh release create "\$TAG" --verify-tag/);
    expect(publish).toBeGreaterThan(-1);
    expect(major).toBeGreaterThan(publish);
    expect(release).toBeGreaterThan(major);
    expect(text).toMatch(/echo "major=v\$\{version%%\.\*\}"/);
  });

  it("is documented for maintainers, and the README points there", () => {
    const releasing = readFileSync(join(ROOT, "docs", "releasing.md"), "utf8");
    for (const must of [
      /npm version/,
      /ruleset/i,
      /environment/i,
      /trusted publish/i,
      /provenance/,
    ]) {
      expect(releasing).toMatch(must);
    }
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toMatch(/docs\/releasing\.md/);
  });
});
