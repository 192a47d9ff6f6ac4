import "server-only";
import type { ExportedUsage } from "@/lib/protocol/thread-export";
import type { Wing } from "@/lib/wing";

// Usage's part of a thread's life: what each model call spent goes with its
// thread (by cascade) and travels in its file, which an import reads past
// (the calls were spent where the file came from). A fork spent nothing yet.

export const usageWing: Wing = {
  name: "usage",
  tables: ["model_usage"],
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
