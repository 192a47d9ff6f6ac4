// A durable run that retries a model step streams that step's text again. The
// server announces each retry with the text parts to keep and to drop; these
// rules hide the dropped ones while the reply streams and remove them after.
import type { ChatMessage, DataPart } from "@/lib/client/messages";

export interface RetryNotice {
  /** Visible text parts, from the start of the reply, that stay. */
  keepTextParts: number;
  /** The visible text parts after those that the failed try wrote. */
  dropTextParts: number;
}

export function retryNoticeFromPart(part: DataPart): RetryNotice | null {
  if (part.type !== "data-retry") return null;
  const data = part.data as Partial<RetryNotice> | null;
  if (typeof data?.keepTextParts !== "number" || typeof data?.dropTextParts !== "number") return null;
  return { keepTextParts: data.keepTextParts, dropTextParts: data.dropTextParts };
}

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
