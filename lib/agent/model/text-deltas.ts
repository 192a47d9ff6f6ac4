/**
 * Joins a model's text deltas so that none ends inside a character. A
 * provider may cut its stream between the two halves of a surrogate pair (an
 * emoji, say): each half alone is not text, and Postgres, the client and the
 * signature would each see something different. A delta that ends with a
 * first half keeps it back until the next brings the second; what can never
 * be completed becomes U+FFFD, the replacement character.
 *
 * Pure: what is held back is the caller's, so a part being written is a plain value.
 */
export interface Joined {
  /** What can be sent now. */
  text: string;
  /** What is held back for the next delta. */
  held: string;
}

/** A delta after what was held back. */
export function joinDelta(held: string, delta: string): Joined {
  const text = held + delta;
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) return { text: text.slice(0, -1).toWellFormed(), held: text.slice(-1) };
  return { text: text.toWellFormed(), held: "" };
}

/** What is still held back, when the part ends. */
export const flushDelta = (held: string): Joined => ({ text: held.toWellFormed(), held: "" });
