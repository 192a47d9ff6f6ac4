"use client";

import { useCallback, useEffect, useMemo, useReducer, useRef, useState, useSyncExternalStore, type Dispatch } from "react";
import { useRouter } from "next/navigation";
import type { HistoryMessage, MessageVersions } from "@/lib/protocol/threads";
import type { PendingTurn } from "@/lib/protocol/chat";
import { forkThread, latestMessages, olderMessages, selectVersion, threadVersions } from "@/lib/client/api";
import { describeChatError } from "@/lib/client/chat-error";
import { catchUpWith } from "@/lib/client/live/catch-up";
import { ChatEngine, openBody } from "@/lib/client/chat-engine";
import { ChatSession } from "@/lib/client/chat-session";
import { errorMessage } from "@/lib/client/error-message";
import { insertAtSeq, newMessageId, summaryMessage, toChatMessage } from "@/lib/client/messages";
import { ReplyStop } from "@/lib/client/reply-stop";
import { followSharedResume } from "@/lib/client/live/shared-resume";
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
import { indexVersions, messagesBeforeEdit, regenerableReplyId, type VersionIndex } from "@/lib/client/versions";
import { useFocusedMessage } from "@/components/chat/useFocusedMessage";
import { useThreadListPort, useThreadNews } from "@/components/ui/ThreadListPort";
import type { ThreadView } from "@/components/chat/MessageList";

export interface ThreadChatOptions {
  /** null for a brand-new chat; the server names the thread on the first reply. */
  threadId: string | null;
  /** The thread as the server rendered it (empty for a new chat). */
  initialHistory: HistoryMessage[];
  /** A turn of this thread that has not finished well, when the page was rendered. */
  pendingTurn?: PendingTurn | null;
  /** Where the earlier messages begin, when the page holds only the latest (null: it holds the start). */
  olderCursor?: string | null;
  /** The "2 / 3" of each message of the thread's path that has other versions, when the page was rendered. */
  versions?: MessageVersions[];
}

/** Which of a message's version buttons was pressed: it keeps the focus on the version it brings. */
export type VersionControl = "previous" | "next";

/**
 * One chat page's thread: the conversation with the server (the transport, the
 * signatures and copy it sends, a step's retries, a new summary, Stop), its
 * earlier pages, and a turn left pending when the page was rendered. The page
 * only draws what this returns.
 */
