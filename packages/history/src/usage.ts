// What one model call spent, as a turn stores it with its reply (and a title
// or a summary with theirs): the tokens, the model, and who asked. Isomorphic:
// types and constants only.

/** Why a model was called: an agent answering, an agent called as a sub-agent, a thread's title, a compaction summary. */
export const USAGE_PURPOSES = ["answer", "sub-agent", "title", "summary"] as const;
export type UsagePurpose = (typeof USAGE_PURPOSES)[number];

/** The tokens of one call, as the provider reported them (0 where it did not say). */
export interface Tokens {
  inputTokens: number;
  outputTokens: number;
  /** Of the input, read from the provider's cache (billed cheaper). */
  cachedTokens: number;
  /** Of the output, spent on reasoning. */
  reasoningTokens: number;
}

/** One model call's usage, as stored. */
export interface ModelUsage extends Tokens {
  /** The call's own id: stored once however often its step is replayed. */
  id: string;
  /** The agent that called, for an answer or a sub-agent's call. */
  agent?: string;
  purpose: UsagePurpose;
  /** `provider:model`, or "unknown" where the caller did not say. */
  model: string;
}

/** An AI SDK result's usage (generateText's) in the four numbers kept. */
export function tokensFromResult(usage: {
  inputTokens?: number;
  outputTokens?: number;
  inputTokenDetails?: { cacheReadTokens?: number };
  outputTokenDetails?: { reasoningTokens?: number };
}): Tokens {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cachedTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
    reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? 0,
  };
}
