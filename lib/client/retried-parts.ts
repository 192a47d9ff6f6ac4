// A durable run that retries a step streams that step's parts again. The
// server stamps every part with the step and attempt that wrote it and
// announces each retry; these rules hide a failed attempt's parts while the
// reply streams and remove them after.
import { UI_METADATA_KEY } from "@/lib/protocol/parts-codec";
import type { ChatDataParts, ChatMessage } from "@/lib/protocol/chat";

/** A step was retried: its parts from earlier attempts are withdrawn. */
export type RetryNotice = ChatDataParts["retry"];

type UIPart = ChatMessage["parts"][number];

function origin(part: UIPart): { step?: unknown; attempt?: unknown } | undefined {
  const metadata = part.type === "dynamic-tool" ? part.callProviderMetadata : "providerMetadata" in part ? part.providerMetadata : undefined;
  return metadata?.[UI_METADATA_KEY] as { step?: unknown; attempt?: unknown } | undefined;
}

/** The message's parts without those of failed attempts. */
export function withoutRetriedParts(parts: ChatMessage["parts"], notices: RetryNotice[]): ChatMessage["parts"] {
  if (notices.length === 0) return parts;
  return parts.filter((part) => {
    const from = origin(part);
    if (typeof from?.step !== "string" || typeof from.attempt !== "number") return true;
    return !notices.some((notice) => notice.step === from.step && (from.attempt as number) < notice.attempt);
  });
}

/** A reply's retries: announced while it streams, its id known once it has ended. */
export interface RetriedReply {
  notices: RetryNotice[];
  /** null while the reply streams: it is then the thread's last message, if it has begun. */
  replyId: string | null;
}

/** The thread with the failed attempts' parts of the reply taken out of it; the same array when there are none. */
export function withoutRetriedReply(messages: ChatMessage[], { notices, replyId }: RetriedReply): ChatMessage[] {
  if (notices.length === 0) return messages;
  const at = replyId === null ? (messages.at(-1)?.role === "assistant" ? messages.length - 1 : -1) : messages.findIndex((m) => m.id === replyId);
  const reply = messages[at];
  if (!reply) return messages;
  return [...messages.slice(0, at), { ...reply, parts: withoutRetriedParts(reply.parts, notices) }, ...messages.slice(at + 1)];
}
