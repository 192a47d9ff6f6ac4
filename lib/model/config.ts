import "server-only";
import type { Env } from "@/lib/env";

export type ProviderName = "openai" | "anthropic" | "openai-compatible" | "offline";

export interface ModelSettings {
  provider: ProviderName;
  model: string;
  apiKey?: string;
  baseURL?: string;
}

const DEFAULT_MODELS: Record<ProviderName, string> = {
  openai: "gpt-4.1-mini",
  anthropic: "claude-haiku-4-5",
  "openai-compatible": "llama3.2",
  offline: "threadline-offline",
};

/**
 * Which model answers. MODEL_PROVIDER wins when set; otherwise the first
 * configured credential decides; with none, the built-in offline model runs
 * so that the app works end to end without any key.
 */
export function modelSettings(settings: Env): ModelSettings {
  const provider: ProviderName =
    settings.MODEL_PROVIDER ??
    (settings.OPENAI_COMPATIBLE_BASE_URL
      ? "openai-compatible"
      : settings.OPENAI_API_KEY
        ? "openai"
        : settings.ANTHROPIC_API_KEY
          ? "anthropic"
          : "offline");
  const model = settings.MODEL || DEFAULT_MODELS[provider];
  switch (provider) {
    case "openai":
      return { provider, model, apiKey: settings.OPENAI_API_KEY, baseURL: settings.OPENAI_BASE_URL };
    case "anthropic":
      return { provider, model, apiKey: settings.ANTHROPIC_API_KEY, baseURL: settings.ANTHROPIC_BASE_URL };
    case "openai-compatible":
      // parseEnv refuses openai-compatible without its base URL
      return { provider, model, apiKey: settings.OPENAI_COMPATIBLE_API_KEY, baseURL: settings.OPENAI_COMPATIBLE_BASE_URL! };
    case "offline":
      return { provider, model };
  }
}

/** What the UI shows about the model; never includes credentials. */
export function describeModel(settings: Env): { provider: string; model: string; offline: boolean; label: string } {
  const { provider, model } = modelSettings(settings);
  const offline = provider === "offline";
  return { provider, model, offline, label: offline ? "Offline demo model" : `${model} (${provider})` };
}
