// What a model's tokens cost: the project's own table of the providers'
// published prices for the models it offers by default (US dollars per
// million tokens, as taken on PRICES_TAKEN), under the operator's MODEL_PRICES.
// A model with no price shows its tokens without a cost; the offline model
// costs nothing. Pure: the start's check and the usage route read the same.
import { z } from "zod";
import type { Tokens } from "@threadline/history/usage";

/** US dollars per million tokens. `cachedInput`: input read from the provider's cache; unset, as `input`. */
export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
}

/** When the built-in prices were taken from the providers' pricing pages. */
export const PRICES_TAKEN = "2025-10-15";

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  "openai:gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "openai:gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "openai:gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "openai:gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "anthropic:claude-haiku-4-5": { input: 1, cachedInput: 0.1, output: 5 },
  "anthropic:claude-sonnet-4-5": { input: 3, cachedInput: 0.3, output: 15 },
};

const amount = z.number({ error: "must be a number of dollars per million tokens" }).min(0, "must be 0 or more").max(10_000, "must be at most 10000");
const priceSchema = z.object({ input: amount, output: amount, cachedInput: amount.optional() }, { error: "must be { input, output, cachedInput? } in dollars per million tokens" }).strict();

/** The prices in force: the built-in table under MODEL_PRICES (JSON, by `provider:model`), or the line that says what is wrong with it. */
export function parseModelPrices(value: string | undefined): { prices: Record<string, Price> } | { error: string } {
  if (value === undefined) return { prices: { ...DEFAULT_PRICES } };
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    return { error: `MODEL_PRICES is not JSON: ${(error as Error).message}.` };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return { error: 'MODEL_PRICES must be an object of prices by model, as {"openai:gpt-4.1-mini": {"input": 0.4, "output": 1.6}}.' };
  const prices: Record<string, Price> = { ...DEFAULT_PRICES };
  for (const [model, raw] of Object.entries(json)) {
    if (!/^[a-z-]+:.+$/.test(model)) return { error: `MODEL_PRICES names "${model}": a model is provider:model, as openai:gpt-4.1-mini.` };
    const parsed = priceSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { error: `MODEL_PRICES "${model}"${issue.path.length ? ` ${issue.path.join(".")}` : ""} ${issue.message}.` };
    }
    prices[model] = parsed.data;
  }
  return { prices };
}

/** The price of `model`: the table's, 0 for the offline model, else undefined (unknown). */
export function priceOf(prices: Readonly<Record<string, Price>>, model: string): Price | undefined {
  if (model.startsWith("offline:")) return { input: 0, output: 0 };
  return prices[model];
}

/** What `tokens` cost at `price`, in US dollars. */
export function costOf(tokens: Tokens, price: Price): number {
  const cached = Math.min(tokens.cachedTokens, tokens.inputTokens);
  return ((tokens.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + tokens.outputTokens * price.output) / 1_000_000;
}
