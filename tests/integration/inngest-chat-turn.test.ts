import { randomUUID } from "node:crypto";
import { InngestTestEngine } from "@inngest/test";
import { beforeEach, describe, expect, it } from "vitest";
import { CHAT_TURN_EVENT, type ChatTurnEventData, type TurnChunkMessage, type TurnRefusal } from "@/lib/protocol/turn-events";
import { PostgresHistoryAdapter } from "@threadline/history/postgres";
import type { TurnHistory, TurnStore } from "@threadline/history/contract";
import * as functions from "@/inngest/functions/chat-turn";
import { executeWithRetries, memoized } from "../support/inngest-engine";
import { turnEventData } from "../support/turn-events";
import { integrationApp } from "../support/integration";

// The chat function runs whole in-process under @inngest/test (the official
// engine), against the real database and the real provider code talking HTTP
// to the mock model server.
const t = integrationApp();
let owner: string;
let published: { turnId: string; chunk?: TurnChunkMessage; refused?: TurnRefusal }[];

beforeEach(() => {
  owner = `owner-${randomUUID()}`;
  published = [];
});

function engine(
  data: Partial<ChatTurnEventData> & { content: string },
  history?: () => TurnHistory,
) {
  const turnId = randomUUID();
  const fn = functions.createChatTurnFunction(t.app.inngest(), {
    ...t.app,
    ...(history && { history }),
    publisher: {
      chunks: async (id, messages) => void published.push(...messages.map((chunk) => ({ turnId: id, chunk }))),
      refused: async (id, refused) => void published.push({ turnId: id, refused }),
    },
  });
  const event = {
    name: CHAT_TURN_EVENT,
    data: turnEventData({ turnId, owner, ...data }),
  };
  // The engine always runs attempt 0; a retry is the same run with the next attempt number.
  const at = (attempt: number) =>
    new InngestTestEngine({ function: fn, events: [event], transformCtx: (ctx) => ({ ...ctx, attempt }) });
  return { turnId, t: at(0), at };
}

async function rows(threadId: string) {
  const { rows } = await t.pool.query("SELECT kind, content FROM messages WHERE thread_id = $1 ORDER BY seq", [threadId]);
  return rows;
}

describe("the chat function under Inngest", () => {
  it("runs a whole turn: rows written, chunks published in order, a result returned", async () => {
    const { turnId, t } = engine({ content: "durable hello" });
    const { result, error } = await t.execute();
    expect(error).toBeUndefined();
    const { threadId, status, historySource, replyId } = result as Record<string, unknown>;
    expect(status).toBe("complete");
    expect(historySource).toBe("new");
    const reply = 'You said: "durable hello". I can see 1 user message(s) and 0 assistant message(s) in this conversation.';
    expect(await rows(threadId as string)).toEqual([
      { kind: "user", content: "durable hello" },
      { kind: "assistant", content: reply },
    ]);
    expect(published.every((p) => p.turnId === turnId)).toBe(true);
    const chunks = published.map((p) => p.chunk!.chunk);
    const types = chunks.map((c) => c.type);
    // The user's message is signed once the history is known; the reply once it is stored.
    expect(types.slice(0, 7)).toEqual(["data-thread", "data-history", "data-signatures", "start", "start-step", "data-agent", "text-start"]);
    expect(types.slice(-4)).toEqual(["text-end", "finish-step", "data-signatures", "finish"]);
    const signed = chunks.flatMap((c) => (c.type === "data-signatures" && "data" in c ? (c.data as { signatures: { id: string }[] }).signatures : []));
    expect(signed.map((s) => s.id)).toEqual([expect.any(String), replyId]);
    expect(chunks.map((c) => (c.type === "text-delta" ? c.delta : "")).join("")).toBe(reply);
    expect(chunks.find((c) => c.type === "start")).toMatchObject({ messageId: replyId });
    // Every chunk a streaming step published names that step.
    expect(new Set(published.filter((p) => p.chunk!.chunk.type.startsWith("text-")).map((p) => p.chunk!.step))).toEqual(new Set(["model:0:Triage:0"]));
  });
});

