import "server-only";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { Env } from "@/lib/env";
import { modelSettings, type ModelSettings } from "./config";
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

/** The model the configuration names. */
export function configuredLanguageModel(settings: Env): LanguageModel {
  return languageModelFor(modelSettings(settings));
}
