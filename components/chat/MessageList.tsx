"use client";

import { useCallback, useEffect, useLayoutEffect, useRef } from "react";
import { MessageBubble } from "@/components/chat/MessageBubble";
import { SummaryMarker } from "@/components/chat/SummaryMarker";
import { ThinkingIndicator } from "@/components/chat/ThinkingIndicator";
import { ErrorNotice } from "@/components/chat/ErrorNotice";
import { useStickToBottom } from "@/components/chat/useStickToBottom";
import { messageSize } from "@/components/chat/timeline";
import type { MessageActions } from "@/components/chat/MessageActions";
import type { ThreadController, ThreadSnapshot } from "@/lib/client/thread-controller";

/** What the list asks of the thread's controller besides the messages' own buttons. */
export type MessageListControls = Pick<ThreadController, "retry" | "loadOlder" | "versionFocused">;

/** The thread's messages as its controller's snapshot has them; `focusId`: the message the page was opened at (the URL's #message-<id>), if any. */
export function MessageList({
  thread,
  focusId,
  controls,
  actions,
}: {
  thread: ThreadSnapshot;
  focusId: string | null;
  controls: MessageListControls;
  actions: MessageActions;
}) {
  const { messages, phase, notice, stoppedReplyIds, errorMessage, sendCount, versions, locked, regenerableReplyId, actionError, versionFocus } = thread;
  const onRetry = thread.retry === null ? undefined : controls.retry;
  // Earlier messages to load (the page holds the latest only); absent once the start is shown.
  const older = thread.older.cursor ? thread.older : undefined;
  const { loadOlder: load, versionFocused: onVersionFocused } = controls;
  const last = messages.findLast((m) => m.role !== "system");
  // Changes as any part of the last message grows (text, reasoning, tool calls), so the view follows it.
  const contentVersion = `${messages.length}:${last ? messageSize(last) : ""}:${phase}:${errorMessage}:${notice}`;
  const { containerRef, onScroll, pinned, scrollToBottom } = useStickToBottom<HTMLDivElement>(contentVersion);

  useEffect(() => {
    if (sendCount > 0) scrollToBottom();
  }, [sendCount, scrollToBottom]);

  // Earlier messages arrive above: the reader stays on what they were reading.
  const beforeLoad = useRef<{ height: number; top: number } | null>(null);
  const loadOlder = useCallback(() => {
    const el = containerRef.current;
    if (el) beforeLoad.current = { height: el.scrollHeight, top: el.scrollTop };
    void load();
  }, [load, containerRef]);
  const firstId = messages[0]?.id;
  useLayoutEffect(() => {
    const el = containerRef.current;
    if (!el || !beforeLoad.current) return;
    el.scrollTop = beforeLoad.current.top + (el.scrollHeight - beforeLoad.current.height);
    beforeLoad.current = null;
  }, [firstId, containerRef]);
  // Reaching the top loads the page before it.
  const topRef = useRef<HTMLDivElement>(null);
  const canLoad = Boolean(older && !older.loading && !older.error);
  useEffect(() => {
    const top = topRef.current;
    const root = containerRef.current;
    if (!top || !root || !canLoad) return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && loadOlder(), { root });
    observer.observe(top);
    return () => observer.disconnect();
  }, [canLoad, loadOlder, containerRef]);

  // Opened at a message (a search result links to /c/<id>#message-<id>): show
  // it instead of the end, once it is there (an older one arrives with a later page).
  const shownFocus = useRef<string | null>(null);
  useEffect(() => {
    if (!focusId || shownFocus.current === focusId) return;
    const target = document.getElementById(`message-${focusId}`);
    if (!target) return;
    shownFocus.current = focusId;
    target.scrollIntoView({ block: "start" });
    target.setAttribute("data-found", "true");
  }, [focusId, messages.length]);

  // The message under the version buttons is another one now (its bubble is
  // new): the focus goes to the same button on it, or to its twin at an end.
  useEffect(() => {
    if (!versionFocus || locked) return;
    const message = document.getElementById(`message-${versionFocus.messageId}`);
    const other = versionFocus.control === "next" ? "previous" : "next";
    const button = [versionFocus.control, other]
      .map((control) => message?.querySelector<HTMLButtonElement>(`button[data-version="${control}"]`))
      .find((b) => b && !b.disabled);
    button?.focus();
    onVersionFocused();
  }, [versionFocus, locked, onVersionFocused]);

  return (
    <div className="relative min-h-0 flex-1">
      <div ref={containerRef} onScroll={onScroll} className="h-full overflow-y-auto">
        <div role="log" aria-label="Conversation" className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6">
          {older && (
            <div ref={topRef} className="flex justify-center">
              <button
                type="button"
                onClick={loadOlder}
                disabled={older.loading}
                className="rounded-full border border-neutral-200 px-3 py-1 text-sm text-neutral-600 hover:bg-neutral-50 disabled:opacity-60 dark:border-neutral-700 dark:text-neutral-300 dark:hover:bg-neutral-800"
              >
                {older.loading ? "Loading earlier messages…" : older.error ? "Could not load earlier messages. Try again" : "Load earlier messages"}
              </button>
            </div>
          )}
          {messages.map((message) =>
            message.role === "system" ? (
              <SummaryMarker key={message.id} message={message} />
            ) : (
              <MessageBubble
                key={message.id}
                message={message}
                streaming={phase === "streaming" && message === last && message.role === "assistant"}
                stopped={stoppedReplyIds.has(message.id) || message.metadata?.stopped === true}
                versions={versions.get(message.id)}
                locked={locked}
                regenerable={message.id === regenerableReplyId}
                latest={message === last}
                actions={actions}
                memoriesUsed={thread.memoriesUsed.get(message.id)}
              />
            ),
          )}
          {notice ? <ThinkingIndicator label={notice} /> : phase === "submitted" && <ThinkingIndicator />}
          {errorMessage && <ErrorNotice message={errorMessage} onRetry={onRetry} />}
          {actionError && <ErrorNotice message={actionError} />}
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
