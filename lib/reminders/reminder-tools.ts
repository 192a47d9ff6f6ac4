import "server-only";
import { z } from "zod";
import { defineTool, type AgentTool, type Toolset } from "@/lib/agent/network/tools/types";
import { dueTime, localTime } from "./due-time";
import type { Reminder, ReminderStore } from "./reminder-store";

/** The earliest a reminder may be due: a time the model reckoned a moment ago may have just passed. */
const GRACE_MS = 60_000;
/** The latest: a year ahead. */
const HORIZON_MS = 366 * 86_400_000;

export interface ReminderToolsDeps {
  store: Pick<ReminderStore, "schedule" | "made" | "cancel">;
  /** Counts one new reminder of the owner's; throws (a 429 AppError, read by the model as the call's error) past the rate. */
  limit?: (owner: string) => Promise<void>;
  /** Told of each reminder scheduled now (the Inngest runtime starts the run that posts it). */
  scheduled?: (reminder: Reminder) => Promise<void>;
  clock?: () => Date;
}

/**
 * The first tools that change something: a reminder the agent posts into the
 * thread at a time, and its cancellation. Both ask the user first. Each
 * scheduling call is keyed by its idempotency key, so running it again
 * (after a crash, or a durable run's retry) schedules it once.
 */
const REFUSALS = {
  no_thread: "This conversation no longer exists.",
  thread_full: "This conversation has too many reminders pending; cancel one or wait until one is posted.",
  owner_full: "You have too many reminders pending; cancel one or wait until one is posted.",
} as const;

export function reminderTools({ store, limit, scheduled, clock = () => new Date() }: ReminderToolsDeps): AgentTool[] {
  return [
    defineTool({
      name: "schedule_reminder",
      description:
        "Schedule a reminder: at that time a message with its text is posted into this conversation. " +
        'Give `at` as an ISO 8601 date-time with its offset ("2026-11-26T17:00:00+01:00"), or without one for the user\'s own local time. ' +
        "The user is asked to approve it first.",
      input: z.object({
        at: z.string().min(1).max(64).describe("When, ISO 8601: with an offset, or the user's local time without one"),
        text: z.string().trim().min(1).max(500).describe("What to remind them of, in a few words"),
      }),
      needsApproval: true,
      async execute({ at, text }, context) {
        const timeZone = context.timeZone ?? "UTC";
        const due = dueTime(at, timeZone);
        if (!due) throw new Error(`"${at}" is not a date and time. Give ISO 8601, e.g. 2026-11-26T17:00:00+01:00.`);
        const now = clock().getTime();
        if (due.getTime() < now - GRACE_MS) throw new Error(`${localTime(due, timeZone)} has passed; pick a later time.`);
        if (due.getTime() > now + HORIZON_MS) throw new Error("A reminder can be at most a year ahead.");
        if (!context.idempotencyKey) throw new Error("This call has no key to schedule it once by.");
        const key = context.idempotencyKey;
        const one = { id: key, owner: context.owner, threadId: context.threadId, text, dueAt: due, timeZone };
        // Counted before it is stored, so a refusal stores nothing; the same call run again (a retry) finds its reminder uncounted.
        if (limit && !(await store.made({ id: key, owner: context.owner }))) await limit(context.owner);
        const made = await store.schedule(one);
        if ("refused" in made) throw new Error(REFUSALS[made.refused]);
        if (made.created) await scheduled?.(made.reminder);
        const { reminder } = made;
        return { id: reminder.id, text: reminder.text, dueAt: reminder.dueAt, local: localTime(new Date(reminder.dueAt), reminder.timeZone), timeZone: reminder.timeZone };
      },
    }),
    defineTool({
      name: "cancel_reminder",
      description: "Cancel a reminder scheduled earlier, by the id schedule_reminder returned. The user is asked to approve it first.",
      input: z.object({ id: z.uuid().describe("The reminder's id") }),
      needsApproval: true,
      async execute({ id }, context) {
        const cancelled = await store.cancel({ owner: context.owner, id });
        if (!cancelled) throw new Error("There is no scheduled reminder with that id (it may have been posted or cancelled already).");
        return { id, text: cancelled.text, cancelled: true };
      },
    }),
  ];
}

/** The reminder tools with the words that go with them in the agents' prompts. */
export const reminderToolset = (deps: ReminderToolsDeps): Toolset => ({
  tools: reminderTools(deps),
  handOverFor: "a reminder to schedule or cancel",
  use: "schedule_reminder and cancel_reminder for reminders (the user approves each first)",
  offers: "reminders",
});
