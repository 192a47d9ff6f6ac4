// A thread's running reply, followed by every tab that shows it over one
// request. Over HTTP/1.1 a browser opens at most six connections to a server,
// across all its tabs: a resumed stream per tab (GET /api/threads/:id/stream,
// held while the reply is written) would leave a seventh tab of a busy thread
// unable to load. As with the news (./shared-news.ts), one tab, the holder of
// a Web Lock named after the thread, opens the stream and passes each event on
// over a BroadcastChannel; a tab that comes later is sent what was said so
// far, and when the holder goes (closed, or showing another thread) the next
// tab in the lock's queue goes on from the last event it had (Last-Event-ID).
// Without those APIs each tab opens its own.
import { createParser } from "eventsource-parser";

/** How a tab opens a thread's resumed stream itself: null when no reply is being written (204). */
export type OpenStream = (init: { signal: AbortSignal; lastEventId?: string }) => Promise<ReadableStream<Uint8Array> | null>;

/** One event of the stream as the server sent it: its SSE id (its place) when it has one. */
interface RelayedEvent {
  id?: string;
  data: string;
}

type Message =
  | { type: "hello"; from: string }
  | { type: "backlog"; to: string; events: RelayedEvent[] }
  | { type: "event"; event: RelayedEvent }
  | { type: "end"; refusal?: string; nothing?: boolean }
  | { type: "sync"; from: string };

const encoder = new TextEncoder();

/**
 * How long the holder keeps the lock after it told the others the reply
 * ended. The end goes over the channel and the lock through the browser's
 * lock manager, and a busy tab can be granted the lock before the end reaches
 * it (its own probe, below, does not always come after another tab's
 * message): it would open the stream again for a reply already over. Tabs
 * that had the end leave the queue meanwhile; one that did not by then opens
 * the stream and is told the rest by the server. A tab that follows the
 * thread's next reply waits as long before it opens its stream, from the
 * reply's start, so it misses nothing.
 */
const HANDOVER_GRACE_MS = 500;
const channelName = (threadId: string) => `threadline:resume:${threadId}`;

/** Whether event id `a` comes after `b` ("<row>.<index>", as lib/live/turn-resume.ts places them). */
function isLater(a: string, b: string | undefined): boolean {
  if (b === undefined) return true;
  const [rowA, indexA] = a.split(".").map(Number);
  const [rowB, indexB] = b.split(".").map(Number);
  return rowA > rowB || (rowA === rowB && indexA > indexB);
}

/**
 * Whether an event is the reply's last word (its finish, abort or error
 * chunk). A page stops reading there, which may be before the server closes
 * the response (under Inngest the realtime subscription closes a moment later).
 */
