import { describe, expect, it } from "vitest";
import type { Part } from "@threadline/history/parts";
import { afterDecision } from "@/lib/client/after-decision";
import { toChatMessage } from "@/lib/client/messages";
import type { HistoryMessage } from "@/lib/protocol/threads";

// What the page shows once the server took a decision: the waiting reply
// makes way for its continuation, unless other calls of it still wait.

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";
const ask = (id: string, approval: string): Part => ({ type: "tool-call", toolCallId: id, toolName: "calculate", input: { expression: "1 + 1" }, approval: { id: approval } });
const message = (id: string, role: HistoryMessage["role"], seq: number, parts: Part[], status: HistoryMessage["status"] = "complete") =>
  toChatMessage({ id, role, seq, createdAt: "2026-11-26T10:00:00.000Z", status, parts });

const user = message("u1", "user", 1, [{ type: "text", text: "add" }]);

describe("after a decision", () => {
  it("takes the waiting reply out and follows its continuation when it was the reply's last call", () => {
    const reply = message("a1", "assistant", 2, [ask("c1", A)], "waiting");
    expect(afterDecision([user, reply], A, { approved: true })).toEqual({ follow: true, messages: [user] });
  });

  it("keeps the reply while its other calls still wait, the decided one responded", () => {
    const reply = message("a1", "assistant", 2, [ask("c1", A), ask("c2", B)], "waiting");
    const next = afterDecision([user, reply], A, { approved: false, reason: " no " });
    expect(next.follow).toBe(false);
    const tools = next.messages[1].parts.filter((p) => p.type === "dynamic-tool");
    expect(tools.map((t) => t.state)).toEqual(["approval-responded", "approval-requested"]);
    expect(tools[0]).toMatchObject({ approval: { id: A, approved: false, reason: "no" } });
    // The reply of the thread before it is left as it was.
    expect(next.messages[0]).toBe(user);
  });

  it("follows whatever runs when the page no longer shows the call", () => {
    const reply = message("a1", "assistant", 2, [{ type: "text", text: "done" }]);
    expect(afterDecision([user, reply], A, { approved: true })).toEqual({ follow: true, messages: [user, reply] });
  });
});
