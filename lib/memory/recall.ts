import "server-only";
import type pg from "pg";
import type { RecalledMemory, TurnMemory } from "@/lib/agent/model/turn-memory";
import { sourceOf, type Row as StoredRow } from "./memory-store";
import type { MemorySettings } from "./settings";

// What a turn is given of the person's memories, and the record of what each
// reply was given. Ranked in Postgres: the memories that share the most words
// with the message first (full-text rank over the `words` each memory keeps),
// then the most recently used or made; as many as the turn's share of the
// window holds. A fact that shares no word with the message ("Prefers metric
// units") still goes, after the ones that do, while there is room.

/** The most memories one turn is given, however short. */
const MOST_RECALLED = 50;
/** What a memory costs in the block beyond its text: its id and the JSON around it. */
const ENTRY_CHARS = 60;
/** The message's words the ranking reads: a message is not a search box. */
const QUERY_WORDS = 64;

type Row = Pick<StoredRow, "id" | "text" | "source_thread_id" | "source_message_id" | "source_thread_deleted">;

const recalled = (row: Row): RecalledMemory => ({ id: row.id, text: row.text, source: sourceOf(row) });

/** The message's distinct words as a tsquery that matches any of them ('tea' | 'lisbon'); null for none. */
export function anyWordQuery(text: string): string | null {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].slice(0, QUERY_WORDS);
  return words.length > 0 ? words.map((word) => `'${word}'`).join(" | ") : null;
}

export class MemoryRecall implements TurnMemory {
  constructor(
    private readonly pool: () => pg.Pool,
    private readonly settings: Pick<MemorySettings, "MEMORY">,
  ) {}

  async recall({ owner, threadId, text, maxChars }: { owner: string; threadId: string; text: string; maxChars: number }): Promise<RecalledMemory[]> {
    if (this.settings.MEMORY === "off" || maxChars <= 0) return [];
    const { rows } = await this.pool().query<Row>(
      `SELECT m.id, m.text, m.source_thread_id, m.source_message_id, m.source_thread_deleted
         FROM memories m
        WHERE m.owner = $1 AND m.state = 'active'
          AND coalesce((SELECT s.enabled FROM memory_settings s WHERE s.owner = $1), true)
          AND NOT EXISTS (SELECT 1 FROM temporary_threads tt WHERE tt.thread_id = $2)
        ORDER BY coalesce(ts_rank(m.words, to_tsquery('simple', $3)), 0) DESC, coalesce(m.last_used_at, m.created_at) DESC, m.id
        LIMIT $4`,
      [owner, threadId, anyWordQuery(text), MOST_RECALLED],
    );
    const given: RecalledMemory[] = [];
    let chars = 0;
    for (const row of rows) {
      chars += row.text.length + ENTRY_CHARS;
      if (chars > maxChars) break;
      given.push(recalled(row));
    }
    return given;
  }

  async used({ owner, threadId, replyId }: { owner: string; threadId: string; replyId: string }, ids: string[]): Promise<void> {
    await this.pool().query(
      `WITH recorded AS (
         INSERT INTO memory_uses (thread_id, message_id, memory_ids) VALUES ($1, $2, $3::uuid[])
         ON CONFLICT (thread_id, message_id) DO UPDATE SET memory_ids = excluded.memory_ids)
       UPDATE memories SET last_used_at = now() WHERE owner = $4 AND id = ANY($3::uuid[])`,
      [threadId, replyId, ids, owner],
    );
  }

  async given({ owner, threadId, replyId }: { owner: string; threadId: string; replyId: string }): Promise<RecalledMemory[]> {
    const { rows } = await this.pool().query<Row>(
      `SELECT m.id, m.text, m.source_thread_id, m.source_message_id, m.source_thread_deleted
         FROM memory_uses u CROSS JOIN LATERAL unnest(u.memory_ids) WITH ORDINALITY AS g(id, n)
         JOIN memories m ON m.id = g.id AND m.owner = $1 AND m.state = 'active'
        WHERE u.thread_id = $2 AND u.message_id = $3
        ORDER BY g.n`,
      [owner, threadId, replyId],
    );
    return rows.map(recalled);
  }

  async markTemporary({ threadId }: { owner: string; threadId: string }): Promise<void> {
    await this.pool().query("INSERT INTO temporary_threads (thread_id) VALUES ($1) ON CONFLICT DO NOTHING", [threadId]);
  }
}

/** The memories each of a thread's replies was given, by reply id. */
export async function memoriesUsedIn(db: Pick<pg.PoolClient, "query">, threadId: string, messageIds?: string[]): Promise<Record<string, string[]>> {
  const { rows } = await db.query<{ message_id: string; memory_ids: string[] }>(
    messageIds
      ? "SELECT message_id, memory_ids FROM memory_uses WHERE thread_id = $1 AND message_id = ANY($2::text[])"
      : "SELECT message_id, memory_ids FROM memory_uses WHERE thread_id = $1",
    messageIds ? [threadId, messageIds] : [threadId],
  );
  return Object.fromEntries(rows.map((row) => [row.message_id, row.memory_ids]));
}
