"use client";

import { useCallback, useEffect, useMemo, useReducer, useState, type Dispatch } from "react";
import { Chat, useChat } from "@ai-sdk/react";
import type { HistoryMessage } from "@/lib/protocol/threads";
import type { PendingTurn } from "@/lib/protocol/chat";
import { olderMessages } from "@/lib/client/api";
import { describeChatError } from "@/lib/client/chat-error";
import { ChatSession } from "@/lib/client/chat-session";
import { ChatStreamTransport } from "@/lib/client/chat-transport";
import { errorMessage } from "@/lib/client/error-message";
import { insertAtSeq, newMessageId, summaryMessage, toChatMessage, type ChatMessage } from "@/lib/client/messages";
import { ReplyStop } from "@/lib/client/reply-stop";
import { withoutRetriedReply } from "@/lib/client/retried-parts";
import {
  initialThreadChatState,
  retryOf,
  threadChatReducer,
  turnPhase,
  unansweredTurn,
  withOlderMessages,
  type ThreadChatEvent,
} from "@/lib/client/thread-chat-state";
import { useFocusedMessage } from "@/components/chat/useFocusedMessage";
import { useThreads } from "@/components/sidebar/ThreadsContext";

export interface ThreadChatOptions {
  /** null for a brand-new chat; the server names the thread on the first reply. */
  threadId: string | null;
  /** The thread as the server rendered it (empty for a new chat). */
  initialHistory: HistoryMessage[];
  /** A turn of this thread that has not finished well, when the page was rendered. */
  pendingTurn?: PendingTurn | null;
  /** Where the earlier messages begin, when the page holds only the latest (null: it holds the start). */
  olderCursor?: string | null;
}

/**
 * One chat page's thread: the conversation with the server (the transport, the
 * signatures and copy it sends, a step's retries, a new summary, Stop), its
 * earlier pages, and a turn left pending when the page was rendered. The page
 * only draws what this returns.
 */
export function useThreadChat({ threadId, initialHistory, pendingTurn = null, olderCursor = null }: ThreadChatOptions) {
  const { refresh: refreshThreads, retitle } = useThreads();
  // The last message, unanswered when the page was rendered: its turn still runs, or was interrupted.
  const unanswered = unansweredTurn(initialHistory, pendingTurn);
  const [state, dispatch] = useReducer(threadChatReducer, { olderCursor, interrupted: unanswered === "interrupted" }, initialThreadChatState);
  const [thread] = useState(() => openThreadChat(threadId, initialHistory, dispatch, { refreshThreads, retitle }));
  const { messages: chatMessages, status, error } = useChat({ chat: thread.chat });

  useEffect(() => {
    thread.page.refreshThreads = refreshThreads;
    thread.page.retitle = retitle;
  }, [thread, refreshThreads, retitle]);
  useEffect(() => thread.attach(), [thread]);
  useEffect(() => {
    // A reload while a reply was being written: follow that turn to its reply, with Stop meanwhile.
    if (unanswered === "running") thread.followPendingTurn();
  }, [thread, unanswered]);

  // A retried step's failed attempts are hidden here, and only here. Once the
  // reply has ended the thread keeps it as shown, so the next request's copy
  // holds no failed attempt either.
  const messages = useMemo(() => withoutRetriedReply(chatMessages, state.retried), [chatMessages, state.retried]);
  useEffect(() => {
    if (state.retried.replyId === null) return;
    thread.chat.messages = messages;
    dispatch({ type: "retries-settled" });
  }, [thread, state.retried, messages]);

  // Earlier messages, a page at a time, as the reader scrolls up. They join
  // the copy too: signed like the rest, and they come before all of it.
  const loadOlder = useCallback(async () => {
    const threadId = thread.session.threadId;
    const { cursor, loading } = state.older;
    if (!threadId || !cursor || loading) return;
    dispatch({ type: "older-loading" });
    try {
      const page = await olderMessages(threadId, cursor);
      thread.session.remember(page.messages);
      thread.chat.messages = withOlderMessages(thread.chat.messages, page.messages);
      dispatch({ type: "older-loaded", cursor: page.nextCursor });
    } catch (error) {
      dispatch({ type: "older-failed", error: errorMessage(error, "Could not load earlier messages.") });
    }
  }, [thread, state.older]);

  // Opened at a message, also when only the hash changes: when it is older
  // than the first page, pages load until it is there.
  const focusId = useFocusedMessage();
  useEffect(() => {
    if (!focusId || !state.older.cursor || state.older.loading || state.older.error) return;
    if (messages.some((m) => m.id === focusId)) return;
    void loadOlder();
  }, [focusId, messages, state.older, loadOlder]);

  const phase = turnPhase(status);
  const retry = retryOf(messages);
  return {
    messages,
    phase,
    /** A reply is on its way (submitted or streaming). */
    busy: phase !== "idle",
    /** What the turn does before its reply starts, while it runs. */
    notice: phase === "idle" ? null : state.notice,
    stopping: state.stopping,
    stoppedReplyIds: state.stoppedReplyIds,
    errorMessage: error ? describeChatError(error) : state.interrupted ? "The reply was interrupted." : null,
    retry: retry === null ? undefined : "askAgain" in retry ? thread.askAgain : () => thread.send(retry.send),
    sendCount: state.sendCount,
    older: state.older.cursor ? { loading: state.older.loading, error: state.older.error, load: loadOlder } : undefined,
    focusId,
    /** ?debug=true: the history setting in force and what the model was given on the last turn. */
    history: state.history,
    send: thread.send,
    stop: thread.stop,
  };
}

