import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "ai";

const encoder = new TextEncoder();
const DONE = encoder.encode("data: [DONE]\n\n");

/** One event of the stream, with its place (`id:`) when it has one. */
const encodeEvent = (chunk: UIMessageChunk, id?: string) =>
  encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(chunk)}\n\n`);

/** The stream's bytes, ended by [DONE], with the SDK's headers and the route's own. */
function respond(body: ReadableStream<Uint8Array>, headers: Record<string, string>): Response {
  const merged = new Headers(UI_MESSAGE_STREAM_HEADERS);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(body, { headers: merged });
}

/**
 * The stream's items as bytes, ended by [DONE]: each read of the source is
 * encoded and handed on as it comes. A pull of our own rather than
 * pipeThrough: a TransformStream would add a writable side, its queue and its
 * promises, per chunk, and every hop costs per chunk.
 */
function encodedBody<T>(stream: ReadableStream<T>, encode: (item: T) => Uint8Array): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) {
        controller.enqueue(DONE);
        controller.close();
      } else {
        controller.enqueue(encode(next.value));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * A turn's chunks as the AI SDK's UI message stream (server-sent events,
 * `data: <chunk>` and a final `data: [DONE]`): the wire format of the SDK's
 * createUIMessageStreamResponse, encoded to bytes in one step instead of
 * its two (to SSE text, then to bytes), since every hop costs per chunk.
 */
export function uiMessageStreamResponse(stream: ReadableStream<UIMessageChunk>, headers: Record<string, string>): Response {
  return respond(encodedBody(stream, (chunk) => encodeEvent(chunk)), headers);
}

/** What a live stream's response says besides its type: no-transform keeps Next's compression and proxies from buffering its events. */
export const LIVE_STREAM_HEADERS: Record<string, string> = {
  "Cache-Control": "no-store, no-transform",
  "X-Accel-Buffering": "no",
};

/**
 * As uiMessageStreamResponse, each event with its SSE `id:` (its place in
 * the stream, which a client sends back as Last-Event-ID to go on after it).
 */
export function uiMessageEventStreamResponse(stream: ReadableStream<{ id?: string; chunk: UIMessageChunk }>, headers: Record<string, string>): Response {
  return respond(encodedBody(stream, ({ id, chunk }) => encodeEvent(chunk, id)), headers);
}
