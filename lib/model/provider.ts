import "server-only";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelsSettings } from "@/lib/model/settings";
import { defaultModel, parseModelList, parseUtilityModel } from "@/lib/model/model-list";
import { providerSettings, type ModelSettings } from "./config";
import { createOfflineModel } from "./offline-model";

export function languageModelFor(settings: ModelSettings): LanguageModel {
  switch (settings.provider) {
    case "openai":
      return createOpenAI({ apiKey: settings.apiKey, baseURL: settings.baseURL })(settings.model);
    case "anthropic":
      return createAnthropic({ apiKey: settings.apiKey, baseURL: settings.baseURL })(settings.model);
    case "openai-compatible":
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: settings.baseURL!,
        apiKey: settings.apiKey,
        includeUsage: true,
      })(settings.model);
    case "offline":
      return createOfflineModel(settings.model);
  }
}


/** The models the agents answer with: the default, the others on offer by id, and the one titles and summaries use. */
export interface AnsweringModels {
  model: LanguageModel;
  /** The default's id, `provider:model`. */
  modelId: string;
  models: ReadonlyMap<string, LanguageModel>;
  /** UTILITY_MODEL's; unset: each thread's own. */
  utilityModel?: LanguageModel;
  utilityModelId?: string;
}

/** The configuration's models, each built once. */
export function answeringModels(settings: ModelsSettings): AnsweringModels {
  const models = offeredLanguageModels(settings);
  const { provider, model } = defaultModel(settings);
  const modelId = `${provider}:${model}`;
  const utility = parseUtilityModel(settings);
  const utilityModelId = utility && !("error" in utility) ? `${utility.provider}:${utility.model}` : undefined;
  return { model: models.get(modelId)!, modelId, models, utilityModel: utilityLanguageModel(settings), utilityModelId };
}

/** The configured models by id (`provider:model`), each built once: the ones on offer. */
function offeredLanguageModels(settings: ModelsSettings): Map<string, LanguageModel> {
  const parsed = parseModelList(settings);
  // parseEnv refuses a bad MODELS at start; this reads a checked configuration.
  if ("error" in parsed) throw new Error(parsed.error);
  return new Map(parsed.models.map(({ id, provider, model }) => [id, languageModelFor(providerSettings(settings, provider, model))]));
}

/** UTILITY_MODEL's model, or undefined when unset (each thread's own model writes its titles and summaries). */
function utilityLanguageModel(settings: ModelsSettings): LanguageModel | undefined {
  const parsed = parseUtilityModel(settings);
  if (parsed === undefined) return undefined;
  if ("error" in parsed) throw new Error(parsed.error);
  return languageModelFor(providerSettings(settings, parsed.provider, parsed.model));
}
