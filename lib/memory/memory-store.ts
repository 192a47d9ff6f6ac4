import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { inTransaction } from "@/lib/db/transaction";
import type { ExportedMemory, Memory, MemorySource } from "@/lib/protocol/memory";
import type { Db } from "@/lib/wing";

// The memories' rows (the memories and memory_settings tables are this
// wing's). A deleted memory stays as a tombstone, its text gone: the message
// it was learned from does not teach it again. One the count bound pushes
// out goes for good: said again, it may be learned again.

/** A memory's row as the store reads it (recall.ts reads the first five columns). */
export interface Row {
  id: string;
  text: string;
  source_thread_id: string | null;
  source_message_id: string | null;
  source_thread_deleted: boolean;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

/**
 * The words of a fact as a tombstone keeps them: folded (lower case, each run
 * of spaces and punctuation one space) and hashed. "Likes tea." and "likes
 * tea" fold alike; the words themselves are not kept.
 */
export const folded = (expression: string) => `md5(btrim(regexp_replace(lower(${expression}), '[[:space:][:punct:]]+', ' ', 'g')))`;

const COLUMNS = "id, text, source_thread_id, source_message_id, source_thread_deleted, created_at, updated_at, last_used_at";

/** Where a row says its memory was learned; null: added by hand. */
export const sourceOf = (row: Pick<Row, "source_thread_id" | "source_message_id" | "source_thread_deleted">): MemorySource | null =>
  row.source_thread_id && row.source_message_id
    ? { threadId: row.source_thread_id, messageId: row.source_message_id, ...(row.source_thread_deleted ? { threadDeleted: true } : {}) }
    : null;

const toMemory = (row: Row): Memory => ({
  id: row.id,
  text: row.text,
  source: sourceOf(row),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
});

export class MemoryStore {
  constructor(private readonly pool: () => pg.Pool) {}

  /** The owner's memories, newest first; with `query`, those that share a word with it, best match first. At most `limit`. */
  async list(owner: string, { query, limit }: { query?: string; limit: number }): Promise<Memory[]> {
    const { rows } = query
      ? await this.pool().query<Row>(
          `SELECT ${COLUMNS} FROM memories
            WHERE owner = $1 AND state = 'active' AND words @@ websearch_to_tsquery('simple', $2)
            ORDER BY ts_rank(words, websearch_to_tsquery('simple', $2)) DESC, created_at DESC, id LIMIT $3`,
          [owner, query, limit],
        )
      : await this.pool().query<Row>(`SELECT ${COLUMNS} FROM memories WHERE owner = $1 AND state = 'active' ORDER BY created_at DESC, id LIMIT $2`, [
          owner,
          limit,
        ]);
    return rows.map(toMemory);
  }

