// Why a reply was not good, as the page offers it and the routes count it.
// No zod here: the page imports it, and zod's schemas would come with it
// (lib/protocol/feedback.ts checks the wire and re-exports these).

/** Why a reply was not good: a short list a script can count, with free text beside it. */
export const FEEDBACK_REASONS = {
  inaccurate: "Not accurate",
  unhelpful: "Not helpful",
  incomplete: "Incomplete",
  "ignored-instructions": "Didn't follow instructions",
  "too-long": "Too long",
  unsafe: "Unsafe or harmful",
  other: "Something else",
} as const;

export type FeedbackReason = keyof typeof FEEDBACK_REASONS;
export const MAX_FEEDBACK_COMMENT = 2000;
