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
    if (doc.errors.length > 0) {
        return {
            settings: {},
            problems: doc.errors
                .slice(0, 3)
                .map((err) => (0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .problem */ .CC)("invalid-settings", file, err.linePos?.[0]?.line ?? lc.linePos(err.pos[0]).line, `${file} is not valid YAML: ${(0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .yamlErrorText */ .j)(err)}`, (0,_yaml_errors_js__WEBPACK_IMPORTED_MODULE_4__/* .yamlFixText */ .W)(err, "fix the YAML (quote text that contains : or #)"))),
            warnings: [],
        };
    }
    const contents = doc.contents;
    if (contents === null || ((0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(contents) && contents.value === null)) {
        return { settings: {}, problems: [], warnings: [] };
    }
    const lineOf = (n) => n?.range ? lc.linePos(n.range[0]).line : undefined;
    if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(contents)) {
        return {
            settings: {},
            problems: [
                (0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .problem */ .CC)("invalid-settings", file, lineOf(contents), `${file} must be settings (name: value lines)`, "write one setting per line, e.g. max_parallel: 4"),
            ],
            warnings: [],
        };
    }
    const values = {};
    const lines = new Map();
    const warnings = [];
    for (const pair of contents.items) {
        const key = pair.key;
        const name = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(key) ? text_(key) : "";
        const info = Object.hasOwn(_setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk, name) ? _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk[name] : undefined;
        if (info === undefined) {
            warnings.push((0,_setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .unknownSetting */ .pL)(name, lineOf(key)));
            continue;
        }
        lines.set(name, lineOf(pair.value) ?? lineOf(key));
        const v = value(pair.value, info.kind);
        if (v !== undefined)
            values[name] = v;
    }
    const parsed = _core_model_js__WEBPACK_IMPORTED_MODULE_1__.Settings.partial().safeParse(values);
    const problems = [];
    if (!parsed.success) {
        const seen = new Set();
        for (const issue of parsed.error.issues) {
            const name = String(issue.path[0] ?? "");
            if (seen.has(name))
                continue;
            seen.add(name);
            const info = Object.hasOwn(_setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk, name) ? _setting_keys_js__WEBPACK_IMPORTED_MODULE_3__/* .KEYS */ .Rk[name] : undefined;
            if (info === undefined)
                continue;
            problems.push((0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .problem */ .CC)("invalid-settings", file, lines.get(name), `${name} must be ${info.expect}, got ${(0,_problems_js__WEBPACK_IMPORTED_MODULE_2__/* .describeValue */ .bp)(values[name])}`, `write ${info.example}`));
        }
    }
    // the settings that are right still count (max_file_bytes, max_tickets): one wrong
    // setting must not hide what the others would find in the tickets
    let settings = {};
    if (parsed.success)
        settings = parsed.data;
    else {
        const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? "")));
        const rest = _core_model_js__WEBPACK_IMPORTED_MODULE_1__.Settings.partial().safeParse(Object.fromEntries(Object.entries(values).filter(([name]) => !bad.has(name))));
        if (rest.success)
            settings = rest.data;
    }
    const duration = typeof settings.bound === "object" ? settings.bound.duration : undefined;
    const checks = [
        ["bound.duration", duration, "bound"],
        ["ticket_bound", settings.ticket_bound, "ticket_bound"],
    ];
    for (const [field, text, key] of checks) {
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
function text_(n) {
    if (typeof n.value === "string")
        return n.value;
    return n.source ?? String(n.value);
}
function scalar(n, kind) {
    if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(n))
        return (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isSeq */ .oP)(n) ? [] : (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(n) ? {} : undefined;
    if (n.value === null)
        return undefined;
    if (kind === "text")
        return text_(n);
    if (typeof n.value === "number" && n.source !== undefined && /^[-+]?[0-9]+$/.test(n.source)) {
        return Number(n.source);
    }
    return n.value;
}
function value(n, kind) {
    switch (kind) {
        case "text":
        case "int":
            return scalar(n, kind);
        case "bound": {
            if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(n))
                return scalar(n, "int");
            const out = {};
            for (const pair of n.items) {
                const k = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(pair.key) ? text_(pair.key) : "";
                if (k === "usage" && (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(pair.value)) {
                    // usage totals by key: {tokens: 2000000, cost_usd: 5}
                    const usage = {};
                    for (const u of pair.value.items) {
                        usage[(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(u.key) ? text_(u.key) : ""] = scalar(u.value, "int");
                    }
                    out[k] = usage;
                }
                else
                    out[k] = scalar(pair.value, k === "duration" ? "text" : "int");
            }
            return out;
        }
        case "textMap": {
            if (!(0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isMap */ .jh)(n))
                return scalar(n, "text");
            const out = {};
            for (const pair of n.items) {
                const k = (0,yaml__WEBPACK_IMPORTED_MODULE_0__/* .isScalar */ .jn)(pair.key) ? text_(pair.key) : "";
                out[k] = scalar(pair.value, "text");
            }
            return out;
        }
    }
}


/***/ })

};
