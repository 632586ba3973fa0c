/**
 * Splitting a ticket file into front matter and body, by offsets, exactly where
 * gray-matter splits it (its algorithm, mirrored, and proved equal by property
 * tests), so the writer can splice without touching a byte of the body and the
 * quick path needs no gray-matter at all.
 */
export type Split =
  | {
      kind: "none";
      /** where the body (the whole file) starts: 1 after a byte order mark, else 0 */
      bodyStart: number;
    }
  | {
      kind: "front";
      /** the language named after the opening `---` (`js` in `---js`); "" for none */
      language: string;
      /**
       * the YAML text: from the line break after the opening `---` up to the line
       * break before the closing one (without its `\r`, which YAML would otherwise
       * read as part of the last value)
       */
      yaml: string;
      yamlStart: number;
      /** index of the `\n` that starts the closing `---` line (text.length when unclosed) */
      closeAt: number;
      /** false when the opening `---` is never closed */
      closed: boolean;
      /** where the body starts in the text */
      bodyStart: number;
    };

/** Whether front matter marked `language` (`---yml`) is YAML: unmarked, `yaml` or `yml`, any case. */
export const isYaml = (language: string) => /^(?:ya?ml)?$/i.test(language);

/**
 * Where the front matter and the body are in `text`, as offsets into it, so the
 * writer can splice without touching a byte of the body. `yaml` starts with the line
 * break that ends the `---` line, so YAML line numbers are file line numbers.
 */
export function splitFrontMatter(text: string): Split {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const s = bom === 1 ? text.slice(1) : text;
  if (!s.startsWith("---") || s.charAt(3) === "-") return { kind: "none", bodyStart: bom };
  // gray-matter's own reading of the language line, so offsets agree with it
  const afterOpen = s.slice(3);
  const eol = afterOpen.search(/\r?\n/);
  // without a line break there is no closing `---` either: the split is moot, the name is not
  const rawLanguage = eol === -1 ? afterOpen : afterOpen.slice(0, eol);
  const language = rawLanguage.trim();
  // like gray-matter, skip the language line's text only when it names a language
  const yamlStart = bom + 3 + (language === "" ? 0 : rawLanguage.length);
  const close = text.indexOf("\n---", yamlStart);
  const closed = close !== -1;
  const closeAt = closed ? close : text.length;
  const yamlEnd =
    closed && text.charAt(closeAt - 1) === "\r" && closeAt - 1 >= yamlStart ? closeAt - 1 : closeAt;
  let bodyStart = closed ? closeAt + 4 : text.length;
  if (text.charAt(bodyStart) === "\r") bodyStart++;
  if (text.charAt(bodyStart) === "\n") bodyStart++;
  return {
    kind: "front",
    language,
    yaml: text.slice(yamlStart, yamlEnd),
    yamlStart,
    closeAt,
    closed,
    bodyStart,
  };
}
