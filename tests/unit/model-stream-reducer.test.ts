import type { TextStreamPart, ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { emptyStream, endStream, reduceChunk, type ModelStream, type StreamContext, type StreamWrite } from "@/lib/agent/model/model-stream-reducer";
import type { Agent } from "@/lib/agent/network/network";
import { defineTool } from "@/lib/agent/network/tools/types";

// The reducer alone: chunks in, parts and writes out, with a clock and ids
// the test sets, so no model, writer or timer is involved.

type Chunk = TextStreamPart<ToolSet>;

const weather = defineTool({
  name: "weather",
  description: "The weather in a city.",
  input: z.object({ city: z.string() }),
  async execute() {
    return null;
  },
});
const agent: Agent = { name: "Helper", system: "", tools: [weather], handoffs: ["Expert"] };

/** A context whose ids count up and whose clock reads what `time.now` says. */
function contextOf(time = { now: 0 }): StreamContext {
  let next = 0;
  return { agent, newId: () => `id${++next}`, now: () => time.now };
}

function reduceAll(chunks: Chunk[], context = contextOf(), from: ModelStream = emptyStream) {
  let stream = from;
  const writes: StreamWrite[] = [];
  for (const chunk of chunks) {
    const next = reduceChunk(stream, chunk, context);
    stream = next.stream;
    writes.push(...next.writes);
  }
  return { stream, writes };
}

const call = (toolCallId: string, toolName: string, input: unknown, invalid?: { error: unknown }): Chunk => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input,
  dynamic: true,
  ...(invalid ? { invalid: true, error: invalid.error } : {}),
});

