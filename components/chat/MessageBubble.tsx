"use client";

import { memo, useEffect, useRef, useState, type ComponentProps } from "react";
import { AgentLabel, HandoffNote } from "@/components/chat/AgentLabel";
import { BudgetNotice } from "@/components/chat/BudgetNotice";
import { MessageFiles } from "@/components/chat/MessageFiles";
import { DocumentEvent } from "@/components/chat/DocumentEvent";
import { documentEvent } from "@/lib/client/documents";
import { CopyButton } from "@/components/chat/CopyButton";
import { EditMessageForm } from "@/components/chat/EditMessageForm";
import { ActionButton, VersionSwitcher, type MessageActions } from "@/components/chat/MessageActions";
import { Markdown } from "@/components/chat/Markdown";
import { ReasoningBlock } from "@/components/chat/ReasoningBlock";
import { ThinkingIndicator } from "@/components/chat/ThinkingIndicator";
import { SubAgentCard } from "@/components/chat/SubAgentCard";
import { ToolCard } from "@/components/chat/ToolCard";
import { buildTimeline, reasoningDurationMs, type TimelineItem } from "@/components/chat/timeline";
import { messageText, type ChatMessage } from "@/lib/client/messages";
import type { MessageVersions } from "@/lib/protocol/threads";
import { ForkIcon, PencilIcon } from "@/components/ui/icons";
import { usePageSettings } from "@/components/chat/PageSettingsContext";
import { RegenerateMenu } from "@/components/chat/RegenerateMenu";
import { UsageButton } from "@/components/chat/UsageButton";
import { FeedbackButtons } from "@/components/chat/FeedbackButtons";
import { modelLabel } from "@/lib/client/model-choice";
import { MemoryUsed } from "@/components/chat/MemoryUsed";
import type { UsedMemory } from "@/lib/client/memories-used";

interface MessageBubbleProps {
  message: ChatMessage;
  /** The reply is still being written: an empty one shows the thinking dots. */
  streaming: boolean;
  /** The user stopped this reply (message.metadata.stopped says so too, for a stored one). */
  stopped: boolean;
  /** Its place among its versions, when it has others. */
  versions?: MessageVersions;
  /** A reply is on its way or the versions are switching: the thread's controls wait. */
  locked: boolean;
  /** The thread's last reply: it can be answered anew. */
  regenerable: boolean;
  /** The thread's last message: a tool call in it that waits can be decided on; in an earlier one it was skipped. */
  latest: boolean;
  actions: MessageActions;
  /** A reply that was given memories: which. */
  memoriesUsed?: UsedMemory[];
}

// Memoised: the chat engine keeps earlier message objects as they were, so while a
// reply streams only its own bubble re-renders.
export const MessageBubble = memo(function MessageBubble({ message, streaming, stopped, versions, locked, regenerable, latest, actions, memoriesUsed }: MessageBubbleProps) {
  const text = messageText(message);
  const { models } = usePageSettings();

  if (message.role === "user") return <UserMessage message={message} text={text} versions={versions} locked={locked} actions={actions} />;
  if (message.role !== "assistant") return null;

  const isStopped = stopped || message.metadata?.stopped === true;
  // Stored as it was when the model's stream broke off (live, the error notice says so).
  const isIncomplete = message.metadata?.incomplete === true;
  const model = message.metadata?.model;
  return (
    <div
      id={`message-${message.id}`}
      data-role="assistant"
      className="flex w-full min-w-0 scroll-mt-6 flex-col gap-3 break-words"
      aria-busy={streaming || undefined}
    >
      {memoriesUsed && memoriesUsed.length > 0 && <MemoryUsed memories={memoriesUsed} />}
      <Timeline parts={message.parts} tools={{ streaming, followed: !latest, locked, onDecide: latest && !streaming ? actions.decide : undefined }} />
      {!streaming && (
        <div className="-mt-1 -ml-1.5 flex flex-wrap items-center gap-1">
          {versions && <VersionSwitcher versions={versions} locked={locked} onSwitch={actions.switchVersion} />}
          {text.length > 0 && <CopyButton text={text} />}
          {regenerable && (
            <RegenerateMenu models={models} current={model} disabled={locked} onRegenerate={(picked) => actions.regenerate(message.id, picked)} />
          )}
          <ActionButton label="Fork" title="Fork: a new thread from here" disabled={locked} onClick={() => actions.fork(message.id)}>
            <ForkIcon />
          </ActionButton>
          {actions.threadId && <FeedbackButtons messageId={message.id} />}
          {actions.threadId && <UsageButton threadId={actions.threadId} replyId={message.id} />}
          {isStopped && <p className="ml-1 text-xs text-neutral-500 dark:text-neutral-400">Stopped</p>}
          {isIncomplete && <p className="ml-1 text-xs text-neutral-500 dark:text-neutral-400">Incomplete: the model broke off here</p>}
          {model && (
            <p className="ml-1 text-xs text-neutral-500 dark:text-neutral-400" data-reply-model={model}>
              {modelLabel(models, model)}
            </p>
          )}
        </div>
      )}
    </div>
  );
});

