import { openNewsStream, type NewsHandler } from "./news-stream";

/** The lock one tab holds while it keeps the news stream open for all of them. */
const LEADER_LOCK = "threadline:thread-news";
/** Where that tab passes the news on to the others of the same origin. */
const RELAY_CHANNEL = "threadline:thread-news";

interface Relayed {
  threadId: string | null;
}

/**
 * The visitor's thread news in this tab, over one stream for all its tabs.
 * Over HTTP/1.1 a browser opens at most six connections to a server, across
 * every tab: a stream per tab would leave the seventh tab unable to load
 * anything. One tab (the holder of a Web Lock) keeps the stream open and
 * relays what it hears on a BroadcastChannel; when it closes, the lock
 * passes to a waiting tab, which opens the stream and says null (news may
 * have gone by meanwhile). Without those APIs, each tab opens its own.
 */
export function followThreadNews(url: string, onNews: NewsHandler): () => void {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks;
  if (!locks || typeof BroadcastChannel === "undefined") return openNewsStream(url, onNews);

  const relay = new BroadcastChannel(RELAY_CHANNEL);
  relay.onmessage = (event: MessageEvent<Relayed>) => onNews(event.data.threadId);
  const leaving = new AbortController();
  // Held until this tab goes: the stream stays open as long as the lock is held.
  const lead = (missedBefore: boolean) =>
    new Promise<void>((release) => {
      // The lock can come after the tab has gone (a lock asked for while free
      // is granted later than it is asked): opened then, the stream would
      // outlive the page and relay on a closed channel. The lock goes at once.
      if (leaving.signal.aborted) return release();
      const close = openNewsStream(
        url,
        (threadId) => {
          onNews(threadId);
          relay.postMessage({ threadId } satisfies Relayed);
        },
        { missedBefore },
      );
      leaving.signal.addEventListener("abort", () => (close(), release()), { once: true });
    });
  void locks
    .request(LEADER_LOCK, { ifAvailable: true }, (lock) => (lock ? lead(false) : "held"))
    .then((outcome) => {
      if (outcome !== "held" || leaving.signal.aborted) return;
      return locks.request(LEADER_LOCK, { signal: leaving.signal }, () => lead(true));
    })
    .catch(() => {}); // AbortError: the tab went while it waited
  return () => {
    leaving.abort();
    relay.close();
  };
}
