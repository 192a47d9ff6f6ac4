import { describe, expect, it } from "vitest";
import { initialModel, modelLabel } from "@/lib/client/model-choice";
import type { ModelOption } from "@/lib/protocol/models";

const option = (id: string, label: string, isDefault = false): ModelOption => ({
  id,
  label,
  provider: "openai",
  default: isDefault,
  capabilities: { tools: true, images: false, reasoning: false },
});
const models = [option("openai:gpt-4.1-mini", "GPT-4.1 mini", true), option("openai:o3", "o3")];

describe("the model the picker starts from", () => {
  it("is the thread's own model while it is on offer", () => {
    expect(initialModel(models, "openai:o3", "openai:gpt-4.1-mini")).toEqual({ id: "openai:o3" });
  });

  it("is the default, with a notice, when the thread's model is no longer offered", () => {
    expect(initialModel(models, "anthropic:claude-haiku-4-5", "openai:o3")).toEqual({
      id: "openai:gpt-4.1-mini",
      notice: "anthropic:claude-haiku-4-5 is no longer offered here: replies now come from GPT-4.1 mini.",
    });
  });

  it("is the last choice for a thread with no model yet, while it is on offer; else the default", () => {
    expect(initialModel(models, null, "openai:o3")).toEqual({ id: "openai:o3" });
    expect(initialModel(models, null, "openai:gone")).toEqual({ id: "openai:gpt-4.1-mini" });
    expect(initialModel(models, undefined, null)).toEqual({ id: "openai:gpt-4.1-mini" });
  });

  it("is nothing when nothing is on offer", () => {
    expect(initialModel([], "openai:o3", null)).toBeUndefined();
  });

  it("labels a model by its label, and one no longer offered by its id", () => {
    expect(modelLabel(models, "openai:o3")).toBe("o3");
    expect(modelLabel(models, "openai:gone")).toBe("openai:gone");
  });
});
