/**
 * Splitting a ticket file into front matter and body. gray-matter finds the
 * delimiters; nothing here ever evaluates the front matter: every language but YAML
 * has an engine that throws, and YAML itself is read later by the `yaml` package
 * (gray-matter's own YAML engine is replaced by one that does nothing).
 */
import matter from "gray-matter";

function refuse(language: string) {
  return () => {
    throw new Error(`front matter in ${language} is never evaluated`);
  };
}

const ENGINES = {
  yaml: { parse: () => ({}), stringify: () => "" },
  js: { parse: refuse("js"), stringify: refuse("js") },
  javascript: { parse: refuse("javascript"), stringify: refuse("javascript") },
  coffee: { parse: refuse("coffee"), stringify: refuse("coffee") },
  coffeescript: { parse: refuse("coffeescript"), stringify: refuse("coffeescript") },
  cson: { parse: refuse("cson"), stringify: refuse("cson") },
  toml: { parse: refuse("toml"), stringify: refuse("toml") },
  json: { parse: refuse("json"), stringify: refuse("json") },
};

/** A fresh options object on every call: gray-matter caches by content when called without one. */
function options() {
  return { engines: ENGINES, language: "yaml" };
}

export type Split =
  | {
      kind: "none";
      /** 1 when the file starts with a byte order mark */
      bom: number;
    }
  | {
      kind: "front";
      bom: number;
      /** the language named after the opening `---` (`js` in `---js`); "" for none */
      language: string;
      /**
       * the YAML text: from the line break after the opening `---` up to the line
       * break before the closing one (without its `\r`, which YAML would otherwise
       * read as part of the last value)
       */
      yaml: string;
      yamlStart: number;
      yamlEnd: number;
      /** index of the `\n` that starts the closing `---` line (text.length when unclosed) */
      closeAt: number;
      /** false when the opening `---` is never closed */
      closed: boolean;
      /** where the body starts in the text */
      bodyStart: number;
    };

/**
 * Where the front matter and the body are in `text`, as offsets into it, so the
 * writer can splice without touching a byte of the body. `yaml` starts with the line
 * break that ends the `---` line, so YAML line numbers are file line numbers.
 */
export function splitFrontMatter(text: string): Split {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const s = bom === 1 ? text.slice(1) : text;
  if (!s.startsWith("---") || s.charAt(3) === "-") return { kind: "none", bom };
  // gray-matter's own reading of the language line, so offsets agree with it
  const afterOpen = s.slice(3);
  const eol = afterOpen.search(/\r?\n/);
  // without a line break there is no closing `---` either: the split is moot, the name is not
  const rawLanguage = eol === -1 ? afterOpen : afterOpen.slice(0, eol);
  const language = rawLanguage.trim();
  // like gray-matter, skip the language line's text only when it names a language
  const yamlStart = bom + 3 + (language === "" ? 0 : rawLanguage.length);
  const rest = text.slice(yamlStart);
  const close = rest.indexOf("\n---");
  const closed = close !== -1;
  const closeAt = closed ? yamlStart + close : text.length;
  const yamlEnd =
    closed && text.charAt(closeAt - 1) === "\r" && closeAt - 1 >= yamlStart ? closeAt - 1 : closeAt;
  let bodyStart = closed ? closeAt + 4 : text.length;
  if (text.charAt(bodyStart) === "\r") bodyStart++;
  if (text.charAt(bodyStart) === "\n") bodyStart++;
  return {
    kind: "front",
    bom,
    language,
    yaml: text.slice(yamlStart, yamlEnd),
    yamlStart,
    yamlEnd,
    closeAt,
    closed,
    bodyStart,
  };
}

export type Matter =
  | { kind: "ok"; split: Split; body: string }
  | { kind: "language"; language: string }
  | { kind: "unclosed" };

/**
 * gray-matter's split of `text`, checked against our offsets. A front matter in any
 * language but YAML is refused before (and, through the throwing engines, even if)
 * gray-matter would hand it to an engine.
 */
export function readMatter(text: string): Matter {
  const split = splitFrontMatter(text);
  if (split.kind === "front") {
    const lang = split.language.toLowerCase();
    if (lang !== "" && lang !== "yaml" && lang !== "yml") {
      return { kind: "language", language: split.language };
    }
    if (!split.closed) return { kind: "unclosed" };
  }
  let file: { content: string; matter?: string };
  try {
    file = matter(text, options());
  } catch {
    // only an engine refusal or an unknown language gets here; both are a language problem
    return { kind: "language", language: split.kind === "front" ? split.language : "" };
  }
  const body = split.kind === "front" ? text.slice(split.bodyStart) : text.slice(split.bom);
  if (
    file.content !== body ||
    (split.kind === "front" && file.matter !== text.slice(split.yamlStart, split.closeAt))
  ) {
    throw new Error("front matter split disagrees with gray-matter (a bug in Ticket Frontier)");
  }
  return { kind: "ok", split, body };
}
