/**
 * Size and words, measured with the TypeScript compiler, for test/architecture/size.test.ts:
 * the files of src/ over MAX_FILE_LINES lines, the functions over MAX_FUNCTION_LINES (a
 * function's lines run from its first to its last, nested functions included; an arrow
 * function or method counts as a function), and the English sentences in src/core/
 * (string and template literals of three words or more: core returns codes, the outer
 * layers word them).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

export const MAX_FILE_LINES = 600;
export const MAX_FUNCTION_LINES = 80;

const root = resolve(import.meta.dirname, "../..");
const src = join(root, "src");

/** Every .ts file of src/ (posix paths relative to the repository), generated code aside. */
export function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") && !generated(path)) {
        out.push(relative(root, path).split("\\").join("/"));
      }
    }
  };
  walk(src);
  return out.sort();
}

function generated(path: string): boolean {
  return /^\/\/ (generated|@generated)|DO NOT EDIT/i.test(readFileSync(path, "utf8").slice(0, 300));
}

function parse(file: string): ts.SourceFile {
  const text = readFileSync(join(root, file), "utf8");
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

const line = (sf: ts.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

/** `file: N lines` for every file over the limit. */
export function longFiles(files = sourceFiles()): string[] {
  return files.flatMap((file) => {
    const text = readFileSync(join(root, file), "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return lines > MAX_FILE_LINES ? [`${file}: ${lines} lines`] : [];
  });
}

/** `file:line name: N lines` for every function over the limit. */
export function longFunctions(files = sourceFiles()): string[] {
  const out: string[] = [];
  for (const file of files) {
    const sf = parse(file);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const from = line(sf, node.getStart(sf));
        const lines = line(sf, node.getEnd()) - from + 1;
        if (lines > MAX_FUNCTION_LINES) out.push(`${file}:${from} ${nameOf(node)}: ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

/** Three words or more: letters, separated by spaces (a code or a path is not one). */
const SENTENCE = /[A-Za-z][a-z']* +[A-Za-z][a-z']*,? +[A-Za-z][a-z']*/;

/** `file:line "text"` for every string in src/core/ that reads as words for people. */
export function coreSentences(files = sourceFiles()): string[] {
  const out: string[] = [];
  for (const file of files.filter((f) => f.startsWith("src/core/"))) {
    const sf = parse(file);
    const visit = (node: ts.Node) => {
      let text: string | undefined;
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
      else if (ts.isTemplateExpression(node)) {
        text = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join("…");
      }
      if (text !== undefined && SENTENCE.test(text)) {
        out.push(`${file}:${line(sf, node.getStart(sf))} ${JSON.stringify(text.slice(0, 60))}`);
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}
