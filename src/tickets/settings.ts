/**
 * Run settings from the optional `frontier.yml` beside the tickets. Read with the
 * same care as a ticket's front matter: text stays as written, numbers are decimal,
 * every error names the line and the fix.
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { Settings } from "../core/model.js";
import { boundProblems, describeValue, type Problem, problem } from "./problems.js";
import {
  KEYS,
  type SettingKind as Kind,
  type ParsedSettings,
  SETTINGS_FILE,
  unknownSetting,
} from "./setting-keys.js";
import { yamlErrorText, yamlFixText } from "./yaml-errors.js";

/** The settings a `frontier.yml` text sets (without defaults), or its problems. */
export function parseSettings(text: string): ParsedSettings {
  const file = SETTINGS_FILE;
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, version: "1.2", prettyErrors: true });
  if (doc.errors.length > 0) {
    return {
      settings: {},
      problems: doc.errors
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
      warnings: [],
    };
  }
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    return { settings: {}, problems: [], warnings: [] };
  }
  const lineOf = (n: unknown) =>
    (n as Node | null)?.range ? lc.linePos((n as Node).range![0]).line : undefined;
  if (!isMap(contents)) {
    return {
      settings: {},
      problems: [
        problem(
          "invalid-settings",
          file,
          lineOf(contents),
          `${file} must be settings (name: value lines)`,
          "write one setting per line, e.g. max_parallel: 4",
        ),
      ],
      warnings: [],
    };
  }
  const values: Record<string, unknown> = {};
  const lines = new Map<string, number | undefined>();
  const warnings: Problem[] = [];
  for (const pair of contents.items) {
    const key = pair.key;
    const name = isScalar(key) ? text_(key) : "";
    const info = Object.hasOwn(KEYS, name) ? KEYS[name] : undefined;
    if (info === undefined) {
      warnings.push(unknownSetting(name, lineOf(key)));
      continue;
    }
    lines.set(name, lineOf(pair.value) ?? lineOf(key));
    const v = value(pair.value, info.kind);
    if (v !== undefined) values[name] = v;
  }
  const parsed = Settings.partial().safeParse(values);
  const problems: Problem[] = [];
  if (!parsed.success) {
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0] ?? "");
      if (seen.has(name)) continue;
      seen.add(name);
      const info = Object.hasOwn(KEYS, name) ? KEYS[name] : undefined;
      if (info === undefined) continue;
      problems.push(
        problem(
          "invalid-settings",
          file,
          lines.get(name),
          `${name} must be ${info.expect}, got ${describeValue(values[name])}`,
          `write ${info.example}`,
        ),
      );
    }
  }
  // the settings that are right still count (max_file_bytes, max_tickets): one wrong
  // setting must not hide what the others would find in the tickets
  let settings: Partial<Settings> = {};
  if (parsed.success) settings = parsed.data as Partial<Settings>;
  else {
    const bad = new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? "")));
    const rest = Settings.partial().safeParse(
      Object.fromEntries(Object.entries(values).filter(([name]) => !bad.has(name))),
    );
    if (rest.success) settings = rest.data as Partial<Settings>;
  }
  const duration = typeof settings.bound === "object" ? settings.bound.duration : undefined;
  const checks = [
    ["bound.duration", duration, "bound"],
    ["ticket_bound", settings.ticket_bound, "ticket_bound"],
  ] as const;
  for (const [field, text, key] of checks) {
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

function text_(n: { value: unknown; source?: string }): string {
  if (typeof n.value === "string") return n.value;
  return n.source ?? String(n.value);
}

function scalar(n: unknown, kind: "text" | "int"): unknown {
  if (!isScalar(n)) return isSeq(n) ? [] : isMap(n) ? {} : undefined;
  if (n.value === null) return undefined;
  if (kind === "text") return text_(n);
  if (typeof n.value === "number" && n.source !== undefined && /^[-+]?[0-9]+$/.test(n.source)) {
    return Number(n.source);
  }
  return n.value;
}

function value(n: unknown, kind: Kind): unknown {
  switch (kind) {
    case "text":
    case "int":
      return scalar(n, kind);
    case "bound": {
      if (!isMap(n)) return scalar(n, "int");
      const out: Record<string, unknown> = {};
      for (const pair of n.items) {
        const k = isScalar(pair.key) ? text_(pair.key) : "";
        if (k === "usage" && isMap(pair.value)) {
          // usage totals by key: {tokens: 2000000, cost_usd: 5}
          const usage: Record<string, unknown> = {};
          for (const u of pair.value.items) {
            usage[isScalar(u.key) ? text_(u.key) : ""] = scalar(u.value, "int");
          }
          out[k] = usage;
        } else out[k] = scalar(pair.value, k === "duration" ? "text" : "int");
      }
      return out;
    }
    case "textMap": {
      if (!isMap(n)) return scalar(n, "text");
      const out: Record<string, unknown> = {};
      for (const pair of n.items) {
        const k = isScalar(pair.key) ? text_(pair.key) : "";
        out[k] = scalar(pair.value, "text");
      }
      return out;
    }
  }
}
