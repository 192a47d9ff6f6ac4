import "server-only";
import { wholeNumberSetting } from "@/lib/settings";
import { DEFAULT_COMPACTION, type CompactionSettings } from "./compaction-settings";
import { historyLengthSchema, historyPolicyNameSchema } from "@/lib/protocol/chat";
import type { HistoryPolicy } from "@/lib/protocol/history-policy";

/**
 * The operator's history setting, which no URL can override:
 * NEXT_PUBLIC_DEFAULT_HISTORY_POLICY (all | none | lastN) and
 * NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH (a whole number). Read on the server when
 * the network is built; a bad value stops the turn with a message that names it.
 */
export function environmentHistoryPolicy(env: NodeJS.ProcessEnv = process.env): Partial<HistoryPolicy> {
  const setting: Partial<HistoryPolicy> = {};
  const policy = env.NEXT_PUBLIC_DEFAULT_HISTORY_POLICY?.trim();
  if (policy) {
    const parsed = historyPolicyNameSchema.safeParse(policy);
    if (!parsed.success) throw new Error(`NEXT_PUBLIC_DEFAULT_HISTORY_POLICY ${parsed.error.issues[0].message}, not "${policy}".`);
    setting.policy = parsed.data;
  }
  const length = env.NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH?.trim();
  if (length) {
    const parsed = historyLengthSchema.safeParse(length);
    if (!parsed.success) throw new Error(`NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH ${parsed.error.issues[0].message}, not "${length}".`);
    setting.length = parsed.data;
  }
  return setting;
}

/**
 * The operator's compaction setting: COMPACTION_MAX_MESSAGES (compact when the
 * model's history holds more; 0 turns compaction off), COMPACTION_TARGET_MESSAGES
 * (what it holds after) and COMPACTION_KEEP_TURNS (recent user turns always
 * kept). Unset, the defaults hold: 50, 30 and 10.
 */
export function environmentCompaction(env: Record<string, string | undefined> = process.env): CompactionSettings | undefined {
  const read = (name: string, fallback: number) => wholeNumberSetting(env, name, { maxDigits: 6 }) ?? fallback;
  const maxMessages = read("COMPACTION_MAX_MESSAGES", DEFAULT_COMPACTION.maxMessages);
  if (maxMessages === 0) return undefined;
  const targetMessages = read("COMPACTION_TARGET_MESSAGES", Math.min(DEFAULT_COMPACTION.targetMessages, maxMessages - 1));
  const keepTurns = read("COMPACTION_KEEP_TURNS", DEFAULT_COMPACTION.keepTurns);
  if (targetMessages < 2 || targetMessages >= maxMessages) {
    throw new Error(`COMPACTION_TARGET_MESSAGES must be at least 2 and less than COMPACTION_MAX_MESSAGES (${maxMessages}), not ${targetMessages}.`);
  }
  if (keepTurns < 1) throw new Error("COMPACTION_KEEP_TURNS must be at least 1.");
  return { maxMessages, targetMessages, keepTurns };
}
