import { describe, expect, it } from "vitest";
import type { DynamicToolUIPart } from "ai";
import type { Part, ResultOutcome } from "@threadline/history/parts";
import { denialText } from "@threadline/history/approvals";
import { toUIParts } from "@/lib/protocol/parts-codec";
import { STOPPED_TOOL_ERROR } from "@/lib/protocol/tool-errors";
import { toolDisplayName, toolStatus } from "@/components/chat/tool-status";

// What a tool call's card says about a call that asked for the user's
// approval, as the stored reply gives it back (toUIParts), so a reload shows
// the same words as the page did live.

const APPROVAL = "7f3e2d1c-0b9a-4876-a5b4-c3d2e1f0a9b8";
const call: Part = { type: "tool-call", toolCallId: "c1", toolName: "schedule_reminder", input: { text: "stretch" }, approval: { id: APPROVAL } };

/** The call's UI part once its result is stored with `approval`'s outcome. */
function decided(outcome: ResultOutcome, reason?: string, result: Partial<Part> = {}): DynamicToolUIPart {
  const approval = { id: APPROVAL, outcome, ...(reason ? { reason } : {}) };
  const stored: Part =
    outcome === "approved"
      ? ({ type: "tool-result", toolCallId: "c1", toolName: "schedule_reminder", output: { scheduled: true }, approval, ...result } as Part)
      : { type: "tool-result", toolCallId: "c1", toolName: "schedule_reminder", error: denialText(outcome, reason), approval };
  return toUIParts([call, stored])[0] as DynamicToolUIPart;
}

const waiting = () => toUIParts([call])[0] as DynamicToolUIPart;
const idle = { streaming: false };

describe("a tool call that asks first", () => {
  it("waits for the user once its reply has ended: not stopped", () => {
    expect(toolStatus(waiting(), idle)).toEqual({ label: "Waiting for your approval", tone: "asking" });
  });

  it("says it waits while its reply is still being written", () => {
    expect(toolStatus(waiting(), { streaming: true })).toMatchObject({ label: "Waiting for approval", tone: "running" });
  });

  it("was skipped when a later message follows its reply", () => {
    expect(toolStatus(waiting(), { streaming: false, followed: true })).toEqual({ label: "Skipped: you moved on", tone: "muted" });
  });

  it("approved: says so, then how it went", () => {
    expect(toolStatus(decided("approved"), idle)).toEqual({ label: "Done", detail: "scheduled: true", tone: "done", approved: true });
    const failed = decided("approved", undefined, { output: undefined, error: "No such time" } as Partial<Part>);
    expect(toolStatus(failed, idle)).toMatchObject({ label: "Error", detail: "No such time", approved: true });
    const cut = decided("approved", undefined, { output: undefined, error: STOPPED_TOOL_ERROR } as Partial<Part>);
    expect(toolStatus(cut, idle)).toMatchObject({ label: "Stopped", approved: true });
  });

  it("denied: with the user's reason, or without one", () => {
    expect(toolStatus(decided("denied", "not today"), idle)).toEqual({ label: "Denied: not today", tone: "muted" });
    expect(toolStatus(decided("denied"), idle)).toEqual({ label: "Denied", tone: "muted" });
  });

  it("says why it did not run otherwise: expired, stopped, skipped because the user moved on, or copied by a fork undecided", () => {
    expect(toolStatus(decided("expired"), idle).label).toBe("Expired");
    expect(toolStatus(decided("stopped"), idle).label).toBe("Stopped");
    expect(toolStatus(decided("moved_on"), idle).label).toBe("Skipped: you moved on");
    expect(toolStatus(decided("forked"), idle)).toEqual({ label: "Not decided in the original thread", tone: "muted" });
  });

  it("decided on this page while the reply's other calls still wait", () => {
    const responded = (approved: boolean) => ({ ...waiting(), state: "approval-responded", approval: { id: APPROVAL, approved } }) as DynamicToolUIPart;
    expect(toolStatus(responded(true), idle)).toEqual({ label: "Approved", tone: "muted" });
    expect(toolStatus(responded(false), idle)).toEqual({ label: "Denied", tone: "muted" });
    expect(toolStatus(responded(true), { streaming: true })).toMatchObject({ label: "Running…", approved: true });
  });

  it("a call that never asked reads as before", () => {
    const plain = toUIParts([{ type: "tool-call", toolCallId: "c2", toolName: "calculate", input: {} }, { type: "tool-result", toolCallId: "c2", toolName: "calculate", output: 42 }])[0] as DynamicToolUIPart;
    expect(toolStatus(plain, idle)).toEqual({ label: "Done", detail: "42", tone: "done" });
    const unanswered = toUIParts([{ type: "tool-call", toolCallId: "c2", toolName: "calculate", input: {} }])[0] as DynamicToolUIPart;
    expect(toolStatus(unanswered, idle)).toEqual({ label: "Stopped", tone: "muted" });
  });
});

describe("a tool's name as the page shows it", () => {
  it("shows an MCP server's tool by its own name, with its server; a built-in tool as it is", () => {
    expect(toolDisplayName("notes__record_note")).toEqual({ name: "record_note", server: "notes" });
    expect(toolDisplayName("deep-wiki__ask__twice")).toEqual({ name: "ask__twice", server: "deep-wiki" });
    expect(toolDisplayName("schedule_reminder")).toEqual({ name: "schedule_reminder" });
    expect(toolDisplayName("__odd")).toEqual({ name: "__odd" });
    expect(toolDisplayName("odd__")).toEqual({ name: "odd__" });
  });
});
