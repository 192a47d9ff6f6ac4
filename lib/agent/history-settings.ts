import "server-only";
import { historyLengthSchema, historyPolicyNameSchema, type HistoryPolicy } from "@/lib/protocol/history-policy";

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
