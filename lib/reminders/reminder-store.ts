import "server-only";
import type pg from "pg";
import type { ThreadsChanged } from "@threadline/history/contract";

/** A reminder as the sidebar and the agent see it. */
export interface Reminder {
  id: string;
  threadId: string;
  text: string;
  /** ISO 8601, UTC. */
  dueAt: string;
  /** The user's time zone when it was scheduled: the time is said in it. */
  timeZone: string;
  status: "scheduled" | "posted" | "cancelled";
}

interface ReminderRow {
  id: string;
  thread_id: string;
  text: string;
  due_at: Date;
  time_zone: string;
  status: Reminder["status"];
}

const fromRow = (row: ReminderRow): Reminder => ({
  id: row.id,
  threadId: row.thread_id,
  text: row.text,
  dueAt: row.due_at.toISOString(),
  timeZone: row.time_zone,
  status: row.status,
});

const COLUMNS = "id, thread_id, text, due_at, time_zone, status";

/**
 * The reminders table (packages/history/db/migrations/…_reminders.sql): what
 * an agent schedules, keyed by the scheduling call, and posted once when due
 * (db/functions/threadline_post_reminder.sql) by whichever server looks.
 */
export class ReminderStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged = () => {},
  ) {}

  /**
   * Schedules it under `id`, or finds the one scheduled under it already (the
   * same call run again): `created` says which. Null: no such thread of the owner's.
   */
  async schedule(reminder: { id: string; owner: string; threadId: string; text: string; dueAt: Date; timeZone: string }): Promise<{ reminder: Reminder; created: boolean } | null> {
    const { rows } = await this.pool.query<ReminderRow & { created: boolean }>(
      `WITH inserted AS (
         INSERT INTO reminders (id, thread_id, owner, text, due_at, time_zone)
         SELECT $1, t.id, t.owner, $4, $5, $6 FROM threads t WHERE t.id = $2 AND t.owner = $3
         ON CONFLICT (id) DO NOTHING
         RETURNING ${COLUMNS})
       SELECT ${COLUMNS}, true AS created FROM inserted
       UNION ALL
       SELECT ${COLUMNS}, false AS created FROM reminders WHERE id = $1 AND owner = $3 AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [reminder.id, reminder.threadId, reminder.owner, reminder.text, reminder.dueAt, reminder.timeZone],
    );
    if (rows.length === 0) return null;
    if (rows[0].created) this.changed(reminder.owner, reminder.threadId);
    return { reminder: fromRow(rows[0]), created: rows[0].created };
  }

  /** Cancels the owner's scheduled reminder; false when there is none to cancel (unknown, posted or cancelled). */
  async cancel({ owner, id }: { owner: string; id: string }): Promise<Reminder | null> {
    const { rows } = await this.pool.query<ReminderRow>(
      `UPDATE reminders SET status = 'cancelled', settled_at = now()
        WHERE id = $1 AND owner = $2 AND status = 'scheduled' RETURNING ${COLUMNS}`,
      [id, owner],
    );
    if (rows.length === 0) return null;
    this.changed(owner, rows[0].thread_id);
    return fromRow(rows[0]);
  }

  /** A thread's reminders still to come, soonest first. */
  async scheduled({ owner, threadId }: { owner: string; threadId: string }): Promise<Reminder[]> {
    const { rows } = await this.pool.query<ReminderRow>(
      `SELECT ${COLUMNS} FROM reminders WHERE thread_id = $1 AND owner = $2 AND status = 'scheduled' ORDER BY due_at, id`,
      [threadId, owner],
    );
    return rows.map(fromRow);
  }

  /** Posts the reminders due now (up to `limit`) that no other server is posting: each once. Their ids. */
  async postDue(limit = 20): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string; thread_id: string; owner: string }>(
      "SELECT id, thread_id, owner FROM threadline_post_due_reminders($1)",
      [limit],
    );
    for (const row of rows) this.changed(row.owner, row.thread_id);
    return rows.map((row) => row.id);
  }

  /** Posts one reminder if it is due and its thread free: what happened ('early' when not due yet). */
  async post(id: string): Promise<"posted" | "busy" | "gone" | "early"> {
    const { rows } = await this.pool.query<{ outcome: "posted" | "busy" | "gone" | "early"; thread_id: string | null; owner: string | null }>(
      "SELECT outcome, thread_id, owner FROM threadline_post_reminder($1)",
      [id],
    );
    const [row] = rows;
    if (row.outcome === "posted" && row.owner && row.thread_id) this.changed(row.owner, row.thread_id);
    return row.outcome;
  }
}
