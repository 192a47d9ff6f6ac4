import "server-only";
import { z } from "zod";
import { fail, slice, text, url, type SettingsOf } from "@/lib/env";
import { modelsWithImagesError, parseModelList, parseUtilityModel } from "./model-list";
import { parseModelPrices } from "./model-prices";

// The models wing's part of the configuration: the providers, their
// credentials and endpoints, the models on offer and their prices. Checked
// whole at start, so the model list, the prices and the utility model are
// read later without a way to fail.

export const modelsSettings = slice({
  shape: {
    /** Which provider answers; unset: the first configured credential, else offline. */
    MODEL_PROVIDER: z
      .enum(["openai", "anthropic", "openai-compatible", "offline"], {
        error: "must be one of openai, anthropic, openai-compatible, offline",
      })
      .optional()
      .describe("model provider"),
    /** Model id; unset: the provider's default. */
    MODEL: text.optional().describe("model id"),
    /** The models on offer, `provider:model[=label]`, comma-separated, the first the default (lib/model/model-list.ts); unset: what the credentials allow. */
    MODELS: text.max(4000).optional().describe("models on offer"),
    /** Models that see images beyond the built-in table, `provider:model`, comma-separated (a local vision model, say). */
    MODELS_WITH_IMAGES: text.max(4000).optional().describe("models that see images"),
    /** Prices per million tokens by model, JSON, over the built-in table (lib/model/model-prices.ts). */
    MODEL_PRICES: text.max(100_000).optional().describe("model prices"),
    /** The model titles and summaries are asked of, `provider:model`; unset: the thread's own model. */
    UTILITY_MODEL: text.max(300).optional().describe("utility model"),
    /** OpenAI's key. */
    OPENAI_API_KEY: text.optional().describe("OpenAI API key"),
    /** Another OpenAI endpoint (a proxy, Azure's). */
    OPENAI_BASE_URL: url.optional().describe("OpenAI base URL"),
    /** Anthropic's key. */
    ANTHROPIC_API_KEY: text.optional().describe("Anthropic API key"),
    /** Another Anthropic endpoint. */
    ANTHROPIC_BASE_URL: url.optional().describe("Anthropic base URL"),
    /** Any OpenAI-compatible server, e.g. Ollama at http://localhost:11434/v1. */
    OPENAI_COMPATIBLE_BASE_URL: url.optional().describe("OpenAI-compatible base URL"),
    /** That server's key, if it wants one. */
    OPENAI_COMPATIBLE_API_KEY: text.optional().describe("OpenAI-compatible API key"),
  },
  finish(settings) {
    if (settings.MODEL_PROVIDER === "openai-compatible" && !settings.OPENAI_COMPATIBLE_BASE_URL) {
      fail("MODEL_PROVIDER=openai-compatible needs OPENAI_COMPATIBLE_BASE_URL.");
    }
    const models = parseModelList(settings);
    if ("error" in models) return fail(models.error);
    const seeing = modelsWithImagesError(settings.MODELS_WITH_IMAGES, models.models);
    if (seeing) fail(seeing);
    const utility = parseUtilityModel(settings);
    if (utility && "error" in utility) fail(utility.error);
    const prices = parseModelPrices(settings.MODEL_PRICES);
    if ("error" in prices) fail(prices.error);
  },
});

/** The models wing's configuration. */
export type ModelsSettings = SettingsOf<typeof modelsSettings>;