describe("reducing a model's stream to parts", () => {
  it("takes text and reasoning the same way: a part per start, its deltas joined, tagged with the agent; reasoning says how long it took", () => {
    const time = { now: 1_000 };
    const context = contextOf(time);
    const { stream: thinking } = reduceAll(
      [
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", text: "Let me " },
        { type: "reasoning-delta", id: "r", text: "think." },
      ],
      context,
    );
    time.now = 3_500;
    const { stream, writes } = reduceAll(
      [
        { type: "reasoning-end", id: "r" },
        // The same provider id for text is another part.
        { type: "text-start", id: "r" },
        { type: "text-delta", id: "r", text: "Hello" },
        { type: "text-delta", id: "r", text: ", you." },
        { type: "text-end", id: "r" },
      ],
      context,
      thinking,
    );
    expect(stream.parts).toEqual([
      { type: "reasoning", text: "Let me think.", durationMs: 2_500, agentName: "Helper" },
      { type: "text", text: "Hello, you.", agentName: "Helper" },
    ]);
    expect(writes).toEqual([
      { type: "end", kind: "reasoning", id: "id1", durationMs: 2_500 },
      { type: "start", kind: "text", id: "id2" },
      { type: "delta", kind: "text", id: "id2", text: "Hello" },
      { type: "delta", kind: "text", id: "id2", text: ", you." },
      { type: "end", kind: "text", id: "id2" },
    ]);
    expect(stream.open.size).toBe(0);
  });

  it("holds back half a character until the next delta brings the rest, and never writes an empty delta", () => {
    const [high, low] = ["😀".charCodeAt(0), "😀".charCodeAt(1)].map((code) => String.fromCharCode(code));
    const { stream, writes } = reduceAll([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", text: `a${high}` },
      { type: "text-delta", id: "t", text: high },
      { type: "text-delta", id: "t", text: `${low}b` },
      { type: "text-end", id: "t" },
    ]);
    expect(stream.parts).toEqual([{ type: "text", text: "a\ufffd😀b", agentName: "Helper" }]);
    expect(writes.filter((w) => w.type === "delta").map((w) => w.type === "delta" && w.text)).toEqual(["a", "\ufffd", "😀b"]);
  });

  it("ignores deltas and ends of parts it never saw start, and chunks it has no use for", () => {
    const { stream, writes } = reduceAll([
      { type: "text-delta", id: "x", text: "stray" },
      { type: "reasoning-end", id: "x" },
      { type: "tool-input-delta", id: "x", delta: "{}" },
      { type: "start" },
    ]);
    expect(stream).toEqual(emptyStream);
    expect(writes).toEqual([]);
  });

  it("shows a tool call's input as it arrives, then keeps the call to run; a call that cannot run says why", () => {
    const { stream, writes } = reduceAll([
      { type: "tool-input-start", id: "c1", toolName: "weather" },
      { type: "tool-input-delta", id: "c1", delta: '{"city":' },
      { type: "tool-input-delta", id: "c1", delta: '"Oslo"}' },
      call("c1", "weather", { city: "Oslo" }),
      call("c2", "forecast", {}, { error: new Error("no such tool") }),
    ]);
    expect(writes).toEqual([
      { type: "tool-input-start", toolCallId: "c1", toolName: "weather" },
      { type: "tool-input-delta", toolCallId: "c1", delta: '{"city":' },
      { type: "tool-input-delta", toolCallId: "c1", delta: '"Oslo"}' },
      { type: "tool-input-available", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" } },
      { type: "tool-input-available", toolCallId: "c2", toolName: "forecast", input: {} },
    ]);
    const weatherCall = { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" }, agentName: "Helper" };
    expect(stream.toolCalls).toEqual([
      { call: weatherCall },
      {
        call: { type: "tool-call", toolCallId: "c2", toolName: "forecast", input: {}, agentName: "Helper" },
        invalid: 'There is no tool named "forecast". The tools are: weather, hand_over.',
      },
    ]);
    expect(stream.parts.map((p) => p.type)).toEqual(["tool-call", "tool-call"]);
    expect(stream.typing.size).toBe(0);
  });

  it("gives a call whose provider id the reply or the stream already holds the first free suffixed id, from its first write to its call", () => {
    const context = { ...contextOf(), takenCallIds: new Set(["c1", "c1_2"]) };
    const { stream, writes } = reduceAll(
      [
        { type: "tool-input-start", id: "c1", toolName: "weather" },
        { type: "tool-input-delta", id: "c1", delta: '{"city":"Oslo"}' },
        call("c1", "weather", { city: "Oslo" }),
        // Again under the same id, whole this time; and a new id, kept as it is.
        call("c1", "weather", { city: "Bergen" }),
        call("c9", "weather", { city: "Tromsø" }),
      ],
      context,
    );
    expect(writes).toEqual([
      { type: "tool-input-start", toolCallId: "c1_3", toolName: "weather" },
      { type: "tool-input-delta", toolCallId: "c1_3", delta: '{"city":"Oslo"}' },
      { type: "tool-input-available", toolCallId: "c1_3", toolName: "weather", input: { city: "Oslo" } },
      { type: "tool-input-available", toolCallId: "c1_4", toolName: "weather", input: { city: "Bergen" } },
      { type: "tool-input-available", toolCallId: "c9", toolName: "weather", input: { city: "Tromsø" } },
    ]);
    expect(stream.toolCalls.map((c) => c.call.toolCallId)).toEqual(["c1_3", "c1_4", "c9"]);
    // The same chunks after the same reply: the same ids (a durable runtime's replay agrees).
    expect(reduceAll([call("c1", "weather", {}), call("c1", "weather", {})], { ...contextOf(), takenCallIds: new Set(["c1"]) }).stream.toolCalls.map((c) => c.call.toolCallId)).toEqual([
      "c1_2",
      "c1_3",
    ]);
  });

  it("keeps a suffixed id within the longest a call's id may be", () => {
    const long = "x".repeat(256);
    const { stream } = reduceAll([call(long, "weather", {})], { ...contextOf(), takenCallIds: new Set([long]) });
    const [{ call: made }] = stream.toolCalls;
    expect(made.toolCallId).toHaveLength(256);
    expect(made.toolCallId.endsWith("_2")).toBe(true);
  });

  it("takes a call of hand_over as a hand-over, shown as one and not as a tool card or a call to run", () => {
    const { stream, writes } = reduceAll([
      { type: "tool-input-start", id: "h", toolName: "hand_over" },
      { type: "tool-input-delta", id: "h", delta: '{"agent":"Expert"}' },
      call("h", "hand_over", { agent: "Expert", reason: "needs weather" }),
    ]);
    expect(stream.handoff).toEqual({ type: "handoff", to: "Expert", reason: "needs weather", agentName: "Helper" });
    expect(stream.parts).toEqual([]);
    expect(stream.toolCalls).toEqual([]);
    expect(writes).toEqual([{ type: "handoff", to: "Expert", reason: "needs weather", id: "id1" }]);
  });

  it("keeps the provider's error, the stream reading on", () => {
    const error = new Error("overloaded");
    const { stream } = reduceAll([{ type: "error", error }, { type: "text-start", id: "t" }]);
    expect(stream.failure).toEqual({ error });
    expect(stream.parts).toHaveLength(1);
  });

  it("is pure: a state reduced again gives the same result, and the state it was given is unchanged", () => {
    const { stream } = reduceAll([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", text: "Hi" },
      { type: "tool-input-start", id: "c", toolName: "weather" },
    ]);
    const before = structuredClone({ parts: stream.parts, open: [...stream.open], typing: [...stream.typing] });
    const chunk: Chunk = { type: "text-delta", id: "t", text: " there" };
    const once = reduceChunk(stream, chunk, contextOf());
    const twice = reduceChunk(stream, chunk, contextOf());
    expect(twice).toEqual(once);
    expect({ parts: stream.parts, open: [...stream.open], typing: [...stream.typing] }).toEqual(before);
    expect(once.stream.parts).toEqual([{ type: "text", text: "Hi there", agentName: "Helper" }]);
  });
});

describe("ending a model's stream", () => {
  const cutMidway: Chunk[] = [
    { type: "reasoning-start", id: "r" },
    { type: "reasoning-delta", id: "r", text: "Weather, then." },
    { type: "reasoning-end", id: "r" },
    call("c1", "weather", { city: "Oslo" }),
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", text: `Checking \ud83d` },
    { type: "tool-input-start", id: "c2", toolName: "weather" },
    { type: "tool-input-delta", id: "c2", delta: '{"city":"Ber' },
  ];

  it("that finished: ends the parts still open and leaves the calls to run", async () => {
    const context = contextOf();
    const { stream } = reduceAll(cutMidway, context);
    const { stream: ended, writes } = await endStream(stream, context);
    expect(writes).toEqual([
      { type: "delta", kind: "text", id: "id2", text: "\ufffd" },
      { type: "end", kind: "text", id: "id2" },
    ]);
    expect(ended.open.size).toBe(0);
    expect(ended.toolCalls.map((c) => c.call.toolCallId)).toEqual(["c1"]);
    expect(ended.parts.map((p) => p.type)).toEqual(["reasoning", "tool-call", "text"]);
  });

  it("that was cut off while a call under a repeated id was arriving: keeps and answers it under the id it was shown with", async () => {
    const context = { ...contextOf(), takenCallIds: new Set(["c1"]) };
    const { stream } = reduceAll(
      [
        { type: "tool-input-start", id: "c1", toolName: "weather" },
        { type: "tool-input-delta", id: "c1", delta: '{"city":"Ber' },
      ],
      context,
    );
    const { writes } = await endStream(stream, context, "Stopped.");
    expect(writes).toEqual([
      { type: "tool-input-available", toolCallId: "c1_2", toolName: "weather", input: { city: "Ber" } },
      { type: "tool-error", toolCallId: "c1_2", error: "Stopped." },
    ]);
  });

  it("that was cut off: keeps a call whose input was arriving with the input so far, and answers every call with the error", async () => {
    const context = contextOf();
    const { stream } = reduceAll(cutMidway, context);
    const { stream: ended, writes } = await endStream(stream, context, "Stopped.");
    expect(writes).toEqual([
      { type: "delta", kind: "text", id: "id2", text: "\ufffd" },
      { type: "end", kind: "text", id: "id2" },
      { type: "tool-input-available", toolCallId: "c2", toolName: "weather", input: { city: "Ber" } },
      { type: "tool-error", toolCallId: "c1", error: "Stopped." },
      { type: "tool-error", toolCallId: "c2", error: "Stopped." },
    ]);
    expect(ended.parts.slice(1)).toEqual([
      { type: "tool-call", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" }, agentName: "Helper" },
      { type: "text", text: "Checking \ufffd", agentName: "Helper" },
      { type: "tool-call", toolCallId: "c2", toolName: "weather", input: { city: "Ber" }, agentName: "Helper" },
      { type: "tool-result", toolCallId: "c1", toolName: "weather", error: "Stopped.", agentName: "Helper" },
      { type: "tool-result", toolCallId: "c2", toolName: "weather", error: "Stopped.", agentName: "Helper" },
    ]);
  });
});