/** The user's message, its versions, and what can be done with it (Edit opens it in place). */
function UserMessage({ message, text, versions, locked, actions }: { message: ChatMessage; text: string } & Pick<MessageBubbleProps, "versions" | "locked" | "actions">) {
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  // Closed with Cancel or Escape: the focus goes back to the Edit button it came from.
  const [returnFocus, setReturnFocus] = useState(false);
  useEffect(() => {
    if (!returnFocus || editing) return;
    editButton.current?.focus();
    setReturnFocus(false);
  }, [returnFocus, editing]);

  return (
    <div id={`message-${message.id}`} data-role="user" className="group flex scroll-mt-6 flex-col items-end gap-1">
      {editing ? (
        <EditMessageForm
          text={text}
          locked={locked}
          onSend={(newText) => actions.edit(message.id, newText)}
          onCancel={() => {
            setEditing(false);
            setReturnFocus(true);
          }}
        />
      ) : (
        <>
          <MessageFiles parts={message.parts} />
          <div className="max-w-[85%] rounded-3xl bg-neutral-100 px-4 py-2.5 break-words dark:bg-neutral-800">
            <Markdown text={text} />
          </div>
        </>
      )}
      <div className="flex items-center gap-1">
        {/* Shown on hover or focus where there is a mouse; always on touch screens. Never display:none, so Tab reaches them. */}
        <div className="flex items-center gap-1 pointer-fine:opacity-0 group-hover:opacity-100 group-focus-within:opacity-100">
          {text.length > 0 && <CopyButton text={text} />}
          {!editing && (
            <button
              ref={editButton}
              type="button"
              aria-label="Edit"
              title="Edit this message"
              disabled={locked}
              onClick={() => setEditing(true)}
              className="inline-flex h-7 items-center rounded-lg px-1.5 text-neutral-500 outline-none hover:bg-neutral-100 hover:text-neutral-800 focus-visible:ring-2 focus-visible:ring-neutral-500 disabled:cursor-not-allowed disabled:opacity-40 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100"
            >
              <PencilIcon />
            </button>
          )}
          <ActionButton label="Fork" title="Fork: a new thread from here" disabled={locked} onClick={() => actions.fork(message.id)}>
            <ForkIcon />
          </ActionButton>
        </div>
        {versions && <VersionSwitcher versions={versions} locked={locked} onSwitch={actions.switchVersion} />}
      </div>
    </div>
  );
}

/** Where the reply's tool calls stand: what their cards need besides the call. */
type ToolsContext = Omit<ComponentProps<typeof ToolCard>, "part">;

/** A reply's parts in order, in one section per speaking agent. */
function Timeline({ parts, tools }: { parts: ChatMessage["parts"]; tools: ToolsContext }) {
  const { streaming } = tools;
  const sections = buildTimeline(parts);
  const lastItem = sections.at(-1)?.items.at(-1);
  // Nothing is moving yet, or the next step has not begun: show the thinking dots at the end.
  const waiting =
    streaming &&
    (lastItem === undefined ||
      lastItem.kind === "handoff" ||
      ((lastItem.kind === "tool" || lastItem.kind === "sub-agent") &&
        (lastItem.part.state === "output-available" || lastItem.part.state === "output-error")));

  if (sections.length === 0) return waiting ? <ThinkingIndicator /> : null;
  return (
    <div className="flex flex-col gap-5">
      {sections.map((section, index) => (
        <div key={section.key}>
          {section.agent !== undefined && <AgentLabel name={section.agent} />}
          <div className="flex flex-col gap-3">
            {section.items.map((item) => (
              <TimelineEntry key={item.key} item={item} tools={tools} agent={section.agent} />
            ))}
            {waiting && index === sections.length - 1 && <ThinkingIndicator />}
          </div>
        </div>
      ))}
    </div>
  );
}

function TimelineEntry({ item, tools, agent }: { item: TimelineItem; tools: ToolsContext; agent?: string }) {
  switch (item.kind) {
    case "text":
      return <Markdown text={item.text} />;
    case "reasoning":
      return (
        <ReasoningBlock
          text={item.part.text}
          durationMs={reasoningDurationMs(item.part)}
          thinking={tools.streaming && item.part.state === "streaming"}
        />
      );
    case "tool":
      // A document written or revised is the thread's own event, with a way to open it.
      if (documentEvent(item.part)) return <DocumentEvent part={item.part} agent={agent} />;
      return <ToolCard part={item.part} {...tools} />;
    case "sub-agent":
      return (
        <SubAgentCard part={item.part} call={item.call} streaming={tools.streaming} followed={tools.followed}>
          {item.call.items
            // Once the call returned, its text shows once, as the result.
            .filter((inner) => item.call.result === undefined || inner.kind !== "text")
            .map((inner) => (
              <TimelineEntry key={inner.key} item={inner} tools={tools} />
            ))}
        </SubAgentCard>
      );
    case "handoff":
      return <HandoffNote from={item.from} to={item.to} reason={item.reason} />;
    case "budget":
      return <BudgetNotice text={item.text} resetsAt={item.resetsAt} />;
  }
}
