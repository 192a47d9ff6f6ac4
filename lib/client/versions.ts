// The "‹ 2 / 3 ›" of a thread's messages and what regenerate and edit do to
// the page's copy of the thread. Pure functions only, so they are easy to test.
import type { MessageVersions } from "@/lib/protocol/threads";
import type { ChatMessage } from "@/lib/client/messages";

/** Each message's versions by its id; a message without other versions is not in it. */
export type VersionIndex = ReadonlyMap<string, MessageVersions>;

export function indexVersions(list: readonly MessageVersions[]): VersionIndex {
  return new Map(list.map((v) => [v.messageId, v]));
}

/** The version before (-1) or after (+1) the one shown; null at either end. */
export function neighbourVersion({ versions, position }: MessageVersions, step: -1 | 1): string | null {
  return versions[position - 1 + step] ?? null;
}

/** The thread's last reply, which Regenerate answers anew: only when nothing but summaries follows it, and not a reminder (it answers no message). */
export function regenerableReplyId(messages: readonly ChatMessage[]): string | null {
  const last = messages.findLast((m) => m.role !== "system");
  return last?.role === "assistant" && last.metadata?.reminder !== true ? last.id : null;
}

/**
 * The page's copy of the thread as an edit of `messageId` leaves it: every
 * message before it (the new text follows them). Null when the message is not
 * in the copy or is not the user's.
 */
export function messagesBeforeEdit(messages: readonly ChatMessage[], messageId: string): ChatMessage[] | null {
  const at = messages.findIndex((m) => m.id === messageId);
  if (at === -1 || messages[at].role !== "user") return null;
  return messages.slice(0, at);
}
