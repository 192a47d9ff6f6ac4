// The models an operator offers (MODELS), each with what it can take, and
// the default (the first). Pure: parsed from the configuration's own fields,
// so the start's check, the model that answers and GET /api/models read the
// same list.
import type { ModelOption } from "@/lib/protocol/models";

export type ProviderName = "openai" | "anthropic" | "openai-compatible" | "offline";

export interface ModelCapabilities {
  tools: boolean;
  images: boolean;
  reasoning: boolean;
}

/** One model on offer: `provider:model` is its id. */
export interface ModelChoice {
  id: string;
  label: string;
  provider: ProviderName;
  model: string;
  default: boolean;
  capabilities: ModelCapabilities;
}

/** The configuration's fields the list reads (lib/model/settings.ts's, by name). */
export interface ModelListSettings {
  MODELS?: string;
  MODEL_PROVIDER?: ProviderName;
  MODEL?: string;
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  OPENAI_COMPATIBLE_BASE_URL?: string;
  UTILITY_MODEL?: string;
  MODELS_WITH_IMAGES?: string;
}

export const PROVIDERS: readonly ProviderName[] = ["openai", "anthropic", "openai-compatible", "offline"];
export const DEFAULT_MODELS: Record<ProviderName, string> = {
  openai: "gpt-4.1-mini",
  anthropic: "claude-haiku-4-5",
  "openai-compatible": "llama3.2",
  offline: "threadline-offline",
};
const MAX_MODELS = 50;
const MAX_LABEL = 60;
/** What a provider needs configured before a model of it can answer. */
const NEEDS: Record<ProviderName, keyof ModelListSettings | undefined> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_BASE_URL",
  offline: undefined,
};

/**
 * What a model can take, from the project's table of the families it knows:
 * a model it does not know is offered tools only (no images, no reasoning),
 * which every provider here supports.
 */
export function capabilitiesOf(provider: ProviderName, model: string): ModelCapabilities {
  const name = model.toLowerCase();
  switch (provider) {
    case "offline":
      return { tools: true, images: false, reasoning: true };
    case "openai":
      if (/^(o[1-9]|gpt-5)/.test(name)) return { tools: true, images: true, reasoning: true };
      if (/^gpt-4(\.1|o)/.test(name)) return { tools: true, images: true, reasoning: false };
      return { tools: true, images: false, reasoning: false };
    case "anthropic":
      if (!name.startsWith("claude-")) return { tools: true, images: false, reasoning: false };
      // Extended thinking: Claude 3.7 and every model of the 4 families on.
      return { tools: true, images: true, reasoning: /^claude-(3-7|(opus|sonnet|haiku)-4|(opus|sonnet|haiku)-[5-9])/.test(name) };
    case "openai-compatible":
      return { tools: true, images: false, reasoning: false };
  }
}

/** The ids MODELS_WITH_IMAGES names: models the operator says see images, whatever the table says. */
const withImages = (settings: ModelListSettings) => new Set((settings.MODELS_WITH_IMAGES ?? "").split(",").map((id) => id.trim()).filter(Boolean));

const choice = (settings: ModelListSettings, provider: ProviderName, model: string, label: string | undefined, isDefault: boolean): ModelChoice => {
  const capabilities = capabilitiesOf(provider, model);
  return {
    id: `${provider}:${model}`,
    label: label ?? (provider === "offline" ? "Offline demo model" : model),
    provider,
    model,
    default: isDefault,
    capabilities: withImages(settings).has(`${provider}:${model}`) ? { ...capabilities, images: true } : capabilities,
  };
};

/**
 * The models on offer, or the one line that says what is wrong with MODELS.
 * MODELS is `provider:model[=label]`, comma-separated (a model id may hold
 * colons, as Ollama's `llama3.2:3b` does); the first is the default. Unset,
 * the list is what the configuration allows: the model MODEL_PROVIDER and
 * MODEL (or the first credential) name, then each other configured
 * provider's default model; with no credential, the offline model.
 */
