import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from "ai";

const encoder = new TextEncoder();
const DONE = encoder.encode("data: [DONE]\n\n");

/**
 * A turn's chunks as the AI SDK's UI message stream (server-sent events,
 * `data: <chunk>` and a final `data: [DONE]`): the wire format of the SDK's
 * createUIMessageStreamResponse, encoded to bytes in one step instead of
 * its two (to SSE text, then to bytes), since every hop costs per chunk.
 */
export function uiMessageStreamResponse(stream: ReadableStream<UIMessageChunk>, headers: Record<string, string>): Response {
  const body = stream.pipeThrough(
    new TransformStream<UIMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      },
      flush(controller) {
        controller.enqueue(DONE);
      },
    }),
  );
  const merged = new Headers(UI_MESSAGE_STREAM_HEADERS);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(body, { headers: merged });
}
