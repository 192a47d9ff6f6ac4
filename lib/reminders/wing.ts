import "server-only";
import { LISTED_REMINDERS, type ListedReminder } from "@/lib/protocol/threads";
import { once, type Wing, type WingParts } from "@/lib/wing";
import type { RateLimits } from "@/lib/rate-limit";
import { ReminderStore, type Reminder } from "./reminder-store";
import { reminderToolset } from "./reminder-tools";
import type { RemindersSettings } from "./settings";

// Reminders' part of a thread's life: they go with their thread (by cascade),
// show under it in the list, and follow their owner to a new one. A fork and
// a file carry none: a reminder is a promise made in one thread, once.

interface ListedReminders {
  count: number;
  first: ListedReminder[];
}

/** What the reminders take from the app. */
interface RemindersApp {
  reminders(): ReminderStore;
  rateLimits(): Pick<RateLimits, "limitReminder">;
  /** Told of each reminder scheduled (the Inngest runtime starts the run that posts it); undefined inline, where every server's due work looks for it. */
  reminderScheduled(): ((reminder: Reminder) => Promise<void>) | undefined;
}

const services = ({ config, pool, threadsChanged }: WingParts<RemindersSettings>) => ({
  /** Reminders the agents schedule. */
  reminders: once(
    (): ReminderStore => new ReminderStore(pool(), threadsChanged, { perThread: config.REMINDERS_PER_THREAD, perOwner: config.REMINDERS_PER_IDENTITY }),
  ),
});

export const remindersWing: Wing<RemindersApp, ReturnType<typeof services>, RemindersSettings> = {
  name: "reminders",
  tables: ["reminders"],
  services,
  toolset: (app) =>
    reminderToolset({ store: app.reminders(), limit: (owner) => app.rateLimits().limitReminder(owner), scheduled: app.reminderScheduled() }),
  thread: {
    listed: {
      // One probe of reminders_thread_idx per listed thread: the window counts every row before LIMIT keeps the first few.
      sql: `(SELECT jsonb_build_object('count', coalesce(max(s.total), 0),
                'first', coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'text', s.text, 'dueAt', s.due_at) ORDER BY s.due_at, s.id), '[]'::jsonb))
               FROM (SELECT id, text, due_at, count(*) OVER () AS total FROM reminders r
                      WHERE r.thread_id = t.id AND r.status = 'scheduled' ORDER BY due_at, id LIMIT ${LISTED_REMINDERS}) s)`,
      item(value) {
        const listed = value as ListedReminders;
        // jsonb keeps the timestamp as Postgres prints it; the API speaks ISO.
        return { reminders: listed.first.map((r) => ({ ...r, dueAt: new Date(r.dueAt).toISOString() })), reminderCount: listed.count };
      },
    },
    async adopt(tx, from, to) {
      await tx.query("UPDATE reminders SET owner = $2 WHERE owner = $1", [from, to]);
    },
  },
};
