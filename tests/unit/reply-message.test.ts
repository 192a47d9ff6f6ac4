import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readUIMessageStream, type UIMessageChunk } from "ai";
import type { ChatMessage } from "@/lib/protocol/chat";
import { parseChunk } from "@/lib/client/chat-engine";
import { ReplyMessage } from "@/lib/client/reply-message";

// The golden streams are what this app's server writes for text, reasoning,
// tool calls with their results and errors, a stream that fails midway, Stop
// and a split surrogate pair (tests/unit/token-path-golden.test.ts records them).
const GOLDEN = path.join(__dirname, "__golden__");
const streams = readdirSync(GOLDEN).filter((name) => name.endsWith(".sse"));

function chunksOf(name: string): UIMessageChunk[] {
  return readFileSync(path.join(GOLDEN, name), "utf8")
    .split("\n\n")
    .map((event) => event.replace(/^data: /, ""))
    .filter((data) => data.length > 0 && data !== "[DONE]")
    .map(parseChunk);
}

/** Every state of the reply the AI SDK's own reader shows, and how the stream ended. */
async function sdkReading(chunks: UIMessageChunk[]): Promise<{ states: ChatMessage[]; error: string | null }> {
  let error: string | null = null;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const states: ChatMessage[] = [];
  try {
    for await (const message of readUIMessageStream<ChatMessage>({ stream, terminateOnError: true, onError: (e) => (error ??= (e as Error).message) }))
      states.push(structuredClone(message));
  } catch (e) {
    error ??= (e as Error).message;
  }
  return { states, error };
}

/** The same with ours: a state wherever a chunk changed the reply. */
function ourReading(chunks: UIMessageChunk[]): { states: ChatMessage[]; error: string | null; data: string[] } {
  const reply = new ReplyMessage("generated-id");
  const states: ChatMessage[] = [];
  const data: string[] = [];
  try {
    for (const chunk of chunks) if (reply.apply(chunk, (part) => data.push(part.type)) !== "none") states.push(structuredClone(reply.message));
  } catch (e) {
    return { states, error: (e as Error).message, data };
  }
  return { states, error: null, data };
}

describe("the page's reading of a reply", () => {
  it("has golden streams to read", () => {
    expect(streams.length).toBeGreaterThanOrEqual(8);
  });

  for (const name of streams) {
    it(`builds the reply the AI SDK's client builds, state by state: ${name}`, async () => {
      const chunks = chunksOf(name);
      const theirs = await sdkReading(chunks);
      const ours = ourReading(chunks);
      expect(ours.error).toBe(theirs.error);
      expect(ours.states.length).toBeGreaterThan(0);
      expect(ours.states).toEqual(theirs.states);
    });
  }

  it("hands every data part to onData, transient ones too, and keeps only the others in the reply", () => {
    const chunks = chunksOf("tools-alone.sse");
    const { data, states } = ourReading(chunks);
    const sent = chunks.filter((c) => c.type.startsWith("data-")).map((c) => c.type);
    expect(data).toEqual(sent);
    const kept = states.at(-1)!.parts.filter((p) => p.type.startsWith("data-")).map((p) => p.type);
    expect(kept).toEqual(chunks.filter((c) => c.type.startsWith("data-") && !("transient" in c && c.transient)).map((c) => c.type));
  });

  it("replaces only the part a chunk changed: the others stay the same objects", () => {
    const reply = new ReplyMessage("m");
    for (const chunk of [
      { type: "start", messageId: "m" },
      { type: "start-step" },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "thinking" },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Hel" },
    ] as UIMessageChunk[])
      reply.apply(chunk);
    const before = reply.message;
    reply.apply({ type: "text-delta", id: "t", delta: "lo" });
    expect(reply.message).not.toBe(before);
    expect(reply.message.parts).not.toBe(before.parts);
    expect(reply.message.parts[1]).toBe(before.parts[1]);
    expect(reply.message.parts[2]).not.toBe(before.parts[2]);
    expect(reply.message.parts[2]).toMatchObject({ type: "text", text: "Hello", state: "streaming" });
    expect(before.parts[2]).toMatchObject({ text: "Hel" });
  });

  it("shows a tool call's arguments as they stream, closed where they break off", () => {
    const reply = new ReplyMessage("m");
    reply.apply({ type: "tool-input-start", toolCallId: "c", toolName: "lookup", dynamic: true });
    const inputs: unknown[] = [];
    for (const delta of ['{"city":"Par', 'is","days":[1,', "2]}"]) {
      reply.apply({ type: "tool-input-delta", toolCallId: "c", inputTextDelta: delta });
      inputs.push((reply.message.parts[0] as { input: unknown }).input);
    }
    expect(inputs).toEqual([{ city: "Par" }, { city: "Paris", days: [1] }, { city: "Paris", days: [1, 2] }]);
  });

  it("refuses a chunk that continues something the reply never started", () => {
    expect(() => new ReplyMessage("m").apply({ type: "text-delta", id: "nope", delta: "x" })).toThrow(/never started/);
    expect(() => new ReplyMessage("m").apply({ type: "tool-output-available", toolCallId: "nope", output: 1 })).toThrow(/does not hold/);
  });

  it("starts over when a resumed stream names another reply", () => {
    const reply = new ReplyMessage("local", true);
    reply.apply({ type: "start", messageId: "first" });
    reply.apply({ type: "text-start", id: "t" });
    reply.apply({ type: "text-delta", id: "t", delta: "old" });
    expect(reply.apply({ type: "start", messageId: "second" })).toBe("named");
    expect(reply.message).toEqual({ id: "second", role: "assistant", metadata: undefined, parts: [] });
  });
});
