import "server-only";
import type pg from "pg";
import { AppError, notFoundThread } from "@/lib/errors";
import { PostgresHistoryAdapter } from "@/lib/history/postgres";
import { textOf } from "@/lib/protocol/parts";
import { timelineOf, type StoredMessage, type TimelineEntry } from "@/lib/history/codec";

export interface ThreadSummary {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
}

interface ThreadRow {
  id: string;
  title: string | null;
  created_at: Date;
  updated_at: Date;
  updated_at_exact: string;
  message_count: number;
}

const THREAD_COLUMNS = "id, title, created_at, updated_at, updated_at::text AS updated_at_exact, message_count";

function toSummary(row: ThreadRow): ThreadSummary {
  return {
    id: row.id,
    title: row.title ?? "New chat",
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    messageCount: row.message_count,
  };
}

// The cursor carries updated_at as Postgres prints it: a JS Date would drop the microseconds.
function encodeCursor(row: ThreadRow): string {
  return Buffer.from(JSON.stringify([row.updated_at_exact, row.id])).toString("base64url");
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/.test(value[0]) &&
      /^[0-9a-f-]{36}$/i.test(value[1])
    ) {
      return value as [string, string];
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError("bad_request:cursor", "The cursor is not one this server handed out.");
}

export class ThreadRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** An owner's threads with at least one message, most recent activity first. */
  async list(owner: string, { limit, cursor }: { limit: number; cursor?: string }) {
    const params: unknown[] = [owner, limit + 1];
    let after = "";
    if (cursor) {
      const [updatedAt, id] = decodeCursor(cursor);
      params.push(updatedAt, id);
      after = "AND (updated_at, id) < ($3::timestamptz, $4::uuid)";
    }
    const { rows } = await this.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM threads
        WHERE owner = $1 AND message_count > 0 ${after}
        ORDER BY updated_at DESC, id DESC
        LIMIT $2`,
      params,
    );
    const page = rows.slice(0, limit);
    return {
      threads: page.map(toSummary),
      nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]) : null,
    };
  }

  async get(owner: string, id: string): Promise<ThreadSummary> {
    const { rows } = await this.pool.query<ThreadRow>(
      `SELECT ${THREAD_COLUMNS} FROM threads WHERE id = $1 AND owner = $2`,
      [id, owner],
    );
    if (rows.length === 0) throw notFoundThread();
    return toSummary(rows[0]);
  }

  async rename(owner: string, id: string, title: string): Promise<ThreadSummary> {
    const { rows } = await this.pool.query<ThreadRow>(
      `UPDATE threads SET title = $3 WHERE id = $1 AND owner = $2 RETURNING ${THREAD_COLUMNS}`,
      [id, owner, title],
    );
    if (rows.length === 0) throw notFoundThread();
    return toSummary(rows[0]);
  }

  /** Deletes the thread; its messages go with it (ON DELETE CASCADE), in the same statement. */
  async delete(owner: string, id: string): Promise<void> {
    const { rowCount } = await this.pool.query("DELETE FROM threads WHERE id = $1 AND owner = $2", [id, owner]);
    if (rowCount === 0) throw notFoundThread();
  }

  /** Every message of the thread with all its parts, in conversation order; 404 if it is not the owner's. */
  async messages(owner: string, id: string): Promise<StoredMessage[]> {
    await this.get(owner, id);
    return new PostgresHistoryAdapter(this.pool).get({ owner, threadId: id });
  }

  /** The flat view: user and assistant text only, one entry per message that has any. */
  async flatHistory(owner: string, id: string): Promise<FlatMessage[]> {
    const messages = await this.messages(owner, id);
    return messages.flatMap((m) => {
      const content = textOf(m);
      return content.length > 0 ? [{ id: m.id, role: m.role, content, createdAt: m.createdAt }] : [];
    });
  }

  /** The timeline view: every part of every message, in order. */
  async timeline(owner: string, id: string): Promise<TimelineEntry[]> {
    return timelineOf(await this.messages(owner, id));
  }

  /**
   * The owner's messages that match `query` (full-text, English stemming),
   * best first, at most one hit per message; never another owner's.
   */
  async search(owner: string, query: string, { limit, excludeThreadId }: { limit: number; excludeThreadId?: string }): Promise<SearchHit[]> {
    const { rows } = await this.pool.query<{ thread_id: string; title: string | null; message_id: string; kind: "user" | "assistant"; snippet: string; created_at: Date }>(
      `SELECT m.thread_id, t.title, m.message_id, m.kind, m.created_at,
              ts_headline('english', m.content, q, 'MaxFragments=1, MaxWords=30, MinWords=10, StartSel="", StopSel=""') AS snippet
         FROM threads t
         JOIN messages m ON m.thread_id = t.id
        CROSS JOIN websearch_to_tsquery('english', $2) AS q
        WHERE t.owner = $1
          AND ($4::uuid IS NULL OR t.id <> $4::uuid)
          AND m.kind IN ('user', 'assistant')
          AND to_tsvector('english', m.content) @@ q
        ORDER BY ts_rank(to_tsvector('english', m.content), q) DESC, m.created_at DESC
        LIMIT $3`,
      [owner, query, limit, excludeThreadId ?? null],
    );
    return rows.map((r) => ({
      threadId: r.thread_id,
      threadTitle: r.title ?? "New chat",
      messageId: r.message_id,
      role: r.kind,
      snippet: r.snippet,
      createdAt: r.created_at.toISOString(),
    }));
  }
}

export interface FlatMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  createdAt: string;
}

export interface SearchHit {
  threadId: string;
  threadTitle: string;
  messageId: string;
  role: "user" | "assistant";
  snippet: string;
  createdAt: string;
}
