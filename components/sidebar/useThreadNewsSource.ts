"use client";

import { useEffect, useRef } from "react";
import { THREAD_NEWS_URL } from "@/lib/client/api";
import type { ThreadNews } from "@/lib/protocol/threads";

/** How long to wait before opening the stream again after the server refused it (EventSource then gives up). */
const REOPEN_MS = [2_000, 5_000, 15_000, 60_000];

/**
 * The tab's one stream of news about the visitor's threads (GET
 * /api/threads/events). `onNews` gets the changed thread's id, or null when
 * news may have been missed: the stream came back after a break.
 * EventSource reconnects by itself after a dropped connection; a refused one
 * (an error status, the server away) is opened again here, later each time.
 */
export function useThreadNewsSource(onNews: (threadId: string | null) => void): void {
  const latest = useRef(onNews);
  useEffect(() => {
    latest.current = onNews;
  });

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let openedBefore = false;
    const open = () => {
      source = new EventSource(THREAD_NEWS_URL);
      source.onopen = () => {
        failures = 0;
        if (openedBefore) latest.current(null);
        openedBefore = true;
      };
      source.onmessage = (event: MessageEvent<string>) => {
        const news = parse(event.data);
        if (news) latest.current(news.threadId ?? null);
      };
      source.onerror = () => {
        if (source?.readyState !== EventSource.CLOSED) return;
        source.close();
        timer = setTimeout(open, REOPEN_MS[Math.min(failures++, REOPEN_MS.length - 1)]);
      };
    };
    open();
    return () => {
      clearTimeout(timer);
      source?.close();
    };
  }, []);
}

function parse(data: string): ThreadNews | null {
  try {
    const news = JSON.parse(data) as ThreadNews;
    return news?.type === "threads" ? news : null;
  } catch {
    return null;
  }
}
