import "server-only";
import type { ModelsSettings } from "@/lib/model/settings";
import { defaultModel, type ProviderName } from "@/lib/model/model-list";

export type { ProviderName } from "@/lib/model/model-list";

export interface ModelSettings {
  provider: ProviderName;
  model: string;
  apiKey?: string;
  baseURL?: string;
}

/** A model of `provider` with that provider's credentials and endpoint from the configuration. */
export function providerSettings(settings: ModelsSettings, provider: ProviderName, model: string): ModelSettings {
  switch (provider) {
    case "openai":
      return { provider, model, apiKey: settings.OPENAI_API_KEY, baseURL: settings.OPENAI_BASE_URL };
    case "anthropic":
      return { provider, model, apiKey: settings.ANTHROPIC_API_KEY, baseURL: settings.ANTHROPIC_BASE_URL };
    case "openai-compatible":
      // parseEnv refuses an openai-compatible model without its base URL
      return { provider, model, apiKey: settings.OPENAI_COMPATIBLE_API_KEY, baseURL: settings.OPENAI_COMPATIBLE_BASE_URL! };
    case "offline":
      return { provider, model };
  }
}

/**
 * Which model answers by default: the first of the models on offer
 * (lib/model/model-list.ts): MODELS's first, else MODEL_PROVIDER and MODEL,
 * else the first configured credential; with none, the built-in offline
 * model runs so that the app works end to end without any key.
 */
export function modelSettings(settings: ModelsSettings): ModelSettings {
  const { provider, model } = defaultModel(settings);
  return providerSettings(settings, provider, model);
}

/** What the UI shows about the model; never includes credentials. */
export function describeModel(settings: ModelsSettings): { provider: string; model: string; offline: boolean; label: string } {
  const { provider, model } = modelSettings(settings);
  const offline = provider === "offline";
  return { provider, model, offline, label: offline ? "Offline demo model" : `${model} (${provider})` };
}
