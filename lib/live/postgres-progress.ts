import "server-only";
import type pg from "pg";
import { notFoundThread } from "@threadline/history/errors";
import type { LiveStore, ProgressRow, StoredProgress, TurnState } from "@/lib/live/store";
import type { TurnChunkMessage } from "@/lib/protocol/turn-events";

/**
 * Live's store in Postgres: a running turn's stream as it is written
 * (turn_progress), and which turn of a thread is running: what a client that
 * joins late resumes from.
 */
export class PostgresLiveStore implements LiveStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Writes one row and, in the same statement, announces it on `channel`
   * (delivered when it commits, so a listener that wakes finds it). A sweep
   * rides along: rows of turns that ended over ten minutes ago (their reply is
   * stored by then) and any row older than a day (a turn whose runner died).
   */
  async writeProgress(row: ProgressRow, notice: { channel: string; payload: string }): Promise<void> {
    await this.pool.query(
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

  async readProgress(turnId: string, afterId: string): Promise<StoredProgress[]> {
    const { rows } = await this.pool.query<{ id: string; chunks: string; final: boolean }>(
      // Ordered by the number, not by its text (an output column named id would win in ORDER BY id).
      "SELECT p.id::text AS id, p.chunks, p.final FROM turn_progress p WHERE p.turn_id = $1 AND p.id > $2::bigint ORDER BY p.id",
      [turnId, afterId],
    );
    return rows.map((row) => ({ id: row.id, chunks: JSON.parse(row.chunks) as TurnChunkMessage[], final: row.final, size: row.chunks.length }));
  }

  /** Running: its runner is alive and its lease live, or a durable run holds it. */
  async runningTurnOf(owner: string, threadId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ turn_id: string | null }>(
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

  async runningThreadsOf(owner: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT t.id FROM threads t
        WHERE t.owner = $1
          AND EXISTS (SELECT 1 FROM turns WHERE thread_id = t.id AND status <> 'done' AND threadline_turn_running(turns))`,
      [owner],
    );
    return rows.map((row) => row.id);
  }

  async turnState(threadId: string, turnId: string): Promise<TurnState> {
    const { rows } = await this.pool.query<{ live: boolean; ended: boolean }>(
      `SELECT threadline_turn_running(turns) AS live, status <> 'running' AS ended
         FROM turns WHERE thread_id = $1 AND turn_id = $2`,
      [threadId, turnId],
    );
    if (rows.length === 0) return "gone";
    return rows[0].live ? "running" : rows[0].ended ? "ended" : "gone";
  }

  async announce({ channel, payload }: { channel: string; payload: string }): Promise<void> {
    await this.pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
  }
}
