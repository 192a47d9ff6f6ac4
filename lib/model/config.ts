import "server-only";
import { AppError } from "@/lib/errors";

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

const PROVIDERS = Object.keys(DEFAULT_MODELS) as ProviderName[];

/**
 * Which model answers. MODEL_PROVIDER wins when set; otherwise the first
 * configured credential decides; with none, the built-in offline model runs
 * so that the app works end to end without any key.
 */
export function modelSettings(env: NodeJS.ProcessEnv = process.env): ModelSettings {
  const explicit = env.MODEL_PROVIDER?.trim();
  if (explicit && !PROVIDERS.includes(explicit as ProviderName)) {
    throw new AppError(
      "internal:config",
      `MODEL_PROVIDER must be one of ${PROVIDERS.join(", ")} (got "${explicit}").`,
    );
  }
  const provider: ProviderName =
    (explicit as ProviderName | undefined) ??
    (env.OPENAI_COMPATIBLE_BASE_URL
      ? "openai-compatible"
      : env.OPENAI_API_KEY
        ? "openai"
        : env.ANTHROPIC_API_KEY
          ? "anthropic"
          : "offline");
  const model = env.MODEL?.trim() || DEFAULT_MODELS[provider];
  switch (provider) {
    case "openai":
      return { provider, model, apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL || undefined };
    case "anthropic":
      return { provider, model, apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL || undefined };
    case "openai-compatible":
      if (!env.OPENAI_COMPATIBLE_BASE_URL) {
        throw new AppError("internal:config", "MODEL_PROVIDER=openai-compatible needs OPENAI_COMPATIBLE_BASE_URL.");
      }
      return { provider, model, apiKey: env.OPENAI_COMPATIBLE_API_KEY, baseURL: env.OPENAI_COMPATIBLE_BASE_URL };
    case "offline":
      return { provider, model };
  }
}

/** What the UI shows about the model; never includes credentials. */
export function describeModel(): { provider: string; model: string; offline: boolean; label: string } {
  try {
    const { provider, model } = modelSettings();
    const offline = provider === "offline";
    return { provider, model, offline, label: offline ? "Offline demo model" : `${model} (${provider})` };
  } catch (error) {
    return { provider: "unconfigured", model: "", offline: false, label: (error as Error).message };
  }
}
