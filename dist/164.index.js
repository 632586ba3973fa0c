export const id = 164;
export const ids = [164];
export const modules = {

/***/ 164:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   parseSettings: () => (/* binding */ parseSettings)
/* harmony export */ });
/* harmony import */ var yaml__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(8815);
/* harmony import */ var _core_model_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(4146);
/* harmony import */ var _integers_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(9954);
/* harmony import */ var _problems_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(1261);
/* harmony import */ var _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(6546);
/* harmony import */ var _yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(5680);
/**
 * Run settings from the optional `frontier.yml` beside the tickets. Read with the
 * same care as a ticket's front matter: text stays as written, numbers are decimal,
 * every error names the line and the fix.
 */






/** The settings a `frontier.yml` text sets (without defaults), or its problems. */
function parseSettings(text) {
    const file = _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .SETTINGS_FILE */ .tP;
    const lc = new yaml__WEBPACK_IMPORTED_MODULE_0__/* .LineCounter */ .HN();
    const doc = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .parseDocument */ .Tp)(text, { lineCounter: lc, version: "1.2", prettyErrors: true });
    // no settings at all: only these problems, or none
    const none = (problems) => ({ settings: {}, problems, warnings: [] });
    if (doc.errors.length > 0) {
        return none(doc.errors
            .slice(0, 3)
            .map((err) => (0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .problem */ .CC)("invalid-settings", file, err.linePos?.[0]?.line ?? lc.linePos(err.pos[0]).line, `${file} is not valid YAML: ${(0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .yamlErrorText */ .jw)(err)}`, (0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .yamlFixText */ .W5)(err, "fix the YAML (quote text that contains : or #)"))));
    }
    const contents = doc.contents;
    if ((0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .isNull */ .kZ)(contents))
        return none([]);
    const lineOf = (n) => n?.range ? lc.linePos(n.range[0]).line : undefined;
    if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(contents)) {
        return none([
            (0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .problem */ .CC)("invalid-settings", file, lineOf(contents), `${file} must be settings (name: value lines)`, "write one setting per line, e.g. max_parallel: 4"),
        ]);
    }
    const values = {};
    const lines = new Map();
    const warnings = [];
    for (const pair of contents.items) {
        const name = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(pair.key) ? (0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .scalarText */ .ws)(pair.key) : "";
        const info = Object.hasOwn(_setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk, name) ? _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk[name] : undefined;
        if (info === undefined) {
            warnings.push((0,_setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .unknownSetting */ .pL)(name, lineOf(pair.key)));
            continue;
        }
        lines.set(name, lineOf(pair.value) ?? lineOf(pair.key));
        const v = value(pair.value, info.kind);
        if (v !== undefined)
            values[name] = v;
    }
    const { settings, problems } = typeChecked(values, lines);
    const duration = typeof settings.bound === "object" ? settings.bound.duration : undefined;
    for (const [field, text, key] of [
        ["bound.duration", duration, "bound"],
        ["ticket_bound", settings.ticket_bound, "ticket_bound"],
    ]) {
        if (text === undefined)
            continue;
        const checked = (0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .boundProblems */ .Jv)(field, text, file, lines.get(key), "invalid-settings");
        if (checked.problem !== undefined) {
            delete settings[key];
            problems.push(checked.problem);
        }
        if (checked.warning !== undefined)
            warnings.push(checked.warning);
    }
    return { settings, problems, warnings };
}
/**
 * zod's check of the settings: a problem for each one that is not of its type, and the
 * rest — the settings that are right still count (max_file_bytes, max_tickets): one wrong
 * setting must not hide what the others would find in the tickets.
 */
function typeChecked(values, lines) {
    const parsed = _core_model_js__WEBPACK_IMPORTED_MODULE_1__.Settings.partial().safeParse(values);
    if (parsed.success)
        return { settings: parsed.data, problems: [] };
    const problems = [];
    const bad = new Set();
    for (const issue of parsed.error.issues) {
        // every issue is at a setting read above: a name of KEYS
        const name = String(issue.path[0]);
        if (bad.has(name))
            continue;
        bad.add(name);
        const info = _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk[name];
        problems.push((0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .problem */ .CC)("invalid-settings", _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .SETTINGS_FILE */ .tP, lines.get(name), `${name} must be ${info.expect}, got ${(0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .describeValue */ .bp)(values[name])}`, `write ${info.example}`));
    }
    const rest = _core_model_js__WEBPACK_IMPORTED_MODULE_1__.Settings.partial().safeParse(Object.fromEntries(Object.entries(values).filter(([name]) => !bad.has(name))));
    return { settings: rest.success ? rest.data : {}, problems };
}
function scalar(n, kind) {
    if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(n))
        return (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isSeq */ .oP)(n) ? [] : (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(n) ? {} : undefined;
    if (n.value === null)
        return undefined;
    if (kind === "text")
        return (0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .scalarText */ .ws)(n);
    if (typeof n.value === "number" && n.source !== undefined && _integers_js__WEBPACK_IMPORTED_MODULE_5__/* .DECIMAL */ .SC.test(n.source)) {
        return Number(n.source);
    }
    return n.value;
}
function value(n, kind) {
    switch (kind) {
        case "bound":
            if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(n))
                return scalar(n, "int");
            // usage totals by key: {tokens: 2000000, cost_usd: 5}
            return byKey(n, (k, v) => k === "usage" && (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(v)
                ? byKey(v, (_, u) => scalar(u, "int"))
                : scalar(v, k === "duration" ? "text" : "int"));
        case "textMap":
            return (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(n) ? byKey(n, (_, v) => scalar(v, "text")) : scalar(n, "text");
        default:
            return scalar(n, _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .NUMBER_KINDS */ .a0.has(kind) ? "int" : "text");
    }
}
/** A mapping as a record: each value read by `read`, under its key's text. */
function byKey(map, read) {
    const out = {};
    for (const pair of map.items) {
        const k = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(pair.key) ? (0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .scalarText */ .ws)(pair.key) : "";
        out[k] = read(k, pair.value);
    }
    return out;
}


/***/ })

};
