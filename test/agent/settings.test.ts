/**
 * The built-in agent's settings — `model`, `model_endpoint`, `model_key_env` in frontier.yml
 * and a ticket's `model:` — are checked like every other field: a wrong one is a problem
 * with its file, line and fix, and starts nothing.
 */
import { describe, expect, it } from "vitest";
import { parseTicket } from "../../src/tickets/parse.js";
import { parseSettings } from "../../src/tickets/settings.js";
import { parseSettingsQuick } from "../../src/tickets/settings-load.js";

describe("frontier.yml: the agent's model, endpoint and key variable", () => {
  it("takes them as written, on the quick path too", () => {
    const text =
      "run: r\nmodel: openai/gpt-4.1\nmodel_endpoint: https://api.openai.com/v1\nmodel_key_env: OPENAI_API_KEY\n";
    const full = parseSettings(text);
    expect(full.problems).toEqual([]);
    expect(full.settings).toMatchObject({
      model: "openai/gpt-4.1",
      model_endpoint: "https://api.openai.com/v1",
      model_key_env: "OPENAI_API_KEY",
    });
    expect(parseSettingsQuick(text)).toStrictEqual(full);
  });

  it("a wrong one is a problem naming its line and what to write", () => {
    const { problems, settings } = parseSettings(
      "run: r\nmodel: gpt 4\nmodel_endpoint: models.github.ai\nmodel_key_env: my-key\n",
    );
    expect(problems.map((p) => [p.line, p.message, p.fix])).toEqual([
      [
        2,
        'model must be a model\'s name, without spaces, got "gpt 4"',
        "write model: openai/gpt-4.1-mini",
      ],
      [
        3,
        'model_endpoint must be the http(s) base URL of an OpenAI-compatible API, without ? or #, got "models.github.ai"',
        "write model_endpoint: https://models.github.ai/inference",
      ],
      [
        4,
        'model_key_env must be the name of an environment variable, got "my-key"',
        "write model_key_env: OPENAI_API_KEY",
      ],
    ]);
    expect(settings).toEqual({ run: "r" });
    expect(parseSettingsQuick("model: gpt 4\n")).toBeUndefined();
  });

  it("a near miss is a warning naming the setting meant", () => {
    expect(parseSettings("modle: x\n").warnings[0]?.message).toMatch(/did you mean model\?/);
  });
});

describe("a ticket's model:", () => {
  it("is the spec's model", () => {
    const parsed = parseTicket("---\nmodel: openai/gpt-4.1\n---\n# T\n", "t.md", 0);
    expect(parsed.kind === "ok" && parsed.spec.model).toBe("openai/gpt-4.1");
  });

  it("one that is not a model's name is a wrong-type problem at its line", () => {
    for (const text of [
      "---\ntitle: T\nmodel: gpt 4\n---\n",
      "---\ntitle: T\nmodel: [a, b]\n---\n",
    ]) {
      const parsed = parseTicket(text, "t.md", 0);
      expect(parsed.kind, text).toBe("invalid");
      if (parsed.kind !== "invalid") continue;
      expect(parsed.problems).toMatchObject([
        {
          kind: "wrong-type",
          file: "t.md",
          line: 3,
          message: expect.stringMatching(/^model must be a model's name, without spaces, got/),
          fix: "write model: openai/gpt-4.1-mini",
        },
      ]);
    }
  });
});
