/** SPEC §4: "a live ticket with an overlapping write_scope" holds a ready ticket back. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileScope, pathInScope, scopesOverlap } from "../../src/core/scope.js";

const list = (a: string | string[]) => (typeof a === "string" ? [a] : a);
const overlap = (a: string | string[], b: string | string[]) =>
  scopesOverlap(compileScope(list(a)), compileScope(list(b)));
/** the path a single write_scope entry is compared by, after normalising */
const normaliseScopePath = (raw: string) => compileScope([raw])[0]!.path;

describe("two write scopes overlap when some path could be in both", () => {
  it.each([
    ["src/a.ts", "src/a.ts"],
    ["src", "src/a.ts"],
    ["src/", "./src/core/engine.ts"],
    [".", "README.md"],
    ["/src", "src/x"],
  ])("literal %s and literal %s overlap", (a, b) => {
    expect(overlap(a, b)).toBe(true);
    expect(overlap(b, a)).toBe(true);
  });

  it.each([
    ["src/a.ts", "src/b.ts"],
    ["src", "src2"],
    ["src/a", "src/ab"],
    ["docs/x.md", "src/x.md"],
  ])("literal %s and literal %s do not overlap", (a, b) => {
    expect(overlap(a, b)).toBe(false);
    expect(overlap(b, a)).toBe(false);
  });

  it.each([
    ["src/a.ts", "src/*.ts"],
    ["src/lib/a.ts", "src/**/*.ts"],
    ["src", "src/**"],
    ["src", "src/lib/*.ts"],
    ["src/a", "src/*/b.ts"],
    ["src/a/b.ts", "src/*"],
    ["README.md", "*.md"],
    ["src/lib/deep/x.ts", "src/**"],
    ["src/x/y.ts", "src/{x,z/w}/*.ts"],
    [".env", "*"],
  ])("literal %s and glob %s overlap", (a, b) => {
    expect(overlap(a, b)).toBe(true);
    expect(overlap(b, a)).toBe(true);
  });

  it.each([
    ["src/a.md", "src/*.ts"],
    ["docs", "src/**"],
    ["src/lib/a.ts", "src/*.ts"],
    ["src/a/c.ts", "src/*/b.ts"],
    ["test/a.ts", "src/**/*.ts"],
  ])("literal %s and glob %s do not overlap", (a, b) => {
    expect(overlap(a, b)).toBe(false);
    expect(overlap(b, a)).toBe(false);
  });

  it.each([
    ["src/**", "src/core/*.ts"],
    ["**/*.md", "src/*.ts"],
    ["src/*.ts", "src/*.md"],
  ])("glob %s and glob %s overlap (bases related: judged conservatively)", (a, b) => {
    expect(overlap(a, b)).toBe(true);
  });

  it.each([
    ["docs/**", "src/**"],
    ["src/a/*.ts", "src/b/*.ts"],
  ])("glob %s and glob %s do not overlap", (a, b) => {
    expect(overlap(a, b)).toBe(false);
  });

  it("any pair of entries overlapping is enough", () => {
    expect(overlap(["docs/**", "src/a.ts"], ["test/**", "src"])).toBe(true);
    expect(overlap(["docs/**", "src/a.ts"], ["test/**", "lib"])).toBe(false);
  });

  it("a ticket without write_scope never conflicts", () => {
    expect(overlap([], ["**"])).toBe(false);
    expect(overlap([], [])).toBe(false);
  });

  it("a negated entry only takes back: it is judged by the entries it narrows", () => {
    expect(overlap("!docs/**", "docs/a.md")).toBe(false);
    expect(overlap(["src/**", "!src/secret/**"], "src/secret/a")).toBe(true);
    expect(overlap(["src/**", "!src/secret/**"], "docs/**")).toBe(false);
  });
});

describe("paths are normalised before they are compared", () => {
  it.each([
    ["./src/", "src"],
    ["/src", "src"],
    ["src//a", "src/a"],
    ["src/./a", "src/a"],
    [".", ""],
    ["./", ""],
  ])("%s is %s", (raw, want) => {
    expect(normaliseScopePath(raw)).toBe(want);
  });

  it("keeps a glob's base apart from its pattern", () => {
    expect(compileScope(["./src/**/*.ts"])).toEqual([
      {
        path: "src/**/*.ts",
        glob: true,
        base: "src",
        rest: "**/*.ts",
        negated: false,
      },
    ]);
  });
});

describe("a changed path is in a ticket's write_scope by the same rules", () => {
  const inScope = (path: string, scope: string[]) => pathInScope(path, compileScope(scope));

  it.each([
    ["src/api/x.ts", ["src/api/**"]],
    ["src/api/x.ts", ["src/api"]],
    ["src/api/x.ts", ["./src/api/"]],
    ["docs/api.md", ["docs/*.md"]],
    ["src/lib/deep/a.ts", ["src/*"]],
    ["README.md", ["."]],
    [".github/x.yml", ["**"]],
    ["src/a.ts", ["src/**", "!src/secret/**"]],
    ["src/secret/public.md", ["src/**", "!src/secret/**", "src/secret/*.md"]],
  ])("%s is in %j", (path, scope) => {
    expect(inScope(path, scope)).toBe(true);
  });

  it.each([
    ["src/apix/x.ts", ["src/api"]],
    ["src/ui/x.ts", ["src/api/**"]],
    ["docs/guide/api.md", ["docs/*.md"]],
    ["README.md", []],
    ["README.md", ["src/**", "!src/secret/**"]],
    ["src/secret/key", ["src/**", "!src/secret/**"]],
    ["src/secret/key", ["src/**", "!src/secret"]],
    ["src/a.ts", ["!src/**"]],
  ])("%s is not in %j", (path, scope) => {
    expect(inScope(path, scope)).toBe(false);
  });

  it("no path is in two scopes that do not overlap (property)", () => {
    const segment = fc.constantFrom("src", "api", "ui", "docs", "a.ts", "b.md", "lib", "x");
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    const entry = fc.oneof(
      path,
      path.map((p) => `${p}/**`),
      path.map((p) => p.replace(/[^/]+$/, "*")),
      path.map((p) => p.replace(/[^/]+$/, "*.ts")),
      path.map((p) => `${p.split("/")[0]}/**/*.md`),
      path.map((p) => `!${p}`),
    );
    const scope = fc.array(entry, { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(path, scope, scope, (p, a, b) => {
        const ca = compileScope(a);
        const cb = compileScope(b);
        if (pathInScope(p, ca) && pathInScope(p, cb)) return scopesOverlap(ca, cb);
        return true;
      }),
    );
  });
});
