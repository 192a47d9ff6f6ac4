"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { usePathname } from "next/navigation";
import type { ThreadListItem, ThreadPage } from "@/lib/protocol/threads";
import { deleteThread, listThreads, markThreadRead, renameThread } from "@/lib/client/api";
import { appendPage, mergeFirstPage, withRead, withSummary } from "@/lib/client/thread-list";
import { usePageVisible } from "@/components/sidebar/usePageVisible";
import { useThreadNewsSource } from "@/components/sidebar/useThreadNewsSource";
import { ThreadListPortContext, type ThreadListPort } from "@/components/ui/ThreadListPort";

type LoadState = "loading" | "ready" | "error";

/** Called when a thread changed (a turn started or ended, a rename, a read, a delete), on this server or another. */
type ThreadNewsListener = () => void;

interface ThreadsValue {
  threads: ThreadListItem[];
  hasMore: boolean;
  loadState: LoadState;
  loadingMore: boolean;
  /** The thread the page shows (/c/:id), if any. */
  activeId: string | null;
  /** Re-reads the first page (after a turn, or when a new thread got its id). */
  refresh: () => Promise<void>;
  loadMore: () => Promise<void>;
  rename: (id: string, title: string) => Promise<void>;
  remove: (id: string) => Promise<void>;
  /**
   * Calls `listener` on news of the thread, as it arrives (before the list is
   * read again), and after the news stream came back from a break (news may
   * have been missed). Returns the function that stops it.
   */
  onThreadNews: (threadId: string, listener: ThreadNewsListener) => () => void;
}

const ThreadsContext = createContext<ThreadsValue | null>(null);
const EMPTY: ThreadPage = { threads: [], nextCursor: null };
/** News comes in bursts (a turn's end, the title, the read): one read of the list for each burst. */
const NEWS_DEBOUNCE_MS = 200;

export function ThreadsProvider({ children }: { children: ReactNode }) {
  const [list, setList] = useState<ThreadPage>(EMPTY);
  const [loadState, setLoadState] = useState<LoadState>("loading");
  const [loadingMore, setLoadingMore] = useState(false);
  // Refreshes can overlap (data-thread, then onFinish); only the latest may write.
  const latestRefresh = useRef(0);
  // usePathname follows history.replaceState too: a chat that just got its id is the active one.
  const pathname = usePathname();
  const activeId = pathname.startsWith("/c/") ? decodeURIComponent(pathname.slice(3)) : null;

  const refresh = useCallback(async () => {
    const ticket = ++latestRefresh.current;
    try {
      const firstPage = await listThreads();
      if (ticket !== latestRefresh.current) return;
      setList((current) => mergeFirstPage(current, firstPage));
      setLoadState("ready");
    } catch {
      if (ticket !== latestRefresh.current) return;
      setLoadState((state) => (state === "ready" ? state : "error"));
    }
  }, []);

  const loadMore = useCallback(async () => {
    if (!list.nextCursor || loadingMore) return;
    setLoadingMore(true);
    try {
      const page = await listThreads({ cursor: list.nextCursor });
      setList((current) => appendPage(current, page));
    } finally {
      setLoadingMore(false);
    }
  }, [list.nextCursor, loadingMore]);

  const rename = useCallback(async (id: string, title: string) => {
    const updated = await renameThread(id, title);
    setList((current) => withSummary(current, updated));
  }, []);

  const remove = useCallback(async (id: string) => {
    await deleteThread(id);
    setList((current) => ({ ...current, threads: current.threads.filter((thread) => thread.id !== id) }));
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  // News: whoever follows the thread hears it at once; the list is read again once the burst is over.
  const listeners = useRef(new Map<string, Set<ThreadNewsListener>>());
  const newsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(newsTimer.current), []);
  useThreadNewsSource((threadId) => {
    const told = threadId === null ? [...listeners.current.values()] : [listeners.current.get(threadId) ?? []];
    for (const set of told) for (const listener of set) listener();
    if (newsTimer.current !== undefined) return;
    newsTimer.current = setTimeout(() => {
      newsTimer.current = undefined;
      void refresh();
    }, NEWS_DEBOUNCE_MS);
  });
  const onThreadNews = useCallback((threadId: string, listener: ThreadNewsListener) => {
    let set = listeners.current.get(threadId);
    if (!set) listeners.current.set(threadId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && listeners.current.get(threadId) === set) listeners.current.delete(threadId);
    };
  }, []);

  useReadMarks(activeId, list.threads, setList);

  const value = useMemo(
    () => ({
      threads: list.threads,
      hasMore: list.nextCursor !== null,
      loadState,
      loadingMore,
      activeId,
      refresh,
      loadMore,
      rename,
      remove,
      onThreadNews,
    }),
    [list, loadState, loadingMore, activeId, refresh, loadMore, rename, remove, onThreadNews],
  );
  const port = useMemo<ThreadListPort>(() => ({ refresh, onThreadNews }), [refresh, onThreadNews]);
  return (
    <ThreadsContext.Provider value={value}>
      <ThreadListPortContext.Provider value={port}>{children}</ThreadListPortContext.Provider>
    </ThreadsContext.Provider>
  );
}

/**
 * The owner has seen what the page shows: the thread is marked read when it
 * is opened, and again when the list says a reply in it is unseen (it ended
 * while the page showed it), as soon as the tab is in front. Only by POST,
 * never by a page's GET: a prefetch must not mark anything seen.
 */
function useReadMarks(activeId: string | null, threads: ThreadListItem[], setList: (update: (list: ThreadPage) => ThreadPage) => void): void {
  const visible = usePageVisible();
  const markRead = useCallback(
    async (id: string) => {
      try {
        const { lastReadAt } = await markThreadRead(id);
        setList((current) => withRead(current, id, lastReadAt));
      } catch {
        // A thread not (or no longer) there: nothing to mark. Any other failure: the next open tries again.
      }
    },
    [setList],
  );

  const opened = useRef<string | null>(null);
  useEffect(() => {
    if (!visible) return;
    if (activeId !== null && activeId !== opened.current) void markRead(activeId);
    opened.current = activeId;
  }, [activeId, visible, markRead]);

  // Once per reply: a failed mark does not turn into a loop.
  const active = threads.find((thread) => thread.id === activeId);
  const unseenReply = active?.unseen ? `${active.id} ${active.lastReplyAt}` : null;
  const markedReply = useRef<string | null>(null);
  useEffect(() => {
    if (!visible || unseenReply === null || activeId === null || unseenReply === markedReply.current) return;
    markedReply.current = unseenReply;
    void markRead(activeId);
  }, [unseenReply, activeId, visible, markRead]);
}

export function useThreads(): ThreadsValue {
  const value = useContext(ThreadsContext);
  if (!value) throw new Error("useThreads must be used inside <ThreadsProvider>.");
  return value;
}
