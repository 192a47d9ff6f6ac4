// GET /api/threads/:id/usage: what a thread's model calls spent, every
// version of every reply counted (a regenerate costs too), titles and
// summaries included. Isomorphic: types only.
import type { Tokens, UsagePurpose } from "@threadline/history/usage";

/** Tokens and what they cost in US dollars; `cost` null when a call among them is of a model with no known price. */
export interface UsageSum extends Tokens {
  totalTokens: number;
  calls: number;
  cost: number | null;
}

export interface ThreadUsage {
  total: UsageSum;
  byAgent: Record<string, UsageSum>;
  byPurpose: Partial<Record<UsagePurpose, UsageSum>>;
  byModel: Record<string, UsageSum>;
  /** By reply (and summary): each with its calls by agent. */
  byMessage: Record<string, UsageSum & { byAgent: Record<string, UsageSum> }>;
}
