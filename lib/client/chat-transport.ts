// The chat page's transport: the AI SDK's HTTP transport, reading the UI
// message stream with eventsource-parser and JSON.parse instead of checking
// every chunk against the SDK's zod schema, a parse per token of what this
// app's own server wrote. A chunk that is not a JSON object with a type still
// ends the reply with an error.
import { HttpChatTransport, type UIMessage, type UIMessageChunk } from "ai";
import { EventSourceParserStream } from "eventsource-parser/stream";

export class ChatStreamTransport<M extends UIMessage> extends HttpChatTransport<M> {
  protected processResponseStream(stream: ReadableStream<Uint8Array>): ReadableStream<UIMessageChunk> {
    return stream
      // The DOM types declare TextDecoderStream's writable side wider than a byte stream.
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(new EventSourceParserStream())
      .pipeThrough(
        new TransformStream<{ data: string }, UIMessageChunk>({
          transform({ data }, controller) {
            if (data === "[DONE]") return;
            controller.enqueue(parseChunk(data));
          },
        }),
      );
  }
}

/** One event of the stream as a chunk; anything else is an error the chat shows. */
export function parseChunk(data: string): UIMessageChunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new Error("The reply's stream could not be read.");
  }
  if (!chunk || typeof chunk !== "object" || typeof (chunk as { type?: unknown }).type !== "string") {
    throw new Error("The reply's stream could not be read.");
  }
  return chunk as UIMessageChunk;
}
