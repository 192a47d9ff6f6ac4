import "server-only";
import type { LiveBus } from "@/lib/live/bus";
import type { ThreadNews } from "@/lib/protocol/threads";

/** Often enough that proxies and load balancers (commonly 30–60 s idle timeouts) keep a quiet stream open. */
export const HEARTBEAT_MS = 20_000;

/**
 * What a news stream may hold that its client has not taken (some hundreds of
 * events): past it the client is not reading, and the stream is closed
 * rather than kept growing in the server's memory.
 */
export const MAX_NEWS_BUFFER_BYTES = 64 * 1024;

const encoder = new TextEncoder();

/**
 * The owner's news as server-sent events: `data: <ThreadNews>` for each
 * change the bus hears, a comment every `heartbeatMs`. It opens with a
 * comment, so the response starts at once; the subscription is in place
 * before that. Ends, and lets go of the bus, when `signal` aborts, the reader
 * cancels, or the client leaves more than `maxBufferBytes` untaken (an
 * error, so the connection is dropped); `onEnd` is called once then.
 */
export function threadNewsStream(
  bus: LiveBus,
  owner: string,
  signal: AbortSignal,
  { heartbeatMs = HEARTBEAT_MS, maxBufferBytes = MAX_NEWS_BUFFER_BYTES, onEnd }: { heartbeatMs?: number; maxBufferBytes?: number; onEnd?: () => void } = {},
): ReadableStream<Uint8Array<ArrayBuffer>> {
  let end = () => {};
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        let open = true;
        const send = (text: string) => {
          if (!open) return;
          controller.enqueue(encoder.encode(text));
          if ((controller.desiredSize ?? 0) < 0) {
            end();
            controller.error(new Error("The client stopped reading its news."));
          }
        };
        const unsubscribe = bus.on("threads", owner, (threadId) => {
          const news: ThreadNews = threadId ? { type: "threads", threadId } : { type: "threads" };
          send(`data: ${JSON.stringify(news)}\n\n`);
        });
        const heartbeat = setInterval(() => send(": heartbeat\n\n"), heartbeatMs);
        end = () => {
          if (!open) return;
          open = false;
          unsubscribe();
          clearInterval(heartbeat);
          signal.removeEventListener("abort", close);
          onEnd?.();
        };
        const close = () => {
          const wasOpen = open;
          end();
          if (wasOpen) controller.close();
        };
        if (signal.aborted) return close();
        signal.addEventListener("abort", close, { once: true });
        send(": open\n\n");
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: maxBufferBytes, size: (chunk) => chunk.byteLength },
  );
}
