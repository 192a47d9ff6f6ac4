import "server-only";
import type { InngestClient } from "@/lib/inngest/client";
import { REMINDER_SCHEDULED_EVENT, type ReminderScheduledEventData } from "@/lib/protocol/turn-events";
import type { ReminderStore } from "@/lib/reminders/reminder-store";

/** A busy thread (a reply being written, or waiting for approval) is looked at again after this, doubling up to the longest. */
const FIRST_RETRY_S = 5;
const LONGEST_RETRY_S = 15 * 60;
/** Enough looks to outlast a day-long wait for an approval. */
const MAX_LOOKS = 120;

/**
 * Posts a reminder when it is due: the run sleeps until then, holding
 * nothing, and survives restarts. Posting marks the reminder posted in the
 * same statement (threadline_post_reminder), so a retried step posts
 * nothing more; a reminder cancelled or a thread deleted meanwhile posts
 * nothing at all.
 */
export function createPostReminderFunction(inngest: InngestClient, deps: { reminders: () => Pick<ReminderStore, "post"> }) {
  return inngest.createFunction(
    { id: "post-reminder", triggers: [{ event: REMINDER_SCHEDULED_EVENT }], retries: 3 },
    async ({ event, step }) => {
      const { id, dueAt } = event.data as ReminderScheduledEventData;
      await step.sleepUntil("until-due", new Date(dueAt));
      for (let look = 0, wait = FIRST_RETRY_S; look < MAX_LOOKS; look++, wait = Math.min(LONGEST_RETRY_S, wait * 2)) {
        const outcome = await step.run(`post:${look}`, () => deps.reminders().post(id));
        if (outcome === "posted" || outcome === "gone") return { outcome };
        await step.sleep(`later:${look}`, `${wait}s`);
      }
      return { outcome: "busy" };
    },
  );
}
