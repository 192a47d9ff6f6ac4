// How much of a thread the model is given on each turn. The database always
// keeps everything; a policy only trims what one model call reads.
//
//   all    every message
//   none   only the new message
//   lastN  the last N user messages and everything after each (N = 0 counts as 1)
//
// Messages that are not a user's or a reply (a compaction summary, say) are
// always kept. Isomorphic, and free of zod (the chat page applies the same
// rules to what it sends); the schemas that read a policy are in chat.ts.

export const HISTORY_POLICIES = ["all", "none", "lastN"] as const;
export type HistoryPolicyName = (typeof HISTORY_POLICIES)[number];

export interface HistoryPolicy {
  policy: HistoryPolicyName;
  /** Used by lastN only. */
  length: number;
}

/** Where the setting in force came from: the operator's environment wins over the URL, the URL over the agent's default. */
export type HistoryPolicySource = "environment" | "URL" | "default";

export interface ResolvedHistoryPolicy extends HistoryPolicy {
  source: HistoryPolicySource;
}

export const DEFAULT_HISTORY_POLICY: HistoryPolicy = { policy: "all", length: 10 };

/** The messages a model call reads of `messages` (oldest first; the new message last) under `policy`. */
export function applyHistoryPolicy<M extends { role: string }>(messages: M[], { policy, length }: HistoryPolicy): M[] {
  if (policy === "all") return messages;
  const keep = policy === "none" ? 1 : Math.max(1, length);
  // The index of the keep-th user message from the end; everything from there on stays.
  let seen = 0;
  let from = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user" && ++seen === keep) {
      from = i;
      break;
    }
  }
  if (seen < keep) return messages;
  return messages.filter((message, i) => i >= from || (message.role !== "user" && message.role !== "assistant"));
}

/**
 * The setting in force, field by field: the operator's (environment) when
 * set, else what the URL asked for, else the agent's default. A URL can never
 * override the operator. The source is the level the policy came from.
 */
export function resolveHistoryPolicy(levels: {
  environment?: Partial<HistoryPolicy>;
  url?: Partial<HistoryPolicy>;
  agentDefault?: HistoryPolicy;
}): ResolvedHistoryPolicy {
  const fallback = levels.agentDefault ?? DEFAULT_HISTORY_POLICY;
  const { environment: env = {}, url = {} } = levels;
  const source: HistoryPolicySource = env.policy !== undefined ? "environment" : url.policy !== undefined ? "URL" : "default";
  return {
    policy: env.policy ?? url.policy ?? fallback.policy,
    length: env.length ?? url.length ?? fallback.length,
    source,
  };
}
