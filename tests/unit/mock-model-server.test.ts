import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, streamText, tool, type ModelMessage, type TextStreamPart, type ToolSet } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { requestKindHeaders, SUMMARY_REQUEST, TITLE_REQUEST } from "@/lib/model/request-kind.mjs";
import { titleRequestText } from "@/lib/model/title-request";
import {
  ONE_TOKEN_REPLY,
  REASONING_TEXT,
  SLOW_REPLY,
  echoReply,
  planReply,
  startMockModelServer,
  summaryReply,
  titleReply,
  toolResultsReply,
  type MockModelServer,
} from "../../scripts/mock-model-server.mjs";

// The mock server driven by the app's real provider, so the wire format it
// speaks is the one @ai-sdk/openai-compatible reads: reasoning_content deltas,
// tool calls streamed in pieces, tool results sent back as role "tool".

let mock: MockModelServer;
let model: ReturnType<ReturnType<typeof createOpenAICompatible>>;

beforeAll(async () => {
  mock = await startMockModelServer({ port: 0 });
  model = createOpenAICompatible({ name: "mock", baseURL: mock.url, includeUsage: true })("mock-model");
});

afterAll(async () => {
  await mock?.close();
});

const researchTools = {
  current_time: tool({
    description: "The current time in a time zone",
    inputSchema: z.object({ timeZone: z.string() }),
  }),
  search_threads: tool({
    description: "Searches the user's other threads",
    inputSchema: z.object({ query: z.string() }),
  }),
};

const triageTools = {
  hand_over: tool({
    description: "Hands the conversation to another agent",
    inputSchema: z.object({ agent: z.enum(["Researcher"]), reason: z.string().optional() }),
  }),
};

const TWO_CALLS = 'What time is it? [[call:current_time:{"timeZone":"Asia/Tokyo"}]] [[call:search_threads:{"query":"flamingos"}]]';

async function run<TOOLS extends ToolSet>(options: { messages: ModelMessage[]; tools?: TOOLS }) {
  const result = streamText({ model, stopWhen: stepCountIs(1), ...options });
  const parts: TextStreamPart<TOOLS>[] = [];
  for await (const part of result.fullStream) parts.push(part);
  const errors = parts.filter((p) => p.type === "error");
  expect(errors).toEqual([]);
  return { parts, finishReason: await result.finishReason, text: await result.text };
}

const user = (content: string): ModelMessage => ({ role: "user", content });

describe("the mock model server's pace", () => {
  it("[[slow]] sends SLOW_REPLY 150 ms a chunk, [[slow:MS]] MS apart", () => {
    const plan = (content: string) => planReply({ messages: [{ role: "user", content }] });
    expect(plan("[[slow]] go")).toMatchObject({ kind: "reply", reply: SLOW_REPLY, delayMs: 150 });
    expect(plan("[[slow:400]] go")).toMatchObject({ kind: "reply", reply: SLOW_REPLY, delayMs: 400 });
    expect(plan("go")).not.toHaveProperty("delayMs");
  });
});

