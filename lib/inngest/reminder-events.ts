import "server-only";
import type { Inngest } from "inngest";
import { REMINDER_SCHEDULED_EVENT, type ReminderScheduledEventData } from "@/lib/protocol/turn-events";
import type { Reminder } from "@/lib/reminders/reminder-store";

/** Starts the run that posts the reminder when due; the event's id is the reminder's, so Inngest starts one however often it is sent. */
export async function scheduleOnInngest(inngest: Inngest, reminder: Reminder): Promise<void> {
  const data: ReminderScheduledEventData = { id: reminder.id, dueAt: reminder.dueAt };
  await inngest.send({ id: `reminder-${reminder.id}`, name: REMINDER_SCHEDULED_EVENT, data });
}
