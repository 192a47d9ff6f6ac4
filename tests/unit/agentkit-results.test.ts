import { AgentResult, type Message, type ToolResultMessage } from "@inngest/agent-kit";
import { describe, expect, it } from "vitest";
import { messagesToResults, resultsToParts } from "../../packages/agentkit-history/src/agent-results";
import type { Part } from "@threadline/history/parts";
import type { StoredMessage } from "@/lib/protocol/threads";

// AgentKit's results and Threadline's parts, both ways, with AgentKit's real
// AgentResult class and its own formatter (State.formatHistory's default: each
// result's output, then its tool results) deciding what a provider would see.

const at = new Date("2026-01-02T03:04:05.000Z");
const call = (id: string, name: string, input: Record<string, unknown>): Message => ({
  type: "tool_call",
  role: "assistant",
  tools: [{ type: "tool", id, name, input }],
  stop_reason: "tool",
});
// As AgentKit builds it: the tool's input is left undefined on the result.
const result = (id: string, name: string, content: unknown): ToolResultMessage => ({
  type: "tool_result",
  role: "tool_result",
  tool: { type: "tool", id, name, input: undefined as unknown as Record<string, unknown> },
  content,
  stop_reason: "tool",
});
const text = (content: string): Message => ({ type: "text", role: "assistant", content, stop_reason: "stop" });
const stored = (id: string, role: StoredMessage["role"], parts: Part[], seq = 1): StoredMessage => ({
  id,
  seq,
  role,
  parts,
  createdAt: at.toISOString(),
  status: "complete",
});
/** What AgentKit sends the model for these results (its default formatter). */
const formatted = (results: AgentResult[]) => results.flatMap((r) => [...r.output, ...r.toolCalls]);

describe("a run's results as parts", () => {
  it("keeps the order the network produced: each result's output, then its tool results, each tagged with its agent", () => {
    const parts = resultsToParts([
      new AgentResult("Researcher", [text("Let me add."), call("c1", "add", { a: 1, b: 2 })], [result("c1", "add", { data: 3 })], at),
      new AgentResult("Writer", [text("It is 3.")], [], at),
    ]);
    expect(parts).toEqual([
      { type: "text", text: "Let me add.", agentName: "Researcher" },
      { type: "tool-call", toolCallId: "c1", toolName: "add", input: { a: 1, b: 2 }, agentName: "Researcher" },
      { type: "tool-result", toolCallId: "c1", toolName: "add", output: 3, agentName: "Researcher" },
      { type: "text", text: "It is 3.", agentName: "Writer" },
    ]);
  });

  it("stores a tool that threw as the error the model was told, text given as pieces as one text, and no empty text", () => {
    const parts = resultsToParts([
      new AgentResult(
        "A",
        [{ type: "text", role: "assistant", content: [{ type: "text", text: "one " }, { type: "text", text: "two" }] }, text(""), call("c1", "fail", {})],
        [result("c1", "fail", { error: { name: "Error", message: "boom", stack: "Error: boom\n    at x" } })],
        at,
      ),
    ]);
    expect(parts).toEqual([
      { type: "text", text: "one two", agentName: "A" },
      { type: "tool-call", toolCallId: "c1", toolName: "fail", input: {}, agentName: "A" },
      { type: "tool-result", toolCallId: "c1", toolName: "fail", error: "boom", agentName: "A" },
    ]);
  });
});

