import "server-only";
import type pg from "pg";
import { notFoundThread } from "@/lib/errors";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";

// A running turn's stream as it is written (turn_progress), and which turn of
// a thread is running: what a client that joins late resumes from.

/** One flush of a turn's chunks: one row. */
export interface ProgressRow {
  turnId: string;
  messages: TurnChunkMessage[];
  /** The turn's last row. */
  final: boolean;
  /** Sweep old rows in the same statement (a process does it at most once a minute). */
  sweep: boolean;
}

/** A stored row, as a reader gets it: `id` is a bigint, kept as its text. */
export interface StoredProgress {
  id: string;
  chunks: TurnChunkMessage[];
  final: boolean;
  /** The row's characters as stored: what a reader that has not read it yet is behind by. */
  size: number;
}

/**
 * Writes one row and, in the same statement, announces it on `channel`
 * (delivered when it commits, so a listener that wakes finds it). A sweep
 * rides along: rows of turns that ended over ten minutes ago (their reply is
 * stored by then) and any row older than a day (a turn whose runner died).
 */
export async function writeProgress(pool: pg.Pool, row: ProgressRow, notice: { channel: string; payload: string }): Promise<void> {
  await pool.query(
    `WITH swept AS (
       DELETE FROM turn_progress
        WHERE $4::boolean
          AND (created_at < now() - interval '1 day'
               OR turn_id IN (SELECT turn_id FROM turn_progress WHERE final AND created_at < now() - interval '10 minutes'))
     ), written AS (
       INSERT INTO turn_progress (turn_id, chunks, final) VALUES ($1, $2, $3) RETURNING id
     )
     SELECT pg_notify($5, $6) FROM written`,
    [row.turnId, JSON.stringify(row.messages), row.final, row.sweep, notice.channel, notice.payload],
  );
}

/** A turn's rows after `afterId` (a row id; "0" for all), in order. */
export async function readProgress(pool: pg.Pool, turnId: string, afterId: string): Promise<StoredProgress[]> {
  const { rows } = await pool.query<{ id: string; chunks: string; final: boolean }>(
    // Ordered by the number, not by its text (an output column named id would win in ORDER BY id).
    "SELECT p.id::text AS id, p.chunks, p.final FROM turn_progress p WHERE p.turn_id = $1 AND p.id > $2::bigint ORDER BY p.id",
    [turnId, afterId],
  );
  return rows.map((row) => ({ id: row.id, chunks: JSON.parse(row.chunks) as TurnChunkMessage[], final: row.final, size: row.chunks.length }));
}

/**
 * The turn running in the owner's thread now (its runner is alive and its
 * lease live, or a durable run holds it), or null; a 404 AppError when the
 * thread is not the owner's or does not exist.
 */
export async function runningTurnOf(pool: pg.Pool, owner: string, threadId: string): Promise<string | null> {
  const { rows } = await pool.query<{ turn_id: string | null }>(
    `SELECT tu.turn_id
       FROM threads t
       LEFT JOIN LATERAL (
         SELECT turn_id FROM turns
          WHERE thread_id = t.id AND status <> 'done' AND threadline_turn_running(turns)
          ORDER BY updated_at DESC LIMIT 1
       ) tu ON true
      WHERE t.id = $1 AND t.owner = $2`,
    [threadId, owner],
  );
  if (rows.length === 0) throw notFoundThread();
  return rows[0].turn_id;
}

/** Whether that turn still runs in the thread. */
export async function turnStillRunning(pool: pg.Pool, threadId: string, turnId: string): Promise<boolean> {
  const { rows } = await pool.query<{ live: boolean }>(
    `SELECT threadline_turn_running(turns) AS live
       FROM turns WHERE thread_id = $1 AND turn_id = $2 AND status <> 'done'`,
    [threadId, turnId],
  );
  return rows.some((r) => r.live);
}
