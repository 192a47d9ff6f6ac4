import "server-only";
import { fail, slice, wholeNumber, type SettingsOf } from "@/lib/env";

/** When a thread is compacted (lib/agent/compaction.ts says how). */
export interface CompactionSettings {
  /** Compact when the model's history holds more than this many messages. */
  maxMessages: number;
  /** How many it holds after compaction (the summary counts as one). */
  targetMessages: number;
  /** The most recent user turns (a user message and the reply to it) always kept as they are. */
  keepTurns: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { maxMessages: 50, targetMessages: 30, keepTurns: 10 };

/** Compaction's part of the configuration, read into one `compaction` value (undefined: off). */
export const compactionSettings = slice({
  shape: {
    /** Compact a thread when the model's history holds more messages than this; 0: never. */
    COMPACTION_MAX_MESSAGES: wholeNumber(0, 999_999).default(DEFAULT_COMPACTION.maxMessages).describe("messages before compaction"),
    /** Messages left after compaction, the summary counted; unset: 30, or one less than the maximum. */
    COMPACTION_TARGET_MESSAGES: wholeNumber(2, 999_999).optional().describe("messages after compaction"),
    /** The most recent user turns compaction always keeps. */
    COMPACTION_KEEP_TURNS: wholeNumber(1, 999_999).default(DEFAULT_COMPACTION.keepTurns).describe("user turns kept as they are"),
  },
  // COMPACTION_TARGET_MESSAGES's default and its bound depend on COMPACTION_MAX_MESSAGES.
  finish(settings): { compaction: CompactionSettings | undefined } {
    const maxMessages = settings.COMPACTION_MAX_MESSAGES;
    if (maxMessages === 0) return { compaction: undefined };
    const targetMessages = settings.COMPACTION_TARGET_MESSAGES ?? Math.min(DEFAULT_COMPACTION.targetMessages, maxMessages - 1);
    if (targetMessages < 2 || targetMessages >= maxMessages) {
      fail(`COMPACTION_TARGET_MESSAGES must be at least 2 and less than COMPACTION_MAX_MESSAGES (${maxMessages}), not ${targetMessages}.`);
    }
    return { compaction: { maxMessages, targetMessages, keepTurns: settings.COMPACTION_KEEP_TURNS } };
  },
});

/** Compaction's part of the configuration: its variables and the `compaction` read from them. */
export type CompactionConfig = SettingsOf<typeof compactionSettings>;