  /**
   * A new memory of the owner's. With `max` already kept, the oldest unused
   * (last used, else made, longest ago) go first to make room, returned so
   * the caller can say so. The count and the insert hold the owner's lock.
   */
  async add(owner: string, text: string, source: MemorySource | null, max: number, id?: string): Promise<{ memory: Memory; evicted: Memory[] }> {
    return inTransaction(this.pool(), async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('memories'), hashtext($1))", [owner]);
      // A memory made under this id already (a tool call run again) is the answer, and nothing else changes.
      if (id) {
        const { rows: made } = await tx.query<Row>(`SELECT ${COLUMNS} FROM memories WHERE id = $1 AND owner = $2`, [id, owner]);
        if (made[0]) return { memory: toMemory(made[0]), evicted: [] };
      }
      const { rows: evicted } = await tx.query<Row>(
        `DELETE FROM memories WHERE id IN (
           SELECT id FROM memories WHERE owner = $1 AND state = 'active'
            ORDER BY coalesce(last_used_at, created_at), created_at, id
            LIMIT greatest(0, (SELECT count(*) FROM memories WHERE owner = $1 AND state = 'active') - $2 + 1))
         RETURNING ${COLUMNS}`,
        [owner, max],
      );
      const { rows } = await tx.query<Row>(
        `INSERT INTO memories (id, owner, text, source_thread_id, source_message_id) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
        [id ?? randomUUID(), owner, text, source?.threadId ?? null, source?.messageId ?? null],
      );
      return { memory: toMemory(rows[0]), evicted: evicted.map(toMemory) };
    });
  }

  /** The owner's memory with new words; undefined when they have no such memory (or deleted it). */
  async edit(owner: string, id: string, text: string): Promise<Memory | undefined> {
    const { rows } = await this.pool().query<Row>(
      `UPDATE memories SET text = $3, updated_at = now() WHERE id = $1 AND owner = $2 AND state = 'active' RETURNING ${COLUMNS}`,
      [id, owner, text],
    );
    return rows[0] && toMemory(rows[0]);
  }

  /** Deletes the owner's memory for good (its text goes; a tombstone stays); false when they have no such memory. */
  async remove(owner: string, id: string): Promise<boolean> {
    const { rowCount } = await forget(this.pool(), owner, [id]);
    return rowCount === 1;
  }

  /** Every memory of the owner's, oldest first: their export. */
  async all(owner: string): Promise<Memory[]> {
    const { rows } = await this.pool().query<Row>(`SELECT ${COLUMNS} FROM memories WHERE owner = $1 AND state = 'active' ORDER BY created_at, id`, [owner]);
    return rows.map(toMemory);
  }

  /**
   * Adds a file's memories, in one transaction under the owner's lock: none
   * kept already in the same words (or twice in the file), a source kept only
   * where it names a thread of the owner's. Undefined, adding nothing, when
   * they would pass `max`.
   */
  async importMany(owner: string, items: readonly ExportedMemory[], max: number): Promise<{ imported: number; skipped: number } | undefined> {
    return inTransaction(this.pool(), async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('memories'), hashtext($1))", [owner]);
      const { rows: fresh } = await tx.query<{ i: string }>(
        `SELECT min(u.i) AS i FROM unnest($2::text[]) WITH ORDINALITY AS u(text, i)
          WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.owner = $1 AND m.state = 'active' AND ${folded("m.text")} = ${folded("u.text")})
          GROUP BY ${folded("u.text")}`,
        [owner, items.map((item) => item.text)],
      );
      const { rows: kept } = await tx.query<{ count: string }>("SELECT count(*) FROM memories WHERE owner = $1 AND state = 'active'", [owner]);
      if (Number(kept[0].count) + fresh.length > max) return undefined;
      const adding = fresh.map((row) => items[Number(row.i) - 1]);
      await tx.query(
        `INSERT INTO memories (id, owner, text, source_thread_id, source_message_id, created_at, updated_at, last_used_at)
         SELECT gen_random_uuid(), $1, u.text,
                CASE WHEN t.id IS NOT NULL THEN u.thread_id END, CASE WHEN t.id IS NOT NULL THEN u.message_id END,
                coalesce(u.created_at, now()), now(), u.last_used_at
           FROM unnest($2::text[], $3::uuid[], $4::text[], $5::timestamptz[], $6::timestamptz[]) AS u(text, thread_id, message_id, created_at, last_used_at)
           LEFT JOIN threads t ON t.id = u.thread_id AND t.owner = $1`,
        [
          owner,
          adding.map((item) => item.text),
          adding.map((item) => item.source?.threadId ?? null),
          adding.map((item) => item.source?.messageId ?? null),
          adding.map((item) => item.createdAt ?? null),
          adding.map((item) => item.lastUsedAt ?? null),
        ],
      );
      return { imported: adding.length, skipped: items.length - adding.length };
    });
  }

  /** Whether the owner's memory may change from this thread: true, or why not. */
  async writable(owner: string, threadId: string): Promise<true | "off" | "temporary"> {
    const { rows } = await this.pool().query<{ enabled: boolean; temporary: boolean }>(
      `SELECT coalesce((SELECT enabled FROM memory_settings WHERE owner = $1), true) AS enabled,
              EXISTS (SELECT 1 FROM temporary_threads WHERE thread_id = $2) AS temporary`,
      [owner, threadId],
    );
    if (!rows[0].enabled) return "off";
    return rows[0].temporary ? "temporary" : true;
  }

  /** Whether the owner's memory is on (it is unless they turned it off). */
  async enabled(owner: string): Promise<boolean> {
    const { rows } = await this.pool().query<{ enabled: boolean }>("SELECT enabled FROM memory_settings WHERE owner = $1", [owner]);
    return rows[0]?.enabled ?? true;
  }

  async setEnabled(owner: string, enabled: boolean): Promise<void> {
    await this.pool().query(
      `INSERT INTO memory_settings (owner, enabled) VALUES ($1, $2)
       ON CONFLICT (owner) DO UPDATE SET enabled = excluded.enabled, updated_at = now()`,
      [owner, enabled],
    );
  }
}

/** Deletes the owner's memories named: each keeps a tombstone with its words folded and hashed (a learned one's source never teaches them again). */
export function forget(db: Db, owner: string, ids: string[]) {
  return db.query(
    `UPDATE memories SET state = 'deleted', forgotten = ${folded("text")}, text = '', updated_at = now()
      WHERE id = ANY($1::uuid[]) AND owner = $2 AND state = 'active'`,
    [ids, owner],
  );
}

/** A deleted thread's memories stay; their source says the thread is gone. */
export async function markSourceDeleted(tx: Db, threadId: string): Promise<void> {
  await tx.query("UPDATE memories SET source_thread_deleted = true WHERE source_thread_id = $1", [threadId]);
}

/** Moves an owner's memories (and their setting, unless the new owner has one) to another. */
export async function adoptMemories(tx: Db, from: string, to: string): Promise<void> {
  await tx.query("UPDATE memories SET owner = $2 WHERE owner = $1", [from, to]);
  await tx.query(
    `INSERT INTO memory_settings (owner, enabled) SELECT $2, enabled FROM memory_settings WHERE owner = $1
     ON CONFLICT (owner) DO NOTHING`,
    [from, to],
  );
  await tx.query("DELETE FROM memory_settings WHERE owner = $1", [from]);
}
