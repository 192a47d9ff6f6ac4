import "server-only";
import type pg from "pg";
import type { ThreadScope, ThreadsChanged, TitleStore } from "./contract";
import type { ModelUsage } from "./usage";

/**
 * The adapter's titles (see TitleStore): threads.title_source says who set a
 * title (migrations/1733616000000_title-source.sql), and the model's title
 * replaces only the first words of the first message.
 */
export class PostgresTitleStore implements TitleStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged = () => {},
  ) {}

  async storeModelTitle({
    owner,
    threadId,
    title,
    overModel = false,
    usage,
  }: ThreadScope & { threadId: string; title: string | null; overModel?: boolean; usage?: ModelUsage }): Promise<boolean> {
    // One statement: a rename that committed first has made the row 'user' and
    // this matches nothing; a rename that comes after overwrites it. Neither the
    // activity time nor the order of the sidebar moves: nobody said anything.
    // What the title's call spent is kept whether or not its title is (null: no title came).
    const { rowCount } = await this.pool.query(
      `WITH spent AS (
         INSERT INTO model_usage (id, thread_id, purpose, model, input_tokens, output_tokens, cached_tokens, reasoning_tokens)
         SELECT u.id, t.id, 'title', u.model, u."inputTokens", u."outputTokens", u."cachedTokens", u."reasoningTokens"
           FROM threads t, jsonb_to_record($5::jsonb) AS u(id uuid, model text, "inputTokens" bigint, "outputTokens" bigint, "cachedTokens" bigint, "reasoningTokens" bigint)
          WHERE t.id = $1 AND t.owner = $2 AND $5::jsonb IS NOT NULL
         ON CONFLICT (id) DO NOTHING
       )
       UPDATE threads SET title = $3, title_source = 'model'
        WHERE id = $1 AND owner = $2 AND $3::text IS NOT NULL AND (title_source = 'message' OR ($4 AND title_source = 'model'))`,
      [threadId, owner, title, overModel, usage ? JSON.stringify(usage) : null],
    );
    const stored = (rowCount ?? 0) > 0;
    if (stored) this.changed(owner, threadId);
    return stored;
  }
}
