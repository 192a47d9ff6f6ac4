import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "@/lib/protocol/chat";
import { jsonDepth, MAX_JSON_DEPTH } from "@threadline/history/json-depth";
import { partSchema } from "@threadline/history/parts";

const valid = (value: unknown) => partSchema.safeParse(value).success;
const problems = (body: unknown) => {
  const result = chatRequestSchema.safeParse(body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
};

describe("the turn protocol's parts", () => {
  it("accepts every kind of part, each with or without its agent", () => {
    expect(valid({ type: "text", text: "hi" })).toBe(true);
    expect(valid({ type: "reasoning", text: "hmm", durationMs: 1200, agentName: "Researcher" })).toBe(true);
    expect(valid({ type: "tool-call", toolCallId: "c1", toolName: "calculate", input: { expression: "1+1" } })).toBe(true);
    expect(valid({ type: "tool-result", toolCallId: "c1", toolName: "calculate", output: { result: "2" } })).toBe(true);
    expect(valid({ type: "tool-result", toolCallId: "c1", toolName: "calculate", error: "bad input" })).toBe(true);
    expect(valid({ type: "handoff", to: "Researcher", reason: "needs tools", agentName: "Triage" })).toBe(true);
    expect(valid({ type: "notice", notice: "budget", text: "You have used your $2.00 for today.", resetsAt: "2026-11-30T00:00:00.000Z" })).toBe(true);
  });

  it("takes a budget's notice only in a reply, and only with words", () => {
    expect(valid({ type: "notice", notice: "budget", text: "" })).toBe(false);
    expect(valid({ type: "notice", notice: "weather", text: "sunny" })).toBe(false);
    const notice = { type: "notice", notice: "budget", text: "You have used your $2.00 for today." };
    const item = (role: string, parts: unknown[]) => ({ message: { id: "m3", content: "hi" }, history: [{ id: "m1", role, parts }] });
    expect(problems(item("assistant", [{ type: "text", text: "partly" }, notice]))).toEqual([]);
    expect(problems(item("user", [{ type: "text", text: "hi" }, notice]))).toEqual(["history.0.parts: only a reply may hold a notice"]);
  });

  it("refuses a part it does not know, a result with both or neither outcome, and malformed names", () => {
    expect(valid({ type: "image", url: "x" })).toBe(false);
    expect(valid({ type: "tool-result", toolCallId: "c1", toolName: "calculate", output: 1, error: "and an error" })).toBe(false);
    expect(valid({ type: "tool-result", toolCallId: "c1", toolName: "calculate" })).toBe(false);
    expect(valid({ type: "tool-call", toolCallId: "c1", toolName: "rm -rf /", input: {} })).toBe(false);
    expect(valid({ type: "tool-call", toolCallId: "", toolName: "calculate", input: {} })).toBe(false);
    expect(valid({ type: "tool-call", toolCallId: "c1", toolName: "calculate", input: { f: () => 1 } })).toBe(false);
    expect(valid({ type: "text", text: "hi", agentName: "<script>" })).toBe(false);
    expect(valid({ type: "handoff", to: "Researcher", reason: "" })).toBe(false);
    expect(valid({ type: "reasoning", text: "x", durationMs: -1 })).toBe(false);
  });

  it(`takes a tool's input and output nested ${MAX_JSON_DEPTH} deep and refuses deeper, however deep, without overflowing the stack`, () => {
    const nested = (depth: number) => {
      let value: unknown = "leaf";
      for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { v: value };
      return value;
    };
    const call = (input: unknown) => ({ type: "tool-call", toolCallId: "c1", toolName: "calculate", input });
    const result = (output: unknown) => ({ type: "tool-result", toolCallId: "c1", toolName: "calculate", output });
    expect(jsonDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
    expect(valid(call(nested(MAX_JSON_DEPTH)))).toBe(true);
    expect(valid(result(nested(MAX_JSON_DEPTH)))).toBe(true);
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      expect(valid(call(nested(depth))), String(depth)).toBe(false);
      expect(valid(result(nested(depth))), String(depth)).toBe(false);
    }
    expect(partSchema.safeParse(call(nested(MAX_JSON_DEPTH + 1))).error?.issues[0]).toMatchObject({
      path: ["input"],
      message: `must not nest objects and arrays more than ${MAX_JSON_DEPTH} deep`,
    });
  });
});

describe("the chat request", () => {
  const message = { id: "m1", content: "hello" };

  it("carries history as messages of parts, and reads the text-only shape of older clients as one text part", () => {
    const parsed = chatRequestSchema.parse({
      message,
      threadId: "22222222-2222-4222-8222-222222222222",
      history: [
        { id: "u1", role: "user", content: "earlier" },
        { id: "a1", role: "assistant", parts: [{ type: "tool-call", toolCallId: "c", toolName: "calculate", input: {} }] },
      ],
    });
    expect(parsed.history?.[0].parts).toEqual([{ type: "text", text: "earlier" }]);
    expect(parsed.history?.[1].parts[0]).toMatchObject({ type: "tool-call" });
  });

  it("names what is wrong with a bad history item", () => {
    expect(problems({ message, history: [{ id: "a", role: "assistant", parts: [{ type: "teleport" }] }] })).toEqual([
      expect.stringMatching(/^history\.0\.parts\.0\.type: /),
    ]);
    expect(problems({ message, history: [{ id: "a", role: "assistant" }] })).toEqual([expect.stringMatching(/^history\.0\.parts: must be an array of parts/)]);
    expect(problems({ message, history: [{ id: "a", role: "assistant", parts: Array(201).fill({ type: "text", text: "x" }) }] })).toEqual([
      "history.0.parts: must hold at most 200 parts",
    ]);
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(problems({ message, history: [{ id: "a", role: "assistant", parts: [{ type: "tool-call", toolCallId: "c", toolName: "calculate", input: deep }] }] })).toEqual([
      `history.0.parts.0.input: must not nest objects and arrays more than ${MAX_JSON_DEPTH} deep`,
    ]);
  });
});
