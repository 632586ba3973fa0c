/**
 * The settings `frontier.yml` may hold, with what each expects: shared by the quick
 * reading (settings-load.ts) and the full one (settings.ts).
 */

import type { Settings } from "../core/model.js";
import { closest } from "../core/near.js";
import { FIELDS } from "./field-table.js";
import { type Problem, problem, quoted } from "./problems.js";

export const SETTINGS_FILE = "frontier.yml";

export type SettingKind = "text" | "int" | "bound" | "textMap";

export const KEYS: Record<string, { kind: SettingKind; expect: string; example: string }> = {
  schema: { kind: "text", expect: "text", example: "schema: ticket-frontier/settings@1" },
  run: { kind: "text", expect: "the run's name", example: "run: release-review" },
  goal: { kind: "text", expect: "text", example: "goal: Ship the retry redesign" },
  max_parallel: { kind: "int", expect: "a whole number, 1 or more", example: "max_parallel: 4" },
  bound: {
    kind: "bound",
    expect: "a number of dispatches, or {dispatches, duration, usage: {KEY: total}}",
    example: "bound: 50 (or bound: {dispatches: 50, duration: 2h, usage: {tokens: 2000000}})",
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
  // as a ticket's own isolation: and model: (what they expect is one rule)
  isolation: FIELDS.isolation,
  model: FIELDS.model,
  model_endpoint: {
    kind: "text",
    expect: "the http(s) base URL of an OpenAI-compatible API, without ? or #",
    example: "model_endpoint: https://models.github.ai/inference",
  },
  model_key_env: {
    kind: "text",
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
