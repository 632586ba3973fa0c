export const id = 985;
export const ids = [985];
export const modules = {

/***/ 985:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  parseTicketFull: () => (/* binding */ parseTicketFull)
});

// UNUSED EXPORTS: AUTHORED_FIELDS, ENGINE_FIELDS, KNOWN_FIELDS, checkFields, headingOf, idFromFile, nearField, parseTicket, parseTicketQuick, readYamlFields

// EXTERNAL MODULE: ./node_modules/zod/v4/classic/schemas.js + 17 modules
var schemas = __webpack_require__(8816);
// EXTERNAL MODULE: ./src/core/model.ts
var model = __webpack_require__(4146);
// EXTERNAL MODULE: ./src/tickets/field-table.ts
var field_table = __webpack_require__(7596);
// EXTERNAL MODULE: ./src/tickets/problems.ts
var tickets_problems = __webpack_require__(1261);
;// CONCATENATED MODULE: ./src/tickets/field-types.ts
/**
 * The zod check of a ticket's fields, and what it says is wrong, in words. Only
 * needed when a field is not of its type: for well-typed fields (fields.ts,
 * `fieldsWellTyped`, proved to agree with this check) zod is never loaded.
 */




const Text = schemas/* string */.YjP();
const List = schemas/* array */.YOg(schemas/* string */.YjP());
const TicketFields = schemas/* object */.Ikc({
    id: Text.optional(),
    title: Text.optional(),
    depends_on: List.optional(),
    inputs: List.optional(),
    executor: Text.optional(),
    agent: Text.optional(),
    write_scope: List.optional(),
    bound: Text.optional(),
    isolation: Text.optional(),
    retries: schemas/* int */.Whr().min(0).optional(),
    priority: schemas/* int */.Whr().optional(),
    run: Text.optional(),
    status: model.Status.optional(),
    attempt: schemas/* int */.Whr().min(0).optional(),
    claimed_by: Text.optional(),
    claimed_at: Text.optional(),
    claim: Text.optional(),
    blocked_by: model.BlockedBy.optional(),
    reason: Text.optional(),
    updated_at: Text.optional(),
});
function valueAt(root, path) {
    let v = root;
    for (const k of path) {
        if (v === null || typeof v !== "object")
            return undefined;
        v = v[k];
    }
    return v;
}
/** Check the fields' types: which are bad, and one problem (with its line) for each. */
function typeFields(raw, file) {
    if ((0,field_table/* fieldsWellTyped */.Cc)(raw.values))
        return field_table/* WELL_TYPED */.Gr;
    const { values, lines } = raw;
    const parsed = TicketFields.safeParse(values);
    if (parsed.success)
        return field_table/* WELL_TYPED */.Gr;
    const problems = [];
    const bad = new Set();
    const seen = new Set();
    for (const issue of parsed.error.issues) {
        const path = issue.path.map(String);
        const name = path[0] ?? "";
        bad.add(name);
        const isItem = path.length > 1 && /^\d+$/.test(path[1]);
        const key = isItem ? name : path.join(".");
        if (seen.has(key))
            continue;
        seen.add(key);
        const info = field_table/* SUBFIELDS */.wD[key] ?? field_table/* FIELDS */.cJ[name];
        if (info === undefined)
            continue;
        const got = valueAt(values, isItem ? path.slice(0, 2) : path);
        const line = lines.get(path.slice(0, 2).join(".")) ?? lines.get(name);
        const where = isItem ? ` (item ${Number(path[1]) + 1})` : "";
        const message = got === undefined && path.length > 1
            ? `${key} is missing`
            : `${key} must be ${info.expect}, got ${(0,tickets_problems/* describeValue */.bp)(got)}${where}`;
        problems.push((0,tickets_problems/* problem */.CC)("wrong-type", file, line, message, `write ${info.example}`));
    }
    return { bad, problems };
}

