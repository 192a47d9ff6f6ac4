import "server-only";
import { AppError } from "@threadline/history/errors";
import { modelOptions } from "@/lib/model/model-list";
import { parseModelPrices } from "@/lib/model/model-prices";
import type { ModelOption } from "@/lib/protocol/models";
import type { ExportedUsage } from "@/lib/protocol/thread-export";
import { once, type Wing, type WingParts } from "@/lib/wing";
import { threadUsage } from "./thread-usage";
import type { ModelsSettings } from "@/lib/model/settings";

// The models on offer and what their calls spent. Usage's part of a thread's life: what each model call spent goes with its
// thread (by cascade) and travels in its file, which an import reads past
// (the calls were spent where the file came from). A fork spent nothing yet.

/** What the models take from the app: its agents, in the order a thread's usage lists them. */
interface ModelsApp {
  network(): { agents: { name: string }[] };
}

function services({ config, pool }: WingParts<ModelsSettings>, app: ModelsApp) {
  const prices = once(() => {
    const parsed = parseModelPrices(config.MODEL_PRICES);
    // parseEnv refused a bad MODEL_PRICES at start.
    if ("error" in parsed) throw new Error(parsed.error);
    return parsed.prices;
  });
  const models = once((): ModelOption[] => modelOptions(config));
  return {
    /** The prices in force: MODEL_PRICES over the built-in table. */
    modelPrices: prices,
    /** The models on offer, the default first (MODELS, else what the credentials allow). */
    models,
    /** Refuses (400 invalid:model) a model that is not on offer. */
    requireOfferedModel(id: string): void {
      if (!models().some((m) => m.id === id)) {
        throw new AppError("invalid:model", `The model "${id}" is not offered here; GET /api/models lists the ones that are.`);
      }
    },
    /** What a thread's model calls spent, priced (MODEL_PRICES over the built-in table). */
    threadUsage: (owner: string, threadId: string) =>
      threadUsage(pool(), owner, threadId, prices(), app.network().agents.map((agent) => agent.name)),
  };
}

export const modelsWing: Wing<ModelsApp, ReturnType<typeof services>, ModelsSettings> = {
  name: "models",
  tables: ["model_usage"],
  services,
  thread: {
    async export(db, { threadId }) {
      const { rows } = await db.query<{ usage: ExportedUsage[] }>(
        `SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                  'messageId', u.message_id, 'agent', u.agent, 'purpose', u.purpose, 'model', u.model,
                  'inputTokens', u.input_tokens, 'outputTokens', u.output_tokens, 'cachedTokens', u.cached_tokens,
                  'reasoningTokens', u.reasoning_tokens, 'createdAt', u.created_at)) ORDER BY u.created_at, u.id), '[]') AS usage
           FROM model_usage u WHERE u.thread_id = $1`,
        [threadId],
      );
      // jsonb keeps the time as Postgres prints it, and a title's call has no message: the file speaks ISO, and null.
      const usage = rows[0].usage.map((u) => ({ ...u, messageId: u.messageId ?? null, createdAt: new Date(u.createdAt).toISOString() }));
      return { sections: { usage } };
    },
  },
};
