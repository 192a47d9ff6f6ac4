import type { ThreadNews } from "@/lib/protocol/threads";

/** What a news stream hands on: a changed thread's id, or null when news may have been missed. */
export type NewsHandler = (threadId: string | null) => void;

/** How long to wait before opening the stream again after the server refused it (EventSource then gives up). */
const REOPEN_MS = [2_000, 5_000, 15_000, 60_000];

/**
 * One EventSource on `url`, kept open until the returned function closes it.
 * `missedBefore`: news may have gone by before this stream opens (another
 * tab held the stream until now), so its first opening says null as a
 * reopening does. EventSource reconnects by itself after a dropped
 * connection; a refused one (an error status, the server away) is opened
 * again here, later each time.
 */
export function openNewsStream(url: string, onNews: NewsHandler, { missedBefore = false } = {}): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let missed = missedBefore;
  const open = () => {
    source = new EventSource(url);
    source.onopen = () => {
      failures = 0;
      if (missed) onNews(null);
      missed = true;
    };
    source.onmessage = (event: MessageEvent<string>) => {
      const news = parseNews(event.data);
      if (news) onNews(news.threadId ?? null);
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
}

export function parseNews(data: string): ThreadNews | null {
  try {
    const news = JSON.parse(data) as ThreadNews;
    return news?.type === "threads" ? news : null;
  } catch {
    return null;
  }
}