/**
 * The page's chat, built once with everything its stream's callbacks touch:
 * they run outside React, so they read and write these objects and report to
 * the reducer, and none of them waits for another to be declared.
 */
function openThreadChat(
  threadId: string | null,
  initialHistory: HistoryMessage[],
  dispatch: Dispatch<ThreadChatEvent>,
  sidebar: { refreshThreads: () => Promise<void>; retitle: (id: string, title: string) => void },
) {
  const session = new ChatSession(threadId, initialHistory);
  const stopper = new ReplyStop();
  // Whether the page still shows this chat, and the sidebar to tell: set by the hook's effects.
  const page = { mounted: false, ...sidebar, followedPendingTurn: false };

  const chat: Chat<ChatMessage> = new Chat<ChatMessage>({
    id: threadId ?? newMessageId(),
    messages: initialHistory.map(toChatMessage),
    transport: new ChatStreamTransport<ChatMessage>({
      api: "/api/chat",
      prepareSendMessagesRequest: ({ messages }) => ({ body: session.requestBody(messages, window.location.search) }),
    }),
    generateId: newMessageId,
    // Data parts come from this app's server as lib/protocol/chat.ts describes them; the page does not re-check them (no zod here).
    onData: (part) => {
      const named = session.receive(part);
      if (named && page.mounted) followThread(named, page.refreshThreads);
      // The model's title for the thread, stored: the sidebar shows it now, not at the next refresh.
      if (part.type === "data-title") page.retitle(part.data.threadId, part.data.title);
      dispatch({ type: "data", part });
    },
    onFinish: ({ message, isAbort, isError, isDisconnect }) => {
      stopper.ended();
      const { stopped, summary } = session.replyEnded({ role: message.role, isAbort, isError, isDisconnect });
      if (summary) chat.messages = insertAtSeq(chat.messages, summaryMessage(summary), summary.seq, session.seqOf);
      dispatch({ type: "reply-ended", replyId: message.id, stopped });
      if (page.mounted) void page.refreshThreads();
    },
  });

  const ask = (request: () => Promise<void>) => {
    stopper.ended();
    dispatch({ type: "asked" });
    void request();
  };
  const send = (text: string) => ask(() => chat.sendMessage({ text, metadata: { createdAt: new Date().toISOString() } }));
  // Sending the unanswered message again (its own id) is answered once: the
  // server waits for a turn still running, or answers it anew.
  const askAgain = () => ask(() => chat.regenerate());
  const stop = () => {
    dispatch({ type: "stopping" });
    void stopper.stop(session.threadId, () => chat.stop());
  };

  return {
    chat,
    session,
    page,
    send,
    askAgain,
    stop,
    followPendingTurn: () => {
      if (page.followedPendingTurn) return;
      page.followedPendingTurn = true;
      askAgain();
    },
    /** The page shows this chat; the function returned is called when it no longer does. */
    attach: () => {
      page.mounted = true;
      // Leaving the chat (New chat, another thread) drops its stream; the server
      // finishes the turn on its own. The flag keeps a late chunk from rewriting the URL.
      return () => {
        page.mounted = false;
        stopper.ended();
        void chat.stop();
      };
    },
  };
}

/**
 * The URL follows the newly named thread without remounting the page (a reload
 * then opens it). The query (a history setting, debug) stays: it applies to the
 * whole conversation.
 */
function followThread(threadId: string, refreshThreads: () => Promise<void>): void {
  const path = `/c/${threadId}`;
  if (window.location.pathname !== path) window.history.replaceState(null, "", `${path}${window.location.search}`);
  void refreshThreads();
}
