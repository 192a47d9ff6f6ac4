// The chat page's transport: the AI SDK's HTTP transport, reading the UI
// message stream with eventsource-parser and JSON.parse instead of checking
// every chunk against the SDK's zod schema, a parse per token of what this
// app's own server wrote. A chunk that is not a JSON object with a type still
// ends the reply with an error. A reply resumed after a reload comes the same
// way, from GET /api/threads/:id/stream.
import { HttpChatTransport, type HttpChatTransportInitOptions, type UIMessage, type UIMessageChunk } from "ai";
import { EventSourceParserStream } from "eventsource-parser/stream";

export class ChatStreamTransport<M extends UIMessage> extends HttpChatTransport<M> {
  private readonly nothingToResume?: () => void;

  constructor({ onNothingToResume, ...options }: HttpChatTransportInitOptions<M> & { onNothingToResume?: () => void }) {
    super(options);
    this.nothingToResume = onNothingToResume;
  }

  /** As the SDK's, and tells when there was no reply to resume (204: it ended before it was asked for). */
  async reconnectToStream(options: Parameters<HttpChatTransport<M>["reconnectToStream"]>[0]): Promise<ReadableStream<UIMessageChunk> | null> {
    const stream = await super.reconnectToStream(options);
    if (stream === null) this.nothingToResume?.();
    return stream;
  }

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
