/**
 * Run settings from the optional `frontier.yml` beside the tickets. Read with the
 * same care as a ticket's front matter: text stays as written, numbers are decimal,
 * every error names the line and the fix.
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLMap } from "yaml";
import { Settings } from "../core/model.js";
import { DECIMAL } from "./integers.js";
import { boundProblems, describeValue, type Problem, problem } from "./problems.js";
import {
  KEYS,
  type SettingKind as Kind,
  NUMBER_KINDS,
  type ParsedSettings,
  SETTINGS_FILE,
  unknownSetting,
} from "./setting-keys.js";
import { isNull, scalarText, yamlErrorText, yamlFixText } from "./yaml-errors.js";

/** The settings a `frontier.yml` text sets (without defaults), or its problems. */
export function parseSettings(text: string): ParsedSettings {
  const file = SETTINGS_FILE;
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, version: "1.2", prettyErrors: true });
  // no settings at all: only these problems, or none
  const none = (problems: Problem[]) => ({ settings: {}, problems, warnings: [] });
  if (doc.errors.length > 0) {
    return none(
      doc.errors
        .slice(0, 3)
        .map((err) =>
          problem(
            "invalid-settings",
            file,
            err.linePos?.[0]?.line ?? lc.linePos(err.pos[0]).line,
            `${file} is not valid YAML: ${yamlErrorText(err)}`,
            yamlFixText(err, "fix the YAML (quote text that contains : or #)"),
          ),
        ),
    );
  }
  const contents = doc.contents;
  if (isNull(contents)) return none([]);
  const lineOf = (n: unknown) =>
    (n as Node | null)?.range ? lc.linePos((n as Node).range![0]).line : undefined;
  if (!isMap(contents)) {
    return none([
      problem(
        "invalid-settings",
        file,
        lineOf(contents),
        `${file} must be settings (name: value lines)`,
        "write one setting per line, e.g. max_parallel: 4",
      ),
    ]);
  }
  const values: Record<string, unknown> = {};
  const lines = new Map<string, number | undefined>();
  const warnings: Problem[] = [];
  for (const pair of contents.items) {
    const name = isScalar(pair.key) ? scalarText(pair.key) : "";
    const info = Object.hasOwn(KEYS, name) ? KEYS[name] : undefined;
    if (info === undefined) {
      warnings.push(unknownSetting(name, lineOf(pair.key)));
      continue;
    }
    lines.set(name, lineOf(pair.value) ?? lineOf(pair.key));
    const v = value(pair.value, info.kind);
    if (v !== undefined) values[name] = v;
  }
  const { settings, problems } = typeChecked(values, lines);
  const duration = typeof settings.bound === "object" ? settings.bound.duration : undefined;
  for (const [field, text, key] of [
    ["bound.duration", duration, "bound"],
    ["ticket_bound", settings.ticket_bound, "ticket_bound"],
  ] as const) {
    if (text === undefined) continue;
    const checked = boundProblems(field, text, file, lines.get(key), "invalid-settings");
    if (checked.problem !== undefined) {
      delete settings[key];
      problems.push(checked.problem);
    }
    if (checked.warning !== undefined) warnings.push(checked.warning);
  }
  return { settings, problems, warnings };
}

/**
 * zod's check of the settings: a problem for each one that is not of its type, and the
 * rest — the settings that are right still count (max_file_bytes, max_tickets): one wrong
 * setting must not hide what the others would find in the tickets.
 */
function typeChecked(
  values: Record<string, unknown>,
  lines: ReadonlyMap<string, number | undefined>,
): { settings: Partial<Settings>; problems: Problem[] } {
  const parsed = Settings.partial().safeParse(values);
  if (parsed.success) return { settings: parsed.data, problems: [] };
  const problems: Problem[] = [];
  const bad = new Set<string>();
  for (const issue of parsed.error.issues) {
    // every issue is at a setting read above: a name of KEYS
    const name = String(issue.path[0]);
    if (bad.has(name)) continue;
    bad.add(name);
    const info = KEYS[name]!;
    problems.push(
      problem(
        "invalid-settings",
        SETTINGS_FILE,
        lines.get(name),
        `${name} must be ${info.expect}, got ${describeValue(values[name])}`,
        `write ${info.example}`,
      ),
    );
  }
  const rest = Settings.partial().safeParse(
    Object.fromEntries(Object.entries(values).filter(([name]) => !bad.has(name))),
  );
  return { settings: rest.success ? rest.data : {}, problems };
}

function scalar(n: unknown, kind: "text" | "int"): unknown {
  if (!isScalar(n)) return isSeq(n) ? [] : isMap(n) ? {} : undefined;
  if (n.value === null) return undefined;
  if (kind === "text") return scalarText(n);
  if (typeof n.value === "number" && n.source !== undefined && DECIMAL.test(n.source)) {
    return Number(n.source);
  }
  return n.value;
}

function value(n: unknown, kind: Kind): unknown {
  switch (kind) {
    case "bound":
      if (!isMap(n)) return scalar(n, "int");
      // usage totals by key: {tokens: 2000000, cost_usd: 5}
      return byKey(n, (k, v) =>
        k === "usage" && isMap(v)
          ? byKey(v, (_, u) => scalar(u, "int"))
          : scalar(v, k === "duration" ? "text" : "int"),
      );
    case "textMap":
      return isMap(n) ? byKey(n, (_, v) => scalar(v, "text")) : scalar(n, "text");
    default:
      return scalar(n, NUMBER_KINDS.has(kind) ? "int" : "text");
  }
}

/** A mapping as a record: each value read by `read`, under its key's text. */
function byKey(
  map: YAMLMap<unknown, unknown>,
  read: (key: string, value: unknown) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of map.items) {
    const k = isScalar(pair.key) ? scalarText(pair.key) : "";
    out[k] = read(k, pair.value);
  }
  return out;
}
