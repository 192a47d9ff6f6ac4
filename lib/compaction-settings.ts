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

