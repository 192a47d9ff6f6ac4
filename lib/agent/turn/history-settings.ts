import "server-only";
import type { CoreSettings } from "@/lib/env";
import type { CompactionConfig, CompactionSettings } from "@/lib/agent/compaction-settings";
import type { HistoryPolicy } from "@/lib/protocol/history-policy";

/**
 * The operator's history setting, which no URL can override:
 * NEXT_PUBLIC_DEFAULT_HISTORY_POLICY (all | none | lastN) and
 * NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH (a whole number).
 */
export function environmentHistoryPolicy(settings: CoreSettings): Partial<HistoryPolicy> {
  const setting: Partial<HistoryPolicy> = {};
  if (settings.NEXT_PUBLIC_DEFAULT_HISTORY_POLICY) setting.policy = settings.NEXT_PUBLIC_DEFAULT_HISTORY_POLICY;
  if (settings.NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH !== undefined) setting.length = settings.NEXT_PUBLIC_DEFAULT_HISTORY_LENGTH;
  return setting;
}

/**
 * The operator's compaction setting: COMPACTION_MAX_MESSAGES (compact when the
 * model's history holds more; 0 turns compaction off), COMPACTION_TARGET_MESSAGES
 * (what it holds after) and COMPACTION_KEEP_TURNS (recent user turns always
 * kept). Unset, the defaults hold: 50, 30 and 10.
 */
export function environmentCompaction(settings: CompactionConfig): CompactionSettings | undefined {
  return settings.compaction;
}
