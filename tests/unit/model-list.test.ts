import { describe, expect, it } from "vitest";
import { capabilitiesOf, modelOptions, parseModelList, type ModelListSettings } from "@/lib/model/model-list";

// The models an operator offers: MODELS parsed, its first the default, each
// with what it can take; unset, what the credentials allow; a bad MODELS
// refused in one line that says what is wrong.

const keys: ModelListSettings = { OPENAI_API_KEY: "sk-1", ANTHROPIC_API_KEY: "sk-ant-1", OPENAI_COMPATIBLE_BASE_URL: "http://localhost:11434/v1" };
const models = (settings: ModelListSettings) => {
  const parsed = parseModelList(settings);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed.models;
};
const errorOf = (settings: ModelListSettings) => {
  const parsed = parseModelList(settings);
  return "error" in parsed ? parsed.error : undefined;
};

describe("MODELS", () => {
  it("lists the models in order, the first the default, a label after '=', a model id with colons kept whole", () => {
    const list = models({ ...keys, MODELS: " openai:gpt-4.1-mini , anthropic:claude-haiku-4-5,openai-compatible:llama3.2:3b=Llama 3.2 (local)" });
    expect(list.map((m) => [m.id, m.label, m.default])).toEqual([
      ["openai:gpt-4.1-mini", "gpt-4.1-mini", true],
      ["anthropic:claude-haiku-4-5", "claude-haiku-4-5", false],
      ["openai-compatible:llama3.2:3b", "Llama 3.2 (local)", false],
    ]);
    expect(list[2]).toMatchObject({ provider: "openai-compatible", model: "llama3.2:3b" });
  });

  it("offers the offline model with no key at all", () => {
    expect(models({ MODELS: "offline:threadline-offline" })).toEqual([
      expect.objectContaining({ id: "offline:threadline-offline", label: "Offline demo model", default: true }),
    ]);
  });

  it.each([
    [{ ...keys, MODELS: "gpt-4.1-mini" }, 'MODELS entry "gpt-4.1-mini" must start with a provider (openai, anthropic, openai-compatible, offline) and a colon, as openai:gpt-4.1-mini.'],
    [{ ...keys, MODELS: "mistral:large" }, 'MODELS entry "mistral:large" must start with a provider (openai, anthropic, openai-compatible, offline) and a colon, as openai:gpt-4.1-mini.'],
    [{ ...keys, MODELS: "openai:gpt-4.1,,anthropic:claude-haiku-4-5" }, "MODELS has an empty entry (number 2): give provider:model, comma-separated."],
    [{ ...keys, MODELS: "openai: =GPT" }, 'MODELS entry "openai: =GPT" names no model.'],
    [{ ...keys, MODELS: "openai:gpt-4.1=" }, `MODELS entry "openai:gpt-4.1=" has a label that is empty or over 60 characters.`],
    [{ ...keys, MODELS: "openai:gpt-4.1,openai:gpt-4.1=Again" }, "MODELS lists openai:gpt-4.1 twice."],
    [{ OPENAI_API_KEY: "sk-1", MODELS: "openai:gpt-4.1,anthropic:claude-haiku-4-5" }, "MODELS lists anthropic:claude-haiku-4-5, which needs ANTHROPIC_API_KEY."],
    [{ MODELS: "openai-compatible:llama3.2" }, "MODELS lists openai-compatible:llama3.2, which needs OPENAI_COMPATIBLE_BASE_URL."],
    [{ ...keys, MODELS: "openai:gpt-4.1", MODEL: "gpt-4o" }, "MODELS names the models on offer and its first is the default: set it or MODEL_PROVIDER and MODEL, not both."],
    [{ ...keys, MODELS: Array.from({ length: 51 }, (_, i) => `openai:m${i}`).join(",") }, "MODELS lists 51 models; at most 50."],
  ])("refuses %j in one line: %s", (settings, error) => {
    expect(errorOf(settings)).toBe(error);
  });
});

describe("the models without MODELS", () => {
  it("is the offline model when no credential is set", () => {
    expect(models({}).map((m) => m.id)).toEqual(["offline:threadline-offline"]);
  });

  it("is the model MODEL_PROVIDER and MODEL name, then each other configured provider's default", () => {
    expect(models({ ...keys, MODEL_PROVIDER: "anthropic", MODEL: "claude-sonnet-4-5" }).map((m) => [m.id, m.default])).toEqual([
      ["anthropic:claude-sonnet-4-5", true],
      ["openai:gpt-4.1-mini", false],
      ["openai-compatible:llama3.2", false],
    ]);
  });

  it("is led by the first credential, as the model that answers has been", () => {
    expect(models({ OPENAI_API_KEY: "sk-1", ANTHROPIC_API_KEY: "sk-ant-1" }).map((m) => m.id)).toEqual(["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"]);
  });
});

describe("what a model can take", () => {
  it.each([
    ["openai", "gpt-4.1-mini", { tools: true, images: true, reasoning: false }],
    ["openai", "o4-mini", { tools: true, images: true, reasoning: true }],
    ["openai", "gpt-3.5-turbo", { tools: true, images: false, reasoning: false }],
    ["anthropic", "claude-haiku-4-5", { tools: true, images: true, reasoning: true }],
    ["anthropic", "claude-3-5-haiku-latest", { tools: true, images: true, reasoning: false }],
    ["openai-compatible", "llama3.2", { tools: true, images: false, reasoning: false }],
    ["offline", "threadline-offline", { tools: true, images: false, reasoning: true }],
  ] as const)("%s:%s", (provider, model, capabilities) => {
    expect(capabilitiesOf(provider, model)).toEqual(capabilities);
  });

  it("is told to the page without the provider's own fields", () => {
    expect(modelOptions({ ...keys, MODELS: "openai:gpt-4.1-mini=GPT-4.1 mini" })).toEqual([
      { id: "openai:gpt-4.1-mini", label: "GPT-4.1 mini", provider: "openai", default: true, capabilities: { tools: true, images: true, reasoning: false } },
    ]);
  });
});
