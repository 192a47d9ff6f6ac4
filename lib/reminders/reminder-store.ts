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

/** The most reminders still to come, per thread and per owner (REMINDERS_PER_THREAD, REMINDERS_PER_IDENTITY). */
export interface ReminderCaps {
  perThread: number;
  perOwner: number;
}

export const DEFAULT_REMINDER_CAPS: ReminderCaps = { perThread: 20, perOwner: 100 };

/** What scheduling did: made it (or found it made by the same call), or refused it and stored nothing. */
export type ScheduleOutcome = { reminder: Reminder; created: boolean } | { refused: "no_thread" | "thread_full" | "owner_full" };

/**
 * The reminders table (packages/history/db/migrations/…_reminders.sql): what
 * an agent schedules, keyed by the scheduling call, and posted once when due
 * (db/functions/threadline_post_reminder.sql) by whichever server looks.
 */
export class ReminderStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged = () => {},
    private readonly caps: ReminderCaps = DEFAULT_REMINDER_CAPS,
  ) {}

  /**
   * Schedules it under `id`, or finds the one scheduled under it already (the
   * same call run again): `created` says which. Refused, nothing stored, when
   * the thread or the owner already has as many pending as the caps allow
   * (threadline_schedule_reminder counts them under the owner's lock).
   */
  async schedule(reminder: { id: string; owner: string; threadId: string; text: string; dueAt: Date; timeZone: string }): Promise<ScheduleOutcome> {
    const { rows } = await this.pool.query<ReminderRow & { outcome: "created" | "exists" | "no_thread" | "thread_full" | "owner_full" }>(
      `SELECT outcome, ${COLUMNS} FROM threadline_schedule_reminder($1, $2, $3, $4, $5, $6, $7, $8)`,
      [reminder.id, reminder.owner, reminder.threadId, reminder.text, reminder.dueAt, reminder.timeZone, this.caps.perThread, this.caps.perOwner],
    );
    const [row] = rows;
    if (row.outcome === "created" || row.outcome === "exists") {
      if (row.outcome === "created") this.changed(reminder.owner, reminder.threadId);
      return { reminder: fromRow(row), created: row.outcome === "created" };
    }
    return { refused: row.outcome };
  }

  /** Whether the owner's call `id` has scheduled its reminder already. */
  async made({ owner, id }: { owner: string; id: string }): Promise<boolean> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM reminders WHERE id = $1 AND owner = $2", [id, owner]);
    return rowCount !== 0;
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
