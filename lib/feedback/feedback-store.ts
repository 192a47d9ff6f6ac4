import "server-only";
import type pg from "pg";
import { AppError, notFoundThread } from "@threadline/history/errors";
import type { Feedback, FeedbackList, FeedbackReason } from "@/lib/protocol/feedback";
import { feedbackCursor } from "@/lib/protocol/cursors";

interface FeedbackRow {
  rating: "up" | "down";
  reason: string | null;
  comment: string | null;
  /** As text, to the microsecond: a `since` read back from it misses and repeats nothing. */
  updated_at: string;
}

/** A change as the route checked it: null clears. */
export interface FeedbackInput {
  rating: "up" | "down" | null;
  reason?: string;
  comment?: string;
}

const UPDATED_AT = `to_char(f.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at`;

const feedbackOf = (row: FeedbackRow): Feedback => ({
  rating: row.rating,
  ...(row.reason ? { reason: row.reason as FeedbackReason } : {}),
  ...(row.comment ? { comment: row.comment } : {}),
  updatedAt: row.updated_at,
});

/**
 * Sets, changes or (rating null) clears the owner's feedback on one reply
 * version, in one statement: the same body twice leaves one row. A user's
 * message takes none; a message or thread the owner does not have is a 404.
 */
export async function setFeedback(
  pool: Pick<pg.Pool, "query">,
  owner: string,
  threadId: string,
  messageId: string,
  input: FeedbackInput,
): Promise<Feedback | null> {
  const { rows } = await pool.query<{ thread: boolean | null; kind: string | null } & Partial<FeedbackRow>>(
    `WITH thread AS (SELECT id FROM threads WHERE id = $1 AND owner = $2),
     target AS (
       SELECT m.thread_id, m.message_id, m.kind FROM messages m JOIN thread ON thread.id = m.thread_id
        WHERE m.message_id = $3 AND m.part_index = 0
     ),
     put AS (
       INSERT INTO message_feedback AS f (thread_id, message_id, rating, reason, comment)
       SELECT thread_id, message_id, $4, $5, $6 FROM target WHERE $4::text IS NOT NULL AND kind NOT IN ('user', 'system_event')
       ON CONFLICT (thread_id, message_id) DO UPDATE
         SET rating = excluded.rating, reason = excluded.reason, comment = excluded.comment, updated_at = clock_timestamp()
       RETURNING f.rating, f.reason, f.comment, ${UPDATED_AT}
     ),
     cleared AS (
       DELETE FROM message_feedback f USING target
        WHERE $4::text IS NULL AND f.thread_id = target.thread_id AND f.message_id = target.message_id
     )
     SELECT EXISTS (SELECT 1 FROM thread) AS thread, (SELECT kind FROM target) AS kind, put.*
       FROM (SELECT 1) AS one LEFT JOIN put ON true`,
    [threadId, owner, messageId, input.rating, input.reason ?? null, input.comment ?? null],
  );
  const row = rows[0];
  if (!row.thread) throw notFoundThread();
  if (row.kind === null) throw new AppError("not_found:message", "That message is not in this thread.");
  if (row.kind === "user") throw new AppError("bad_request:feedback", "Feedback is for the assistant's replies; this message is the user's.");
  if (row.kind === "system_event") throw new AppError("bad_request:feedback", "Feedback is for the assistant's replies; this message is a summary of earlier ones.");
  return row.rating ? feedbackOf(row as FeedbackRow) : null;
}

/** The thread's feedback by reply version (every version, shown or not). */
export async function threadFeedback(pool: Pick<pg.Pool, "query">, owner: string, threadId: string): Promise<Record<string, Feedback>> {
  const { rows } = await pool.query<{ found: boolean; message_id: string | null } & Partial<FeedbackRow>>(
    `SELECT true AS found, f.message_id, f.rating, f.reason, f.comment, ${UPDATED_AT}
       FROM threads t LEFT JOIN message_feedback f ON f.thread_id = t.id
      WHERE t.id = $1 AND t.owner = $2`,
    [threadId, owner],
  );
  if (rows.length === 0) throw notFoundThread();
  return Object.fromEntries(rows.filter((row) => row.message_id !== null).map((row) => [row.message_id!, feedbackOf(row as FeedbackRow)]));
}

/**
 * The owner's feedback changed after `since` (and after `cursor`, where the
 * page before ended), oldest first, `limit` at most, each with its reply's
 * model and its thread's title: what an evaluation script reads, a page at a
 * time. The order is total (time, thread, message), so a page misses and
 * repeats nothing, however many changed at the same moment.
 */
export async function listFeedback(
  pool: Pick<pg.Pool, "query">,
  owner: string,
  options: { since?: string; cursor?: [updatedAt: string, threadId: string, messageId: string]; limit: number },
): Promise<FeedbackList> {
  const after = options.cursor ?? [null, null, null];
  const { rows } = await pool.query<FeedbackRow & { thread_id: string; message_id: string; title: string; model: string | null }>(
    `SELECT f.thread_id, f.message_id, f.rating, f.reason, f.comment, ${UPDATED_AT}, t.title, m.model
       FROM message_feedback f
       JOIN threads t ON t.id = f.thread_id AND t.owner = $1
       LEFT JOIN messages m ON m.thread_id = f.thread_id AND m.message_id = f.message_id AND m.part_index = 0
      WHERE f.updated_at > coalesce($2::timestamptz, '-infinity')
        AND ($3::timestamptz IS NULL OR (f.updated_at, f.thread_id, f.message_id) > ($3::timestamptz, $4::uuid, $5::text))
      ORDER BY f.updated_at, f.thread_id, f.message_id
      LIMIT $6`,
    [owner, options.since ?? null, ...after, options.limit + 1],
  );
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    feedback: page.map((row) => ({
      threadId: row.thread_id,
      messageId: row.message_id,
      threadTitle: row.title,
      model: row.model,
      ...feedbackOf(row),
    })),
    next: rows.length > options.limit && last ? feedbackCursor.encode([last.updated_at, last.thread_id, last.message_id]) : null,
  };
}
