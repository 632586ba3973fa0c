/**
 * Loading `frontier.yml`: the settings it may hold, and a quick reading of the plain
 * files most directories have — `name: value` lines of well-typed values — without the
 * YAML parser or zod. Anything else (lists, mappings, a wrong type, broken YAML) is
 * read by parseSettings (settings.ts), which the quick reading is proved to agree with.
 */
import { basename, join, resolve } from "node:path";
import { errorText } from "../core/errors.js";
import type { Settings } from "../core/model.js";
import { fastScalarMap } from "./fast.js";
import { DECIMAL } from "./integers.js";
import { boundProblems, type Problem, problem } from "./problems.js";
import { readOptional } from "./read-optional.js";
import {
  KEYS,
  KINDS,
  NUMBER_KINDS,
  type ParsedSettings,
  SETTINGS_FILE,
  unknownSetting,
} from "./setting-keys.js";

/** The settings with their defaults, and what frontier.yml's reading found. */
type LoadedSettings = ParsedSettings & { settings: Settings };

/** `frontier.yml` in `dir`, if any, with the defaults. */
export async function loadSettings(
  dir: string,
  /** frontier.yml's text in memory (undefined: there is none), read instead of the disk */
  inMemory?: { text: string | undefined },
): Promise<LoadedSettings> {
  let text: string | undefined = inMemory?.text;
  let parsed: ParsedSettings = { settings: {}, problems: [], warnings: [] };
  if (!inMemory) {
    // join, not resolve: ncc's asset relocator rewrites readFile(resolve(dir, "…")) into a
    // path inside dist/, so the bundled action would never read the ticket directory's file.
    text = await readOptional(join(dir, SETTINGS_FILE)).catch((e: unknown) => {
      const why = `could not read ${SETTINGS_FILE}: ${errorText(e)}`;
      const fix = "make the file readable, or remove it";
      parsed.problems.push(problem("invalid-settings", SETTINGS_FILE, undefined, why, fix));
      return undefined;
    });
  }
  if (text !== undefined)
    parsed = parseSettingsQuick(text) ?? (await import("./settings.js")).parseSettings(text);
  return { ...parsed, settings: { run: defaultRunName(dir), ...parsed.settings } };
}

/** The run name when none is set: the ticket directory's name. */
export function defaultRunName(dir: string): string {
  return basename(resolve(dir)) || "frontier";
}

/**
 * Whether every setting is of its type with nothing to say about it — only when zod's
 * check (`Settings.partial()`, settings.ts) succeeds and gives the values back as they
 * are (proved by property tests).
 */
export function settingsWellTyped(values: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(values).every(
    ([name, v]) => v === undefined || !Object.hasOwn(KEYS, name) || KINDS[KEYS[name]!.kind](v),
  );
}

/**
 * frontier.yml when it is `name: value` lines of well-typed values, read as
 * parseSettings reads it; undefined when parseSettings must read it.
 */
export function parseSettingsQuick(text: string): ParsedSettings | undefined {
  const pairs = fastScalarMap(text);
  if (pairs === undefined) return undefined;
  const values: Record<string, unknown> = {};
  const warnings: Problem[] = [];
  for (const { key, line, value } of pairs) {
    if (!Object.hasOwn(KEYS, key)) {
      warnings.push(unknownSetting(key, line));
      continue;
    }
    if (value === null) continue;
    if (NUMBER_KINDS.has(KEYS[key]!.kind) && value.plain) {
      // a number other than a decimal one (0x1F, 1e3, 1.5) is the YAML parser's to read
      if (!DECIMAL.test(value.text)) return undefined;
      values[key] = Number(value.text);
    } else {
      values[key] = value.text;
    }
  }
  if (!settingsWellTyped(values)) return undefined;
  // as zod gives them back: the settings set, in the schema's order
  const settings = Object.fromEntries(
    Object.keys(KEYS).flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])),
  );
  const ticketBound = settings.ticket_bound;
  if (typeof ticketBound === "string") {
    const line = pairs.find((p) => p.key === "ticket_bound")?.line;
    const checked = boundProblems("ticket_bound", ticketBound, SETTINGS_FILE, line);
    // a bound refused (zero, past the longest) is parseSettings's to say
    if (checked.problem !== undefined) return undefined;
    if (checked.warning !== undefined) warnings.push(checked.warning);
  }
  return { settings: settings as Partial<Settings>, problems: [], warnings };
}