describe("the mock model server's reasoning and tool calls", () => {
  it("[[one-token]] answers with ONE_TOKEN_REPLY as a single text delta", async () => {
    const { parts, text } = await run({ messages: [user("[[one-token]] hello")] });
    expect(parts.filter((p) => p.type === "text-delta").map((p) => (p as { text: string }).text)).toEqual([ONE_TOKEN_REPLY]);
    expect(text).toBe(ONE_TOKEN_REPLY);
  });

  it("[[reason]] streams REASONING_TEXT as reasoning, word by word, before the reply", async () => {
    const text = "Why is the sky blue? [[reason]]";
    const { parts, text: reply, finishReason } = await run({ messages: [user(text)] });
    const reasoning = parts.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : []));
    expect(reasoning.length).toBeGreaterThan(3);
    expect(reasoning.join("")).toBe(REASONING_TEXT);
    expect(reply).toBe(echoReply(text, 1, 0));
    const lastReasoning = parts.findLastIndex((p) => p.type === "reasoning-delta");
    const firstText = parts.findIndex((p) => p.type === "text-delta");
    expect(lastReasoning).toBeGreaterThan(-1);
    expect(firstText).toBeGreaterThan(lastReasoning);
    expect(finishReason).toBe("stop");
  });

  it("[[call:...]] markers become tool calls, in order, with their inputs and distinct ids", async () => {
    const { parts, finishReason } = await run({ messages: [user(TWO_CALLS)], tools: researchTools });
    const calls = parts.flatMap((p) => (p.type === "tool-call" ? [p] : []));
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ["current_time", { timeZone: "Asia/Tokyo" }],
      ["search_threads", { query: "flamingos" }],
    ]);
    expect(calls.every((c) => !c.invalid)).toBe(true);
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(2);
    expect(calls[0].toolCallId).toMatch(/^call_\d+_0$/);
    expect(calls[1].toolCallId).toMatch(/^call_\d+_1$/);
    // The arguments arrived in pieces, not whole.
    const deltas = parts.filter((p) => p.type === "tool-input-delta");
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    expect(finishReason).toBe("tool-calls");
  });

  it("tool call ids differ from one request to the next", async () => {
    const ids = async () => {
      const { parts } = await run({ messages: [user(TWO_CALLS)], tools: researchTools });
      return parts.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
    };
    const first = await ids();
    const second = await ids();
    expect(new Set([...first, ...second]).size).toBe(4);
  });

  it("with [[reason]] too, the reasoning streams before the tool calls", async () => {
    const { parts, finishReason } = await run({ messages: [user(`${TWO_CALLS} [[reason]]`)], tools: researchTools });
    const reasoning = parts.flatMap((p) => (p.type === "reasoning-delta" ? [p.text] : []));
    expect(reasoning.join("")).toBe(REASONING_TEXT);
    const lastReasoning = parts.findLastIndex((p) => p.type === "reasoning-delta");
    const firstCall = parts.findIndex((p) => p.type === "tool-input-start");
    expect(firstCall).toBeGreaterThan(lastReasoning);
    expect(parts.filter((p) => p.type === "tool-call")).toHaveLength(2);
    expect(finishReason).toBe("tool-calls");
  });

  it("offered only hand_over, the markers hand over to the first agent instead", async () => {
    const { parts, finishReason } = await run({ messages: [user(TWO_CALLS)], tools: triageTools });
    const calls = parts.flatMap((p) => (p.type === "tool-call" ? [p] : []));
    expect(calls).toHaveLength(1);
    expect(calls[0].toolName).toBe("hand_over");
    expect(calls[0].input).toEqual({ agent: "Researcher", reason: "needs tools" });
    expect(finishReason).toBe("tool-calls");
  });

  it("once the tool results come back, it answers with them", async () => {
    const first = await run({ messages: [user(TWO_CALLS)], tools: researchTools });
    const calls = first.parts.flatMap((p) => (p.type === "tool-call" ? [p] : []));
    expect(calls).toHaveLength(2);
    const outputs: Record<string, { [key: string]: string | number }> = {
      current_time: { place: "Tokyo", local: "21:04" },
      search_threads: { query: "flamingos", hits: 0 },
    };
    const messages: ModelMessage[] = [
      user(TWO_CALLS),
      {
        role: "assistant",
        content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
      },
      {
        role: "tool",
        content: calls.map((c) => ({
          type: "tool-result" as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          output: { type: "json" as const, value: outputs[c.toolName] },
        })),
      },
    ];
    mock.requests.length = 0;
    const second = await run({ messages, tools: researchTools });

    // The provider sends a json output as its JSON text.
    const sent = mock.requests[0] as { messages: { role: string; tool_call_id?: string; content: unknown }[] };
    const toolMessages = sent.messages.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => [m.tool_call_id, m.content])).toEqual(
      calls.map((c) => [c.toolCallId, JSON.stringify(outputs[c.toolName])]),
    );

    expect(second.text).toBe(
      toolResultsReply(calls.map((c) => ({ name: c.toolName, content: JSON.stringify(outputs[c.toolName]) }))),
    );
    expect(second.text).toBe(
      'Tool results: current_time → {"place":"Tokyo","local":"21:04"}; search_threads → {"query":"flamingos","hits":0}',
    );
    expect(second.parts.some((p) => p.type === "tool-call")).toBe(false);
    expect(second.finishReason).toBe("stop");
  });

  it("without tools in the request, the markers are ordinary text and get the echo", async () => {
    const { parts, text, finishReason } = await run({ messages: [user(TWO_CALLS)] });
    expect(parts.some((p) => p.type === "tool-call")).toBe(false);
    expect(text).toBe(echoReply(TWO_CALLS, 1, 0));
    expect(finishReason).toBe("stop");
  });

  it("streams tool calls the way OpenAI does: id, type and name first, then argument pieces", async () => {
    const response = await fetch(`${mock.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "mock-model",
        stream: true,
        messages: [{ role: "user", content: TWO_CALLS }],
        tools: Object.entries(researchTools).map(([name, t]) => ({
          type: "function",
          function: { name, description: t.description, parameters: {} },
        })),
      }),
    });
    const events = (await response.text())
      .split("\n\n")
      .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
      .map((e) => JSON.parse(e.slice("data: ".length)));
    type ToolCallDelta = { index: number; id?: string; type?: string; function: { name?: string; arguments: string } };
    const deltas: ToolCallDelta[] = events.flatMap((e) => e.choices[0].delta.tool_calls ?? []);
    // One call per event.
    expect(events.every((e) => (e.choices[0].delta.tool_calls ?? []).length <= 1)).toBe(true);
    for (const index of [0, 1]) {
      const [start, ...rest] = deltas.filter((d) => d.index === index);
      expect(start).toMatchObject({ index, id: expect.stringMatching(new RegExp(`^call_\\d+_${index}$`)), type: "function" });
      expect(rest.length === 1 || rest.length === 2).toBe(true);
      for (const piece of rest) expect(Object.keys(piece).sort()).toEqual(["function", "index"]);
      for (const piece of rest) expect(Object.keys(piece.function)).toEqual(["arguments"]);
      const args = [start, ...rest].map((d) => d.function.arguments).join("");
      expect(JSON.parse(args)).toEqual(index === 0 ? { timeZone: "Asia/Tokyo" } : { query: "flamingos" });
    }
    const last = events.at(-1);
    expect(last.choices[0].finish_reason).toBe("tool_calls");
    expect(last.usage).toMatchObject({ completion_tokens: expect.any(Number) });
  });

  it("answers a request that does not stream with the same reasoning and tool calls", async () => {
    const result = await generateText({ model, messages: [user(`${TWO_CALLS} [[reason]]`)], tools: researchTools, stopWhen: stepCountIs(1) });
    expect(result.reasoningText).toBe(REASONING_TEXT);
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
      ["current_time", { timeZone: "Asia/Tokyo" }],
      ["search_threads", { query: "flamingos" }],
    ]);
    expect(result.finishReason).toBe("tool-calls");
  });
});

describe("the mock model server's summaries", () => {
  it("answers a request its headers mark as a summary request with summaryReply, and the same words unmarked with the echo", async () => {
    const prompt = "Messages to summarize:\n\nUser: tea with lemon\n\nAssistant: noted";
    const marked = await generateText({ model, system: "Summarize.", prompt, headers: requestKindHeaders(SUMMARY_REQUEST) });
    expect(marked.text).toBe(summaryReply(prompt));
    expect(marked.text).toBe("Summary: said tea with lemon");
    const unmarked = await generateText({ model, system: "Summarize.", prompt });
    expect(unmarked.text).toBe(echoReply(prompt, 1, 0));
  });
});

describe("the mock model server's titles", () => {
  const ask = (message: string) =>
    generateText({ model, system: "Name it.", prompt: titleRequestText(message, "a reply [[title:not this]]"), headers: requestKindHeaders(TITLE_REQUEST), maxRetries: 0 });

  it("names a thread by its marker, else by the message itself; the same words unmarked get the echo", async () => {
    expect((await ask("Plan a trip [[title:Porto weekend]]")).text).toBe("Porto weekend");
    expect((await ask("Plan a trip to Porto")).text).toBe("Plan a trip to Porto");
    expect(titleReply(titleRequestText("two\nlines", "reply"))).toBe("two\nlines");
    const prompt = titleRequestText("Plan a trip [[title:Porto weekend]]", "reply");
    expect((await generateText({ model, system: "Name it.", prompt })).text).toBe(echoReply(prompt, 1, 0));
  });

  it("fails or answers nothing on the message's markers", async () => {
    await expect(ask("Name it [[title-error]]")).rejects.toThrow(/mock model failure/);
    expect((await ask("Name it [[title-empty]]")).text).toBe("");
  });
});
