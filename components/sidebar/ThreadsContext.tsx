"use client";

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { ThreadPage, ThreadSummary } from "@/lib/protocol/threads";
import { deleteThread, listThreads, renameThread } from "@/lib/client/api";
import { appendPage, mergeFirstPage } from "@/lib/client/thread-list";

type LoadState = "loading" | "ready" | "error";

interface ThreadsValue {
  threads: ThreadSummary[];
  hasMore: boolean;
  loadState: LoadState;
  loadingMore: boolean;
  /** Re-reads the first page (after a turn, or when a new thread got its id). */
  refresh: () => Promise<void>;
  loadMore: () => Promise<void>;
  rename: (id: string, title: string) => Promise<void>;
  /** Shows a title the server already stored (the model's, streamed after a first reply). */
  retitle: (id: string, title: string) => void;
  remove: (id: string) => Promise<void>;
}

const ThreadsContext = createContext<ThreadsValue | null>(null);
const EMPTY: ThreadPage = { threads: [], nextCursor: null };

export function ThreadsProvider({ children }: { children: ReactNode }) {
  const [list, setList] = useState<ThreadPage>(EMPTY);
  const [loadState, setLoadState] = useState<LoadState>("loading");
  const [loadingMore, setLoadingMore] = useState(false);
  // Refreshes can overlap (data-thread, then onFinish); only the latest may write.
  const latestRefresh = useRef(0);

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
    setList((current) => ({
      ...current,
      threads: current.threads.map((thread) => (thread.id === id ? updated : thread)),
    }));
  }, []);

  // No request: the server stored it before it streamed it. A thread not yet
  // listed gets it from the refresh that lists it, which reads it stored.
  const retitle = useCallback((id: string, title: string) => {
    setList((current) => ({
      ...current,
      threads: current.threads.map((thread) => (thread.id === id ? { ...thread, title } : thread)),
    }));
  }, []);

  const remove = useCallback(async (id: string) => {
    await deleteThread(id);
    setList((current) => ({ ...current, threads: current.threads.filter((thread) => thread.id !== id) }));
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const value = useMemo(
    () => ({
      threads: list.threads,
      hasMore: list.nextCursor !== null,
      loadState,
      loadingMore,
      refresh,
      loadMore,
      rename,
      retitle,
      remove,
    }),
    [list, loadState, loadingMore, refresh, loadMore, rename, retitle, remove],
  );
  return <ThreadsContext.Provider value={value}>{children}</ThreadsContext.Provider>;
}

export function useThreads(): ThreadsValue {
  const value = useContext(ThreadsContext);
  if (!value) throw new Error("useThreads must be used inside <ThreadsProvider>.");
  return value;
}