describe("retries and replays", () => {
  it("a model call that breaks off once is retried: one user message, one reply, the retry's chunks tagged", async () => {
    const { at } = engine({ content: "[[flaky-mid]] try again" });
    const { result, error, attempts } = await executeWithRetries(at);
    expect(error).toBeUndefined();
    expect(attempts).toBe(2);
    const threadId = (result as { threadId: string }).threadId;
    const stored = await rows(threadId);
    expect(stored.map((r) => r.kind)).toEqual(["user", "assistant"]);
    expect(stored[1].content).toContain('You said: "[[flaky-mid]] try again"');
    expect(t.mock.requests).toHaveLength(2);
    const tagged = new Set(published.filter((p) => p.chunk?.chunk.type === "text-delta").map((p) => p.chunk!.attempt));
    expect([...tagged].sort()).toEqual([0, 1]);
  });
});

describe("more retries and replays", () => {
  it("a database write that fails once is retried: exactly one user message and one reply", async () => {
    const real = new PostgresHistoryAdapter(t.pool);
    const failures = { user: 0, results: 0 };
    // Opening the turn stores the user's message: the write lands but the step still fails (a lost connection after COMMIT).
    const turns: TurnStore = Object.assign(Object.create(real.turns), {
      openTurn: async (ctx: Parameters<TurnStore["openTurn"]>[0]) => {
        const opened = await real.turns.openTurn(ctx);
        if (failures.user++ === 0) throw new Error("connection lost after commit");
        return opened;
      },
    });
    const flaky: TurnHistory = {
      turns,
      summaries: real.summaries,
      titles: real.titles,
      get: (ctx) => real.get(ctx),
      appendUserMessage: (ctx) => real.appendUserMessage(ctx),
      appendResults: async (ctx) => {
        await real.appendResults(ctx);
        if (failures.results++ === 0) throw new Error("connection lost after commit");
      },
    };
    const { at } = engine({ content: "write me once" }, () => flaky);
    const { result, error, attempts } = await executeWithRetries(at);
    expect(error).toBeUndefined();
    expect(attempts).toBe(3);
    const stored = await rows((result as { threadId: string }).threadId);
    expect(stored.map((r) => r.kind)).toEqual(["user", "assistant"]);
    expect(t.mock.requests).toHaveLength(1);
  });

  it("a whole replay of a finished run writes nothing and publishes nothing", async () => {
    const { at } = engine({ content: "replay me" });
    const first = await at(0).execute();
    const threadId = (first.result as { threadId: string }).threadId;
    const before = await rows(threadId);
    const requestsBefore = t.mock.requests.length;
    published = [];

    const replay = await at(0).execute({ steps: await memoized(first.state as Record<string, Promise<unknown>>) });
    expect(replay.error).toBeUndefined();
    expect(replay.result).toEqual(first.result);
    expect(await rows(threadId)).toEqual(before);
    expect(t.mock.requests).toHaveLength(requestsBefore);
    expect(published).toEqual([]);
  });

  it("another owner's thread is refused at once, without retries and without rows", async () => {
    const real = new PostgresHistoryAdapter(t.pool);
    const { threadId } = await real.createThread({ owner: "someone-else" });
    const { at, turnId } = engine({ content: "let me in", threadId });
    const { error, attempts } = await executeWithRetries(at);
    expect(error).toBeDefined();
    expect(attempts).toBe(1);
    expect(published).toEqual([{ turnId, refused: { code: "not_found:thread", message: "Thread not found." } }]);
    expect(await rows(threadId)).toEqual([]);
  });
});

