import type { ResolvedHistoryPolicy } from "@/lib/protocol/history-policy";

/** What one agent's history policy made of the thread on a turn. */
export interface AgentHistoryTrim extends ResolvedHistoryPolicy {
  agent: string;
  /** The thread's messages, the new one counted. */
  from: number;
  /** The messages (a summary counted) the agent's model calls read. */
  to: number;
}

/** One line a developer reads in the server's console, e.g. `[history] Triage: policy lastN, length 12, source URL: from 22 to 12 messages`. */
export function historyTrimLine({ agent, policy, length, source, from, to }: AgentHistoryTrim): string {
  return `[history] ${agent}: policy ${policy}, length ${length}, source ${source}: from ${from} to ${to} messages`;
}

/**
 * Whether turns log that line: in development, not in production (where a
 * line per agent per turn is noise) nor under the test runner (whose suites
 * run thousands of turns).
 */
export function historyLogEnabled(nodeEnv: string | undefined): boolean {
  return nodeEnv !== "production" && nodeEnv !== "test";
}