// EXTERNAL MODULE: ./src/tickets/fields.ts
var fields = __webpack_require__(7764);
// EXTERNAL MODULE: ./node_modules/gray-matter/index.js
var gray_matter = __webpack_require__(9599);
var gray_matter_default = /*#__PURE__*/__webpack_require__.n(gray_matter);
// EXTERNAL MODULE: ./node_modules/yaml/dist/index.js
var dist = __webpack_require__(8815);
// EXTERNAL MODULE: ./src/tickets/frontmatter.ts
var frontmatter = __webpack_require__(9703);
// EXTERNAL MODULE: ./src/tickets/yaml-errors.ts
var yaml_errors = __webpack_require__(5680);
;// CONCATENATED MODULE: ./src/tickets/yaml-fields.ts
/**
 * The full path for front matter the quick path does not take: gray-matter splits
 * the file (with engines for every other language that throw, so nothing is ever
 * evaluated) and the `yaml` package reads it, YAML 1.2 core schema, with line
 * numbers from its LineCounter. The split's first line break ends the `---` line, so
 * YAML line numbers are file line numbers.
 */






function refuse(language) {
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
/**
 * gray-matter's split of `text`, checked against our offsets. A front matter in any
 * language but YAML is refused before (and, through the throwing engines, even if)
 * gray-matter would hand it to an engine.
 */
function readMatter(text) {
    const split = (0,frontmatter/* splitFrontMatter */.v)(text);
    if (split.kind === "front") {
        const lang = split.language.toLowerCase();
        if (lang !== "" && lang !== "yaml" && lang !== "yml") {
            return { kind: "language", language: split.language };
        }
        if (!split.closed)
            return { kind: "unclosed" };
    }
    let file;
    try {
        file = gray_matter_default()(text, options());
    }
    catch {
        // only an engine refusal or an unknown language gets here; both are a language problem
        return { kind: "language", language: split.kind === "front" ? split.language : "" };
    }
    const body = split.kind === "front" ? text.slice(split.bodyStart) : text.slice(split.bom);
    if (file.content !== body ||
        (split.kind === "front" && file.matter !== text.slice(split.yamlStart, split.closeAt))) {
        throw new Error("front matter split disagrees with gray-matter (a bug in Ticket Frontier)");
    }
    return { kind: "ok", split, body };
}
/** The full YAML path: the `yaml` package, YAML 1.2 core schema, line numbers from its LineCounter. */
function readYamlFields(yaml, file, known = field_table/* FIELDS */.cJ) {
    const lc = new dist/* LineCounter */.HN();
    let doc;
    try {
        doc = (0,dist/* parseDocument */.Tp)(yaml, { lineCounter: lc, version: "1.2", prettyErrors: true });
    }
    catch (e) {
        return {
            kind: "problems",
            problems: [
                (0,tickets_problems/* problem */.CC)("malformed-front-matter", file, undefined, `front matter could not be read as YAML (${e instanceof Error ? e.message : String(e)})`, "check the front matter between the --- lines"),
            ],
        };
    }
    if (doc.errors.length > 0) {
        return {
            kind: "problems",
            problems: dedupe(doc.errors.slice(0, 3).map((err) => {
                const line = err.linePos?.[0]?.line ?? lc.linePos(err.pos[0]).line;
                const opened = unclosedFlowLine(yaml, line, err.message);
                return opened === undefined
                    ? (0,tickets_problems/* problem */.CC)("malformed-front-matter", file, line, `front matter is not valid YAML: ${(0,yaml_errors/* yamlErrorText */.j)(err)}`, "fix the YAML between the --- lines (quote text that contains : or #)")
                    : (0,tickets_problems/* problem */.CC)("malformed-front-matter", file, opened.line, `front matter is not valid YAML: the ${opened.bracket} opened here is never closed`, opened.bracket === "["
                        ? "close the list on the same line, e.g. depends_on: [a, b]"
                        : "close the mapping on the same line, e.g. blocked_by: {ticket: a, kind: dep-failed, root: a}");
            })),
        };
    }
    // The whole document is resolved once, as writing the ticket back resolves it: YAML
    // aliases that expand past the parser's limit (a "billion laughs") are refused here,
    // in any field, known or not — never first when the run writes its state.
    try {
        // (only a document with an alias can expand: the rest skip the resolve)
        if (yaml.includes("*"))
            doc.toJS({ maxAliasCount: 100 });
    }
    catch (e) {
        const at = /[&*][^\s,\]}]/.exec(yaml);
        return {
            kind: "problems",
            problems: [
                (0,tickets_problems/* problem */.CC)("malformed-front-matter", file, at === null ? undefined : lc.linePos(at.index).line, `front matter could not be read as YAML (${e instanceof Error ? e.message : String(e)})`, "write the values out instead of repeating YAML aliases (*name)"),
            ],
        };
    }
    const contents = doc.contents;
    const values = {};
    const lines = new Map();
    const unknown = [];
    if (contents === null || ((0,dist/* isScalar */.jn)(contents) && contents.value === null)) {
        return { kind: "ok", raw: { values, lines, unknown } };
    }
    const lineOf = (n, fallback) => n?.range ? lc.linePos(n.range[0]).line : fallback;
    if (!(0,dist/* isMap */.jh)(contents)) {
        return {
            kind: "problems",
            problems: [
                (0,tickets_problems/* problem */.CC)("malformed-front-matter", file, lineOf(contents, 2), `front matter must be fields (name: value lines), got ${(0,dist/* isSeq */.oP)(contents) ? "a list" : "a single value"}`, "write one field per line, e.g. depends_on: [research]"),
            ],
        };
    }
    const resolve = (n) => ((0,dist/* isAlias */.Vj)(n) ? n.resolve(doc) : n);
    let itemLines = false;
    for (const pair of contents.items) {
        const key = resolve(pair.key);
        const keyLine = lineOf(key, 2);
        if (!(0,dist/* isScalar */.jn)(key) || key.value === null || typeof key.value === "object") {
            return {
                kind: "problems",
                problems: [
                    (0,tickets_problems/* problem */.CC)("malformed-front-matter", file, keyLine, "a field name must be plain text", "write the field as name: value"),
                ],
            };
        }
        const name = scalarText(key);
        const info = known[name];
        if (info === undefined) {
            unknown.push({ key: name, line: keyLine });
            continue;
        }
        const value = resolve(pair.value);
        const line = lineOf(value, keyLine);
        lines.set(name, keyLine);
        const v = toValue(value, info.kind, resolve, (sub, n) => {
            // an item on its own line gets its own entry; the rest fall back to the field's line
            const at = lineOf(n, line);
            if (at !== keyLine) {
                lines.set(`${name}.${sub}`, at);
                itemLines = true;
            }
        });
        if (v !== undefined)
            values[name] = v;
    }
    return {
        kind: "ok",
        raw: itemLines ? { values, lines, unknown, itemLines } : { values, lines, unknown },
    };
}
/**
 * The YAML parser notices an unclosed `[` or `{` only on a later line; the author
 * needs the line where it was opened: the nearest line above with more openers
 * than closers.
 */
