"use client";

import { useEffect, useRef } from "react";
import { THREAD_NEWS_URL } from "@/lib/client/api";
import { followThreadNews } from "@/lib/client/live/shared-news";

/**
 * The tab's news about the visitor's threads (GET /api/threads/events, one
 * stream shared by the origin's tabs). `onNews` gets the changed thread's
 * id, or null when news may have been missed: the stream came back after a
 * break, or passed from a closed tab to this one.
 */
export function useThreadNewsSource(onNews: (threadId: string | null) => void): void {
  const latest = useRef(onNews);
  useEffect(() => {
    latest.current = onNews;
  });

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    return followThreadNews(THREAD_NEWS_URL, (threadId) => latest.current(threadId));
  }, []);
}
