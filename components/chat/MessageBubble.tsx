"use client";

import { memo } from "react";
import { AgentLabel, HandoffNote } from "@/components/chat/AgentLabel";
import { CopyButton } from "@/components/chat/CopyButton";
import { Markdown } from "@/components/chat/Markdown";
import { ReasoningBlock } from "@/components/chat/ReasoningBlock";
import { ThinkingIndicator } from "@/components/chat/ThinkingIndicator";
import { ToolCard } from "@/components/chat/ToolCard";
import { buildTimeline, reasoningDurationMs, type TimelineItem } from "@/components/chat/timeline";
import { messageText, type ChatMessage } from "@/lib/client/messages";

interface MessageBubbleProps {
  message: ChatMessage;
  /** The reply is still being written: an empty one shows the thinking dots. */
  streaming: boolean;
  /** The user stopped this reply (message.metadata.stopped says so too, for a stored one). */
  stopped: boolean;
}

// Memoised: useChat keeps earlier message objects as they were, so while a
// reply streams only its own bubble re-renders.
export const MessageBubble = memo(function MessageBubble({ message, streaming, stopped }: MessageBubbleProps) {
  const text = messageText(message);

  if (message.role === "user") {
    return (
      <div id={`message-${message.id}`} data-role="user" className="group flex scroll-mt-6 flex-col items-end gap-1">
        <div className="max-w-[85%] rounded-3xl bg-neutral-100 px-4 py-2.5 break-words dark:bg-neutral-800">
          <Markdown text={text} />
        </div>
        {text.length > 0 && (
          // Shown on hover or focus where there is a mouse; always on touch screens.
          <CopyButton text={text} className="pointer-fine:opacity-0 group-hover:opacity-100 group-focus-within:opacity-100" />
        )}
      </div>
    );
  }
  if (message.role !== "assistant") return null;

  const isStopped = stopped || message.metadata?.stopped === true;
  // Stored as it was when the model's stream broke off (live, the error notice says so).
  const isIncomplete = message.metadata?.incomplete === true;
  return (
    <div
      id={`message-${message.id}`}
      data-role="assistant"
      className="flex w-full min-w-0 scroll-mt-6 flex-col gap-3 break-words"
      aria-busy={streaming || undefined}
    >
      <Timeline parts={message.parts} streaming={streaming} />
      {(text.length > 0 || isStopped || isIncomplete) && (
        <div className="-mt-1 flex items-center gap-2">
          {text.length > 0 && <CopyButton text={text} className="-ml-1.5" />}
          {isStopped && <p className="text-xs text-neutral-500 dark:text-neutral-400">Stopped</p>}
          {isIncomplete && <p className="text-xs text-neutral-500 dark:text-neutral-400">Incomplete: the model broke off here</p>}
        </div>
      )}
    </div>
  );
});

/** A reply's parts in order, in one section per speaking agent. */
function Timeline({ parts, streaming }: { parts: ChatMessage["parts"]; streaming: boolean }) {
  const sections = buildTimeline(parts);
  const lastItem = sections.at(-1)?.items.at(-1);
  // Nothing is moving yet, or the next step has not begun: show the thinking dots at the end.
  const waiting =
    streaming &&
    (lastItem === undefined ||
      lastItem.kind === "handoff" ||
      (lastItem.kind === "tool" && (lastItem.part.state === "output-available" || lastItem.part.state === "output-error")));

  if (sections.length === 0) return waiting ? <ThinkingIndicator /> : null;
  return (
    <div className="flex flex-col gap-5">
      {sections.map((section, index) => (
        <div key={section.key}>
          {section.agent !== undefined && <AgentLabel name={section.agent} />}
          <div className="flex flex-col gap-3">
            {section.items.map((item) => (
              <TimelineEntry key={item.key} item={item} streaming={streaming} />
            ))}
            {waiting && index === sections.length - 1 && <ThinkingIndicator />}
          </div>
        </div>
      ))}
    </div>
  );
}

function TimelineEntry({ item, streaming }: { item: TimelineItem; streaming: boolean }) {
  switch (item.kind) {
    case "text":
      return <Markdown text={item.text} />;
    case "reasoning":
      return (
        <ReasoningBlock
          text={item.part.text}
          durationMs={reasoningDurationMs(item.part)}
          thinking={streaming && item.part.state === "streaming"}
        />
      );
    case "tool":
      return <ToolCard part={item.part} streaming={streaming} />;
    case "handoff":
      return <HandoffNote from={item.from} to={item.to} reason={item.reason} />;
  }
}
