"use client";

import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { useChat } from "@ai-sdk/react";
import type { HistoryMessage } from "@/lib/protocol/threads";
import { buildChatRequestBody, historySettingFromUrl, type ConversationState } from "@/lib/client/history-mode";
import { describeChatError } from "@/lib/client/chat-error";
import { olderMessages } from "@/lib/client/api";
import { errorMessage } from "@/lib/client/error-message";
import {
  insertAtSeq,
  isUnanswered,
  messageText,
  newMessageId,
  summaryMessage,
  toChatMessage,
  type ChatMessage,
  type DataPart,
} from "@/lib/client/messages";
import type { ChatDataParts, HistorySource, NextTurnHistory, PendingTurn } from "@/lib/protocol/chat";
import { ChatStreamTransport } from "@/lib/client/chat-transport";
import { useThreads } from "@/components/sidebar/ThreadsContext";
import { Composer } from "@/components/chat/Composer";
import { EmptyState } from "@/components/chat/EmptyState";
import { MessageList } from "@/components/chat/MessageList";
import { useStopReply } from "@/components/chat/useStopReply";
import { withoutRetriedParts, type RetryNotice } from "@/lib/client/retried-parts";

// Shown only with ?debug=true: loaded then.
const HistoryDebugPanel = lazy(() => import("@/components/chat/HistoryDebugPanel").then((m) => ({ default: m.HistoryDebugPanel })));

export interface ChatViewProps {
  /** null for a brand-new chat; the server names the thread on the first reply. */
  threadId: string | null;
  /** The thread as the server rendered it (empty for a new chat). */
  initialHistory: HistoryMessage[];
  /** A turn of this thread that has not finished well, when the page was rendered. */
  pendingTurn?: PendingTurn | null;
  /** Where the earlier messages begin, when the page holds only the latest (null: it holds the start). */
  olderCursor?: string | null;
  /** With ?debug=true: the history setting the next message will be given, as the server resolved it for this page. */
  historyDebug?: NextTurnHistory;
}