describe("a thread's messages as results", () => {
  it("gives user messages back as results of agent 'user', and the round trip keeps what a provider sees", () => {
    const produced = [
      new AgentResult("Researcher", [call("c1", "add", { a: 1, b: 2 })], [result("c1", "add", { data: 3 })], at),
      new AgentResult("Researcher", [text("It is 3.")], [], at),
    ];
    const back = messagesToResults([
      stored("u1", "user", [{ type: "text", text: "What is 1 + 2?" }], 1),
      stored("r1", "assistant", resultsToParts(produced), 2),
    ]);
    expect(back.map((r) => r.agentName)).toEqual(["user", "Researcher", "Researcher"]);
    expect(back[0].output).toEqual([{ type: "text", role: "user", content: "What is 1 + 2?" }]);
    expect(back[0].id).toBe("u1");
    expect(back[1].id).toBe("r1");
    // The call comes back with its result (and the input AgentKit left off the result), then the text.
    expect(formatted(back.slice(1))).toEqual([
      call("c1", "add", { a: 1, b: 2 }),
      { ...result("c1", "add", { data: 3 }), tool: { type: "tool", id: "c1", name: "add", input: { a: 1, b: 2 } } },
      text("It is 3."),
    ]);
    expect(back.every((r) => r instanceof AgentResult && r.createdAt.getTime() === at.getTime())).toBe(true);
  });

  it("starts a new result where the agent changes, or where text or a call follows tool results", () => {
    const back = messagesToResults([
      stored("r1", "assistant", [
        { type: "text", text: "Handing over.", agentName: "Triage" },
        { type: "tool-call", toolCallId: "c1", toolName: "add", input: { a: 1 }, agentName: "Researcher" },
        { type: "tool-result", toolCallId: "c1", toolName: "add", output: 1, agentName: "Researcher" },
        { type: "tool-call", toolCallId: "c2", toolName: "add", input: { a: 2 }, agentName: "Researcher" },
        { type: "tool-result", toolCallId: "c2", toolName: "add", error: "no", agentName: "Researcher" },
        { type: "text", text: "Done.", agentName: "Researcher" },
      ]),
    ]);
    expect(back.map((r) => [r.agentName, r.output.map((m) => m.type), r.toolCalls.map((t) => t.tool.id)])).toEqual([
      ["Triage", ["text"], []],
      ["Researcher", ["tool_call"], ["c1"]],
      ["Researcher", ["tool_call"], ["c2"]],
      ["Researcher", ["text"], []],
    ]);
    expect(back[2].toolCalls[0].content).toEqual({ error: "no" });
    // Every call the provider sees is answered before anything else comes.
    const sequence = formatted(back).map((m) => (m.type === "tool_call" ? `call:${m.tools[0].id}` : m.type === "tool_result" ? `result:${m.tool.id}` : "text"));
    expect(sequence).toEqual(["text", "call:c1", "result:c1", "call:c2", "result:c2", "text"]);
  });

  it("puts a result right after its call even when text came between them, as the app does for its model", () => {
    const back = messagesToResults([
      stored("r1", "assistant", [
        { type: "tool-call", toolCallId: "c1", toolName: "add", input: {}, agentName: "A" },
        { type: "text", text: "Waiting…", agentName: "A" },
        { type: "tool-result", toolCallId: "c1", toolName: "add", output: 0, agentName: "A" },
      ]),
    ]);
    const sequence = formatted(back).map((m) => m.type);
    expect(sequence).toEqual(["tool_call", "tool_result", "text"]);
  });

  it("leaves out reasoning, hand-overs, a call without its result and a result without its call", () => {
    const back = messagesToResults([
      stored("r1", "assistant", [
        { type: "reasoning", text: "hmm", agentName: "A" },
        { type: "handoff", to: "B", agentName: "A" },
        { type: "tool-call", toolCallId: "lost", toolName: "add", input: {}, agentName: "A" },
        { type: "tool-result", toolCallId: "orphan", toolName: "add", output: 1, agentName: "A" },
        { type: "text", text: "Answer.", agentName: "A" },
      ]),
    ]);
    expect(formatted(back)).toEqual([text("Answer.")]);
  });

  it("gives the compaction summary back first, as a system message", () => {
    const back = messagesToResults([stored("u9", "user", [{ type: "text", text: "Next?" }], 9)], "Summary of earlier messages: said hi");
    expect(back.map((r) => r.agentName)).toEqual(["system", "user"]);
    expect(back[0].output).toEqual([{ type: "text", role: "system", content: "Summary of earlier messages: said hi" }]);
  });
});
