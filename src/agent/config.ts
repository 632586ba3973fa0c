/**
 * Which model the built-in agent asks, where, and with which key — decided once, from the
 * command line (or the action's inputs), the ticket's `model:`, frontier.yml and the
 * defaults. Pure: the environment is passed in.
 *
 *   model     the ticket's `model:`, else --model, else frontier.yml `model`, else the
 *             default (GitHub Models only: another endpoint has no model we could guess)
 *   endpoint  --endpoint, else frontier.yml `model_endpoint`, else GitHub Models
 *   key       the variable --key-env names, else frontier.yml `model_key_env`, else
 *             GITHUB_TOKEN for GitHub Models and OPENAI_API_KEY for any other endpoint
 */
import { ENDPOINT_URL, ENV_NAME, MODEL_NAME } from "../core/constants.js";
import type { Settings } from "../core/model.js";

/** GitHub Models' OpenAI-compatible API: the job's GITHUB_TOKEN is its key. */
export const GITHUB_MODELS = "https://models.github.ai/inference";

/**
 * The default model on GitHub Models: in the catalog's low tier (the most free requests a
 * day), it answers with a JSON schema (structured outputs), and it is quick and cheap.
 */
export const DEFAULT_MODEL = "openai/gpt-4.1-mini";

/**
 * Tests only: the URL GitHub Models is served at (a fake on 127.0.0.1), so the default
 * endpoint's own path — its key, its refusals' advice — is what the tests run.
 */
export const TEST_MODELS_URL = "FRONTIER_TEST_MODELS_URL";

/** What the user asked for on the command line or in the action's inputs. */
export interface AgentFlags {
  model?: string;
  endpoint?: string;
  keyEnv?: string;
}

export interface AgentSources {
  flags: AgentFlags;
  /** the ticket's `model:` */
  ticketModel?: string;
  /** frontier.yml's `model`, `model_endpoint`, `model_key_env` */
  settings: Pick<Settings, "model" | "model_endpoint" | "model_key_env">;
  env: Readonly<Record<string, string | undefined>>;
}

export interface AgentConfig {
  /** the base URL, without a trailing slash */
  endpoint: string;
  /** where the request goes: `<endpoint>/chat/completions` */
  url: string;
  /** the endpoint is GitHub Models (its refusals get GitHub's advice) */
  githubModels: boolean;
  model: string;
  /** where the model's name came from, for the log line */
  modelFrom: "the ticket" | "--model" | "frontier.yml" | "the default";
  keyEnv: string;
  key: string;
}

export type ResolvedConfig = { kind: "ok"; config: AgentConfig } | { kind: "bad"; reason: string };

/** A flag's value, checked: undefined when it is fine, else what is wrong with it. */
export function flagProblem(flags: AgentFlags): string | undefined {
  if (flags.model !== undefined && !MODEL_NAME.test(flags.model))
    return `--model ${JSON.stringify(flags.model)} is not a model's name (no spaces), e.g. --model ${DEFAULT_MODEL}`;
  if (flags.endpoint !== undefined && !ENDPOINT_URL.test(flags.endpoint))
    return `--endpoint ${JSON.stringify(flags.endpoint)} is not the http(s) base URL of an OpenAI-compatible API, e.g. --endpoint https://api.openai.com/v1`;
  if (flags.keyEnv !== undefined && !ENV_NAME.test(flags.keyEnv))
    return `--key-env ${JSON.stringify(flags.keyEnv)} is not the name of an environment variable, e.g. --key-env OPENAI_API_KEY`;
  return undefined;
}

export function resolveConfig(s: AgentSources): ResolvedConfig {
  const bad = flagProblem(s.flags);
  if (bad !== undefined) return { kind: "bad", reason: bad };
  const bare = (url: string) => url.replace(/\/+$/, "");
  const endpoint = bare(s.flags.endpoint ?? s.settings.model_endpoint ?? GITHUB_MODELS);
  // GitHub Models, also its organization-attributed endpoints (/orgs/ORG/inference)
  const githubModels = /^https:\/\/models\.github\.ai\//.test(`${endpoint}/`);
  const testUrl = s.env[TEST_MODELS_URL];
  const served = endpoint === GITHUB_MODELS && testUrl ? bare(testUrl) : endpoint;

  let model: string | undefined;
  let modelFrom: AgentConfig["modelFrom"] = "the default";
  if (s.ticketModel !== undefined) [model, modelFrom] = [s.ticketModel, "the ticket"];
  else if (s.flags.model !== undefined) [model, modelFrom] = [s.flags.model, "--model"];
  else if (s.settings.model !== undefined) [model, modelFrom] = [s.settings.model, "frontier.yml"];
  else if (githubModels) model = DEFAULT_MODEL;
  if (model === undefined) {
    return {
      kind: "bad",
      reason: `no model named for ${endpoint}: name one with --model, \`model:\` in frontier.yml or \`model:\` in the ticket (only GitHub Models has a default, ${DEFAULT_MODEL})`,
    };
  }

  const keyEnv =
    s.flags.keyEnv ??
    s.settings.model_key_env ??
    (githubModels ? "GITHUB_TOKEN" : "OPENAI_API_KEY");
  const key = s.env[keyEnv] ?? "";
  if (key.trim() === "") {
    return {
      kind: "bad",
      reason:
        githubModels && keyEnv === "GITHUB_TOKEN"
          ? "no key for GitHub Models: $GITHUB_TOKEN is empty — on GitHub the agent step uses the job's token (keep `permissions: models: read` in the orch-task workflow); locally export a token that may use GitHub Models, e.g. `export GITHUB_TOKEN=$(gh auth token)`"
          : `no key for ${endpoint}: $${keyEnv} is empty — set it to the endpoint's API key, or name the variable that holds it with --key-env (or model_key_env in frontier.yml)`,
    };
  }
  return {
    kind: "ok",
    config: {
      endpoint,
      url: `${served}/chat/completions`,
      githubModels,
      model,
      modelFrom,
      keyEnv,
      key: key.trim(),
    },
  };
}