describe("tools under retries", () => {
  it("a tool step that fails once runs to one stored result, a retried model step runs no tool again, and the client sees no failed attempt's parts", async () => {
    const { createNetwork } = await import("@/lib/agent/network/network");
    const { defineTool } = await import("@/lib/agent/network/tools/types");
    const { z } = await import("zod");
    const { MockLanguageModelV3 } = await import("ai/test");
    let executions = 0;
    const counter = defineTool({
      name: "counter",
      description: "Counts its runs.",
      input: z.object({}),
      async execute() {
        return { run: ++executions };
      },
    });
    // 1st call: a tool call. 2nd call: some text, then the connection breaks (once). 3rd call: the answer.
    let calls = 0;
    const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
    const model = new MockLanguageModelV3({
      doStream: async () => {
        const n = ++calls;
        return {
          stream: new ReadableStream({
            start(controller) {
              controller.enqueue({ type: "stream-start", warnings: [] });
              if (n === 1) {
                controller.enqueue({ type: "tool-call", toolCallId: "c1", toolName: "counter", input: "{}" });
                controller.enqueue({ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage });
                return controller.close();
              }
              controller.enqueue({ type: "text-start", id: "t" });
              controller.enqueue({ type: "text-delta", id: "t", delta: n === 2 ? "half an answ" : "The count is in." });
              if (n === 2) return controller.error(new Error("socket hang up"));
              controller.enqueue({ type: "text-end", id: "t" });
              controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
              controller.close();
            },
          }),
        };
      },
    });
    let toolOutputsPublished = 0;
    const fn = functions.createChatTurnFunction(t.app.inngest(), {
      ...t.app,
      network: () => createNetwork({ model, agents: [{ name: "Expert", system: "", tools: [counter], maxSteps: 3 }] }),
      publisher: {
        chunks: async (id, messages) => {
          // Realtime refuses the tool's output the first time: the tool step fails and is retried.
          if (messages.some((m) => m.chunk.type === "tool-output-available") && toolOutputsPublished++ === 0) throw new Error("realtime publish failed");
          published.push(...messages.map((chunk) => ({ turnId: id, chunk })));
        },
        refused: async (id, refused) => void published.push({ turnId: id, refused }),
      },
    });
    const turnId = randomUUID();
    const event = { name: CHAT_TURN_EVENT, data: turnEventData({ turnId, owner, content: "count" }) };
    const at = (attempt: number) => new InngestTestEngine({ function: fn, events: [event], transformCtx: (ctx) => ({ ...ctx, attempt }) });
    const { result, error, attempts } = await executeWithRetries(at);
    expect(error).toBeUndefined();
    expect(attempts).toBe(3); // the tool step's failure, the model step's failure, then through
    // The tool ran twice only because its first run's step failed; the model step's retry ran it no more.
    expect(executions).toBe(2);
    expect(calls).toBe(3);
    const stored = await rows((result as { threadId: string }).threadId);
    expect(stored.map((r) => r.kind)).toEqual(["user", "tool_call", "tool_result", "assistant"]);
    expect(JSON.parse(stored[2].content)).toMatchObject({ toolCallId: "c1", output: { run: 2 } });
    expect(stored[3].content).toBe("The count is in.");

    // What the browser shows after the runtime's filter: one tool card with its output, the retried text once.
    const { AttemptFilter } = await import("@/lib/live/attempt-filter");
    const { withoutRetriedParts } = await import("@/lib/client/retried-parts");
    const { readUIMessageStream } = await import("ai");
    const filter = new AttemptFilter();
    const chunks = published.flatMap((p) => (p.chunk ? filter.accept(p.chunk) : []));
    const notices = chunks.flatMap((c) => (c.type === "data-retry" ? [(c as { data: { step: string; attempt: number } }).data] : []));
    expect(notices.map((n) => n.step)).toEqual(["model:0:Expert:1"]);
    let last: import("@/lib/protocol/chat").ChatMessage | undefined;
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    for await (const message of readUIMessageStream<import("@/lib/protocol/chat").ChatMessage>({ stream })) last = message;
    const shown = withoutRetriedParts(last!.parts, notices).filter((p) => p.type === "text" || p.type === "dynamic-tool");
    expect(shown.map((p) => (p.type === "text" ? p.text : `${p.toolName}:${p.state}`))).toEqual(["counter:output-available", "The count is in."]);
  });
});
