/**
 * Run settings from the optional `frontier.yml` beside the tickets. Read with the
 * same care as a ticket's front matter: text stays as written, numbers are decimal,
 * every error names the line and the fix.
 */
import { readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { parseDuration } from "../core/bound.js";
import { closest } from "../core/checks.js";
import { Settings } from "../core/model.js";
import { describeValue, type Problem, problem, quoted } from "./problems.js";

export const SETTINGS_FILE = "frontier.yml";

type Kind = "text" | "int" | "bound" | "textMap";

const KEYS: Record<string, { kind: Kind; expect: string; example: string }> = {
  schema: { kind: "text", expect: "text", example: "schema: ticket-frontier/settings@1" },
  run: { kind: "text", expect: "the run's name", example: "run: release-review" },
  goal: { kind: "text", expect: "text", example: "goal: Ship the retry redesign" },
  max_parallel: { kind: "int", expect: "a whole number, 1 or more", example: "max_parallel: 4" },
  bound: {
    kind: "bound",
    expect: "a number of dispatches, or {dispatches, duration}",
    example: "bound: 50 (or bound: {dispatches: 50, duration: 2h})",
  },
  ticket_bound: { kind: "text", expect: "a duration or a budget", example: "ticket_bound: 30m" },
  retries: { kind: "int", expect: "a whole number, 0 or more", example: "retries: 1" },
  executor: { kind: "text", expect: "a command or workflow", example: "executor: ./run-ticket.sh" },
  executors: {
    kind: "textMap",
    expect: "a mapping of names to commands or workflows",
    example: "executors: {review: ./review.sh}",
  },
  max_tickets: { kind: "int", expect: "a whole number, 1 or more", example: "max_tickets: 20000" },
  max_file_bytes: {
    kind: "int",
    expect: "a whole number, 1 or more",
    example: "max_file_bytes: 262144",
  },
  max_result_bytes: {
    kind: "int",
    expect: "a whole number, 1 or more",
    example: "max_result_bytes: 1048576",
  },
};

export interface LoadedSettings {
  settings: Settings;
  problems: Problem[];
  warnings: Problem[];
}

/** `frontier.yml` in `dir`, if any, with `overrides` (action inputs, CLI flags) on top. */
export async function loadSettings(
  dir: string,
  overrides: Partial<Settings> = {},
): Promise<LoadedSettings> {
  let text: string | undefined;
  try {
    // join, not resolve: ncc's asset relocator rewrites readFile(resolve(dir, "…")) into a
    // path inside dist/, so the bundled action would never read the ticket directory's file.
    text = await readFile(join(dir, SETTINGS_FILE), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      return {
        settings: withOverrides({ run: defaultRunName(dir) }, overrides),
        problems: [
          problem(
            "invalid-settings",
            SETTINGS_FILE,
            undefined,
            `could not read ${SETTINGS_FILE}: ${(e as Error).message}`,
            "make the file readable, or remove it",
          ),
        ],
        warnings: [],
      };
    }
  }
  const parsed =
    text === undefined ? { settings: {}, problems: [], warnings: [] } : parseSettings(text);
  const base: Settings = { run: defaultRunName(dir), ...parsed.settings };
  return {
    settings: withOverrides(base, overrides),
    problems: parsed.problems,
    warnings: parsed.warnings,
  };
}

/** The run name when none is set: the ticket directory's name. */
export function defaultRunName(dir: string): string {
  return basename(resolve(dir)) || "frontier";
}

function withOverrides(base: Settings, overrides: Partial<Settings>): Settings {
  const out: Settings = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** The settings a `frontier.yml` text sets (without defaults), or its problems. */
export function parseSettings(text: string): {
  settings: Partial<Settings>;
  problems: Problem[];
  warnings: Problem[];
} {
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
            `${file} is not valid YAML: ${(err.message.split("\n", 1)[0] ?? "").replace(/ at line \d+, column \d+:?$/, "")}`,
            "fix the YAML (quote text that contains : or #)",
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
    const info = KEYS[name];
    if (info === undefined) {
      const near = closest(name, Object.keys(KEYS));
      warnings.push(
        problem(
          "unknown-field",
          file,
          lineOf(key),
          `unknown setting ${quoted(name)}${near === undefined ? "" : ` (did you mean ${near}?)`}`,
          near === undefined ? "remove it (it is ignored)" : `rename it to ${near}`,
          "warning",
        ),
      );
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
      const info = KEYS[name];
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
  const settings = parsed.success ? (parsed.data as Partial<Settings>) : {};
  const duration = typeof settings.bound === "object" ? settings.bound.duration : undefined;
  if (duration !== undefined && !parseDuration(duration)) {
    problems.push(
      problem(
        "invalid-settings",
        file,
        lines.get("bound"),
        `bound.duration must be a duration such as 2h or 90m, got ${describeValue(duration)}`,
        "write bound: {duration: 2h}",
      ),
    );
  }
  return { settings: problems.length > 0 ? {} : settings, problems, warnings };
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
        out[k] = scalar(pair.value, k === "duration" ? "text" : "int");
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
