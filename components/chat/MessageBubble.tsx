"use client";

import { memo } from "react";
import { Markdown } from "@/components/chat/Markdown";
import { ThinkingIndicator } from "@/components/chat/ThinkingIndicator";

interface MessageBubbleProps {
  role: "user" | "assistant";
  text: string;
  /** The reply is still being written: an empty one shows the thinking dots. */
  streaming: boolean;
  stopped: boolean;
}

// Memoised on plain props so that, while a reply streams, only its own bubble re-renders.
export const MessageBubble = memo(function MessageBubble({ role, text, streaming, stopped }: MessageBubbleProps) {
  if (role === "user") {
    return (
      <div className="flex justify-end">
        <div
          data-role="user"
          className="max-w-[85%] rounded-3xl bg-neutral-100 px-4 py-2.5 break-words dark:bg-neutral-800"
        >
          <Markdown text={text} />
        </div>
      </div>
    );
  }
  return (
    <div className="flex justify-start">
      <div data-role="assistant" className="w-full min-w-0 break-words" aria-busy={streaming || undefined}>
        {text.length === 0 && streaming ? <ThinkingIndicator /> : <Markdown text={text} />}
        {stopped && <p className="mt-1 text-xs text-neutral-500 dark:text-neutral-400">Stopped</p>}
      </div>
    </div>
  );
});
