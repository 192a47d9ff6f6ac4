import { describe, expect, it } from "vitest";
import type { Part } from "@threadline/history/parts";
import { toUIParts, UI_METADATA_KEY } from "@/lib/protocol/parts-codec";
import { asksInside, buildTimeline, type TimelineItem } from "@/components/chat/timeline";
import { messageText, type ChatMessage } from "@/lib/client/messages";

// A reply in which Triage calls Researcher as a sub-agent: the page nests
// what Researcher did under the call, whether the reply comes back from the
// store or arrives as the stream builds it, and the reply's text (what Copy
// copies) is the caller's alone.

const inside = { parentCallId: "call-1", rootCallId: "call-1" };
const TASK = "What is 6 * 7?";
const stored: Part[] = [
  { type: "tool-call", toolCallId: "call-1", toolName: "call_agent", input: { agent: "Researcher", task: TASK }, agentName: "Triage" },
  { type: "reasoning", text: "Arithmetic.", agentName: "Researcher", ...inside },
  { type: "tool-call", toolCallId: "calc-1", toolName: "calculate", input: { expression: "6 * 7" }, agentName: "Researcher", ...inside },
  { type: "tool-result", toolCallId: "calc-1", toolName: "calculate", output: { value: 42 }, agentName: "Researcher", ...inside },
  { type: "text", text: "It is 42.", agentName: "Researcher", ...inside },
  { type: "tool-result", toolCallId: "call-1", toolName: "call_agent", output: { agent: "Researcher", result: "It is 42." }, agentName: "Triage" },
  { type: "text", text: "Researcher says the answer is 42.", agentName: "Triage" },
];

const kinds = (items: TimelineItem[]) => items.map((item) => item.kind);

describe("a sub-agent's call in the timeline", () => {
  it("nests the sub-agent's parts under its call, in one section of the caller, with its task and result", () => {
    const sections = buildTimeline(toUIParts(stored));
    expect(sections.map((s) => s.agent)).toEqual(["Triage"]);
    expect(kinds(sections[0].items)).toEqual(["sub-agent", "text"]);
    const call = sections[0].items[0];
    if (call.kind !== "sub-agent") throw new Error("not a sub-agent call");
    expect(call.call).toMatchObject({ agent: "Researcher", task: TASK, result: "It is 42." });
    expect(kinds(call.call.items)).toEqual(["reasoning", "tool", "text"]);
  });

  it("nests the parts as they stream, and names no new speaker for the sub-agent's announcement", () => {
    const meta = { [UI_METADATA_KEY]: inside };
    const streaming: ChatMessage["parts"] = [
      { type: "data-agent", data: { name: "Triage" } },
      { type: "dynamic-tool", toolCallId: "call-1", toolName: "call_agent", state: "input-available", input: { agent: "Researcher", task: TASK } },
      { type: "data-agent", data: { name: "Researcher" } },
    ];
    // The sub-agent is announced and has written nothing yet: no Researcher section opens.
    expect(buildTimeline(streaming).map((s) => s.agent)).toEqual(["Triage"]);

    streaming.push(
      { type: "text", text: "Working", state: "streaming", providerMetadata: meta },
      { type: "dynamic-tool", toolCallId: "calc-1", toolName: "calculate", state: "input-available", input: {}, callProviderMetadata: meta },
    );
    const [section] = buildTimeline(streaming);
    expect(kinds(section.items)).toEqual(["sub-agent"]);
    const call = section.items[0];
    if (call.kind !== "sub-agent") throw new Error("not a sub-agent call");
    expect(call.call.result).toBeUndefined();
    expect(kinds(call.call.items)).toEqual(["text", "tool"]);
  });

  it("says when a call inside waits for the user's approval", () => {
    const asking: Part[] = [
      stored[0],
      { type: "tool-call", toolCallId: "r-1", toolName: "schedule_reminder", input: { at: "2030-01-01T09:00", text: "x" }, approval: { id: "7f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8" }, agentName: "Researcher", ...inside },
    ];
    const call = buildTimeline(toUIParts(asking))[0].items[0];
    if (call.kind !== "sub-agent") throw new Error("not a sub-agent call");
    expect(asksInside(call.call)).toBe(true);
    const done = buildTimeline(toUIParts(stored))[0].items[0];
    if (done.kind !== "sub-agent") throw new Error("not a sub-agent call");
    expect(asksInside(done.call)).toBe(false);
  });

  it("leaves the sub-agent's text out of the reply's own text", () => {
    expect(messageText({ parts: toUIParts(stored) })).toBe("Researcher says the answer is 42.");
  });
});
