import "server-only";
import type pg from "pg";
import { AppError, notFoundThread } from "@/lib/errors";
import { PostgresHistoryAdapter } from "@/lib/history/postgres";
import type { HistoryMessage } from "@/lib/history/types";

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

  /** The thread's user and assistant messages in conversation order; 404 if it is not the owner's. */
  async history(owner: string, id: string): Promise<HistoryMessage[]> {
    await this.get(owner, id);
    return new PostgresHistoryAdapter(this.pool).get({ owner, threadId: id });
  }
}
