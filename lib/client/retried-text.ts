// A durable run that retries a model step streams that step's text again. The
// server announces each retry with the text parts to keep and to drop; these
// rules hide the dropped ones while the reply streams and remove them after.
import type { ChatDataParts, ChatMessage } from "@/lib/protocol/chat";

/** Of the reply's visible text parts: how many from the start stay, and how many after them the failed try wrote. */
export type RetryNotice = ChatDataParts["retry"];

/** The message's parts without the text of failed tries, applying the notices in the order they came. */
export function withoutRetriedText(parts: ChatMessage["parts"], notices: RetryNotice[]): ChatMessage["parts"] {
  if (notices.length === 0) return parts;
  const hidden = new Set<number>();
  for (const { keepTextParts, dropTextParts } of notices) {
    let visibleText = 0;
    parts.forEach((part, index) => {
      if (part.type !== "text" || hidden.has(index)) return;
      if (visibleText >= keepTextParts && visibleText < keepTextParts + dropTextParts) hidden.add(index);
      visibleText++;
    });
  }
  return parts.filter((_, index) => !hidden.has(index));
}