export function ChatView({ threadId: initialThreadId, initialHistory, pendingTurn = null, olderCursor = null, historyDebug }: ChatViewProps) {
  const { refresh: refreshThreads } = useThreads();
  const [chatId] = useState(() => initialThreadId ?? newMessageId());
  const [initialMessages] = useState(() => initialHistory.map(toChatMessage));
  // A ref, not state: the transport reads it when a request is built, and the
  // callbacks below update it the moment the stream tells us something.
  const signatures = useRef(
    new Map(initialHistory.flatMap((m) => (m.signature ? [[m.id, { signature: m.signature, seq: m.seq }] as const] : []))),
  );
  const conversation = useRef<ConversationState>({
    threadId: initialThreadId,
    clientCopyIsTrusted: initialThreadId === null,
    signatures: signatures.current,
  });
  const [transport] = useState(
    () =>
      new ChatStreamTransport<ChatMessage>({
        api: "/api/chat",
        prepareSendMessagesRequest: ({ messages }) => ({
          body: buildChatRequestBody(messages, conversation.current, new Date(), historySettingFromUrl(window.location.search)),
        }),
      }),
  );
  const [stoppedReplyIds, setStoppedReplyIds] = useState<ReadonlySet<string>>(() => new Set());
  const [sendCount, setSendCount] = useState(0);
  const serverSaidStopped = useRef(false);
  // Retries of the reply being streamed (durable runtime); a ref for onFinish, state to re-render.
  const retryNotices = useRef<RetryNotice[]>([]);
  // A summary written since this page's last turn: it joins the thread (and the copy) when the reply ends.
  const newSummary = useRef<ChatDataParts["compacted"] | null>(null);
  const [retryCount, setRetryCount] = useState(0);
  // What the turn does before its reply starts (summarizing earlier messages), until it does.
  const [notice, setNotice] = useState<string | null>(null);
  const mounted = useRef(false);
  // ?debug=true (the page passes historyDebug then) shows the setting in force and what the model was given.
  const [historyReport, setHistoryReport] = useState<{ report: ChatDataParts["history"] | null; source: HistorySource | null }>({
    report: null,
    source: null,
  });

  const onThreadNamed = useCallback(
    (threadId: string) => {
      const known = conversation.current.threadId === threadId;
      conversation.current.threadId = threadId;
      if (known || !mounted.current) return;
      // The URL follows the thread without remounting the page (a reload then opens it).
      // The query (a history setting, debug) stays: it applies to the whole conversation.
      const path = `/c/${threadId}`;
      if (window.location.pathname !== path) window.history.replaceState(null, "", `${path}${window.location.search}`);
      void refreshThreads();
    },
    [refreshThreads],
  );

  // The last message, unanswered when the page was rendered: its turn still runs, or was interrupted.
  const lastLoaded = initialHistory.at(-1);
  const unanswered = lastLoaded?.role === "user" && lastLoaded.id === pendingTurn?.messageId ? pendingTurn.state : null;
  const [interrupted, setInterrupted] = useState(unanswered === "interrupted");

  const { messages, setMessages, sendMessage, regenerate, status, error, stop: abort } = useChat<ChatMessage>({
    id: chatId,
    messages: initialMessages,
    transport,
    generateId: newMessageId,
    // Data parts come from this app's server as lib/protocol/chat.ts describes them; the page does not re-check them (no zod here).
    onData: (part: DataPart) => {
      switch (part.type) {
        case "data-thread":
          onThreadNamed(part.data.threadId);
          setHistoryReport((last) => ({ ...last, source: part.data.historySource }));
          break;
        case "data-notice":
          setNotice(part.data.text);
          break;
        case "data-history":
          setNotice(null);
          // What the next message's copy must hold: the widest window any agent read.
          conversation.current.window = part.data.window === null ? undefined : { policy: "lastN", length: part.data.window };
          setHistoryReport((last) => ({ ...last, report: part.data }));
          break;
        case "data-status":
          serverSaidStopped.current = true;
          break;
        case "data-signatures":
          for (const { id, signature, seq } of part.data.signatures) signatures.current.set(id, { signature, seq });
          break;
        case "data-compacted":
          signatures.current.set(part.data.id, { signature: part.data.signature, seq: part.data.seq });
          newSummary.current = part.data;
          break;
        case "data-retry":
          retryNotices.current = [...retryNotices.current, part.data];
          setRetryCount(retryNotices.current.length);
          break;
      }
    },
    // Runs after render, when turnEnded (declared below: it needs `abort`) exists.
    onFinish: ({ message, isAbort, isError, isDisconnect }) => {
      turnEnded();
      setNotice(null);
      if (retryNotices.current.length > 0) {
        const notices = retryNotices.current;
        setMessages((all) => all.map((m) => (m.id === message.id ? { ...m, parts: withoutRetriedParts(m.parts, notices) } : m)));
        retryNotices.current = [];
        setRetryCount(0);
      }
      if ((serverSaidStopped.current || isAbort) && message.role === "assistant") {
        setStoppedReplyIds((ids) => new Set(ids).add(message.id));
      }
      serverSaidStopped.current = false;
      const summary = newSummary.current;
      if (summary) {
        newSummary.current = null;
        setMessages((all) => insertAtSeq(all, summaryMessage(summary), summary.seq, (id) => signatures.current.get(id)?.seq));
      }
      conversation.current.clientCopyIsTrusted = !isAbort && !isError && !isDisconnect;
      if (mounted.current) void refreshThreads();
    },
  });

  const { stop: stopReply, stopping, turnEnded } = useStopReply({
    threadId: () => conversation.current.threadId,
    abort,
  });

  // Leaving the chat (New chat, another thread) drops its stream; the server
  // finishes the turn on its own. The flag keeps a late chunk from rewriting the URL.
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      void abort();
    };
  }, [abort]);

  const send = useCallback(
    (text: string) => {
      turnEnded();
      setInterrupted(false);
      retryNotices.current = [];
      setRetryCount(0);
      setSendCount((count) => count + 1);
      void sendMessage({ text, metadata: { createdAt: new Date().toISOString() } });
    },
    [sendMessage, turnEnded],
  );

  // Sending the unanswered message again (its own id) is answered once: the
  // server waits for a turn still running, or answers it anew.
  const askAgain = useCallback(() => {
    turnEnded();
    setInterrupted(false);
    setSendCount((count) => count + 1);
    void regenerate();
  }, [regenerate, turnEnded]);
  const askedForRunning = useRef(false);
  useEffect(() => {
    // A reload while a reply was being written: follow that turn to its reply, with Stop meanwhile.
    if (unanswered !== "running" || askedForRunning.current) return;
    askedForRunning.current = true;
    askAgain();
  }, [unanswered, askAgain]);

  // Earlier messages, a page at a time, as the reader scrolls up. They join
  // the copy too: signed like the rest, and they come before all of it.
  const [older, setOlder] = useState<{ cursor: string | null; loading: boolean; error: string | null }>({ cursor: olderCursor, loading: false, error: null });
  const loadOlder = useCallback(async () => {
    const threadId = conversation.current.threadId;
    if (!threadId || !older.cursor || older.loading) return;
    setOlder((state) => ({ ...state, loading: true, error: null }));
    try {
      const page = await olderMessages(threadId, older.cursor);
      for (const m of page.messages) if (m.signature) signatures.current.set(m.id, { signature: m.signature, seq: m.seq });
      setMessages((all) => {
        const known = new Set(all.map((m) => m.id));
        return [...page.messages.filter((m) => !known.has(m.id)).map(toChatMessage), ...all];
      });
      setOlder({ cursor: page.nextCursor, loading: false, error: null });
    } catch (error) {
      setOlder((state) => ({ ...state, loading: false, error: errorMessage(error, "Could not load earlier messages.") }));
    }
  }, [older.cursor, older.loading, setMessages]);

  // Opened at a message (#message-<id>, a search result), also when only the
  // hash changes: when it is older than the first page, pages load until it is there.
  const [focusId, setFocusId] = useState<string | null>(null);
  useEffect(() => {
    const read = () => {
      const hash = decodeURIComponent(window.location.hash.slice(1));
      setFocusId(hash.startsWith("message-") ? hash.slice("message-".length) : null);
    };
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);
  useEffect(() => {
    if (!focusId || !older.cursor || older.loading || older.error) return;
    if (messages.some((m) => m.id === focusId)) return;
    void loadOlder();
  }, [focusId, messages, older, loadOlder]);

  // Retry asks again for an unanswered message (no second copy of it); a reply
  // that broke off is asked for anew with the same text, as a new message.
  const lastUserMessage = messages.findLast((m) => m.role === "user");
  const retry = isUnanswered(messages) ? askAgain : lastUserMessage ? () => send(messageText(lastUserMessage)) : undefined;
  const busy = status === "submitted" || status === "streaming";
  const phase = status === "submitted" || status === "streaming" ? status : "idle";
  const isEmpty = messages.length === 0;
  // While a retried reply streams, its failed try's text is hidden rather than shown twice.
  const last = messages.at(-1);
  const shown =
    retryCount > 0 && last?.role === "assistant"
      ? [...messages.slice(0, -1), { ...last, parts: withoutRetriedParts(last.parts, retryNotices.current) }]
      : messages;

  // The composer keeps the same position in the tree in both layouts, so its
  // draft and focus survive the switch from the empty state to the thread.
  return (
    <div className="flex h-full flex-col">
      {historyDebug && (
        <Suspense fallback={null}>
          <HistoryDebugPanel report={historyReport.report} historySource={historyReport.source} next={historyDebug} />
        </Suspense>
      )}
      {isEmpty ? (
        <EmptyState />
      ) : (
        <MessageList
          messages={shown}
          phase={phase}
          notice={phase === "idle" ? null : notice}
          stoppedReplyIds={stoppedReplyIds}
          errorMessage={error ? describeChatError(error) : interrupted ? "The reply was interrupted." : null}
          onRetry={retry}
          sendCount={sendCount}
          older={older.cursor ? { loading: older.loading, error: older.error, load: loadOlder } : undefined}
          focusId={focusId}
        />
      )}
      <Composer busy={busy} stopping={stopping} onSend={send} onStop={() => void stopReply()} />
      {isEmpty && <div className="flex-1" aria-hidden="true" />}
    </div>
  );
}