function unclosedFlowLine(yaml, errLine, message) {
    const m = /end with a ([\]}])/.exec(message);
    if (m === null)
        return undefined;
    const [open, close] = m[1] === "]" ? ["[", "]"] : ["{", "}"];
    const lines = yaml.split("\n");
    for (let n = Math.min(errLine, lines.length); n >= 1; n--) {
        // brackets inside quotes or comments do not count
        const text = lines[n - 1].replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, "").replace(/(^|\s)#.*$/, "");
        if (text.split(open).length > text.split(close).length) {
            return { line: n, bracket: open };
        }
    }
    return undefined;
}
function dedupe(problems) {
    const seen = new Set();
    return problems.filter((p) => {
        const key = `${p.line}:${p.message}`;
        if (seen.has(key))
            return false;
        seen.add(key);
        return true;
    });
}
/** A scalar as the author wrote it: plain scalars by their source text, quoted ones by their value. */
function scalarText(n) {
    if (typeof n.value === "string")
        return n.value;
    return n.source ?? String(n.value);
}
function isNull(n) {
    return n === null || n === undefined || ((0,dist/* isScalar */.jn)(n) && n.value === null);
}
const DECIMAL = /^[-+]?[0-9]+$/;
/**
 * A YAML node as the value zod checks. `undefined` means "not set" (an empty value,
 * `~` or `null`); a value of the wrong shape is passed through so zod can say so.
 */
