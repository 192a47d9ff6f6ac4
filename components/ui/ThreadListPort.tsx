"use client";

import { createContext, useContext, useEffect, useRef } from "react";

/**
 * What a thread's page needs of the list of threads, whatever shows that
 * list: a port the sidebar implements (ThreadsProvider), so the chat imports
 * no sidebar and the sidebar knows no chat.
 */
export interface ThreadListPort {
  /** Reads the list again (a new thread got its id, a fork was made). */
  refresh: () => Promise<void>;
  /**
   * Calls `listener` on news of the thread, as it arrives, and after the news
   * stream came back from a break (news may have been missed). Returns the
   * function that stops it.
   */
  onThreadNews: (threadId: string, listener: () => void) => () => void;
}

export const ThreadListPortContext = createContext<ThreadListPort | null>(null);

export function useThreadListPort(): ThreadListPort {
  const port = useContext(ThreadListPortContext);
  if (!port) throw new Error("useThreadListPort must be used inside a provider of the thread list (<ThreadsProvider>).");
  return port;
}

/**
 * Calls `onNews` whenever the thread changes (a turn of it started or ended
 * on any server, it was renamed, read or deleted), and after the news
 * stream came back from a break. Nothing while `threadId` is null.
 */
export function useThreadNews(threadId: string | null, onNews: () => void): void {
  const { onThreadNews } = useThreadListPort();
  const latest = useRef(onNews);
  useEffect(() => {
    latest.current = onNews;
  });
  useEffect(() => (threadId === null ? undefined : onThreadNews(threadId, () => latest.current())), [threadId, onThreadNews]);
}
