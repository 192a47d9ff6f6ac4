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
