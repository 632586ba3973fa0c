/**
 * The settings `frontier.yml` may hold, with what each expects: shared by the quick
 * reading (settings-load.ts) and the full one (settings.ts).
 */

import { ENDPOINT_URL, ENV_NAME, ISOLATIONS, MODEL_NAME } from "../core/constants.js";
import type { Settings } from "../core/model.js";
import { closest } from "../core/near.js";
import { FIELDS } from "./field-table.js";
import { type Problem, problem, quoted } from "./problems.js";

export const SETTINGS_FILE = "frontier.yml";

const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const shaped = (shape: RegExp) => (v: unknown) => typeof v === "string" && shape.test(v);

/**
 * What a setting holds, with its quick check (settings-load.ts `settingsWellTyped`, proved
 * to agree with zod's `Settings`): text (of a shape, for some), a whole number 1 or more or
 * 0 or more, the run's bound (a number; its mapping is left to zod), a mapping of texts.
 */
export const KINDS = {
  text: (v: unknown) => typeof v === "string",
  isolation: (v: unknown) => (ISOLATIONS as readonly unknown[]).includes(v),
  model: shaped(MODEL_NAME),
  endpoint: shaped(ENDPOINT_URL),
  envName: shaped(ENV_NAME),
  positive: (v: unknown) => count(v) && (v as number) > 0,
  count,
  bound: count,
  textMap: () => false,
};
export type SettingKind = keyof typeof KINDS;

/** The kinds a plain number is read for (the rest read a scalar as its text). */
export const NUMBER_KINDS: ReadonlySet<SettingKind> = new Set(["positive", "count", "bound"]);

const POSITIVE = { kind: "positive", expect: "a whole number, 1 or more" } as const;

export const KEYS: Record<string, { kind: SettingKind; expect: string; example: string }> = {
  schema: { kind: "text", expect: "text", example: "schema: ticket-frontier/settings@1" },
  run: { kind: "text", expect: "the run's name", example: "run: release-review" },
  goal: { kind: "text", expect: "text", example: "goal: Ship the retry redesign" },
  max_parallel: { ...POSITIVE, example: "max_parallel: 4" },
  bound: {
    kind: "bound",
    expect: "a number of dispatches, or {dispatches, duration, usage: {KEY: total}}",
    example: "bound: 50 (or bound: {dispatches: 50, duration: 2h, usage: {tokens: 2000000}})",
  },
  ticket_bound: { kind: "text", expect: "a duration or a budget", example: "ticket_bound: 30m" },
  retries: { ...FIELDS.retries, kind: "count", example: "retries: 1" },
  executor: { kind: "text", expect: "a command or workflow", example: "executor: ./run-ticket.sh" },
  executors: {
    kind: "textMap",
    expect: "a mapping of names to commands or workflows",
    example: "executors: {review: ./review.sh}",
  },
  max_tickets: { ...POSITIVE, example: "max_tickets: 20000" },
  max_file_bytes: { ...POSITIVE, example: "max_file_bytes: 262144" },
  max_result_bytes: { ...POSITIVE, example: "max_result_bytes: 1048576" },
  // as a ticket's own isolation: and model: (what they expect is one rule)
  isolation: { ...FIELDS.isolation, kind: "isolation" },
  model: { ...FIELDS.model, kind: "model" },
  model_endpoint: {
    kind: "endpoint",
    expect: "the http(s) base URL of an OpenAI-compatible API, without ? or #",
    example: "model_endpoint: https://models.github.ai/inference",
  },
  model_key_env: {
    kind: "envName",
    expect: "the name of an environment variable",
    example: "model_key_env: OPENAI_API_KEY",
  },
};

export interface ParsedSettings {
  settings: Partial<Settings>;
  problems: Problem[];
  warnings: Problem[];
}

/** The warning for a name that is not a setting, with a near miss when there is one. */
export function unknownSetting(name: string, line: number | undefined): Problem {
  const near = closest(name, Object.keys(KEYS));
  return problem(
    "unknown-field",
    SETTINGS_FILE,
    line,
    `unknown setting ${quoted(name)}${near === undefined ? "" : ` (did you mean ${near}?)`}`,
    near === undefined ? "remove it (it is ignored)" : `rename it to ${near}`,
    "warning",
  );
}
