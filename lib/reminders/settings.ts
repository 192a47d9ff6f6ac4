import "server-only";
import { slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** The reminders wing's part of the configuration: how many may wait, and how often one is scheduled. */
export const remindersSettings = slice({
  shape: {
    /** Reminders scheduled per identity per hour; 0: off. */
    RATE_LIMIT_REMINDERS_PER_HOUR: wholeNumber(0, 999_999_999).default(60).describe("reminders scheduled per identity per hour"),
    /** The most reminders still to come in one thread. */
    REMINDERS_PER_THREAD: wholeNumber(1, 100_000).default(20).describe("pending reminders per thread"),
    /** The most reminders still to come for one identity, all threads together. */
    REMINDERS_PER_IDENTITY: wholeNumber(1, 1_000_000).default(100).describe("pending reminders per identity"),
  },
});

/** The reminders wing's configuration. */
export type RemindersSettings = SettingsOf<typeof remindersSettings>;
