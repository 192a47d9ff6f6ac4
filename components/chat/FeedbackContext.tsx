"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { putFeedback, threadFeedback } from "@/lib/client/api";
import type { Feedback, FeedbackRequest } from "@/lib/protocol/feedback";

export interface ThreadFeedbackState {
  /** The thread's feedback by reply version, as the server last answered. */
  byMessage: Readonly<Record<string, Feedback>>;
  /** Stores a change and, once the server took it, shows it; rejects with the reason it was refused. */
  set: (messageId: string, change: FeedbackRequest) => Promise<void>;
}

const FeedbackContext = createContext<ThreadFeedbackState | null>(null);

/**
 * The open thread's feedback, read once per thread (its own request, apart
 * from the messages: feedback is never part of the history a page sends
 * back for the model). One value for the thread, changed only when feedback
 * does, so the memoised bubbles are not drawn again while a reply streams.
 */
export function FeedbackProvider({ threadId, children }: { threadId: string | null; children: ReactNode }) {
  const [byMessage, setByMessage] = useState<Record<string, Feedback>>({});
  useEffect(() => {
    setByMessage({});
    if (!threadId) return;
    let live = true;
    // A thread whose feedback cannot be read shows none; a change still works.
    threadFeedback(threadId).then(
      (read) => live && setByMessage(read),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [threadId]);
  const set = useCallback(
    async (messageId: string, change: FeedbackRequest) => {
      if (!threadId) return;
      const stands = await putFeedback(threadId, messageId, change);
      setByMessage((current) => {
        const { [messageId]: _, ...rest } = current;
        return stands ? { ...rest, [messageId]: stands } : rest;
      });
    },
    [threadId],
  );
  const value = useMemo(() => ({ byMessage, set }), [byMessage, set]);
  return <FeedbackContext.Provider value={value}>{children}</FeedbackContext.Provider>;
}

export const useFeedback = (): ThreadFeedbackState | null => useContext(FeedbackContext);