function toValue(n, kind, resolve, lineAt) {
    if (isNull(n))
        return undefined;
    switch (kind) {
        case "text":
            return (0,dist/* isScalar */.jn)(n) ? scalarText(n) : shapeOf(n);
        case "int":
            if (!(0,dist/* isScalar */.jn)(n))
                return shapeOf(n);
            if (typeof n.value === "number" && n.source !== undefined && DECIMAL.test(n.source)) {
                // `010` is ten, never eight
                return Number(n.source);
            }
            return n.value;
        case "list":
            if ((0,dist/* isScalar */.jn)(n))
                return [scalarText(n)];
            if ((0,dist/* isSeq */.oP)(n)) {
                return n.items.map((item, i) => {
                    const it = resolve(item);
                    lineAt(String(i), it);
                    if (isNull(it))
                        return null;
                    return (0,dist/* isScalar */.jn)(it) ? scalarText(it) : shapeOf(it);
                });
            }
            return shapeOf(n);
        case "map": {
            if (!(0,dist/* isMap */.jh)(n))
                return (0,dist/* isScalar */.jn)(n) ? scalarText(n) : shapeOf(n);
            const out = {};
            for (const pair of n.items) {
                const k = resolve(pair.key);
                if (!(0,dist/* isScalar */.jn)(k))
                    continue;
                const name = scalarText(k);
                const v = resolve(pair.value);
                lineAt(name, isNull(v) ? k : v);
                out[name] = isNull(v) ? undefined : (0,dist/* isScalar */.jn)(v) ? scalarText(v) : shapeOf(v);
            }
            return out;
        }
    }
}
/** Stand-ins that keep only the shape: enough for zod to say "got a list". */
function shapeOf(n) {
    if ((0,dist/* isSeq */.oP)(n))
        return [{}];
    if ((0,dist/* isMap */.jh)(n))
        return { "": {} };
    return {};
}

;// CONCATENATED MODULE: ./src/tickets/parse.ts
/**
 * One ticket file → its checked TicketSpec and the engine-written fields, or the
 * problems with it. Plain front matter takes the quick path (fields.ts, fast.ts);
 * anything else is split by gray-matter and read by the `yaml` package
 * (yaml-fields.ts). Both end in the same checks.
 */






/** Parse one ticket file: `file` is relative to the ticket directory, `order` its file-order index. */
function parseTicket(text, file, order, opts = {}) {
    return parseTicketQuick(text, file, order, opts) ?? parseTicketFull(text, file, order, opts);
}
/** The full path: gray-matter's split and the YAML parser, for any front matter at all. */
function parseTicketFull(text, file, order, opts = {}) {
    const m = readMatter(text);
    if (m.kind === "language")
        return (0,fields.brokenTicket)([(0,fields.languageProblem)(file, m.language)], file, order);
    if (m.kind === "unclosed")
        return (0,fields.brokenTicket)([(0,fields.unclosedProblem)(file)], file, order);
    if (m.split.kind === "none") {
        return (0,fields.checkFields)(NO_FIELDS, typeFields(NO_FIELDS, file), m.body, file, order, opts);
    }
    const read = readYamlFields(m.split.yaml, file);
    if (read.kind === "problems")
        return (0,fields.brokenTicket)(read.problems, file, order);
    return (0,fields.checkFields)(read.raw, typeFields(read.raw, file), m.body, file, order, opts);
}
const NO_FIELDS = { values: {}, lines: new Map(), unknown: [] };


/***/ }),

/***/ 5680:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   j: () => (/* binding */ yamlErrorText)
/* harmony export */ });
/**
 * What the `yaml` package said, for a person: its first line without the position (the
 * problem carries the line), and without the name of a JavaScript error the package let
 * through (`URIError: URI malformed` for a tag like `!!%` becomes `a tag it cannot read
 * (URI malformed)`).
 */
function yamlErrorText(err) {
    const line = (err.message.split("\n", 1)[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, "");
    const leaked = /^[A-Za-z]*Error: (.*)$/.exec(line);
    if (leaked === null)
        return line;
    return err.code === "TAG_RESOLVE_FAILED"
        ? `a tag it cannot read (${leaked[1]})`
        : (leaked[1] ?? line);
}


/***/ })

};
