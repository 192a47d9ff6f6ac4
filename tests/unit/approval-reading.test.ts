import { describe, expect, it } from "vitest";
import type { UIMessageChunk } from "ai";
import type { Part } from "@threadline/history/parts";
import { denialText } from "@threadline/history/approvals";
import { ReplyMessage } from "@/lib/client/reply-message";
import { fromUIParts, toUIParts } from "@/lib/protocol/parts-codec";
import type { DataPart } from "@/lib/client/messages";

// A reply that goes on after the user decided on its tool call, read live
// from the thread's stream (its stored parts replayed, then the decision and
// the result, then the agent's next words), must be the reply the page shows
// once it is read back from the server: the same parts, and the same parts
// again when the page sends its copy back under the server's signature.

const APPROVAL = "0b7e4c1e-5f0a-4d8e-9c11-2f6a5d3b9a01";
const call: Part = { type: "tool-call", toolCallId: "c1", toolName: "calculate", input: { expression: "6 * 7" }, approval: { id: APPROVAL } };

/** The continuation's stream as the server writes it: the waiting reply replayed, then `decided`, then a closing text. */
function continuation(decided: UIMessageChunk[]): UIMessageChunk[] {
  return [
    { type: "start", messageId: "a1" },
    { type: "start-step" },
    { type: "tool-input-available", toolCallId: "c1", toolName: "calculate", input: { expression: "6 * 7" }, dynamic: true },
    { type: "tool-approval-request", toolCallId: "c1", approvalId: APPROVAL },
    { type: "finish-step" },
    ...decided,
    { type: "start-step" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Done." },
    { type: "text-end", id: "t" },
    { type: "finish-step" },
    { type: "finish", finishReason: "stop" },
  ];
}

function read(chunks: UIMessageChunk[]) {
  const reply = new ReplyMessage("local", true);
  const data: DataPart[] = [];
  for (const chunk of chunks) reply.apply(chunk, (part) => data.push(part));
  return { message: reply.message, data };
}

const toolOf = (parts: ReturnType<typeof read>["message"]["parts"]) => parts.find((p) => p.type === "dynamic-tool");
const news = (outcome: string, reason?: string): UIMessageChunk =>
  ({ type: "data-approval", data: { toolCallId: "c1", id: APPROVAL, outcome, ...(reason ? { reason } : {}) }, transient: true }) as UIMessageChunk;

describe("reading a decision on a tool call", () => {
  it("an approved call: responded, then its result, with the approval the stored reply keeps", () => {
    const reply = new ReplyMessage("local", true);
    const chunks = continuation([news("approved"), { type: "tool-output-available", toolCallId: "c1", output: { result: "42" }, dynamic: true }]);
    const states: string[] = [];
    for (const chunk of chunks) {
      reply.apply(chunk);
      const tool = toolOf(reply.message.parts);
      if (tool && tool.type === "dynamic-tool" && states.at(-1) !== tool.state) states.push(tool.state);
    }
    expect(states).toEqual(["input-available", "approval-requested", "approval-responded", "output-available"]);
    const stored: Part[] = [call, { type: "tool-result", toolCallId: "c1", toolName: "calculate", output: { result: "42" }, approval: { id: APPROVAL, outcome: "approved" } }, { type: "text", text: "Done." }];
    expect(toolOf(reply.message.parts)).toEqual(toolOf(toUIParts(stored)));
    expect(fromUIParts(reply.message.parts)).toEqual(stored);
  });

  for (const [outcome, reason] of [["denied", "not now"], ["denied", undefined], ["expired", undefined], ["stopped", undefined], ["moved_on", undefined]] as const) {
    it(`a call ${outcome}${reason ? " with a reason" : ""}: denied in the shape a reload gives, the model's words kept`, () => {
      const { message, data } = read(continuation([news(outcome, reason), { type: "tool-output-denied", toolCallId: "c1" }]));
      const stored: Part[] = [
        call,
        { type: "tool-result", toolCallId: "c1", toolName: "calculate", error: denialText(outcome, reason), approval: { id: APPROVAL, outcome, ...(reason ? { reason } : {}) } },
        { type: "text", text: "Done." },
      ];
      expect(toolOf(message.parts)).toEqual(toolOf(toUIParts(stored)));
      expect(fromUIParts(message.parts)).toEqual(stored);
      // The page hears of it too, and the part is no data part of the reply.
      expect(data.map((d) => d.type)).toEqual(["data-approval"]);
      expect(message.parts.some((p) => p.type === "data-approval")).toBe(false);
    });
  }

  it("refuses a decision on a call the reply never held", () => {
    const reply = new ReplyMessage("local", true);
    reply.apply({ type: "start", messageId: "a1" });
    expect(() => reply.apply(news("denied"))).toThrow(/does not hold/);
  });
});
