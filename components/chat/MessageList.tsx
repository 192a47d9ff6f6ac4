"use client";

import { useEffect } from "react";
import { MessageBubble } from "@/components/chat/MessageBubble";
import { SummaryMarker } from "@/components/chat/SummaryMarker";
import { ThinkingIndicator } from "@/components/chat/ThinkingIndicator";
import { ErrorNotice } from "@/components/chat/ErrorNotice";
import { useStickToBottom } from "@/components/chat/useStickToBottom";
import { messageSize } from "@/components/chat/timeline";
import type { ChatMessage } from "@/lib/client/messages";

interface MessageListProps {
  messages: ChatMessage[];
  /** "submitted" (waiting for the first chunk), "streaming", or idle. */
  phase: "submitted" | "streaming" | "idle";
  stoppedReplyIds: ReadonlySet<string>;
  errorMessage: string | null;
  onRetry?: () => void;
  /** Changes when the user sends: the list then jumps to the end even if scrolled up. */
  sendCount: number;
}

export function MessageList({ messages, phase, stoppedReplyIds, errorMessage, onRetry, sendCount }: MessageListProps) {
  const last = messages.findLast((m) => m.role !== "system");
  // Changes as any part of the last message grows (text, reasoning, tool calls), so the view follows it.
  const contentVersion = `${messages.length}:${last ? messageSize(last) : ""}:${phase}:${errorMessage}`;
  const { containerRef, onScroll, pinned, scrollToBottom } = useStickToBottom<HTMLDivElement>(contentVersion);

  useEffect(() => {
    if (sendCount > 0) scrollToBottom();
  }, [sendCount, scrollToBottom]);

  // Opened at a message (a search result links to /c/<id>#message-<id>): show it instead of the end.
  useEffect(() => {
    const hash = decodeURIComponent(window.location.hash.slice(1));
    if (!hash.startsWith("message-")) return;
    const target = document.getElementById(hash);
    if (!target) return;
    target.scrollIntoView({ block: "start" });
    target.setAttribute("data-found", "true");
  }, []);

  return (
    <div className="relative min-h-0 flex-1">
      <div ref={containerRef} onScroll={onScroll} className="h-full overflow-y-auto">
        <div role="log" aria-label="Conversation" className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6">
          {messages.map((message) =>
            message.role === "system" ? (
              <SummaryMarker key={message.id} message={message} />
            ) : (
              <MessageBubble
                key={message.id}
                message={message}
                streaming={phase === "streaming" && message === last && message.role === "assistant"}
                stopped={stoppedReplyIds.has(message.id) || message.metadata?.stopped === true}
              />
            ),
          )}
          {phase === "submitted" && <ThinkingIndicator />}
          {errorMessage && <ErrorNotice message={errorMessage} onRetry={onRetry} />}
        </div>
      </div>
      {!pinned && (
        <button
          type="button"
          onClick={scrollToBottom}
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full border border-neutral-200 bg-white px-3 py-1 text-sm shadow-sm hover:bg-neutral-50 dark:border-neutral-700 dark:bg-neutral-800 dark:hover:bg-neutral-700"
        >
          Scroll to latest
        </button>
      )}
    </div>
  );
}