export function useThreadChat({ threadId, initialHistory, pendingTurn = null, olderCursor = null, versions: initialVersions = [] }: ThreadChatOptions) {
  const { refresh: refreshThreads } = useThreadListPort();
  const router = useRouter();
  // The last message, unanswered when the page was rendered: its turn still runs, or was interrupted.
  const unanswered = unansweredTurn(initialHistory, pendingTurn);
  const [state, dispatch] = useReducer(threadChatReducer, { olderCursor, interrupted: unanswered === "interrupted" }, initialThreadChatState);
  const endedHere = unanswered === "interrupted" ? (initialHistory.at(-1)?.id ?? null) : null;
  const [thread] = useState(() => openThreadChat(threadId, initialHistory, dispatch, { refreshThreads }, endedHere));
  const { messages: chatMessages, status, error } = useSyncExternalStore(thread.chat.subscribe, thread.chat.getSnapshot, thread.chat.getSnapshot);

  // The "2 / 3" of each message. Read again when a new version's reply ends,
  // and answered with a switch; only the latest read or switch may write.
  const [versions, setVersions] = useState<VersionIndex>(() => indexVersions(initialVersions));
  const versionsTicket = useRef(0);
  const refreshVersions = useCallback(async () => {
    const id = thread.session.threadId;
    if (!id) return;
    const ticket = ++versionsTicket.current;
    try {
      const list = await threadVersions(id);
      if (ticket === versionsTicket.current) setVersions(indexVersions(list));
    } catch {
      // The positions shown stay as they were; the next read or switch corrects them.
    }
  }, [thread]);

  // A new version the server refused, or whose reply failed: the page had
  // already taken the old reply (or message) out, and the server kept it, so
  // the thread is drawn again as the server holds it, the error still shown.
  const redrawThread = useCallback(async () => {
    const id = thread.session.threadId;
    if (!id) return;
    const ticket = ++versionsTicket.current;
    try {
      const [page, list] = await Promise.all([latestMessages(id), threadVersions(id)]);
      thread.redraw(page);
      if (ticket === versionsTicket.current) setVersions(indexVersions(list));
    } catch {
      // The page stays as it is; a reload shows the thread as the server holds it.
    }
  }, [thread]);

  // Another tab or device of this identity changed the thread (sent a
  // message, a reply ended there, a version was chosen): a page not writing a
  // reply of its own draws the thread as the server holds it, and follows the
  // reply being written, as a reload would. News that comes while it catches
  // up is caught up with once it is done.
  const catchingUp = useRef({ running: false, again: false });
  const catchUp = useCallback(async () => {
    const runs = catchingUp.current;
    if (runs.running) {
      runs.again = true;
      return;
    }
    runs.running = true;
    // Read through a function: news may set it while this awaits.
    const newsMeanwhile = () => runs.again;
    try {
      do {
        runs.again = false;
        const id = thread.session.threadId;
        if (!id || thread.busy()) return;
        const latest = await latestMessages(id);
        if (thread.busy() || id !== thread.session.threadId) return;
        const { redraw, follow } = catchUpWith(thread.chat.messages, latest.messages, thread.page.endedHere);
        if (redraw) {
          thread.redraw(latest);
          void refreshVersions();
        }
        if (follow) thread.followRunningTurn();
      } while (newsMeanwhile());
    } catch {
      // The page stays as it is; the next news, or a reload, catches up.
    } finally {
      runs.running = false;
    }
  }, [thread, refreshVersions]);
  useThreadNews(thread.session.threadId, () => void catchUp());

  useEffect(() => {
    thread.page.refreshThreads = refreshThreads;
    thread.page.refreshVersions = refreshVersions;
    thread.page.redrawThread = redrawThread;
  }, [thread, refreshThreads, refreshVersions, redrawThread]);
  useEffect(() => thread.attach(), [thread]);
  useEffect(() => {
    // A reload while a reply was being written: that reply, resumed where it is, with Stop meanwhile.
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
  const busy = phase !== "idle";

  // A failed switch or fork: said until the next one, or until the next message is sent.
  const [actionError, setActionError] = useState<string | null>(null);
  useEffect(() => {
    if (busy) setActionError(null);
  }, [busy]);

  // Another version of a message: the server's answer is the thread along the
  // new path, drawn as it is. The focus stays on the version buttons, though
  // the message under them is another one.
  const [switching, setSwitching] = useState(false);
  const [versionFocus, setVersionFocus] = useState<{ messageId: string; control: VersionControl } | null>(null);
  const switchingNow = useRef(false);
  const switchVersion = useCallback(
    async (messageId: string, control: VersionControl) => {
      const id = thread.session.threadId;
      if (!id || switchingNow.current || thread.chat.status === "submitted" || thread.chat.status === "streaming") return;
      switchingNow.current = true;
      setSwitching(true);
      setActionError(null);
      const ticket = ++versionsTicket.current;
      try {
        const answer = await selectVersion(id, messageId);
        thread.chat.clearError();
        thread.redraw(answer);
        if (ticket === versionsTicket.current) setVersions(indexVersions(answer.versions));
        setVersionFocus({ messageId, control });
      } catch (error) {
        setActionError(errorMessage(error, "Could not show that version."));
      } finally {
        switchingNow.current = false;
        setSwitching(false);
      }
    },
    [thread],
  );

  const versionFocused = useCallback(() => setVersionFocus(null), []);

  // A new thread that holds this one up to a message: the sidebar lists it and the page opens it.
  const fork = useCallback(
    async (messageId: string) => {
      const id = thread.session.threadId;
      if (!id) return;
      setActionError(null);
      try {
        const forked = await forkThread(id, messageId);
        await refreshThreads();
        router.push(`/c/${forked.id}`);
      } catch (error) {
        setActionError(errorMessage(error, "Could not fork the thread."));
      }
    },
    [thread, refreshThreads, router],
  );

  const retry = retryOf(messages);
  const notice = phase === "idle" ? null : state.notice;
  const errorText = error ? describeChatError(error) : state.interrupted ? "The reply was interrupted." : null;
  const onRetry = retry === null ? undefined : "askAgain" in retry ? thread.askAgain : () => thread.send(retry.send);
  const older = state.older.cursor ? { loading: state.older.loading, error: state.older.error, load: loadOlder } : undefined;
  /** What the message list shows, and how it answers. */
  const view: ThreadView = {
    messages,
    phase,
    notice,
    stoppedReplyIds: state.stoppedReplyIds,
    errorMessage: errorText,
    onRetry,
    sendCount: state.sendCount,
    older,
    focusId,
    versions,
    locked: busy || switching,
    regenerableReplyId: regenerableReplyId(messages),
    actionError,
    versionFocus,
    onVersionFocused: versionFocused,
  };
  return {
    view,
    messages,
    phase,
    /** A reply is on its way (submitted or streaming). */
    busy,
    /** The thread's id, once the server has named it. */
    threadId: thread.session.threadId,
    stopping: state.stopping,
    /** ?debug=true: the history setting in force and what the model was given on the last turn. */
    history: state.history,
    send: thread.send,
    stop: thread.stop,
    regenerate: thread.regenerate,
    edit: thread.edit,
    switchVersion,
    fork,
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
  sidebar: { refreshThreads: () => Promise<void> },
  endedHere: string | null,
) {
  const session = new ChatSession(threadId, initialHistory);
  const stopper = new ReplyStop();
  // Whether the page still shows this chat, and the sidebar to tell: set by the hook's effects.
  const page = {
    mounted: false,
    ...sidebar,
    followedPendingTurn: false,
    refreshVersions: async () => {},
    redrawThread: async () => {},
    // The reply being streamed is a new version (regenerate, edit): the positions are read again when it ends.
    newVersion: false,
    // The reply being streamed was resumed after a reload (GET /api/threads/:id/stream).
    resumed: false,
    // The user's message whose turn ended on this page without a reply (lib/client/live/catch-up.ts).
    endedHere,
  };

  const chat = new ChatEngine({
    messages: initialHistory.map(toChatMessage),
    generateId: newMessageId,
    api: "/api/chat",
    requestBody: (messages) => session.requestBody(messages, window.location.search),
    resumeUrl: () => `/api/threads/${session.threadId}/stream`,
    // One request for every tab that shows the thread (lib/client/live/shared-resume.ts).
    openResume: (signal) => {
      const url = `/api/threads/${session.threadId}/stream`;
      return followSharedResume(String(session.threadId), signal, ({ signal, lastEventId }) =>
        openBody(url, { method: "GET", signal, headers: lastEventId ? { "last-event-id": lastEventId } : {} }),
      );
    },
    // The reply ended between the page's rendering and the resume: the thread holds it now.
    onNothingToResume: () => {
      page.resumed = false;
      if (page.mounted) void page.redrawThread();
    },
    // Data parts come from this app's server as lib/protocol/chat.ts describes them; the page does not re-check them (no zod here).
    onData: (part) => {
      const named = session.receive(part);
      if (named && page.mounted) followThread(named, page.refreshThreads);
      dispatch({ type: "data", part });
    },
    onFinish: ({ message, isAbort, isError, isDisconnect, finishReason }) => {
      stopper.ended();
      page.endedHere = chat.messages.findLast((m) => m.role === "user")?.id ?? null;
      // A resumed reply that ended without its end (its server went away, or could not keep its stream): the thread says how it ended.
      const resumedWithoutEnd = page.resumed && !isAbort && !isError && finishReason === undefined;
      page.resumed = false;
      const { stopped, summary } = session.replyEnded({ role: message.role, isAbort, isError, isDisconnect });
      if (summary) chat.messages = insertAtSeq(chat.messages, summaryMessage(summary), summary.seq, session.seqOf);
      dispatch({ type: "reply-ended", replyId: message.id, stopped });
      if (page.mounted) void page.refreshThreads();
      if (page.newVersion) {
        page.newVersion = false;
        if (page.mounted) void (isError || isDisconnect ? page.redrawThread() : page.refreshVersions());
      } else if (resumedWithoutEnd && page.mounted) void page.redrawThread();
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
  // The reply being written when the page was rendered, from its start (what
  // was written so far at once, then the rest as it comes): shown once, as a
  // reply sent from this page is.
  const resume = () => {
    page.resumed = true;
    ask(() => chat.resumeStream());
  };
  // The last reply answered anew: the server stores it beside the one it replaces.
  const regenerate = (replyId: string) => {
    if (!chat.messages.some((m) => m.id === replyId && m.role === "assistant")) return;
    session.replaceNext(replyId);
    page.newVersion = true;
    ask(() => chat.regenerate({ messageId: replyId }));
  };
  // A user's message sent again with new words: the thread continues from the
  // messages before it, and the server keeps the old words as another version.
  const edit = (messageId: string, text: string) => {
    const before = messagesBeforeEdit(chat.messages, messageId);
    if (!before) return;
    chat.messages = before;
    session.replaceNext(messageId);
    page.newVersion = true;
    send(text);
  };
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
    regenerate,
    edit,
    followPendingTurn: () => {
      if (page.followedPendingTurn) return;
      page.followedPendingTurn = true;
      resume();
    },
    /** A reply another tab or device asked for, being written now. */
    followRunningTurn: () => {
      page.followedPendingTurn = true;
      resume();
    },
    /** A reply is on its way to this page (asked here, or followed). */
    busy: () => chat.status === "submitted" || chat.status === "streaming",
    /** The thread drawn again as the server holds it: its newest page, signed, and where the earlier messages begin. */
    redraw: (latest: { messages: HistoryMessage[]; nextCursor: string | null }) => {
      session.redrawn(latest.messages);
      chat.messages = latest.messages.map(toChatMessage);
      dispatch({ type: "redrawn", olderCursor: latest.nextCursor });
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