export function parseModelList(settings: ModelListSettings): { models: ModelChoice[] } | { error: string } {
  if (settings.MODELS === undefined) return { models: derivedList(settings) };
  if (settings.MODEL_PROVIDER !== undefined || settings.MODEL !== undefined) {
    return { error: "MODELS names the models on offer and its first is the default: set it or MODEL_PROVIDER and MODEL, not both." };
  }
  const entries = settings.MODELS.split(",").map((entry) => entry.trim());
  if (entries.length > MAX_MODELS) return { error: `MODELS lists ${entries.length} models; at most ${MAX_MODELS}.` };
  const models: ModelChoice[] = [];
  for (const [index, entry] of entries.entries()) {
    if (entry === "") return { error: `MODELS has an empty entry (number ${index + 1}): give provider:model, comma-separated.` };
    const colon = entry.indexOf(":");
    const provider = (colon === -1 ? entry : entry.slice(0, colon).trim()) as ProviderName;
    if (colon === -1 || !PROVIDERS.includes(provider)) {
      return { error: `MODELS entry "${entry}" must start with a provider (${PROVIDERS.join(", ")}) and a colon, as openai:gpt-4.1-mini.` };
    }
    const rest = entry.slice(colon + 1);
    const equals = rest.indexOf("=");
    const model = (equals === -1 ? rest : rest.slice(0, equals)).trim();
    const label = equals === -1 ? undefined : rest.slice(equals + 1).trim();
    if (model === "") return { error: `MODELS entry "${entry}" names no model.` };
    if (label !== undefined && (label === "" || label.length > MAX_LABEL)) {
      return { error: `MODELS entry "${entry}" has a label that is empty or over ${MAX_LABEL} characters.` };
    }
    const needs = NEEDS[provider];
    if (needs && !settings[needs]) return { error: `MODELS lists ${provider}:${model}, which needs ${needs}.` };
    if (models.some((m) => m.id === `${provider}:${model}`)) return { error: `MODELS lists ${provider}:${model} twice.` };
    models.push(choice(settings, provider, model, label, models.length === 0));
  }
  return { models };
}

/** What is wrong with MODELS_WITH_IMAGES: each id must be a model on offer. */
export function modelsWithImagesError(value: string | undefined, offered: ModelChoice[]): string | undefined {
  const stray = [...withImages({ MODELS_WITH_IMAGES: value })].find((id) => !offered.some((model) => model.id === id));
  if (stray) return `MODELS_WITH_IMAGES names ${stray}, which is not a model on offer (${offered.map((model) => model.id).join(", ")}).`;
  return undefined;
}

/** `provider:model` → its parts, or undefined when it names no provider (a model id may hold colons). */
export function splitModelId(id: string): { provider: ProviderName; model: string } | undefined {
  const colon = id.indexOf(":");
  const provider = id.slice(0, colon) as ProviderName;
  const model = id.slice(colon + 1);
  return colon > 0 && PROVIDERS.includes(provider) && model !== "" ? { provider, model } : undefined;
}

/**
 * The model titles and summaries are asked of (UTILITY_MODEL), or the line
 * that says what is wrong with it; undefined: unset, and each thread's own
 * model writes them. It need not be on offer: a cheap model the user never
 * picks is what it is for. Its provider must be configured.
 */
export function parseUtilityModel(settings: ModelListSettings): { provider: ProviderName; model: string } | { error: string } | undefined {
  const id = settings.UTILITY_MODEL;
  if (id === undefined) return undefined;
  const parts = splitModelId(id.trim());
  if (!parts) return { error: `UTILITY_MODEL must be provider:model, as openai:gpt-4.1-nano (providers: ${PROVIDERS.join(", ")}), not "${id}".` };
  const needs = NEEDS[parts.provider];
  if (needs && !settings[needs]) return { error: `UTILITY_MODEL names ${id}, which needs ${needs}.` };
  return parts;
}

/** The list without MODELS: the configured model first, then the other configured providers' defaults. */
function derivedList(settings: ModelListSettings): ModelChoice[] {
  const first = defaultProvider(settings);
  const models = [choice(settings, first, settings.MODEL || DEFAULT_MODELS[first], undefined, true)];
  for (const provider of PROVIDERS) {
    const needs = NEEDS[provider];
    if (provider === first || !needs || !settings[needs]) continue;
    models.push(choice(settings, provider, DEFAULT_MODELS[provider], undefined, false));
  }
  return models;
}

/** The provider that answers without MODELS: MODEL_PROVIDER, else the first credential, else offline. */
export function defaultProvider(settings: ModelListSettings): ProviderName {
  return (
    settings.MODEL_PROVIDER ??
    (settings.OPENAI_COMPATIBLE_BASE_URL ? "openai-compatible" : settings.OPENAI_API_KEY ? "openai" : settings.ANTHROPIC_API_KEY ? "anthropic" : "offline")
  );
}

/** The default model's provider and id: the first of the list. */
export function defaultModel(settings: ModelListSettings): { provider: ProviderName; model: string } {
  const parsed = parseModelList(settings);
  // parseEnv refuses a bad MODELS at start; this reads a checked configuration.
  if ("error" in parsed) throw new Error(parsed.error);
  const { provider, model } = parsed.models[0];
  return { provider, model };
}

/** The list as GET /api/models gives it: no provider's own model id apart from the id, nothing of its credentials. */
export function modelOptions(settings: ModelListSettings): ModelOption[] {
  const parsed = parseModelList(settings);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed.models.map(({ id, label, provider, default: isDefault, capabilities }) => ({ id, label, provider, default: isDefault, capabilities }));
}
