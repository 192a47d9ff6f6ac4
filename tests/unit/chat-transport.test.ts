import { describe, expect, it } from "vitest";
import type { UIMessage, UIMessageChunk } from "ai";
import { ChatStreamTransport } from "@/lib/client/chat-transport";

/** The page's transport reading a response whose body arrives in the given pieces. */
async function read(pieces: (string | Uint8Array)[]): Promise<UIMessageChunk[]> {
  const encoder = new TextEncoder();
  const transport = new ChatStreamTransport<UIMessage>({
    api: "/api/chat",
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const piece of pieces) controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  });
  const stream = await transport.sendMessages({
    chatId: "c",
    messages: [],
    abortSignal: undefined,
    trigger: "submit-message",
    messageId: undefined,
  });
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

describe("the chat page's stream transport", () => {
  it("reads the UI message stream however the network splits it, multi-byte characters included", async () => {
    const bytes = new TextEncoder().encode(
      'data: {"type":"start","messageId":"m"}\n\ndata: {"type":"text-delta","id":"t","delta":"héllo 👋"}\n\ndata: [DONE]\n\n',
    );
    // Split inside "data:", between the two newlines that end an event, inside the é, inside the emoji, before the last newline.
    const at = (s: string) => Buffer.from(bytes).indexOf(Buffer.from(s));
    const cuts = [3, at("\n\n") + 1, at("é") + 1, at("👋") + 2, bytes.length - 1];
    const pieces = [0, ...cuts].map((from, i) => bytes.slice(from, cuts[i] ?? bytes.length));
    expect(await read(pieces)).toEqual([
      { type: "start", messageId: "m" },
      { type: "text-delta", id: "t", delta: "héllo 👋" },
    ]);
  });

  it("ends the reply with an error on an event that is not a chunk", async () => {
    await expect(read(['data: {"type":"start"}\n\n', "data: {not json\n\n"])).rejects.toThrow("The reply's stream could not be read.");
    await expect(read(['data: {"delta":"no type"}\n\n'])).rejects.toThrow("The reply's stream could not be read.");
    await expect(read(["data: 42\n\n"])).rejects.toThrow("The reply's stream could not be read.");
  });
});