const isLastWord = ({ data }: RelayedEvent) => /^\{"type":"(?:finish|abort|error)"/.test(data);

const sse = ({ id, data }: RelayedEvent) => encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`);

/**
 * The thread's resumed stream for this tab: the events of the one request
 * the tabs showing the thread share, as the bytes the server sent. Null when
 * no reply is being written; a refusal rejects with the server's answer.
 */
export function followSharedResume(threadId: string, signal: AbortSignal, open: OpenStream): Promise<ReadableStream<Uint8Array> | null> {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks;
  if (!locks || typeof BroadcastChannel === "undefined") return open({ signal });

  const me = crypto.randomUUID();
  const channel = new BroadcastChannel(channelName(threadId));
  // Everything this tab has had, in order: what it shows, and what it sends a tab that comes later when it holds the stream.
  const had: RelayedEvent[] = [];
  let lastId: string | undefined;
  let ended = false;
  let holding = false;
  /** The reply's last word has come: nobody needs the stream opened again. */
  let over = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let settle: { resolve: (stream: ReadableStream<Uint8Array> | null) => void; reject: (error: Error) => void } | undefined;
  const leaving = new AbortController();

  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => {
      // This page read to the reply's end before the server closed the
      // stream: the tabs queued for the lock are told it ended, or the next
      // would open it again for a reply already over.
      if (holding && over && !ended) tellEnd({ type: "end" });
      ended = true;
      leave();
    },
  });
  const started = () => {
    settle?.resolve(stream);
    settle = undefined;
  };
  const take = (event: RelayedEvent) => {
    if (ended) return;
    // Placed events come once each, whichever tab relayed them; an event of the server's own (no place) as it comes.
    if (event.id !== undefined) {
      if (!isLater(event.id, lastId)) return;
      lastId = event.id;
    }
    had.push(event);
    if (isLastWord(event)) over = true;
    started();
    controller?.enqueue(sse(event));
    if (holding) channel.postMessage({ type: "event", event } satisfies Message);
  };
  const end = ({ refusal, nothing }: { refusal?: string; nothing?: boolean }) => {
    if (ended) return;
    ended = true;
    if (settle && nothing) settle.resolve(null);
    else if (settle && refusal !== undefined) settle.reject(new Error(refusal));
    else {
      started();
      if (refusal !== undefined) controller?.error(new Error(refusal));
      else controller?.close();
    }
    settle = undefined;
    leave();
  };
  let toldEnd = false;
  const tellEnd = (message: Extract<Message, { type: "end" }>) => {
    toldEnd = true;
    channel.postMessage(message satisfies Message);
  };
  const leave = () => {
    leaving.abort();
    channel.close();
  };

  // Until the holder has sent what was said so far, what it says now waits:
  // taken first, it would hide the earlier events, which come with lower ids.
  let backlog: "awaited" | "asked again" | "had" = "awaited";
  const early: RelayedEvent[] = [];
  channel.onmessage = ({ data: message }: MessageEvent<Message>) => {
    if (message.type === "event" && backlog === "had") take(message.event);
    else if (message.type === "event") {
      early.push(message.event);
      // A holder that began after this tab said hello never heard it.
      if (backlog === "awaited") channel.postMessage({ type: "hello", from: me } satisfies Message);
      backlog = "asked again";
    } else if (message.type === "backlog" && message.to === me && backlog !== "had") {
      backlog = "had";
      [...message.events, ...early.splice(0)].forEach(take);
    } else if (message.type === "end") end(message);
    else if (message.type === "hello" && holding) channel.postMessage({ type: "backlog", to: message.from, events: had } satisfies Message);
    else if (message.type === "sync" && message.from === me) synced?.();
  };
  signal.addEventListener("abort", () => end({}), { once: true });
  leaving.signal.addEventListener("abort", () => channel.close(), { once: true });

  // The tab that held the stream before posts its end before it lets the
  // lock go, but the lock can come here before the end does: opening the
  // stream then would ask for a reply already over. A message this tab posts
  // to itself now most often arrives after that end: until it does, the tab
  // waits (and the holder keeps the lock a moment after its end, above).
  let synced: (() => void) | undefined;
  const caughtUp = () =>
    new Promise<void>((resolve) => {
      const probe = new BroadcastChannel(channelName(threadId));
      synced = () => {
        probe.close();
        resolve();
      };
      leaving.signal.addEventListener("abort", () => synced?.(), { once: true });
      probe.postMessage({ type: "sync", from: me } satisfies Message);
    });

  /** The holder's reading: every event taken here and passed on, to the reply's end. */
  const relay = async (body: ReadableStream<Uint8Array>) => {
    const parser = createParser({ onEvent: ({ id, data }) => (data === "[DONE]" ? undefined : take(id === undefined ? { data } : { id, data })) });
    const reader = body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
        // Past the reply's last word the server only closes: no need to wait for it.
        if (done || over) break;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
    tellEnd({ type: "end" });
    end({});
  };

  // The holder reads the stream until it ends or this tab no longer shows the thread; then the lock passes on.
  const hold = async () => {
    await caughtUp();
    if (ended) return;
    holding = true;
    // Without the backlog, what this tab heard may have a gap before it: the server says it all again.
    if (backlog !== "had") early.length = 0;
    backlog = "had";
    try {
      const body = await open({ signal: leaving.signal, lastEventId: lastId });
      if (body === null) {
        tellEnd({ type: "end", nothing: true });
        end({ nothing: true });
      } else await relay(body);
    } catch (error) {
      // This tab went (mid-reply: the next tab in the queue goes on from where it was), or it read to the reply's end and told the others.
      if (!leaving.signal.aborted) {
        const refusal = error instanceof Error ? error.message : String(error);
        tellEnd({ type: "end", refusal });
        end({ refusal });
      }
    }
    if (toldEnd) await new Promise((resolve) => setTimeout(resolve, HANDOVER_GRACE_MS));
  };

  return new Promise<ReadableStream<Uint8Array> | null>((resolve, reject) => {
    settle = { resolve, reject };
    channel.postMessage({ type: "hello", from: me } satisfies Message);
    void locks.request(channelName(threadId), { signal: leaving.signal }, hold).catch(() => {}); // AbortError: the tab left while it waited
  });
}
