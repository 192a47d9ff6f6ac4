import "server-only";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { notFoundThread } from "@/lib/errors";
import { titleFromMessage } from "@/lib/threads/title";
import { decodeContent, encodeContent } from "./text-codec";
import type { AgentResult, HistoryConfig, HistoryMessage, ThreadScope, UserMessage } from "./types";

interface MessageRow {
  message_id: string;
  kind: "user" | "assistant";
  content: string;
  content_escaped: boolean;
  created_at: Date;
}

export function toHistoryMessage(row: MessageRow): HistoryMessage {
  return {
    id: row.message_id,
    role: row.kind,
    content: decodeContent(row.content, row.content_escaped),
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Stores threads and their messages in Postgres. Order within a thread comes
 * from threads.next_seq, taken under the thread's row lock, so it never
 * depends on a clock; the thread row is also what makes concurrent writers of
 * one thread queue up behind each other.
 */
export class PostgresHistoryAdapter implements Required<HistoryConfig> {
  constructor(private readonly pool: pg.Pool) {}

  async createThread({ owner, threadId }: ThreadScope & { threadId?: string }) {
    const id = threadId ?? randomUUID();
    // Upsert; the WHERE keeps another owner's thread untouched and returns no row for it.
    const { rows } = await this.pool.query<{ id: string; created: boolean }>(
      `INSERT INTO threads (id, owner) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id WHERE threads.owner = EXCLUDED.owner
       RETURNING id, (xmax = 0) AS created`,
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    return { threadId: rows[0].id, created: rows[0].created };
  }

  async get({ owner, threadId }: ThreadScope & { threadId: string }): Promise<HistoryMessage[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT m.message_id, m.kind, m.content, m.content_escaped, m.created_at
         FROM messages m JOIN threads t ON t.id = m.thread_id
        WHERE m.thread_id = $1 AND t.owner = $2 AND m.kind IN ('user', 'assistant')
        ORDER BY m.seq`,
      [threadId, owner],
    );
    return rows.map(toHistoryMessage);
  }

  async appendUserMessage({ owner, threadId, turnId, message }: ThreadScope & { threadId: string; turnId: string; message: UserMessage }) {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      // The row lock serializes this thread's writers, so a duplicate sent
      // concurrently waits here and then sees the first one's row.
      const thread = await client.query<{ next_seq: string; message_count: number }>(
        "SELECT next_seq, message_count FROM threads WHERE id = $1 AND owner = $2 FOR UPDATE",
        [threadId, owner],
      );
      if (thread.rows.length === 0) throw notFoundThread();
      const { content, escaped } = encodeContent(message.content);
      const inserted = await client.query(
        `INSERT INTO messages (thread_id, seq, message_id, kind, content, content_escaped, turn_id)
         VALUES ($1, $2, $3, 'user', $4, $5, $6)
         ON CONFLICT (thread_id, message_id) DO NOTHING
         RETURNING id`,
        [threadId, thread.rows[0].next_seq, message.id, content, escaped, turnId],
      );
      let duplicate = false;
      if (inserted.rowCount === 0) {
        const existing = await client.query<{ turn_id: string | null }>(
          "SELECT turn_id FROM messages WHERE thread_id = $1 AND message_id = $2",
          [threadId, message.id],
        );
        duplicate = existing.rows[0]?.turn_id !== turnId;
      } else {
        await client.query(
          `UPDATE threads
              SET next_seq = next_seq + 1, message_count = message_count + 1, updated_at = now(),
                  title = COALESCE(title, $2)
            WHERE id = $1`,
          [threadId, titleFromMessage(message.content)],
        );
      }
      await client.query("COMMIT");
      return { duplicate };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async appendResults({ owner, threadId, results }: ThreadScope & { threadId: string; results: AgentResult[] }) {
    if (results.length === 0) return;
    const encoded = results.map((r) => encodeContent(r.content));
    // One statement: it is its own transaction and one round trip. Rows whose
    // id is already stored (a retried step whose first try committed) are
    // skipped; the UPDATE locks the thread row and reserves seq numbers for the rest.
    const { rowCount } = await this.pool.query(
      `WITH incoming AS (
         SELECT r.*, row_number() OVER (ORDER BY r.ord) AS n
           FROM unnest($3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[])
                  WITH ORDINALITY AS r(message_id, agent_name, content, escaped, status, ord)
          WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = $1 AND m.message_id = r.message_id)
       ), reserved AS (
         UPDATE threads
            SET next_seq = next_seq + (SELECT count(*) FROM incoming),
                message_count = message_count + (SELECT count(*) FROM incoming),
                updated_at = now()
          WHERE id = $1 AND owner = $2
        RETURNING next_seq - (SELECT count(*) FROM incoming) AS first_seq
       )
       INSERT INTO messages (thread_id, seq, message_id, kind, agent_name, content, content_escaped, status)
       SELECT $1, reserved.first_seq + incoming.n - 1, incoming.message_id, 'assistant', incoming.agent_name,
              incoming.content, incoming.escaped, incoming.status
         FROM reserved, incoming`,
      [
        threadId,
        owner,
        results.map((r) => r.id),
        results.map((r) => r.agentName),
        encoded.map((e) => e.content),
        encoded.map((e) => e.escaped),
        results.map((r) => r.status),
      ],
    );
    // Nothing inserted: every row was there already, or the thread is not the owner's.
    if (rowCount === 0) {
      const { rowCount: owned } = await this.pool.query("SELECT 1 FROM threads WHERE id = $1 AND owner = $2", [threadId, owner]);
      if (owned === 0) throw notFoundThread();
    }
  }
}
