"use client";

import { createContext, useContext, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from "react";
import { usePathname } from "next/navigation";
import * as api from "@/lib/client/api";
import { followThreadNews } from "@/lib/client/live/shared-news";
import { ThreadListController, type ThreadListSnapshot } from "@/lib/client/thread-list-controller";
import { usePageVisible } from "@/components/sidebar/usePageVisible";
import { ThreadListPortContext } from "@/components/ui/ThreadListPort";

interface ThreadsValue extends ThreadListSnapshot, Pick<ThreadListController, "refresh" | "loadMore" | "rename" | "remove" | "onThreadNews"> {
  /** The thread the page shows (/c/:id), if any. */
  activeId: string | null;
}

const ThreadsContext = createContext<ThreadsValue | null>(null);

/** The tab's news about the visitor's threads (GET /api/threads/events, one stream shared by the origin's tabs). */
const followNews = (onNews: (threadId: string | null) => void) =>
  typeof EventSource === "undefined" ? () => {} : followThreadNews(api.THREAD_NEWS_URL, onNews);

/** The sidebar's list (lib/client/thread-list-controller.ts) as React reaches it: what only React knows (the path, the tab in front) goes in. */
export function ThreadsProvider({ children }: { children: ReactNode }) {
  const [controller] = useState(() => new ThreadListController({ api, followNews }));
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot, controller.getSnapshot);
  useEffect(() => controller.start(), [controller]);

  // usePathname follows history.replaceState too: a chat that just got its id is the active one.
  const pathname = usePathname();
  const activeId = pathname.startsWith("/c/") ? decodeURIComponent(pathname.slice(3)) : null;
  const visible = usePageVisible();
  useEffect(() => controller.show(activeId, visible), [controller, activeId, visible]);

  const { refresh, loadMore, rename, remove, onThreadNews } = controller;
  const value = useMemo(() => ({ ...snapshot, activeId, refresh, loadMore, rename, remove, onThreadNews }), [snapshot, activeId, refresh, loadMore, rename, remove, onThreadNews]);
  return (
    <ThreadsContext.Provider value={value}>
      <ThreadListPortContext.Provider value={controller}>{children}</ThreadListPortContext.Provider>
    </ThreadsContext.Provider>
  );
}

export function useThreads(): ThreadsValue {
  const value = useContext(ThreadsContext);
  if (!value) throw new Error("useThreads must be used inside <ThreadsProvider>.");
  return value;
}
