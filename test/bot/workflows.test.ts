/**
 * Comment text is data: no example workflow (examples/workflows/*.yml, the agents' steps
 * in examples/agents/*.yml, or a YAML block in the README or docs) expands an expression
 * inside a `run:` script, where a comment body — or any other text someone else wrote —
 * would become shell code.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = join(import.meta.dirname, "..", "..");

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
  const docs: Array<{ file: string; doc: unknown }> = [];
  for (const folder of ["workflows", "agents"]) {
    const dir = join(ROOT, "examples", folder);
    for (const name of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n))) {
      docs.push({
        file: `examples/${folder}/${name}`,
        doc: parse(readFileSync(join(dir, name), "utf8")),
      });
    }
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

  it("no workflow hands the comment body to anything", () => {
    for (const { file, doc } of docs) {
      expect(JSON.stringify(doc), file).not.toMatch(
        /github\.event\.comment\.body|github\.event\.issue\.(body|title)/,
      );
    }
  });
});
