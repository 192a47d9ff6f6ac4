import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that streams the given words and records every prompt it was called with. */
export function scriptedModel(words: string[], options: { failWith?: Error; delayMs?: number } = {}) {
  const prompts: LanguageModelV3CallOptions["prompt"][] = [];
  const model = new MockLanguageModelV3({
    doStream: async (call) => {
      prompts.push(call.prompt);
      if (options.failWith) throw options.failWith;
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...words.map((w): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta: w })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: options.delayMs ?? 0 }) };
    },
  });
  return { model, prompts };
}

/** One model call's answer: reasoning, then text, then tool calls (any of them). */
export interface ScriptedCall {
  reasoning?: string;
  text?: string[];
  toolCalls?: { toolCallId?: string; toolName: string; input: unknown }[];
}

/**
 * A model that answers its n-th call with the n-th script (the last one
 * again when it runs out), and records every prompt and the tools it was offered.
 */
export function scriptedCalls(script: ScriptedCall[]) {
  const prompts: LanguageModelV3CallOptions["prompt"][] = [];
  const tools: string[][] = [];
  let calls = 0;
  const model = new MockLanguageModelV3({
    doStream: async (call) => {
      prompts.push(call.prompt);
      tools.push((call.tools ?? []).map((t) => t.name));
      const turn = script[Math.min(calls, script.length - 1)];
      const n = ++calls;
      const chunks: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (turn.reasoning) {
        chunks.push({ type: "reasoning-start", id: "r" }, { type: "reasoning-delta", id: "r", delta: turn.reasoning }, { type: "reasoning-end", id: "r" });
      }
      if (turn.text) {
        chunks.push({ type: "text-start", id: "t" }, ...turn.text.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "t", delta })), { type: "text-end", id: "t" });
      }
      (turn.toolCalls ?? []).forEach((toolCall, i) => {
        const id = toolCall.toolCallId ?? `call-${n}-${i}`;
        const input = JSON.stringify(toolCall.input);
        chunks.push(
          { type: "tool-input-start", id, toolName: toolCall.toolName },
          { type: "tool-input-delta", id, delta: input },
          { type: "tool-input-end", id },
          { type: "tool-call", toolCallId: id, toolName: toolCall.toolName, input },
        );
      });
      const finishReason = turn.toolCalls?.length ? { unified: "tool-calls" as const, raw: "tool_calls" } : { unified: "stop" as const, raw: "stop" };
      chunks.push({ type: "finish", finishReason, usage });
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 0 }) };
    },
  });
  return { model, prompts, tools };
}
